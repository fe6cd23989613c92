"""How an evaluator is measured: against Stockfish's labels, alone and inside a search.

The thesis's "accuracy" is not defined there; here it is **sign accuracy**: among the
positions where Stockfish sees a clear advantage (``|cp| > 50``), the fraction where the
network says the same side is better. The other metrics: MAE in centipawns with
labels and predictions clipped to +-1000 (beyond that "winning" is all that matters),
and Pearson's correlation of the same clipped numbers.

``search_metrics`` measures an evaluation the way a search uses it: the score of a
depth-1 search (one move, then the captures that follow), split by the side to move.
"""
from __future__ import annotations

import time

import chess
import numpy as np

from chesslab.datasets.positions import Dataset
from chesslab.search.searcher import search

#: Labels and predictions are clipped to +-CLIP_CP before the MAE and the correlation.
CLIP_CP = 1000
#: Sign accuracy only counts positions where Stockfish's |cp| is above this margin.
SIGN_MARGIN_CP = 50


def metrics(pred_cp, true_cp) -> dict:
    """MAE (cp, clipped to +-CLIP_CP), Pearson correlation, sign accuracy (|cp| > 50)."""
    pred = np.clip(np.asarray(pred_cp, dtype=float), -CLIP_CP, CLIP_CP)
    true = np.clip(np.asarray(true_cp, dtype=float), -CLIP_CP, CLIP_CP)
    if pred.shape != true.shape or pred.ndim != 1 or len(pred) == 0:
        raise ValueError(f"metrics need two non-empty 1-d arrays of the same length, got "
                         f"shapes {pred.shape} and {true.shape}")
    spread = pred.std() * true.std()
    corr = float(np.mean((pred - pred.mean()) * (true - true.mean())) / spread) if spread else 0.0
    return {"mae_cp": float(np.mean(np.abs(pred - true))), "correlation": corr,
            "sign_accuracy": accuracy(pred_cp, true_cp), "positions": int(len(pred))}


def accuracy(pred_cp, true_cp, margin: float = SIGN_MARGIN_CP) -> float:
    """The thesis's accuracy, made precise: on positions with ``|true| > margin``, the
    fraction where the prediction has the same sign (names the same side as better)."""
    pred, true = np.asarray(pred_cp, dtype=float), np.asarray(true_cp, dtype=float)
    clear = np.abs(true) > margin
    if not clear.any():
        return float("nan")
    return float(np.mean(np.sign(pred[clear]) == np.sign(true[clear])))


def evaluate_on(evaluator, dataset: Dataset) -> dict:
    """Metrics of any evaluator on a dataset (batched when it prefers batches)."""
    boards = dataset.boards()
    scores = evaluator.evaluate_batch(boards) if getattr(evaluator, "prefers_batches", False) \
        else np.array([evaluator.evaluate(b) for b in boards], dtype=float)
    return metrics(scores, dataset.cp)


#: Positions of the test split scored by a search in the results table (seeded sample).
SEARCH_SAMPLE = 2000


def search_metrics(evaluator, dataset: Dataset, depth: int = 1, sample: int = SEARCH_SAMPLE,
                   seed: int = 0) -> dict:
    """Metrics of ``search(board, evaluator, depth).score`` (quiescence included): the
    evaluation as a search really uses it, on a seeded sample of ``dataset``; for all
    positions and separately for White and Black to move."""
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(dataset), min(sample, len(dataset)), replace=False))
    part = dataset.subset(rows)
    boards = part.boards()
    start = time.perf_counter()
    scores = np.array([search(b, evaluator, depth=depth).score for b in boards])
    seconds = time.perf_counter() - start
    white = np.array([b.turn == chess.WHITE for b in boards])
    out = {"depth": depth, "seconds": round(seconds, 1), "all": metrics(scores, part.cp)}
    for key, mask in (("white_to_move", white), ("black_to_move", ~white)):
        if mask.any():
            out[key] = metrics(scores[mask], part.cp[mask])
    return out
