"""training.supervised: the side-to-move network learns Stockfish's labels; resumable."""
import chess
import numpy as np
import pytest

from chesslab.base.files import file_tag
from chesslab.board.encoding import MIRRORED_INDEX, move_to_index
from chesslab.datasets.policy_labels import POLICY_LABELS, load_policy_labels
from chesslab.evaluators.policy_value import load_policy_value
from chesslab.training import supervised

pytestmark = pytest.mark.skipif(not any(POLICY_LABELS.glob("*.npz")),
                                reason="no policy labels shipped")


@pytest.fixture(scope="module")
def labels():
    full = load_policy_labels(POLICY_LABELS)
    return {k: v[:400] for k, v in full.items()}


@pytest.fixture
def shard_folder(tmp_path, labels):
    np.savez_compressed(tmp_path / "d8_k8_seed0_00000.npz", **labels)
    return tmp_path


def small_run(out, folder, **options):
    """A tiny network (8 channels, 1 block) trained quietly on ``folder``'s labels alone."""
    settings = dict(channels=8, blocks=1, epochs=1, batch_size=32, held_out=50,
                    value_data=None, progress=lambda line: None)
    return supervised.train_supervised(out, folder, **{**settings, **options})


def test_examples_hold_legal_targets_in_the_side_to_move_view(labels):
    ex = supervised.build_examples(labels, temperature=50.0)
    assert 0 < len(ex) <= 400
    np.testing.assert_allclose(ex.target_p.sum(1), 1.0, atol=1e-5)
    assert np.all(np.abs(ex.z) <= 1.0)
    kept = np.flatnonzero(labels["moves"][:, 0] != "")
    for j in range(0, len(ex), 7):
        board = chess.Board(str(labels["fen"][kept[j]]))
        best = move_to_index(chess.Move.from_uci(str(labels["moves"][kept[j], 0])))
        want = MIRRORED_INDEX[best] if board.turn == chess.BLACK else best
        assert ex.target_index[j, 0] == want
        legal = ex.legal[ex.offsets[j]:ex.offsets[j + 1]]
        assert len(legal) == board.legal_moves.count() and want in legal
        x, pi, mask, z = ex.batch(np.array([j]))
        assert x.shape == (1, 16, 8, 8) and mask[0, want] and pi[0, ~mask[0]].sum() == 0


def test_training_learns_and_a_stopped_run_resumes(shard_folder, tmp_path):
    out = tmp_path / "net.json"
    lines = []

    def stop_after_first_save(line):
        lines.append(line)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        supervised.train_supervised(out, shard_folder, channels=8, blocks=1, epochs=1,
                                    batch_size=32, save_every=64, held_out=50,
                                    value_data=None, progress=stop_after_first_save)
    notes = load_policy_value(out).training_notes
    assert notes["epoch"] == 0 and 0 < notes["position"] < 400     # saved mid-epoch
    net = supervised.train_supervised(out, shard_folder, channels=8, blocks=1, epochs=3,
                                      batch_size=32, save_every=64, held_out=50,
                                      lr=3e-3, value_data=None, progress=lines.append)
    history = load_policy_value(out).training_notes["history"]
    assert [h["epoch"] for h in history] == [1, 2, 3]
    assert history[-1]["train_policy"] < history[0]["train_policy"]
    assert net.planes == "mover" and load_policy_value(out).planes == "mover"
    assert 0.0 <= history[-1]["top1"] <= 1.0 and history[-1]["value_mse"] >= 0
    kept = [supervised.epoch_file(out, e) for e in (1, 2, 3)]
    assert all(f.exists() for f in kept)                         # every epoch's network kept
    last, final = load_policy_value(kept[-1]), load_policy_value(out)
    assert all(np.array_equal(last.params[k], final.params[k]) for k in final.params)
    first = load_policy_value(kept[0])
    assert not all(np.array_equal(first.params[k], final.params[k]) for k in final.params)


def test_a_wider_value_head_trains_and_round_trips(shard_folder, tmp_path):
    out = tmp_path / "wide.json"
    net = supervised.train_supervised(out, shard_folder, channels=8, blocks=1, epochs=1,
                                      batch_size=32, held_out=50, value_data=None,
                                      value_channels=3, progress=lambda line: None)
    again = load_policy_value(out)
    assert net.value_channels == again.value_channels == 3
    x = net.encode([chess.Board()])
    np.testing.assert_allclose(again.predict(x)[1], net.predict(x)[1], rtol=1e-6)


def test_a_continued_run_names_the_network_it_started_from_by_its_digest(shard_folder, tmp_path):
    first = tmp_path / "first.json"
    small_run(first, shard_folder)
    tag = file_tag(first)
    later = tmp_path / "later.json"
    small_run(later, shard_folder, init=first)
    first.write_text("replaced")        # shipped files are overwritten in place
    notes = load_policy_value(later).training_notes
    assert notes["init"] == str(first) and notes["init_tag"] == tag != file_tag(first)


def test_the_held_out_sample_spreads_over_every_game():
    rows = np.arange(1000) * 3
    picked = supervised.spread_sample(rows, 10)
    assert len(picked) == 10 and picked[0] == 0 and picked[-1] == rows[-1]
    assert np.all(np.diff(picked) > 200) and set(picked) <= set(rows)
    assert np.array_equal(supervised.spread_sample(rows[:5], 10), rows[:5])


