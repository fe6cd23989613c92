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


def test_adamw_shrinks_weights_not_biases_apart_from_the_gradient_step():
    layer = nn.Dense(2, 1)
    net = nn.Sequential(layer)
    layer.params["W"][:] = 2.0
    layer.params["b"][:] = 3.0
    layer.grads = {"W": np.zeros((2, 1), np.float32), "b": np.zeros(1, np.float32)}
    nn.Adam(lr=0.01, weight_decay=0.5).step(net)   # zero gradient: only the decay acts
    np.testing.assert_allclose(layer.params["W"], 2.0 * (1 - 0.01 * 0.5), rtol=1e-6)
    np.testing.assert_allclose(layer.params["b"], 3.0)
    layer.params["W"][:] = 1.0
    layer.grads["W"][:] = 0.5
    nn.Adam(lr=0.01, weight_decay=0.5).step(net)   # decay, then Adam's first step lr * sign(g)
    np.testing.assert_allclose(layer.params["W"], 1.0 * (1 - 0.005) - 0.01, atol=1e-6)
    layer.params["W"][:] = 1.0
    nn.Adam(lr=0.01).step(net)                      # no decay by default
    np.testing.assert_allclose(layer.params["W"], 0.99, atol=1e-6)
