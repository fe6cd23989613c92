"""Training ideas in a few lines each: the versions the notebooks print.

The real pipeline (``chesslab.training.pipeline``) adds progress bars, sorted batches
and the bookkeeping of long runs, and the recipe (``chesslab.training.recipe``) finds
quiet positions with one search; both change when they get faster. These stay small and
readable; ``tests/test_training_teaching.py`` checks that they agree with the real ones.
"""
from __future__ import annotations

import chess
import numpy as np

from chesslab.board.scores import material_balance
from chesslab.nn import mse
from chesslab.search.teaching import quiesce, static


def train_epoch(model, optimizer, x, y, rng: np.random.Generator,
                batch_size: int = 256, loss=mse) -> float:
    """One epoch: shuffle the training rows, then one optimiser step per mini-batch.

    Returns the mean training loss of the epoch. The teaching version of
    ``pipeline.shuffle`` plus ``pipeline.train_epoch``; the real ones add a progress
    bar and gather each batch's rows in sorted order (faster, the same batch).
    """
    model.train()                              # batch-norm layers use batch statistics
    order = rng.permutation(len(x))            # a new order every epoch
    total = 0.0
    for start in range(0, len(order), batch_size):
        rows = order[start:start + batch_size]
        pred = model.forward(x[rows])          # forward
        value, grad = loss(pred, y[rows])      # how wrong, and in which direction
        model.backward(grad)                   # backpropagation: every weight's gradient
        optimizer.step(model)                  # move the weights a little downhill
        total += value * len(rows)
    return total / len(order)


class _Material:
    """Material only, White's view (pawn 100 ... queen 900): the quiet-position search."""
    @staticmethod
    def evaluate(board):
        return material_balance(board)


def quiet_leaf(board: chess.Board, max_captures: int = 8) -> chess.Board | None:
    """Where the captures stop: play the capture a material-only quiescence search likes
    best, again and again, until standing pat is best.

    ``board`` itself when no capture gains; None when the side to move is in check at
    the start or at the end (not a quiet position). The teaching version of
    ``recipe.quiet_leaf``; the real one gets the whole line from the searcher's own
    quiescence (``Searcher.quiet_line``), which also answers checks and skips captures
    that lose material.
    """
    if board.is_check():
        return None
    leaf = board.copy(stack=False)
    for _ in range(max_captures):
        best, best_move = static(leaf, _Material), None       # standing pat
        for move in leaf.generate_legal_captures():
            leaf.push(move)
            score = -quiesce(leaf, _Material)
            leaf.pop()
            if score > best:
                best, best_move = score, move
        if best_move is None:
            break
        leaf.push(best_move)
    return None if leaf.is_check() else leaf
