"""The thesis training pipeline: metrics, target scaling, split/shuffle rule, training."""
import random

import chess
import numpy as np
import pytest

from chesslab import training
from chesslab.data import make_dataset, random_board
from chesslab.evaluation import (NetworkEvaluator, cp_to_target, material_balance,
                                 target_to_cp)
from chesslab.nn import ANN


def _material_dataset(n=400, seed=3):
    """Random positions labelled by the material balance: a rule a net can learn,
    no Stockfish needed. Every 4 positions share a game id (to exercise the split)."""
    rng = random.Random(seed)
    rows = []
    while len(rows) < n:
        board = random_board(rng, max_plies=120)
        if board is None:
            continue
        rows.append(dict(fen=board.fen(), cp=material_balance(board), wdl=(0, 1000, 0),
                         source="random", game_id=len(rows) // 4, ply=board.ply(),
                         result="*", sampled_by_rule=False))
    return make_dataset(rows)


@pytest.fixture(scope="module")
def tiny():
    return _material_dataset()


# ---------------------------------------------------------------- metrics

def test_metrics_on_hand_made_numbers():
    pred = [100, -200, 30, 2000]
    true = [150, -100, -80, 5000]          # clipped to +-1000: the last pair is exact
    m = training.metrics(pred, true)
    assert m["mae_cp"] == pytest.approx((50 + 100 + 110 + 0) / 4)
    assert m["sign_accuracy"] == pytest.approx(3 / 4)   # 30 vs -80 names the wrong side
    expected = np.corrcoef([100, -200, 30, 1000], [150, -100, -80, 1000])[0, 1]
    assert m["correlation"] == pytest.approx(expected)
    assert m["positions"] == 4


def test_accuracy_ignores_balanced_positions():
    # |true| <= 50 does not count, whatever the prediction says
    assert training.accuracy([-300, 10, 500], [40, -50, 60]) == 1.0
    assert np.isnan(training.accuracy([1, 2], [0, 50]))
    m = training.metrics(np.arange(10) * 3.0, np.arange(10) * 100.0)
    assert m["correlation"] == pytest.approx(1.0)


def test_metrics_reject_mismatched_arrays():
    with pytest.raises(ValueError, match="same length"):
        training.metrics([1, 2, 3], [1, 2])


@pytest.mark.parametrize("kind", ["tanh", "unit"])
def test_target_scaling_round_trip(kind):
    cp = np.array([-1500, -400, -50, 0, 30, 400, 1500])
    y = cp_to_target(cp, kind)
    low, high = (-1, 1) if kind == "tanh" else (0, 1)
    assert np.all((y > low) & (y < high))
    assert np.all(np.diff(y) > 0)
    np.testing.assert_allclose(target_to_cp(y, kind), cp, atol=1e-6)
    # mates are squashed to the edge and come back as a large but finite score
    assert 1500 < target_to_cp(cp_to_target(10_000, kind), kind) < 2500
    with pytest.raises(ValueError, match="target scaling"):
        cp_to_target(cp, "linear")


def test_logit_and_prob_targets_live_in_win_probability_space():
    cp = np.array([-1500, -400, -50, 0, 30, 400, 1500])
    np.testing.assert_allclose(target_to_cp(cp_to_target(cp, "logit"), "logit"), cp)
    np.testing.assert_allclose(target_to_cp(cp_to_target(cp, "prob"), "prob"), cp, atol=1e-6)
    p = training.training_target(cp, "logit")          # what sigmoid_mse compares with
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-cp / 400)))
    assert p[3] == 0.5 and training.loss_for("logit").__name__ == "sigmoid_mse"
    assert training.loss_for("tanh").__name__ == "mse"


# ---------------------------------------------------------------- the recipe's data steps

def test_quiet_leaf_plays_out_a_winning_capture_and_only_that():
    hanging = chess.Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")     # Rxd5 wins the queen
    leaf = training.quiet_leaf(hanging)
    assert leaf.board_fen() == "4k3/8/8/3R4/8/8/8/4K3" and leaf.turn == chess.BLACK
    defended = chess.Board("4k3/4p3/3p4/8/8/8/3Q4/4K3 w - - 0 1")   # Qxd6 exd6 loses
    assert training.quiet_leaf(defended).fen() == defended.fen()
    in_check = chess.Board("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1")
    assert training.quiet_leaf(in_check) is None
    assert hanging.fen() == "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"    # never changed


