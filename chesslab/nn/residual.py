"""Batch normalisation and the residual block built from it (the tutorial's deep net)."""
from __future__ import annotations

import numpy as np

from chesslab.nn.conv import Conv2D
from chesslab.nn.layers import DTYPE, Layer, ReLU, Sequential, make_rng


class BatchNorm(Layer):
    """Normalise each channel to mean 0, variance 1, then scale by gamma and shift by beta.

    Training mode uses the batch's own statistics and updates running averages;
    eval mode uses the running averages, so one position gets the same score alone or
    in a batch. Works on (N, C) and (N, C, H, W).
    """

    def __init__(self, num_features: int, momentum: float = 0.1, eps: float = 1e-5,
                 dtype=DTYPE):
        super().__init__()
        self.num_features, self.momentum, self.eps = int(num_features), momentum, eps
        self.params = {"gamma": np.ones(num_features, dtype), "beta": np.zeros(num_features, dtype)}
        self.running_mean = np.zeros(num_features, dtype)
        self.running_var = np.ones(num_features, dtype)
        self._xhat = None

    def config(self):
        return {"type": "BatchNorm", "num_features": self.num_features,
                "momentum": self.momentum, "eps": self.eps}

    def __repr__(self):
        return f"BatchNorm({self.num_features})"

    def astype(self, dtype):
        self.running_mean = self.running_mean.astype(dtype)
        self.running_var = self.running_var.astype(dtype)
        return super().astype(dtype)

    def _shape(self, x):
        return (1, -1) + (1,) * (x.ndim - 2)

    def forward(self, x):
        shape = self._shape(x)
        gamma, beta = self.params["gamma"].reshape(shape), self.params["beta"].reshape(shape)
        if not self.training:
            scale = gamma / np.sqrt(self.running_var.reshape(shape) + self.eps)
            return (x - self.running_mean.reshape(shape)) * scale + beta
        axes = (0,) + tuple(range(2, x.ndim))
        mean = x.mean(axis=axes)
        var = x.var(axis=axes)
        m = self.momentum
        self.running_mean = ((1 - m) * self.running_mean + m * mean).astype(x.dtype)
        self.running_var = ((1 - m) * self.running_var + m * var).astype(x.dtype)
        inv_std = 1.0 / np.sqrt(var + self.eps)
        xhat = (x - mean.reshape(shape)) * inv_std.reshape(shape)
        self._xhat, self._inv_std, self._axes = xhat, inv_std, axes
        return xhat * gamma + beta

    def backward(self, grad_out, input_grad=True):
        xhat = self._need_cache("_xhat")
        axes, shape = self._axes, self._shape(xhat)
        self.grads = {"gamma": (grad_out * xhat).sum(axis=axes), "beta": grad_out.sum(axis=axes)}
        count = grad_out.size // self.num_features
        dxhat = grad_out * self.params["gamma"].reshape(shape)
        # d/dx of (x - mean) / std, where mean and std depend on every x of the channel
        dx = (count * dxhat - dxhat.sum(axis=axes).reshape(shape)
              - xhat * (dxhat * xhat).sum(axis=axes).reshape(shape))
        return dx * (self._inv_std / count).reshape(shape)


def recalibrate_batch_norm(model, batches) -> int:
    """Set every BatchNorm's running statistics to the average over ``batches`` (inputs
    fed forward in training mode, no weights changed); returns how many were used.

    The running averages follow the last few dozen training batches, taken while the
    weights were still moving; after training they can sit far from what the final
    weights produce, and eval mode (one position at a time, as a search asks) then
    scores worse than the training error promised. Averaging over many batches with
    the final weights is the usual mend."""
    norms = [layer for layer in model.leaves() if isinstance(layer, BatchNorm)]
    saved = [(n.momentum, n.training, n.running_mean, n.running_var) for n in norms]
    for n in norms:
        n.running_mean = np.zeros_like(n.running_mean)
        n.running_var = np.zeros_like(n.running_var)
        n.train(True)
    used = 0
    try:
        for x in batches:
            used += 1
            for n in norms:
                n.momentum = 1.0 / used           # a running mean of the batches so far
            model.forward(x)
    finally:
        for n, (momentum, training, mean, var) in zip(norms, saved):
            n.momentum = momentum
            n.train(training)
            n._xhat = n._inv_std = None        # no cache from these passes
            if not used:                       # nothing seen: keep what it had
                n.running_mean, n.running_var = mean, var
    if not used:
        raise ValueError("recalibrating batch norm needs at least one batch of inputs")
    return used


class Residual(Sequential):
    """The tutorial's residual block: conv-BN-ReLU-conv-BN, add the input, ReLU.

    The skip connection lets the gradient reach early layers unchanged, which is why
    deep stacks of these blocks still train.
    """

    def __init__(self, channels: int, kernel_size: int = 3, rng=None, dtype=DTYPE):
        rng = make_rng(rng)
        pad = kernel_size // 2
        super().__init__(Conv2D(channels, channels, kernel_size, padding=pad, rng=rng, dtype=dtype),
                         BatchNorm(channels, dtype=dtype), ReLU(),
                         Conv2D(channels, channels, kernel_size, padding=pad, rng=rng, dtype=dtype),
                         BatchNorm(channels, dtype=dtype))
        self.channels, self.kernel_size = int(channels), int(kernel_size)
        self.out_relu = ReLU()

    def forward(self, x):
        return self.out_relu.forward(super().forward(x) + x)

    def backward(self, grad_out, input_grad=True):
        g = self.out_relu.backward(grad_out)
        return super().backward(g) + g      # branch + skip

    def train(self, mode=True):
        self.out_relu.train(mode)
        return super().train(mode)

    def config(self):
        return {"type": "Residual", "channels": self.channels, "kernel_size": self.kernel_size}

    def __repr__(self):
        return f"Residual({self.channels}, {self.kernel_size}x{self.kernel_size})"
