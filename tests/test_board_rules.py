"""board.rules: the one rule that ends a game (a draw only once it has happened, not when
it can be claimed), the part of it a search asks, repetitions, results as points."""
import random

import chess
import pytest

from chesslab.board.rules import (Repetitions, draw_by_rule, drawn_with_moves_left, outcome,
                                  result_for)
from chesslab.widgets.controller import game_over

# White to move with 99 half-moves without capture or pawn move: python-chess's
# claim_draw=True calls this a draw already (any quiet move reaches 100), yet Ra8 mates.
MATE_AT_99 = "7k/8/6K1/8/8/8/8/R7 w - - 99 100"


def test_a_claimable_draw_is_not_a_finished_game():
    board = chess.Board(MATE_AT_99)
    assert board.outcome(claim_draw=True) is not None      # what the old rule used
    assert outcome(board) is None and game_over(board) is None


def test_mate_on_the_hundredth_half_move_wins():
    board = chess.Board(MATE_AT_99)
    board.push_san("Ra8#")
    assert board.halfmove_clock == 100
    ended = outcome(board)
    assert ended.termination == chess.Termination.CHECKMATE and ended.result() == "1-0"


def test_fifty_move_draw_once_it_has_happened():
    board = chess.Board(MATE_AT_99)
    board.push_san("Kf6")                # quiet, no mate: the 100th half-move
    ended = outcome(board)
    assert ended.termination == chess.Termination.FIFTY_MOVES and ended.result() == "1/2-1/2"


def test_threefold_only_when_the_position_occurred_three_times():
    board = chess.Board()
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    for san in shuffle + shuffle[:3]:
        board.push_san(san)
    # One move from the third occurrence: claimable by python-chess, not yet a draw.
    assert board.can_claim_threefold_repetition() and outcome(board) is None
    board.push_san("Ng8")
    ended = outcome(board)
    assert ended.termination == chess.Termination.THREEFOLD_REPETITION
    assert game_over(board).reason == "threefold repetition"


def test_outcome_names_a_wrong_argument():
    with pytest.raises(TypeError, match="chess.Board"):
        outcome("8/8/8/8/8/8/8/8 w - - 0 1")


def test_draw_by_rule_is_the_part_of_outcome_a_search_needs():
    """``draw_by_rule`` (asked at every node of a search) never calls a position drawn
    that ``outcome`` would not, and catches every 50-move and material draw it sees."""
    rng = random.Random(3)
    kinds = set()
    for start in (chess.STARTING_FEN, "8/8/4k3/8/2n5/4K3/4B3/8 w - - 90 80",
                  "8/8/4k3/8/8/4K3/4R3/8 w - - 97 80"):
        for _ in range(40):
            board = chess.Board(start)
            while True:
                ended = outcome(board)
                if draw_by_rule(board):
                    assert ended is not None and ended.winner is None
                if ended is not None:
                    kinds.add(ended.termination)
                    if ended.termination in (chess.Termination.FIFTY_MOVES,
                                             chess.Termination.INSUFFICIENT_MATERIAL):
                        assert draw_by_rule(board)
                    break
                board.push(rng.choice(list(board.legal_moves)))
    assert {chess.Termination.FIFTY_MOVES, chess.Termination.INSUFFICIENT_MATERIAL} <= kinds


def _key(board):
    return hash(board._transposition_key())


def test_repetitions_hold_the_game_since_the_last_irreversible_move_and_the_line():
    """The game's positions count back to the last capture or pawn move, not before; a
    position added by the search is a draw until it is removed again."""
    board = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8"):
        board.push_uci(uci)
    table = Repetitions(board)
    assert sum(table.counts.values()) == 5          # 4 reversible plies + the root
    after_e5 = chess.Board()
    after_e5.push_uci("e2e4")
    after_e5.push_uci("e7e5")
    assert _key(after_e5) in table.counts           # reached again by the knights
    assert table.counts[_key(board)] == 2           # the root repeats after e5
    assert _key(chess.Board()) not in table.counts  # before e4: behind a pawn move
    assert table.is_draw(board, _key(board))
    board.push_uci("g1f3")
    assert _key(board) in table.counts and table.is_draw(board, _key(board))
    fresh = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    line = Repetitions(fresh)
    assert not line.is_draw(fresh, _key(fresh))     # fewer than 4 reversible plies
    fresh.push_uci("f3g1")
    line.add(_key(fresh))
    line.add(_key(fresh))
    line.remove(_key(fresh))
    assert line.counts[_key(fresh)] == 1
    line.remove(_key(fresh))
    assert _key(fresh) not in line.counts
    assert Repetitions(chess.Board("8/8/4k3/8/8/4K3/8/8 w - - 0 1")).is_draw(
        chess.Board("8/8/4k3/8/8/4K3/8/8 w - - 0 1"), 0)   # bare kings: draw_by_rule


def test_result_for_each_side():
    assert [result_for(r, chess.WHITE) for r in ("1-0", "0-1", "1/2-1/2")] == [1, -1, 0]
    assert [result_for(r, chess.BLACK) for r in ("1-0", "0-1", "1/2-1/2")] == [-1, 1, 0]


def test_claimable_draws_are_left_out_on_request_and_known_with_moves_left():
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:      # the start position a third time
        board.push_uci(uci)
    assert outcome(board).termination == chess.Termination.THREEFOLD_REPETITION
    assert outcome(board, claim_draws=False) is None      # python-chess's own is_game_over
    assert drawn_with_moves_left(board) and not drawn_with_moves_left(chess.Board())
    mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert outcome(mated, claim_draws=False).winner == chess.WHITE


def test_a_result_is_points_a_winner_and_back():
    from chesslab.board.rules import RESULTS, points, result_for, result_of, winner_of
    for result in RESULTS:
        assert result_of(winner_of(result)) == result
        assert points(result, chess.WHITE) + points(result, chess.BLACK) == 1
        assert result_for(result, chess.WHITE) == 2 * points(result, chess.WHITE) - 1
    assert points("0-1", chess.BLACK) == 1 and points("1/2-1/2") == 0.5
    for bad in ("*", "1-1", None):
        with pytest.raises(ValueError, match="1-0, 1/2-1/2, 0-1"):
            points(bad)
        with pytest.raises(ValueError, match="result must be one of"):
            winner_of(bad)
