"""chesslab.game: the one rule that ends a game, used by every play loop."""
import chess
import pytest

from chesslab.arena import play_game
from chesslab.game import outcome
from chesslab.play import game_over
from chesslab.players import make_player

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


def test_play_game_plays_the_mate_instead_of_scoring_a_draw():
    game = play_game(make_player("material:1"), make_player("random"),
                     board=chess.Board(MATE_AT_99))
    assert game.headers["Result"] == "1-0"
    assert game.headers["Termination"] == "checkmate"
    assert game.end().board().halfmove_clock == 100


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
