"""The layer conventions: backward overwrites grads, eval mode keeps nothing."""
import numpy as np
import pytest

from chesslab import nn


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_backward_overwrites_grads_instead_of_accumulating():
    layer = nn.Dense(3, 2).astype(np.float64)
    x, g = rand(4, 3), rand(4, 2)
    layer.forward(x)
    layer.backward(g)
    first = {k: v.copy() for k, v in layer.grads.items()}
    layer.forward(x)
    layer.backward(g)
    for key in first:
        assert np.array_equal(layer.grads[key], first[key])


def test_eval_mode_keeps_nothing_for_backward():
    layer = nn.Dense(3, 2).eval()
    layer.forward(np.ones((1, 3), np.float32))
    with pytest.raises(RuntimeError, match="training mode"):
        layer.backward(np.ones((1, 2), np.float32))
