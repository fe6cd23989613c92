"""The thesis training pipeline: split/shuffle rule, training, the recipe's switches."""
import chess
import numpy as np
import pytest

from chesslab.training import pipeline
from chesslab.evaluators.neural import NetworkEvaluator, cp_to_target
from chesslab.nn import ANN
from material_data import tiny  # noqa: F401  (a fixture)


def test_the_recipe_trains_the_nnue_and_refuses_a_white_view(tiny):
    config = pipeline.TrainConfig(epochs=3, batch_size=64, perspective="side_to_move",
                                  target="wdl", quiet=True, mirror=True)
    result = pipeline.train_net("nnue", tiny, config, progress=False)
    assert result.kind == "logit" and result.history.train_loss[-1] < result.history.train_loss[0]
    assert result.test["positions"] > 0
    with pytest.raises(ValueError, match="side to move"):
        pipeline.train_net("nnue", tiny, pipeline.TrainConfig(epochs=1), progress=False)


def test_a_net_trained_for_another_target_than_its_fast_class_reads_is_read_as_trained():
    # the linear net's fast class reads a logit (cp / 400); trained for tanh, the same
    # output is tanh(cp / 400) and must go back through atanh
    model, encoding = pipeline.build_net("linear", seed=0)
    model.layers[0].params["b"][0] = 0.5             # an output well away from 0
    board = chess.Board("4k3/8/8/8/8/8/3Q4/4K3 b - - 0 1")
    scores = {}
    for kind in ("logit", "tanh"):
        ev = pipeline.evaluator_for("linear", model, encoding, kind, "side_to_move")
        plain = NetworkEvaluator(model, encoding, kind, "linear", "side_to_move")
        scores[kind] = ev.evaluate(board)
        assert ev.target == kind and scores[kind] == pytest.approx(plain.evaluate(board))
    assert abs(scores["tanh"]) > abs(scores["logit"]) + 1      # atanh(y) > y for 0 < y < 1


def test_extra_plies_is_the_switch_for_the_shallower_labels(tiny):
    ds = tiny.subset(np.arange(len(tiny)))
    ds.metadata["depth"] = 10
    ds.depth = np.where(np.arange(len(ds)) % 3 == 0, 8, 10).astype(np.int8)
    train = pipeline.split(ds)[0]
    main = int(np.sum(train.depth == 10))
    assert 0 < main < len(train)
    for extra, expected in ((False, main), (True, len(train))):
        config = pipeline.TrainConfig(epochs=1, batch_size=64, extra_plies=extra)
        result = pipeline.train_net("ann64", ds, config, progress=False)
        assert result.train_examples == expected


# ---------------------------------------------------------------- the pipeline rules

def test_split_keeps_games_together_and_shuffle_is_a_permutation(tiny):
    train, val, test = pipeline.split(tiny)
    assert len(train) + len(val) + len(test) == len(tiny)
    ids = [set(part.game_id.tolist()) for part in (train, val, test)]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    order = pipeline.shuffle(len(train), np.random.default_rng(0))
    assert sorted(order.tolist()) == list(range(len(train)))
    assert order.tolist() != list(range(len(train)))


def test_only_the_training_part_is_shuffled(tiny, monkeypatch):
    train, val, _ = pipeline.split(tiny)
    x, x_val = (pipeline.encode_dataset(d, "thesis64") for d in (train, val))
    x_val_before, cp_val_before = x_val.copy(), val.cp.copy()
    calls = []
    real = pipeline.shuffle

    def spy(n, rng):
        calls.append(n)
        return real(n, rng)

    monkeypatch.setattr(pipeline, "shuffle", spy)
    model = ANN.from_topology([64, 16, 1], seed=0)
    config = pipeline.TrainConfig(epochs=3, batch_size=32, patience=10)
    history = pipeline.fit(model, (x, train.cp), (x_val, val.cp), config, progress=False)
    assert calls == [len(train)] * 3            # one shuffle per epoch, training part only
    np.testing.assert_array_equal(x_val, x_val_before)
    np.testing.assert_array_equal(val.cp, cp_val_before)
    # the recorded validation loss is the loss on the validation part in its own order
    out = pipeline.validate(model, x_val)
    best = history.val_loss[history.best_epoch - 1]
    assert np.mean((out - cp_to_target(val.cp)) ** 2) == pytest.approx(best, rel=1e-5)


def test_training_on_a_tiny_set_lowers_the_loss(tiny):
    config = pipeline.TrainConfig(epochs=8, batch_size=32, lr=0.003, patience=8)
    result = pipeline.train_net("ann", tiny, config, progress=False)
    h = result.history
    assert len(h.epoch) == 8 and h.stop_reason.startswith("maximum")
    assert h.train_loss[-1] < 0.7 * h.train_loss[0]
    assert min(h.val_loss) < h.val_loss[0]
    assert result.test["positions"] > 0 and 0 <= result.test["sign_accuracy"] <= 1


