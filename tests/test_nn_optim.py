"""Optimisers: SGD with momentum and Adam follow their formulas."""
import numpy as np
import pytest

from chesslab import nn


def test_sgd_momentum_and_adam_follow_their_formulas():
    layer = nn.Dense(1, 1)
    net = nn.Sequential(layer)
    layer.params["W"][:] = 1.0
    layer.grads = {"W": np.array([[0.5]], np.float32), "b": np.array([0.0], np.float32)}
    sgd = nn.SGD(lr=0.1, momentum=0.9)
    sgd.step(net)
    sgd.step(net)       # v1 = -0.05, v2 = 0.9 * -0.05 - 0.05 = -0.095
    assert layer.params["W"][0, 0] == pytest.approx(1 - 0.05 - 0.095)
    layer.params["W"][:] = 1.0
    adam = nn.Adam(lr=0.01)
    adam.step(net)      # first Adam step moves by lr * sign(g)
    assert layer.params["W"][0, 0] == pytest.approx(0.99, abs=1e-6)
