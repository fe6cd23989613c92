"""Gradient checks: compare backprop's gradients with central differences.

``(f(x + h) - f(x - h)) / 2h`` needs only forward passes, so it is slow but hard to
get wrong; if it agrees with ``backward`` to ~1e-8 in float64, backward is right.
"""
from __future__ import annotations

import numpy as np


def numerical_gradient(f, x, h: float = 1e-6):
    """d f() / d x by central differences, changing ``x`` in place (and restoring it)."""
    grad = np.zeros_like(x, dtype=np.float64)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + h
        up = f()
        flat[i] = old - h
        down = f()
        flat[i] = old
        gflat[i] = (up - down) / (2 * h)
    return grad


def relative_error(a, b, zero: float = 1e-7) -> float:
    """||a - b|| / (||a|| + ||b||): 0 when equal, 1 when unrelated.

    A gradient that is truly zero (a bias just before batch norm, whose shift the
    normalisation removes) is compared by the absolute error ||a - b|| instead: when both
    norms are below ``zero``, the ratio would only measure round-off noise.
    """
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    diff, denom = float(np.linalg.norm(a - b)), np.linalg.norm(a) + np.linalg.norm(b)
    return diff if denom < zero else diff / denom


def check_layer(layer, x, seed: int = 0, h: float = 1e-6) -> dict[str, float]:
    """Relative error of backward vs central differences, for the input and every param.

    The scalar checked is ``sum(forward(x) * R)`` for a fixed random R, so the upstream
    gradient is simply R. Use float64 (``layer.astype(np.float64)``).
    """
    layer.train()
    x = np.array(x, dtype=np.float64)
    r = np.random.default_rng(seed).standard_normal(layer.forward(x).shape)

    def f():
        return float(np.sum(layer.forward(x) * r))

    layer.forward(x)
    errors = {"input": relative_error(layer.backward(r), numerical_gradient(f, x, h))}
    analytic = {k: np.array(v) for k, v in layer.grads.items()}
    for key, param in layer.params.items():
        errors[key] = relative_error(analytic[key], numerical_gradient(f, param, h))
    return errors


def check_loss(loss, pred, *args, h: float = 1e-6) -> float:
    """Relative error of a loss's returned gradient vs central differences."""
    pred = np.array(pred, dtype=np.float64)
    _, grad = loss(pred, *args)
    return relative_error(grad, numerical_gradient(lambda: loss(pred, *args)[0], pred, h))
