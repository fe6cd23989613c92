"""Batch norm: running statistics make a position score the same alone or in a batch."""
import numpy as np

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