def test_training_positions_mirror_and_quiet(tiny):
    boards, cp = training.training_positions(tiny)
    assert len(boards) == len(tiny) and np.array_equal(cp, tiny.cp)
    boards2, cp2 = training.training_positions(tiny, mirror=True)
    n = len(tiny)
    assert len(boards2) == 2 * n and np.array_equal(cp2[n:], -cp2[:n])
    assert boards2[n].fen() == boards2[0].mirror().fen()
    quiet, qcp = training.training_positions(tiny, quiet=True)
    assert 0 < len(quiet) <= n and not any(b.is_check() for b in quiet)
    # material labels: a quiet leaf where a capture was played changed the balance
    changed = sum(material_balance(b) != c for b, c in zip(quiet, qcp))
    assert changed > 0


def test_side_to_move_view_mirrors_black_and_negates_its_score():
    white = chess.Board("4k3/8/8/8/8/8/3QK3/8 w - - 0 1")
    black = chess.Board("4k3/8/8/8/8/8/3QK3/8 b - - 0 1")
    boards, cp = training.network_view([white, black], [900, 900], "side_to_move")
    assert boards[0] is white and boards[1].turn == chess.WHITE
    assert boards[1].fen() == black.mirror().fen() and cp.tolist() == [900, -900]
    # an evaluator with that perspective scores a mirrored position as the negation
    ev = NetworkEvaluator(ANN.from_topology([896, 8, 1], seed=1), "planes14_flat",
                          perspective="side_to_move")
    rng = random.Random(5)
    for _ in range(5):
        board = random_board(rng, max_plies=40)
        if board is not None:
            assert ev.evaluate(board.mirror()) == pytest.approx(-ev.evaluate(board), abs=1e-3)


def test_the_recipe_trains_the_nnue_and_refuses_a_white_view(tiny):
    config = training.TrainConfig(epochs=3, batch_size=64, perspective="side_to_move",
                                  target="wdl", quiet=True, mirror=True)
    result = training.train_net("nnue", tiny, config, progress=False)
    assert result.kind == "logit" and result.history.train_loss[-1] < result.history.train_loss[0]
    assert result.test["positions"] > 0
    with pytest.raises(ValueError, match="side to move"):
        training.train_net("nnue", tiny, training.TrainConfig(epochs=1), progress=False)


def test_extra_plies_is_the_switch_for_the_shallower_labels(tiny):
    ds = tiny.subset(np.arange(len(tiny)))
    ds.metadata["depth"] = 10
    ds.depth = np.where(np.arange(len(ds)) % 3 == 0, 8, 10).astype(np.int8)
    train = training.split(ds)[0]
    main = int(np.sum(train.depth == 10))
    assert 0 < main < len(train)
    for extra, expected in ((False, main), (True, len(train))):
        config = training.TrainConfig(epochs=1, batch_size=64, extra_plies=extra)
        result = training.train_net("ann64", ds, config, progress=False)
        assert result.train_examples == expected


def test_search_metrics_split_by_side_to_move(tiny):
    out = training.search_metrics("material", tiny, depth=1, sample=60)
    assert out["all"]["positions"] == 60
    assert out["white_to_move"]["positions"] + out["black_to_move"]["positions"] == 60
    assert 0 <= out["all"]["mae_cp"] < 300          # labels are material: search sees most


# ---------------------------------------------------------------- the pipeline rules

def test_split_keeps_games_together_and_shuffle_is_a_permutation(tiny):
    train, val, test = training.split(tiny)
    assert len(train) + len(val) + len(test) == len(tiny)
    ids = [set(part.game_id.tolist()) for part in (train, val, test)]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    order = training.shuffle(len(train), np.random.default_rng(0))
    assert sorted(order.tolist()) == list(range(len(train)))
    assert order.tolist() != list(range(len(train)))


