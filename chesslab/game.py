"""The rules that end a game, in one place: every play loop in chesslab asks ``outcome``.

python-chess's ``board.outcome(claim_draw=True)`` also reports a threefold repetition or
a 50-move draw that the side to move *could claim with its next move*, even when that
side has a mate in one. A game here ends only on a draw that has happened:

* checkmate, stalemate, insufficient material, the 75-move rule, fivefold repetition
  (these end a game by themselves, FIDE 9.6);
* threefold repetition: the current position has occurred three times;
* the 50-move rule: 50 moves by each side without a capture or a pawn move have been
  played (and the last of them did not mate: checkmate is tested first).

A player who would rather play on cannot here: in a classroom game (and in a match
between engines) the arbiter claims the draw at once.
"""
from __future__ import annotations

import chess

__all__ = ["outcome", "is_over"]


def outcome(board: chess.Board) -> chess.Outcome | None:
    """How the game on ``board`` has ended, or None while it goes on."""
    if not isinstance(board, chess.Board):
        raise TypeError(f"outcome() needs a chess.Board, got {type(board).__name__}")
    ended = board.outcome(claim_draw=False)
    if ended is not None:
        return ended
    if board.is_repetition(3):
        return chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
    if board.halfmove_clock >= 100:
        return chess.Outcome(chess.Termination.FIFTY_MOVES, None)
    return None


def is_over(board: chess.Board) -> bool:
    """True when ``outcome(board)`` is not None."""
    return outcome(board) is not None
