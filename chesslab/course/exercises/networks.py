"""Checkers of the network layers written from scratch: notebook 02 (a dense layer's
backward pass) and notebook 03 (a convolution, max pooling, a residual block)."""
from __future__ import annotations

import numpy as np

from chesslab import nn
from chesslab.course.checking import CheckResult, close_all, close_arrays, own_work, run_cases
from chesslab.nn import Dense, MaxPool2D, conv2d_naive


def check_dense_backward(fn, cases: int = 50, seed: int = 0, show=True) -> CheckResult:
    """``fn(x, W, grad_out) -> (grad_x, grad_W, grad_b)`` for ``y = x @ W + b`` against
    ``chesslab.nn.Dense.backward``, on random shapes and numbers."""
    rng, fn = np.random.default_rng(seed), own_work(fn, Dense.backward)
    shapes = [tuple(int(v) for v in rng.integers(1, 7, size=3)) for _ in range(cases)]

    def compare(shape):
        n, n_in, n_out = shape
        layer = Dense(n_in, n_out, rng=np.random.default_rng(n * 100 + n_in * 10 + n_out),
                      dtype=np.float64)
        x = rng.normal(size=(n, n_in))
        grad_out = rng.normal(size=(n, n_out))
        layer.forward(x)
        grad_x = layer.backward(grad_out)
        mine = fn(x.copy(), layer.params["W"].copy(), grad_out.copy())
        return close_all(mine, {"grad_x": grad_x, "grad_W": layer.grads["W"],
                                 "grad_b": layer.grads["b"]},
                          f"x {x.shape}, W {layer.params['W'].shape}")
    return run_cases("my_dense_backward", shapes, compare, show)


def check_conv2d(fn, cases: int = 30, seed: int = 0, show=True) -> CheckResult:
    """``fn(x, weight, bias, padding) -> output`` (cross-correlation, no kernel flip;
    x is (N, C, H, W), weight (out, C, k, k)) against ``chesslab.nn.conv2d_naive``."""
    rng, fn = np.random.default_rng(seed), own_work(fn, conv2d_naive, nn.Conv2D.forward,
                                                   nn.Conv2D.im2col, nn.Conv2D._windows)
    settings = [(int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4)),
                 int(rng.choice([1, 3])), int(rng.integers(0, 2))) for _ in range(cases)]

    def compare(setting):
        n, c, out, k, padding = setting
        x = rng.normal(size=(n, c, 8, 8))
        weight = rng.normal(size=(out, c, k, k))
        bias = rng.normal(size=out)
        return close_arrays(fn(x.copy(), weight.copy(), bias.copy(), padding),
                      conv2d_naive(x, weight, bias, padding=padding),
                      f"output (kernel {k}x{k}, padding {padding})")
    return run_cases("my_conv2d", settings, compare, show)


def check_max_pool(fn, cases: int = 30, seed: int = 0, show=True) -> CheckResult:
    """``fn(x, size) -> output``: the maximum of every ``size x size`` window (stride =
    size), keeping the last partial window (8 by 3 gives 3), on (N, C, H, W) arrays.
    Against ``nn.MaxPool2D(size).forward``."""
    rng, fn = np.random.default_rng(seed), own_work(fn, MaxPool2D.forward)
    settings = [(int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.choice([3, 5, 8])),
                 int(rng.choice([2, 3]))) for _ in range(cases)]

    def compare(setting):
        n, c, h, size = setting
        x = rng.normal(size=(n, c, h, h))
        return close_arrays(fn(x.copy(), size), MaxPool2D(size).forward(x),
                      f"output (input {h}x{h}, window {size})")
    return run_cases("my_max_pool", settings, compare, show)


def residual_blocks(cases: int, seed: int):
    """Random residual blocks in eval mode with random batch-norm statistics, and inputs."""
    rng = np.random.default_rng(seed)
    found = []
    for i in range(cases):
        channels, k = int(rng.integers(1, 5)), int(rng.choice([1, 3]))
        block = nn.Residual(channels, kernel_size=k, rng=np.random.default_rng(seed * 1000 + i),
                            dtype=np.float64)
        for bn in (block.layers[1], block.layers[4]):
            bn.params["gamma"][:] = rng.uniform(0.5, 2.0, channels)
            bn.params["beta"][:] = rng.normal(0, 0.5, channels)
            bn.running_mean = rng.normal(0, 0.5, channels)
            bn.running_var = rng.uniform(0.2, 3.0, channels)
        block.train(False)
        found.append((block, rng.normal(size=(int(rng.integers(1, 4)), channels, 8, 8))))
    return found


def check_residual_forward(fn, cases: int = 30, seed: int = 12, show=True) -> CheckResult:
    """``fn(x, block) -> output`` of a residual block in eval mode (conv, batch norm with
    the running statistics, ReLU, conv, batch norm, add the input, ReLU), against
    ``nn.Residual.forward``."""
    fn = own_work(fn, nn.Residual.forward, nn.BatchNorm.forward)

    def compare(case):
        block, x = case
        want = block.forward(x)
        return close_arrays(fn(x.copy(), block), want,
                            f"output ({block.channels} channels, kernel {block.kernel_size}, "
                            f"batch {len(x)}) at")
    return run_cases("my_residual_forward", residual_blocks(cases, seed), compare, show)