def test_stops_when_accuracy_is_acceptable_or_patience_runs_out(tiny):
    train, val, _ = pipeline.split(tiny)
    data = [(pipeline.encode_dataset(d, "thesis64"), d.cp) for d in (train, val)]
    model = ANN.from_topology([64, 8, 1], seed=1)
    h = pipeline.fit(model, *data, pipeline.TrainConfig(epochs=10, target_accuracy=0.0),
                     progress=False)
    assert len(h.epoch) == 1 and "acceptable" in h.stop_reason
    # a learning rate of 0 never improves: early stopping after `patience` epochs, and
    # the plateau rule halves the learning rate every `lr_patience` epochs on the way
    config = pipeline.TrainConfig(epochs=20, lr=0.0, patience=4, lr_patience=2)
    h = pipeline.fit(ANN.from_topology([64, 8, 1], seed=1), *data, config, progress=False)
    assert len(h.epoch) == 5 and h.stop_reason.startswith("early stopping")
    assert h.best_epoch == 1


def test_weight_decay_reaches_the_optimiser_and_shrinks_the_weights(tiny):
    train, val, _ = pipeline.split(tiny)
    data = [(pipeline.encode_dataset(d, "thesis64"), d.cp) for d in (train, val)]
    norms = {}
    for decay in (0.0, 50.0):
        model = ANN.from_topology([64, 8, 1], seed=1)
        config = pipeline.TrainConfig(epochs=2, batch_size=32, patience=5, weight_decay=decay,
                                      target_accuracy=1.1)
        pipeline.fit(model, *data, config, progress=False)
        norms[decay] = sum(float(np.sum(p ** 2)) for n, p, _ in model.parameters()
                           if n.endswith("W"))
    assert norms[50.0] < 0.5 * norms[0.0]


def test_save_load_round_trip_keeps_scores_and_history(tiny, tmp_path):
    config = pipeline.TrainConfig(epochs=2, batch_size=64)
    result = pipeline.train_net("cnn", tiny, config, progress=False)
    path = pipeline.save_result(result, tmp_path / "cnn.json", {"file": "tiny"})
    line = result.summary()
    assert line.startswith(f"cnn: {len(result.history.epoch)} epochs")
    assert f"test MAE {result.test['mae_cp']:.0f} cp" in line
    loaded = NetworkEvaluator.from_file(path)
    boards = tiny.boards()[:20]
    expected = NetworkEvaluator(result.model, "planes14", "tanh").evaluate_batch(boards)
    np.testing.assert_allclose(loaded.evaluate_batch(boards), expected, rtol=1e-5, atol=1e-3)
    assert loaded.encoding == "planes14" and loaded.name == "cnn"
    history = pipeline.load_history("cnn", tmp_path)
    assert history.epoch == [1, 2] and history.val_loss == result.history.val_loss


@pytest.mark.parametrize("args, info, says", [
    (("planes14_flat", "cp"), {},
     "unknown target scaling 'cp'; use one of ('tanh', 'unit', 'logit', 'prob')"),
    (("planes15", "tanh"), {}, "unknown encoding 'planes15'; use one of piece_square, "),
    (("planes14_flat", "tanh"), {"perspective": "black"},
     "unknown perspective 'black'; use one of white, side_to_move"),
    (("planes14", "tanh"), {}, "the network 'ANN' takes inputs of shape (896,), but the "
                               "encoding 'planes14' gives (14, 8, 8)"),
])
def test_save_refuses_what_could_not_be_loaded_and_writes_nothing(tmp_path, args, info, says):
    path = tmp_path / "ann.json"
    with pytest.raises(ValueError) as refused:
        pipeline.save(ANN.from_topology([896, 4, 1], seed=0), path, *args, **info)
    assert str(refused.value).startswith(says)
    assert list(tmp_path.iterdir()) == []
    model = ANN.from_topology([896, 4, 1], seed=0).train()
    pipeline.save(model, path, "planes14_flat", "logit")
    assert NetworkEvaluator.from_file(path).target == "logit"
    assert model.training                 # saving leaves the model in the mode it was in


def test_unknown_network_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown network 'mlp'"):
        pipeline.build_net("mlp")


def test_board_never_changes_when_encoded(tiny):
    board = chess.Board(tiny.fen[0])
    before = board.fen()
    NetworkEvaluator(*pipeline.build_net("conv")).evaluate(board)
    assert board.fen() == before


@pytest.mark.parametrize("setting", [dict(epochs=0), dict(batch_size=0), dict(patience=0),
                                     dict(max_train=0), dict(lr=-0.1), dict(epochs=2.5),
                                     dict(weight_decay=-0.01)])
def test_settings_that_cannot_train_are_refused(setting):
    with pytest.raises(ValueError, match="at least 1|cannot be negative"):
        pipeline.TrainConfig(**setting)


def test_too_few_games_to_split_is_a_clear_error(tiny):
    one_game = tiny.subset(np.flatnonzero(tiny.game_id == 0))
    with pytest.raises(ValueError, match="too little data to train.*more games"):
        pipeline.train_net("ann", one_game, pipeline.TrainConfig(epochs=1), progress=False)
