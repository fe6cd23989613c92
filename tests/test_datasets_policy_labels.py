"""policy_labels: Stockfish's best moves as targets, labelled shard by shard, resumable."""
import chess
import numpy as np
import pytest

from chesslab.cli import main
from chesslab.datasets import policy_labels
from chesslab.datasets.positions import make_dataset
from needs_stockfish import needs_stockfish

FENS = ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",                  # Ra8 mates
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                       # stalemate: no moves
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "8/8/8/8/8/5k2/8/5K1q w - - 0 1"]


def _dataset():
    return make_dataset([dict(fen=f, cp=0, wdl=(0, 1000, 0), source="game", game_id=i,
                              ply=10, result="*", sampled_by_rule=False)
                         for i, f in enumerate(FENS)] +
                        [dict(fen=chess.STARTING_FEN, cp=0, wdl=(0, 1000, 0), source="random",
                              game_id=-1, ply=0, result="*", sampled_by_rule=False)])


def test_the_order_leaves_out_random_positions_and_depends_on_the_seed_only():
    ds = _dataset()
    order = policy_labels.policy_order(ds, seed=1)
    assert sorted(order) == [0, 1, 2, 3, 4] and list(order) == list(
        policy_labels.policy_order(ds, seed=1))
    assert list(order) != list(policy_labels.policy_order(ds, seed=2)) or len(order) < 2


def test_policy_target_is_a_softmax_over_the_labelled_moves():
    p = policy_labels.policy_target([300, 200, 0, 0], ["e2e4", "d2d4", "g1f3", ""], 100.0)
    assert p[3] == 0 and np.isclose(p.sum(), 1) and p[0] > p[1] > p[2]
    assert np.isclose(p[0] / p[1], np.e)
    sharp = policy_labels.policy_target([300, 200, 0, 0], ["e2e4", "d2d4", "g1f3", ""], 1.0)
    assert sharp[0] > 0.999
    assert not policy_labels.policy_target([0, 0], ["", ""]).any()
    with pytest.raises(ValueError, match="temperature"):
        policy_labels.policy_target([1], ["e2e4"], 0)


@needs_stockfish
def test_shards_hold_legal_best_moves_and_a_stopped_run_resumes(tmp_path):
    ds = _dataset()
    assert policy_labels.label_policy_shards(ds, tmp_path, depth=6, multipv=3, shard=2,
                                             limit=4, progress=False) == 4
    first = sorted(tmp_path.glob("*.npz"))
    assert len(first) == 2
    labels = policy_labels.load_policy_labels(tmp_path, depth=6, multipv=3)
    assert len(labels["fen"]) == 4 and labels["moves"].shape == (4, 3)
    for fen, moves, scores, wdl in zip(labels["fen"], labels["moves"], labels["scores"],
                                       labels["wdl"]):
        board = chess.Board(str(fen))
        assert sum(wdl) == 1000
        legal = [m for m in moves if m]
        assert all(chess.Move.from_uci(m) in board.legal_moves for m in legal)
        assert list(scores[:len(legal)]) == sorted(scores[:len(legal)], reverse=True)
        if fen == FENS[1]:
            assert moves[0] == "a1a8" and scores[0] > 9000 and wdl[0] == 1000
        if fen == FENS[2]:
            assert not legal and tuple(wdl) == (0, 1000, 0)
    stamp = [p.stat().st_mtime_ns for p in first]
    assert main(["data", "policy-labels", "--out", str(tmp_path), "--depth", "6",
                 "--multipv", "3", "--shard", "2", "--quiet", "--data",
                 str(_saved(ds, tmp_path))]) == 0     # finishes the fifth, keeps the two
    assert [p.stat().st_mtime_ns for p in first] == stamp
    assert len(policy_labels.load_policy_labels(tmp_path, 6, 3)["fen"]) == 5


def _saved(ds, folder):
    from chesslab.datasets.positions import save_dataset
    return save_dataset(ds, folder / "ds.npz")


def test_missing_labels_say_how_to_make_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="data policy-labels"):
        policy_labels.load_policy_labels(tmp_path)
    with pytest.raises(ValueError, match="multipv must be a whole number"):
        policy_labels.label_policy_shards(_dataset(), tmp_path, multipv=0)
