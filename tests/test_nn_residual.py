"""Batch norm: running statistics make a position score the same alone or in a batch."""
import numpy as np
import pytest

from chesslab import nn


def test_batchnorm_eval_uses_running_statistics():
    bn = nn.BatchNorm(2)
    x = np.random.default_rng(0).normal(3.0, 2.0, (500, 2, 2, 2)).astype(np.float32)
    for _ in range(100):      # momentum 0.1: 0.9**100 of the start value is left
        bn.forward(x)
    assert np.allclose(bn.running_mean, x.mean(axis=(0, 2, 3)), atol=1e-3)
    bn.eval()
    one = bn.forward(x[:1])
    assert np.allclose(one, bn.forward(x)[:1])       # a position scores the same alone
    assert abs(float(bn.forward(x).mean())) < 0.05


def test_recalibrated_batch_norm_holds_the_average_statistics_of_the_batches():
    from chesslab.nn import BatchNorm, Dense, Sequential, recalibrate_batch_norm
    rng = np.random.default_rng(3)
    model = Sequential(Dense(5, 4, rng=rng), BatchNorm(4))
    norm = model.layers[1]
    norm.running_mean[:] = 40.0                  # statistics far from the data's
    norm.running_var[:] = 0.01
    batches = [rng.normal(2.0, 3.0, (64, 5)).astype(np.float32) for _ in range(3)]
    h = [model.layers[0].forward(x) for x in batches]
    assert recalibrate_batch_norm(model, iter(batches)) == 3
    np.testing.assert_allclose(norm.running_mean, np.mean([x.mean(0) for x in h], 0), rtol=1e-5)
    np.testing.assert_allclose(norm.running_var, np.mean([x.var(0) for x in h], 0), rtol=1e-5)
    assert norm.momentum == 0.1 and norm.training            # settings restored
    model.train(False)
    one = np.concatenate(batches)
    model.train(True)
    recalibrate_batch_norm(model, [one])
    model.train(False)
    eval_out = model.forward(one)
    model.train(True)
    np.testing.assert_allclose(eval_out, model.forward(one), atol=1e-3)   # eval = batch stats
    kept = norm.running_mean.copy()
    with pytest.raises(ValueError, match="at least one batch"):
        recalibrate_batch_norm(model, [])
    np.testing.assert_array_equal(norm.running_mean, kept)       # untouched by nothing