def test_value_only_positions_teach_the_value_and_leave_the_policy_alone(labels):
    from chesslab.datasets.positions import make_dataset
    from chesslab.evaluators.policy_value import PolicyValueNet
    from chesslab.nn import Adam
    n = 40
    ds = make_dataset({"fen": str(f), "cp": 0, "wdl": (700, 200, 100), "source": "game",
                       "game_id": 1, "ply": 10, "result": "1-0", "sampled_by_rule": False}
                      for f in labels["fen"][:n])
    values = supervised.value_examples(ds)
    boards = [chess.Board(str(f)) for f in labels["fen"][:n]]
    white = np.array([b.turn == chess.WHITE for b in boards])
    np.testing.assert_allclose(values.z, np.where(white, 0.6, -0.6))   # side to move's view
    assert not values.has_policy.any()
    net = PolicyValueNet(8, 1, policy_k=8, seed=0, planes="mover")
    before = {k: v.copy() for k, v in net.params.items()}
    supervised.train_step(net, Adam(1e-2), values, np.arange(n), c=0.0)
    moved = {k for k, v in net.params.items() if not np.array_equal(v, before[k])}
    assert moved and not any(k.startswith("policy.") for k in moved)


def test_the_score_target_keeps_a_rook_up_and_a_queen_up_apart_where_wdl_does_not(labels):
    from chesslab.datasets.positions import make_dataset
    # Lichess's scale: win% 50 + 50 (2 / (1 + exp(-0.00368208 cp)) - 1), as wins - losses
    cp = np.array([0.0, 500.0, 900.0, -900.0])
    lichess = (2 / (1 + np.exp(-0.00368208 * cp)) - 1)
    np.testing.assert_allclose(supervised.value_target(None, cp, "cp"), lichess, rtol=1e-5)
    won = np.array([[1000, 0, 0], [1000, 0, 0]])           # Stockfish: both simply won
    assert len(set(supervised.value_target(won, None, "wdl"))) == 1
    with pytest.raises(ValueError, match="value target 'elo' is not one of wdl, cp"):
        supervised.value_target(won, cp[:2], "elo")
    # value-only positions: White's score turned to the side to move's
    n = 40
    ds = make_dataset({"fen": str(f), "cp": 500, "wdl": (1000, 0, 0), "source": "game",
                       "game_id": 1, "ply": 10, "result": "1-0", "sampled_by_rule": False}
                      for f in labels["fen"][:n])
    white = np.array([chess.Board(str(f)).turn == chess.WHITE for f in labels["fen"][:n]])
    z = supervised.value_examples(ds, value="cp").z
    np.testing.assert_allclose(z, np.where(white, 1, -1) * np.tanh(0.00184104 * 500), rtol=1e-5)
    # policy-labelled positions: the best move's score, already the side to move's
    ex = supervised.build_examples(labels, value="cp")
    keep = labels["moves"][:, 0] != ""
    np.testing.assert_allclose(ex.z, np.tanh(0.00184104 * labels["scores"][keep, 0]), rtol=1e-5)


def test_a_run_keeps_its_value_target(shard_folder, tmp_path):
    out = tmp_path / "cp.json"
    small_run(out, shard_folder, value="cp")
    notes = load_policy_value(out).training_notes
    assert notes["value_target"] == "cp" and "Lichess" in notes["targets"]
    assert notes["history"][-1]["batch_norms"] == "recalibrated before measuring"
    with pytest.raises(ValueError, match="trained with value target 'cp', not 'wdl'"):
        small_run(out, shard_folder, epochs=2, value="wdl")


def test_a_run_with_value_only_positions_mixes_them_into_every_batch(shard_folder, tmp_path, labels):
    from chesslab.datasets.positions import make_dataset, save_dataset
    fens = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"] * 30
    data = tmp_path / "values.npz"
    save_dataset(make_dataset(({"fen": f, "cp": 50, "wdl": (300, 600, 100), "source": "game",
                                "game_id": i, "ply": 3, "result": "1-0",
                                "sampled_by_rule": False} for i, f in enumerate(fens))), data)
    out = tmp_path / "net.json"
    small_run(out, shard_folder, value_data=data)
    last = load_policy_value(out).training_notes["history"][-1]
    assert last["value_positions"] > last["policy_positions"]
    assert "value_mse_all" in last and last["value_mse_all"] >= 0


def test_recalibrating_a_network_changes_only_its_batch_norm_statistics(shard_folder, tmp_path):
    from chesslab.nn import BatchNorm
    out = tmp_path / "net.json"
    small_run(out, shard_folder)
    net = load_policy_value(out)
    for layer in net.leaves():              # statistics a run could have left behind
        if isinstance(layer, BatchNorm):
            layer.running_mean = layer.running_mean + 5.0
    spoiled = tmp_path / "spoiled.json"
    from chesslab.evaluators.policy_value import save_policy_value
    save_policy_value(net, spoiled, **net.training_notes)
    fixed = tmp_path / "fixed.json"
    before, after = supervised.recalibrate_file(spoiled, fixed, shard_folder, value_data=None,
                                                batch_size=32, progress=lambda line: None)
    assert before != after
    again, trained = load_policy_value(fixed), load_policy_value(out)
    assert all(np.array_equal(again.params[k], net.params[k]) for k in net.params)
    assert again.training_notes["batch_norm_recalibrated"]["after"] == after
    # the training recalibrated at its epoch's end with the same batches: back to that
    for mine, theirs in zip(again.leaves(), trained.leaves()):
        if isinstance(mine, BatchNorm):
            np.testing.assert_allclose(mine.running_mean, theirs.running_mean, atol=1e-5)
            np.testing.assert_allclose(mine.running_var, theirs.running_var, rtol=1e-5)
    last = trained.training_notes["history"][-1]
    assert after["value_mse"] == pytest.approx(last["value_mse"], rel=1e-5)
