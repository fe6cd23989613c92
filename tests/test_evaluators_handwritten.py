"""The Evaluator base class and the hand-written evaluations: material and pst."""
import math
import random

import chess
import pytest

from chesslab.evaluators.handwritten import MaterialEvaluator, PSTEvaluator
from chesslab.board.scores import material_balance
from chesslab.search.searcher import search


def test_material_uses_the_chapter_values():
    # White: Q, R, 2 pawns (900+500+200); Black: R, B, N, 3 pawns (500+300+300+300).
    board = chess.Board("4k3/ppp5/2bn4/8/8/8/PP5r/QR2K3 w - - 0 1")
    assert material_balance(board) == 1600 - 1400
    assert MaterialEvaluator().evaluate(board) == 200


def test_check_adds_ten_for_the_checking_side():
    board = chess.Board("4k3/8/8/8/8/8/8/K4R2 w - - 0 1")
    board.push_san("Re1+")  # Black to move, in check: White gets the bonus
    assert MaterialEvaluator().evaluate(board) == 500 + 10
    board = chess.Board("4k3/8/8/8/8/8/8/r3K3 w - - 0 1")  # White in check from a1
    assert MaterialEvaluator().evaluate(board) == -500 - 10


@pytest.mark.parametrize("evaluator", [MaterialEvaluator(), PSTEvaluator()])
def test_checkmate_is_infinite_from_whites_view(evaluator):
    fools_mate = chess.Board()
    for san in ("f3", "e5", "g4", "Qh4#"):
        fools_mate.push_san(san)
    assert evaluator.evaluate(fools_mate) == -math.inf
    scholars = chess.Board("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4")
    assert evaluator.evaluate(scholars) == math.inf


def test_pst_is_symmetric_and_prefers_central_knights():
    pst = PSTEvaluator()
    assert pst.evaluate(chess.Board()) == 0
    board = chess.Board("r1bqkbnr/pppppppp/2n5/8/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 2")
    assert pst.evaluate(board) == -pst.evaluate(board.mirror())
    rim = chess.Board("4k3/8/8/8/8/8/8/N3K3 w - - 0 1")
    centre = chess.Board("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1")
    assert pst.evaluate(centre) > pst.evaluate(rim) > 0


def test_king_table_changes_for_the_endgame():
    pst = PSTEvaluator()
    # Bare kings plus a pawn each: the endgame table wants the king in the centre.
    corner = chess.Board("4k3/4p3/8/8/8/8/4P3/7K w - - 0 1")
    central = chess.Board("4k3/4p3/8/8/3K4/8/4P3/8 w - - 0 1")
    assert pst.evaluate(central) > pst.evaluate(corner)


def test_pst_updated_move_by_move_equals_a_full_recount():
    # Random games from positions with castling, en passant and promotions; the null
    # move (the search's null-move pruning) too; moves taken back now and then.
    ev, rng, checked = PSTEvaluator(), random.Random(3), 0
    for start in (chess.STARTING_FEN, "r3k2r/1P6/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1"):
        for _ in range(20):
            board = chess.Board(start)
            ev.reset(board)
            for _ in range(120):
                moves = list(board.legal_moves)
                if not moves:
                    break
                move = rng.choice(moves + [chess.Move.null()] if not board.is_check()
                                  else moves)
                ev.push(board, move)
                board.push(move)
                assert ev.evaluate_incremental(board) == ev.evaluate(board)
                checked += 1
                if rng.random() < 0.2:
                    board.pop()
                    ev.pop()
    assert checked > 2000


def test_a_search_with_the_running_sum_finds_what_a_full_recount_finds():
    class Recount:
        name = "recount"

        def evaluate(self, board):
            return PSTEvaluator().evaluate(board)

    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    fast, slow = search(board, PSTEvaluator(), depth=3), search(board, Recount(), depth=3)
    assert (fast.move, fast.score, fast.nodes) == (slow.move, slow.score, slow.nodes)


def test_wrong_inputs_are_named_errors():
    with pytest.raises(TypeError, match="pst.evaluate\\(\\) needs a chess.Board, got NoneType"):
        PSTEvaluator().evaluate(None)
    with pytest.raises(TypeError, match="material.evaluate\\(\\) needs a chess.Board"):
        MaterialEvaluator().evaluate("startpos")
