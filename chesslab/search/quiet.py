"""Where the captures settle: the capture sequence a material-only quiescence search
expects from a position, and the position at its end.

A static evaluation (a hand-written table, a network's value) reads a position as if
nothing happened next; in the middle of an exchange it is wrong by a piece. The search's
own quiescence (``Searcher.quiet_line``, material only) finds where the exchange stops.
The training recipe trains on those quiet positions (``training.recipe``), and MCTS can
read its leaf values there (``MCTS(settle=True)``).
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import chess

from chesslab.evaluators.handwritten import MaterialEvaluator
from chesslab.search.searcher import Searcher


@functools.cache
def _material_searcher() -> Searcher:
    """One material-only searcher per process (it is asked about many positions)."""
    return Searcher(MaterialEvaluator())


def capture_line(board: chess.Board) -> list[chess.Move]:
    """The captures (and, in check, the evasions) the material quiescence expects from
    ``board``, in order; empty when standing pat is best for the side to move."""
    return _material_searcher().quiet_line(board)[1]


def settled(board: chess.Board) -> tuple[chess.Board, int]:
    """``(the position where the captures stop, plies played to reach it)``: ``board``
    itself (a copy) and 0 when no capture gains."""
    leaf = board.copy(stack=False)
    line = capture_line(board)
    for move in line:
        leaf.push(move)
    return leaf, len(line)


def quiet_leaf(board: chess.Board) -> chess.Board | None:
    """Where the captures stop (``board`` itself when no capture gains), or None when the
    side to move is in check at either end (not a quiet position)."""
    if board.is_check():
        return None
    leaf, _ = settled(board)
    return None if leaf.is_check() else leaf


class SettledLeaf(NamedTuple):
    board: chess.Board      # where the captures stop
    moves: list             # its legal moves
    value: float | None     # its exact value for the side to move there, if the game is over
    sign: int               # -1 when the line has an odd number of plies: the other side moves


def settle_leaves(boards, exact) -> list:
    """Per board, None when no capture gains, else its ``SettledLeaf``; ``exact(board,
    moves)`` is the search's exact value of a finished position (None otherwise)."""
    out = []
    for board in boards:
        end, plies = settled(board)
        moves = list(end.generate_legal_moves()) if plies else None
        out.append(SettledLeaf(end, moves, exact(end, moves), -1 if plies % 2 else 1)
                   if plies else None)
    return out
