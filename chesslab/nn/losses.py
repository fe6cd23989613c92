"""Losses: each returns ``(loss, grad)``, the number to minimise and its gradient
with respect to the network's output, ready for ``model.backward(grad)``."""
from __future__ import annotations

import numpy as np


def _check_shapes(pred, target, name):
    if pred.shape != target.shape:
        raise ValueError(f"{name}: prediction shape {pred.shape} and target shape "
                         f"{target.shape} differ; reshape the target (e.g. y.reshape(-1, 1))")


def mse(pred, target):
    """Mean squared error, the tutorial's regression loss (the thesis names no loss)."""
    target = np.asarray(target, dtype=pred.dtype)
    _check_shapes(pred, target, "mse")
    diff = pred - target
    return float(np.mean(diff * diff)), diff * (2.0 / diff.size)


def binary_cross_entropy(prob, target, eps: float = 1e-7):
    """Cross-entropy of probabilities (after a sigmoid) against targets in [0, 1].

    Probabilities are clipped to [eps, 1 - eps] so log(0) never happens.
    """
    target = np.asarray(target, dtype=prob.dtype)
    _check_shapes(prob, target, "binary_cross_entropy")
    p = np.clip(prob, eps, 1 - eps)
    loss = -np.mean(target * np.log(p) + (1 - target) * np.log(1 - p))
    return float(loss), (p - target) / (p * (1 - p)) / p.size


def sigmoid(z):
    """1 / (1 + e^-z), without overflow warnings for large |z|."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def sigmoid_mse(logits, target):
    """Squared error in win-probability space: ``(sigmoid(z) - p)^2``.

    The network outputs an unbounded score ``z`` (centipawns / 400 in chesslab); the
    target ``p`` is an expected score in [0, 1] (Stockfish's win/draw/loss, or
    ``sigmoid(cp / 400)``). Being 300 cp off in an equal position costs a lot; being
    300 cp off when a side is already a rook up costs almost nothing, which is what
    matters to a player (the NNUE trainers' loss).
    """
    target = np.asarray(target, dtype=logits.dtype)
    _check_shapes(logits, target, "sigmoid_mse")
    p = sigmoid(logits)
    diff = p - target
    return float(np.mean(diff * diff)), diff * p * (1 - p) * (2.0 / diff.size)


def log_softmax(logits, mask=None):
    """Row-wise log of the softmax, computed as z - max - log(sum e^(z - max)).

    Taking the log of ``softmax`` instead would give log(0) = -inf for a move whose
    probability underflows (a logit 100 below the best one), and an infinite loss.
    Entries where ``mask`` is False get -inf.
    """
    z = np.asarray(logits)
    if mask is not None:
        z = np.where(mask, z, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def softmax(logits, mask=None):
    """Row-wise softmax; entries where ``mask`` is False get probability exactly 0."""
    return np.exp(log_softmax(logits, mask))


def softmax_cross_entropy(logits, target, mask=None):
    """Softmax + cross-entropy for a policy head, with an optional legal-move mask.

    ``target`` is either class indices ``(N,)`` or distributions ``(N, K)`` (e.g. MCTS
    visit counts). Masked (illegal) moves get probability 0 and gradient 0, so the net
    is never pushed to rank moves that cannot be played.
    """
    logits = np.asarray(logits)
    n, k = logits.shape
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != logits.shape:
            raise ValueError(f"mask shape {mask.shape} must equal logits shape {logits.shape}")
        if not mask.any(axis=1).all():
            raise ValueError("a row of the mask has no legal move; every position needs one")
    target = np.asarray(target)
    if target.ndim == 1:
        if target.shape[0] != n:
            raise ValueError(f"{target.shape[0]} targets for {n} rows of logits")
        onehot = np.zeros_like(logits)
        onehot[np.arange(n), target.astype(int)] = 1
        target = onehot
    else:
        target = target.astype(logits.dtype)
        _check_shapes(logits, target, "softmax_cross_entropy")
    if mask is not None and np.any(target[~mask] != 0):
        raise ValueError("the target puts probability on a masked (illegal) move")
    logp = log_softmax(logits, mask)
    p = np.exp(logp)
    with np.errstate(invalid="ignore"):     # 0 * -inf on masked moves, discarded
        loss = -np.sum(np.where(target > 0, target * logp, 0.0)) / n
    return float(loss), (p - target) / n


def l2_penalty(model, weight_decay: float):
    """L2 weight decay: adds ``weight_decay * W`` to the weight gradients (not biases).

    Call after ``model.backward``; returns ``0.5 * weight_decay * sum(W**2)`` to add to
    the loss you report.
    """
    total = 0.0
    for layer in model.leaves():
        if "W" in layer.params:
            w = layer.params["W"]
            total += float(np.sum(w * w))
            if "W" in layer.grads:
                layer.grads["W"] = layer.grads["W"] + weight_decay * w
    return 0.5 * weight_decay * total
