"""Evaluator ideas in a few lines each: the versions the notebooks print.

The real NNUE evaluator (``chesslab.evaluators.nnue.NNUEEvaluator``) keeps a stack of
accumulators and updates them lazily; it changes when it gets faster. This stays small
and readable; ``tests/test_evaluators_teaching.py`` checks that it gives the real accumulators.
"""
from __future__ import annotations

import chess
import numpy as np

from chesslab.evaluators.nnue import move_changes


def update_accumulator(evaluator, accumulator: np.ndarray, board: chess.Board,
                       move: chess.Move) -> np.ndarray:
    """The accumulator after ``move``, from the one before it: add the weight rows of
    the (colour, piece, square) the move creates, subtract those it removes.

    ``evaluator`` is an ``NNUEEvaluator`` (its ``rows``, one per colour, piece and
    square; ``accumulator(board)`` computes the same from scratch); ``board`` is the
    position before the move. A quiet move changes 2 rows of 768, a capture 3, castling
    4: a few additions instead of a sum over every piece. The teaching version of
    ``NNUEEvaluator.push`` and ``current_accumulator``; the real ones keep one
    accumulator per ply of the search (``pop`` is free) and add only when a position is
    evaluated (many pushed positions never are).
    """
    added, removed = move_changes(board, move)
    new = accumulator.copy()
    for row in added:
        new += evaluator.rows[row]
    for row in removed:
        new -= evaluator.rows[row]
    return new
