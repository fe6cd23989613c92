"""Training ideas in a few lines each: the versions the notebooks print.

The real pipeline (``chesslab.training.pipeline``) adds progress bars, sorted batches
and the bookkeeping of long runs, and changes when it gets faster; these stay small and
readable. ``tests/test_teaching.py`` checks that they train exactly like the real ones.
"""
from __future__ import annotations

import numpy as np

from chesslab.nn import mse


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
