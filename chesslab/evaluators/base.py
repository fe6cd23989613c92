"""What every evaluator is: a number for a position, centipawns from White's side.

(``chesslab.board.scores``: a checkmate is +-inf.) Every evaluator has a ``name``,
``evaluate(board) -> float`` and ``evaluate_batch(boards) -> np.ndarray``. Hand-written
ones score one board at a time; learned ones (neural nets, Naive Bayes) score a whole
batch with one forward pass and say so with ``prefers_batches = True``: scoring a dataset
uses it. (The alpha-beta search scores one leaf at a time: batching its leaves was measured
slower in a game tree and removed.)

``chesslab.evaluators.registry.load_evaluator(name)`` finds every evaluator by name.
"""
from __future__ import annotations

import chess
import numpy as np

__all__ = ["Evaluator", "need_board"]


class Evaluator:
    """Base class: subclasses define ``evaluate``; batches default to a loop."""

    name = "evaluator"
    prefers_batches = False

    def evaluate(self, board: chess.Board) -> float:
        raise NotImplementedError

    def evaluate_batch(self, boards) -> np.ndarray:
        return np.array([self.evaluate(b) for b in boards], dtype=float)

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


def need_board(board, who: str) -> None:
    """One clear line instead of an AttributeError deep inside python-chess."""
    if not isinstance(board, chess.Board):
        raise TypeError(f"{who}.evaluate() needs a chess.Board, got {type(board).__name__}")
