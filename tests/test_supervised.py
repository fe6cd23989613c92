"""training.supervised: the side-to-move network learns Stockfish's labels; resumable."""
import chess
import numpy as np
import pytest

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
                                    progress=stop_after_first_save)
    notes = load_policy_value(out).training_notes
    assert notes["epoch"] == 0 and 0 < notes["position"] < 400     # saved mid-epoch
    net = supervised.train_supervised(out, shard_folder, channels=8, blocks=1, epochs=3,
                                      batch_size=32, save_every=64, held_out=50,
                                      lr=3e-3, progress=lines.append)
    history = load_policy_value(out).training_notes["history"]
    assert [h["epoch"] for h in history] == [1, 2, 3]
    assert history[-1]["train_policy"] < history[0]["train_policy"]
    assert net.planes == "mover" and load_policy_value(out).planes == "mover"
    assert 0.0 <= history[-1]["top1"] <= 1.0 and history[-1]["value_mse"] >= 0