def test_only_the_training_part_is_shuffled(tiny, monkeypatch):
    train, val, _ = training.split(tiny)
    x, x_val = (training.encode_dataset(d, "thesis64") for d in (train, val))
    x_val_before, cp_val_before = x_val.copy(), val.cp.copy()
    calls = []
    real = training.shuffle

    def spy(n, rng):
        calls.append(n)
        return real(n, rng)

    monkeypatch.setattr(training, "shuffle", spy)
    model = ANN.from_topology([64, 16, 1], seed=0)
    config = training.TrainConfig(epochs=3, batch_size=32, patience=10)
    history = training.fit(model, (x, train.cp), (x_val, val.cp), config, progress=False)
    assert calls == [len(train)] * 3            # one shuffle per epoch, training part only
    np.testing.assert_array_equal(x_val, x_val_before)
    np.testing.assert_array_equal(val.cp, cp_val_before)
    # the recorded validation loss is the loss on the validation part in its own order
    out = training.validate(model, x_val)
    best = history.val_loss[history.best_epoch - 1]
    assert np.mean((out - cp_to_target(val.cp)) ** 2) == pytest.approx(best, rel=1e-5)


def test_training_on_a_tiny_set_lowers_the_loss(tiny):
    config = training.TrainConfig(epochs=8, batch_size=32, lr=0.003, patience=8)
    result = training.train_net("ann", tiny, config, progress=False)
    h = result.history
    assert len(h.epoch) == 8 and h.stop_reason.startswith("maximum")
    assert h.train_loss[-1] < 0.7 * h.train_loss[0]
    assert min(h.val_loss) < h.val_loss[0]
    assert result.test["positions"] > 0 and 0 <= result.test["sign_accuracy"] <= 1


def test_stops_when_accuracy_is_acceptable_or_patience_runs_out(tiny):
    train, val, _ = training.split(tiny)
    data = [(training.encode_dataset(d, "thesis64"), d.cp) for d in (train, val)]
    model = ANN.from_topology([64, 8, 1], seed=1)
    h = training.fit(model, *data, training.TrainConfig(epochs=10, target_accuracy=0.0),
                     progress=False)
    assert len(h.epoch) == 1 and "acceptable" in h.stop_reason
    # a learning rate of 0 never improves: early stopping after `patience` epochs, and
    # the plateau rule halves the learning rate every `lr_patience` epochs on the way
    config = training.TrainConfig(epochs=20, lr=0.0, patience=4, lr_patience=2)
    h = training.fit(ANN.from_topology([64, 8, 1], seed=1), *data, config, progress=False)
    assert len(h.epoch) == 5 and h.stop_reason.startswith("early stopping")
    assert h.best_epoch == 1


def test_save_load_round_trip_keeps_scores_and_history(tiny, tmp_path):
    config = training.TrainConfig(epochs=2, batch_size=64)
    result = training.train_net("cnn", tiny, config, progress=False)
    path = training.save_result(result, tmp_path / "cnn.json", {"file": "tiny"})
    loaded = NetworkEvaluator.from_file(path)
    boards = tiny.boards()[:20]
    expected = NetworkEvaluator(result.model, "planes14", "tanh").evaluate_batch(boards)
    np.testing.assert_allclose(loaded.evaluate_batch(boards), expected, rtol=1e-5, atol=1e-3)
    assert loaded.encoding == "planes14" and loaded.name == "cnn"
    history = training.load_history("cnn", tmp_path)
    assert history.epoch == [1, 2] and history.val_loss == result.history.val_loss


def test_unknown_network_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown network 'mlp'"):
        training.build_net("mlp")


def test_board_never_changes_when_encoded(tiny):
    board = chess.Board(tiny.fen[0])
    before = board.fen()
    NetworkEvaluator(*training.build_net("conv")).evaluate(board)
    assert board.fen() == before


@pytest.mark.parametrize("setting", [dict(epochs=0), dict(batch_size=0), dict(patience=0),
                                     dict(max_train=0), dict(lr=-0.1), dict(epochs=2.5)])
def test_settings_that_cannot_train_are_refused(setting):
    with pytest.raises(ValueError, match="at least 1|cannot be negative"):
        training.TrainConfig(**setting)


def test_too_few_games_to_split_is_a_clear_error(tiny):
    one_game = tiny.subset(np.flatnonzero(tiny.game_id == 0))
    with pytest.raises(ValueError, match="too little data to train.*more games"):
        training.train_net("ann", one_game, training.TrainConfig(epochs=1), progress=False)
