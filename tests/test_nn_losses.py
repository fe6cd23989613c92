"""Losses: masked softmax, a finite cross-entropy when a target underflows, L2 penalty."""
import numpy as np
import pytest

from chesslab import nn


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_masked_logits_get_zero_probability_and_zero_gradient():
    logits = rand(2, 4)
    mask = np.array([[1, 0, 1, 0], [0, 0, 0, 1]], bool)
    loss, grad = nn.softmax_cross_entropy(logits, np.array([2, 3]), mask)
    p = nn.softmax(logits, mask)
    assert np.all(p[~mask] == 0) and np.allclose(p.sum(axis=1), 1)
    assert np.all(grad[~mask] == 0)
    assert loss == pytest.approx(-np.log(p[0, 2]) / 2 - np.log(p[1, 3]) / 2)
    with pytest.raises(ValueError, match="illegal"):
        nn.softmax_cross_entropy(logits, np.array([1, 3]), mask)


def test_softmax_cross_entropy_stays_finite_when_a_target_move_underflows():
    # float32 exp underflows 200 below the best logit; the loss must still be the
    # exact log-softmax value (about 200), not infinity
    logits = np.array([[200.0, 0.0, 5.0]], np.float32)
    with np.errstate(divide="raise", invalid="raise", over="raise"):
        loss, grad = nn.softmax_cross_entropy(logits, np.array([1]))
    exact = -(0.0 - 200.0 - np.log1p(np.exp(-200.0) + np.exp(-195.0)))
    assert loss == pytest.approx(exact, rel=1e-6)
    assert np.all(np.isfinite(grad)) and grad[0, 1] == pytest.approx(-1.0)


def test_l2_penalty_gradient_and_value():
    net = nn.Sequential(nn.Dense(3, 2), nn.Tanh(), nn.Dense(2, 1)).astype(np.float64)
    x, lam = rand(4, 3), 0.1
    net.forward(x)
    net.backward(np.ones((4, 1)))
    before = {k: v.copy() for k, v in net.grads.items()}
    penalty = nn.l2_penalty(net, lam)
    weights = [layer.params["W"] for layer in net.leaves() if "W" in layer.params]
    assert penalty == pytest.approx(0.5 * lam * sum(np.sum(w * w) for w in weights))
    for key, grad in net.grads.items():
        extra = lam * net.params[key] if key.endswith("W") else 0
        assert np.allclose(grad, before[key] + extra)
