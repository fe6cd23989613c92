"""Stockfish labels: finished positions without an engine, labels that make sense and
reproduce the shipped ones, the label cache."""
import chess
import numpy as np
import pytest

from chesslab.datasets import positions
from chesslab.datasets import labels
from chesslab.board.scores import LABEL_MATE_CP
from chesslab.base.stockfish import open_engine
from needs_stockfish import needs_stockfish


def test_missing_stockfish_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("CHESSLAB_STOCKFISH", str(tmp_path / "no-such-stockfish"))
    with pytest.raises(FileNotFoundError) as err:
        labels.label_fens([chess.STARTING_FEN])
    assert "CHESSLAB_STOCKFISH" in str(err.value)
    assert "apt-get install stockfish" in str(err.value)


def test_finished_positions_need_no_engine():
    mate = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert labels.label_board(None, mate) == (-LABEL_MATE_CP, (0, 0, 1000))
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert labels.label_board(None, stalemate) == (0, (0, 1000, 0))


@needs_stockfish
def test_labels_match_stockfish_and_common_sense():
    queen_up = chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    black_queen_up = chess.Board("3qk3/8/8/8/8/8/8/4K3 b - - 0 1")
    cp, wdl = labels.label_fens([queen_up.fen(), black_queen_up.fen(),
                               chess.STARTING_FEN], depth=8, progress=False)
    assert cp[0] > 500 and wdl[0][0] > 900
    assert cp[1] < -500 and wdl[1][2] > 900
    assert abs(int(cp[2])) < 100 and wdl[2].sum() == 1000


@needs_stockfish
def test_shipped_labels_recheck_against_stockfish():
    ds = positions.load_dataset()
    picks = np.random.default_rng(0).choice(len(ds), 20, replace=False)
    with open_engine() as engine:
        assert engine.id["name"] == ds.metadata["engine"]
        for i in picks:
            depth = int(ds.depth[i])      # extra game plies are labelled shallower
            cp, wdl = labels.label_board(engine, chess.Board(ds.fen[i]), depth)
            assert (cp, wdl) == (ds.cp[i], tuple(ds.wdl[i].tolist())), ds.fen[i]


@needs_stockfish
def test_label_cache_is_reused_for_the_same_depth(tmp_path):
    cache = tmp_path / "cache.npz"
    fens = [chess.STARTING_FEN, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"]
    cp, _ = labels.label_fens(fens, depth=6, progress=False, cache=cache)
    with np.load(cache) as npz:
        stored = {k: npz[k] for k in npz.files}
    stored["cp"] = stored["cp"] + 7  # a marker: reused labels carry it
    np.savez(cache, **stored)
    again, _ = labels.label_fens(fens, depth=6, progress=False, cache=cache)
    assert again.tolist() == (cp + 7).tolist()
    other_depth, _ = labels.label_fens(fens, depth=5, progress=False, cache=cache)
    assert abs(int(other_depth[0])) < 100 and other_depth[1] > 500


def test_no_positions_and_a_damaged_or_foreign_cache_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        labels.label_fens([])
    whole = tmp_path / "whole.npz"
    np.savez(whole, fen=np.array([chess.STARTING_FEN]), cp=np.zeros(1, dtype=np.int16))
    with pytest.raises(ValueError, match="not a chesslab label cache"):
        labels.label_fens([chess.STARTING_FEN], depth=1, cache=whole)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(whole.read_bytes()[:100])
    with pytest.raises(ValueError, match="label cache .* is cut off or damaged"):
        labels.label_fens([chess.STARTING_FEN], depth=1, cache=cut)
