"""Layers: small classes with ``forward``, ``backward`` and ``params`` / ``grads`` side by side.

Conventions (the same for every layer, so a student learns them once):

* arrays are batch-first and channels-first: ``(N, features)`` or ``(N, C, H, W)``;
* ``forward(x)`` remembers what ``backward`` needs, but only in training mode
  (``layer.train()``, the default); in eval mode (``layer.eval()``) nothing is kept,
  which is the fast inference path used by the evaluators;
* ``backward(grad_out)`` returns the gradient of the loss with respect to the input and
  OVERWRITES ``grads`` (no accumulation: one backward per forward);
* ``params`` and ``grads`` are dicts with the same keys; optimisers change ``params``
  in place.

Everything works in float32 (the default, fast) and float64 (for gradient checks):
call ``layer.astype(np.float64)``.
"""
from __future__ import annotations

import math

import numpy as np

DTYPE = np.float32


def _rng(rng) -> np.random.Generator:
    """A seeded generator: pass one shared ``np.random.default_rng(seed)`` when building a net."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(0 if rng is None else rng)


def he_normal(shape, fan_in: int, rng=None, dtype=DTYPE) -> np.ndarray:
    """He init: variance 2/fan_in keeps ReLU activations from shrinking layer by layer."""
    return (_rng(rng).standard_normal(shape) * math.sqrt(2.0 / fan_in)).astype(dtype)


def xavier_uniform(shape, fan_in: int, fan_out: int, rng=None, dtype=DTYPE) -> np.ndarray:
    """Xavier/Glorot init: keeps the variance of sigmoid/tanh layers near 1 both ways."""
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return _rng(rng).uniform(-limit, limit, shape).astype(dtype)


class Layer:
    """Base class: no parameters, training mode on."""

    training = True

    def __init__(self):
        self.params: dict[str, np.ndarray] = {}
        self.grads: dict[str, np.ndarray] = {}

    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        raise NotImplementedError

    def backward(self, grad_out, input_grad: bool = True):
        """Gradient w.r.t. the input; ``input_grad=False`` may skip it (first layer)."""
        raise NotImplementedError

    def train(self, mode: bool = True):
        self.training = mode
        return self

    def eval(self):
        return self.train(False)

    def astype(self, dtype):
        for key, value in self.params.items():
            self.params[key] = value.astype(dtype)
        self.grads = {}
        return self

    def leaves(self):
        """The layers that hold numbers (containers yield their children)."""
        yield self

    def config(self) -> dict:
        """Constructor arguments as JSON, so a model file can rebuild the layer."""
        return {"type": type(self).__name__}

    def _need_cache(self, name):
        if getattr(self, name, None) is None:
            raise RuntimeError(f"{type(self).__name__}.backward needs a forward pass in "
                               f"training mode first (call model.train() before training)")
        return getattr(self, name)

    def __repr__(self):
        args = ", ".join(str(v) for k, v in self.config().items() if k != "type")
        return f"{type(self).__name__}({args})"


class Dense(Layer):
    """Fully connected layer: ``y = x @ W + b`` with ``W`` of shape (n_in, n_out)."""

    def __init__(self, n_in: int, n_out: int, init: str = "he", rng=None, dtype=DTYPE):
        super().__init__()
        self.n_in, self.n_out, self.init = int(n_in), int(n_out), init
        if init == "he":
            w = he_normal((n_in, n_out), n_in, rng, dtype)
        elif init == "xavier":
            w = xavier_uniform((n_in, n_out), n_in, n_out, rng, dtype)
        else:
            raise ValueError(f"unknown init {init!r}; use 'he' (ReLU) or 'xavier' (sigmoid/tanh)")
        self.params = {"W": w, "b": np.zeros(n_out, dtype)}
        self._x = None

    def forward(self, x):
        self._x = x if self.training else None
        y = x @ self.params["W"]
        y += self.params["b"]
        return y

    def backward(self, grad_out, input_grad=True):
        x = self._need_cache("_x")
        self.grads = {"W": x.T @ grad_out, "b": grad_out.sum(axis=0)}
        return grad_out @ self.params["W"].T if input_grad else None

    def config(self):
        return {"type": "Dense", "n_in": self.n_in, "n_out": self.n_out, "init": self.init}

    def __repr__(self):
        return f"Dense({self.n_in} -> {self.n_out})"


# ----------------------------------------------------------------------------- convolution

def _out_size(size, k, stride, padding):
    out = (size + 2 * padding - k) // stride + 1
    if out < 1:
        raise ValueError(f"kernel {k} with padding {padding} does not fit an input of size {size}")
    return out


def conv2d_naive(x, weight, bias, stride: int = 1, padding: int = 0):
    """Convolution as plain loops: every output number is one window times one kernel.

    The reference for teaching and for tests (slow: use ``Conv2D`` for real work).
    Cross-correlation, like every deep-learning library: the kernel is not flipped.
    """
    n, c, h, w = x.shape
    out_c, _, k, _ = weight.shape
    ho, wo = _out_size(h, k, stride, padding), _out_size(w, k, stride, padding)
    xp = np.zeros((n, c, h + 2 * padding, w + 2 * padding), x.dtype)
    xp[:, :, padding:padding + h, padding:padding + w] = x
    out = np.zeros((n, out_c, ho, wo), np.result_type(x, weight))
    for i in range(n):
        for o in range(out_c):
            for r in range(ho):
                for col in range(wo):
                    window = xp[i, :, r * stride:r * stride + k, col * stride:col * stride + k]
                    out[i, o, r, col] = np.sum(window * weight[o]) + bias[o]
    return out


def _rows_times(rows, matrix):
    """(N, P, K) window rows times a (K, out) matrix, returned channels-first (N, out, P).

    Two ways to the same numbers: with few output channels, ``matrix.T @ rows.T`` per
    sample writes channels-first directly; with many, ``rows @ matrix`` is the faster
    product and one transpose copy follows (measured on 8x8 boards at batch 256:
    1 -> 13 channels 5x faster the first way, 32 -> 32 channels 1.5x faster the second).
    """
    if matrix.shape[1] < 16:
        return np.matmul(matrix.T, rows.transpose(0, 2, 1))
    return np.ascontiguousarray(np.matmul(rows, matrix).transpose(0, 2, 1))


class Conv2D(Layer):
    """2-D convolution (cross-correlation) as one matrix product, by im2col.

    im2col copies every k x k window of the (padded) input into one row, so the whole
    convolution becomes ``rows (N, Ho*Wo, k*k*C) @ weights (k*k*C, out)``. The rows are
    gathered from a channels-last copy of the input, where one window cell is C
    consecutive numbers: the gather then copies runs of C floats instead of single
    floats (measured 6.7x faster than gathering from a channels-first array). The gather
    indices depend only on the input size, so for 8x8 boards they are computed once.
    Weights ``(out_channels, in_channels, k, k)``, bias ``(out_channels,)``.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, rng=None, dtype=DTYPE):
        super().__init__()
        if padding == "same":
            if kernel_size % 2 == 0 or stride != 1:
                raise ValueError("padding='same' needs an odd kernel and stride 1")
            padding = kernel_size // 2
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size, self.stride, self.padding = int(kernel_size), int(stride), int(padding)
        fan_in = in_channels * kernel_size * kernel_size
        self.params = {"W": he_normal((out_channels, in_channels, kernel_size, kernel_size),
                                      fan_in, rng, dtype),
                       "b": np.zeros(out_channels, dtype)}
        self._index = {}     # (H, W, padding, stride) -> (Ho, Wo, gather index)
        self._buffers = {}   # padded channels-last buffers whose zero border is written once
        self._rows = self._in_shape = None

    def config(self):
        return {"type": "Conv2D", "in_channels": self.in_channels,
                "out_channels": self.out_channels, "kernel_size": self.kernel_size,
                "stride": self.stride, "padding": self.padding}

    def __repr__(self):
        k, s, p = self.kernel_size, self.stride, self.padding
        extra = (f", stride {s}" if s != 1 else "") + (f", padding {p}" if p else "")
        return f"Conv2D({self.in_channels} -> {self.out_channels}, {k}x{k}{extra})"

    def _padded(self, x_last, p):
        """(N, H, W, C) -> the same, zero-padded by p (a reused buffer)."""
        n, h, w, c = x_last.shape
        key = (n, h, w, c, p, x_last.dtype)
        buf = self._buffers.get(key)
        if buf is None:
            buf = self._buffers[key] = np.zeros((n, h + 2 * p, w + 2 * p, c), x_last.dtype)
        buf[:, p:p + h, p:p + w] = x_last      # the border stays zero
        return buf

    def _windows(self, x_last, padding, stride):
        """Channels-last (N, H, W, C) -> rows (N, Ho*Wo, k*k*C), cells ordered (ki, kj, c)."""
        n, h, w, c = x_last.shape
        k = self.kernel_size
        geo = self._index.get((h, w, padding, stride))
        if geo is None:
            ho, wo = _out_size(h, k, stride, padding), _out_size(w, k, stride, padding)
            # index[r, c, i, j] = flat position in the padded plane of window (r, c), cell (i, j)
            rr, cc, ii, jj = np.ix_(range(ho), range(wo), range(k), range(k))
            index = ((rr * stride + ii) * (w + 2 * padding) + cc * stride + jj)
            geo = self._index[(h, w, padding, stride)] = (ho, wo, index.reshape(ho * wo, k * k))
        ho, wo, index = geo
        xp = self._padded(x_last, padding)
        if c == 1:       # one plane: gather single numbers (a trailing axis of 1 is slower)
            rows = np.take(xp.reshape(n, -1), index, axis=1)
        else:
            rows = np.take(xp.reshape(n, -1, c), index, axis=1)  # (N, Ho*Wo, k*k, C)
        return rows.reshape(n, ho * wo, k * k * c), ho, wo

    def im2col(self, x, padding=None):
        """(N, C, H, W) -> (N, C*k*k, Ho*Wo): one column per window, rows ordered
        (channel, ki, kj), the textbook layout (the layer itself works on rows)."""
        p = self.padding if padding is None else padding
        n, c = x.shape[:2]
        rows, ho, wo = self._windows(x.transpose(0, 2, 3, 1), p, self.stride)
        k2 = self.kernel_size ** 2
        cols = rows.reshape(n, ho * wo, k2, c).transpose(0, 3, 2, 1).reshape(n, c * k2, ho * wo)
        return cols, ho, wo

    def _weight_matrix(self):
        """W as (k*k*C, out), rows in the same (ki, kj, c) order as the window rows."""
        return self.params["W"].transpose(2, 3, 1, 0).reshape(-1, self.out_channels)

    def forward(self, x):
        if x.ndim != 4 or x.shape[1] != self.in_channels:
            raise ValueError(f"Conv2D expects {self.in_channels} input channels, shape "
                             f"(N, {self.in_channels}, H, W); got shape {x.shape}")
        n = x.shape[0]
        rows, ho, wo = self._windows(x.transpose(0, 2, 3, 1), self.padding, self.stride)
        out = _rows_times(rows, self._weight_matrix())        # (N, out, Ho*Wo)
        out += self.params["b"][:, None]
        if self.training:
            self._rows, self._in_shape = rows, x.shape
        else:
            self._rows = None
        return out.reshape(n, self.out_channels, ho, wo)

    def backward(self, grad_out, input_grad=True):
        rows = self._need_cache("_rows")
        n, c, h, w = self._in_shape
        k, s, p, o = self.kernel_size, self.stride, self.padding, self.out_channels
        ho, wo = grad_out.shape[2:]
        g = grad_out.reshape(n, o, ho * wo)
        # dL/dW = sum over samples and positions of (output gradient x window row)
        if o < 16:      # few outputs: one small product per sample, then the sum
            grad_w = np.matmul(g, rows).sum(axis=0)                              # (out, k*k*C)
        else:           # one product over the whole batch, from channels-last gradients
            g_last = np.ascontiguousarray(g.transpose(0, 2, 1)).reshape(-1, o)
            grad_w = g_last.T @ rows.reshape(g_last.shape[0], -1)
        self.grads = {"W": np.ascontiguousarray(grad_w.reshape(o, k, k, c).transpose(0, 3, 1, 2)),
                      "b": g.sum(axis=(0, 2))}
        if not input_grad:
            return None
        weight = self.params["W"]
        if s == 1 and p <= k - 1:
            # The gradient of a convolution is a convolution of the gradient with the
            # flipped kernel (in and out channels swapped), padded by k - 1 - p.
            flipped = weight[:, :, ::-1, ::-1].transpose(2, 3, 0, 1).reshape(-1, c)
            grows = self._windows(grad_out.transpose(0, 2, 3, 1), k - 1 - p, 1)[0]
            return _rows_times(grows, flipped).reshape(n, c, h, w)
        # col2im: each row's gradient goes back to the window it was copied from
        g = np.ascontiguousarray(g.transpose(0, 2, 1))                           # (N, P, out)
        grows = np.matmul(g, self._weight_matrix().T).reshape(n, ho, wo, k, k, c)
        gx = np.zeros((n, h + 2 * p, w + 2 * p, c), grad_out.dtype)
        for i in range(k):
            for j in range(k):
                gx[:, i:i + s * ho:s, j:j + s * wo:s] += grows[:, :, :, i, j]
        return np.ascontiguousarray(gx[:, p:p + h, p:p + w].transpose(0, 3, 1, 2))


# ----------------------------------------------------------------------------- pooling

class MaxPool2D(Layer):
    """Max pooling over ``size x size`` windows moved by ``stride`` (default: ``size``).

    When the window does not divide the board (8 is not a multiple of 3), chesslab keeps
    the last, partial window (``ceil_mode=True``, the default): pooling 8 by 3 gives
    3 (rows 0-2, 3-5, 6-7), then pooling 3 by 2 gives 2. Dropping the leftover rows
    (``ceil_mode=False``, 8 // 3 = 2) would make the net blind to ranks 1-2 and files
    g-h, where White's pieces start. Missing cells count as minus infinity. On ties the
    gradient goes to the first maximum (row-major order in the window).
    """

    def __init__(self, size: int, stride: int | None = None, ceil_mode: bool = True):
        super().__init__()
        self.size, self.stride = int(size), int(stride or size)
        self.ceil_mode = bool(ceil_mode)
        self._arg = self._buffer = None

    def config(self):
        return {"type": "MaxPool2D", "size": self.size, "stride": self.stride,
                "ceil_mode": self.ceil_mode}

    def __repr__(self):
        extra = (f", stride {self.stride}" if self.stride != self.size else "") + \
            ("" if self.ceil_mode else ", floor")
        return f"MaxPool2D({self.size}{extra})"

    def out_size(self, n):
        k, s = self.size, self.stride
        if self.ceil_mode:
            out = max(0, -(-(n - k) // s)) + 1
            if (out - 1) * s >= n:            # the last window must start on the board
                out -= 1
        else:
            out = (n - k) // s + 1
            if out < 1:
                raise ValueError(f"pool window {k} is larger than the input ({n}); "
                                 f"use ceil_mode=True or a smaller window")
        return out

    def _cells(self, ho, wo, wp):
        """(offset in the plane, rows slice, cols slice) of every window cell, for all
        windows at once; the offset of cell (i, j) is i * row length + j."""
        k, s = self.size, self.stride
        return [(i * wp + j, slice(i, i + s * (ho - 1) + 1, s), slice(j, j + s * (wo - 1) + 1, s))
                for i in range(k) for j in range(k)]

    def forward(self, x):
        # Work in (H, W, N*C) layout: every operation below then runs over all samples and
        # channels at once, and a window cell is just a strided slice.
        n, c, h, w = x.shape
        ho, wo = self.out_size(h), self.out_size(w)
        hp, wp = max(h, (ho - 1) * self.stride + self.size), max(w, (wo - 1) * self.stride + self.size)
        xt = self._buffer
        if xt is None or xt.shape != (hp, wp, n * c) or xt.dtype != x.dtype:
            xt = self._buffer = np.full((hp, wp, n * c), -np.inf, x.dtype)
        xt[:h, :w] = x.reshape(n * c, h * w).T.reshape(h, w, n * c)   # -inf border stays
        out = arg = None
        for offset, rows, cols in self._cells(ho, wo, wp):
            view = xt[rows, cols]
            if out is None:
                out = view.copy()
                arg = np.zeros(out.shape, np.int32) if self.training else None
                continue
            if self.training:
                # strict >: on ties the earlier cell keeps the gradient. Offsets grow cell
                # by cell, so "take this offset where the cell is bigger" is a maximum
                np.maximum(arg, (view > out) * np.int32(offset), out=arg)
            np.maximum(out, view, out=out)
        if self.training:
            self._arg, self._shapes = arg, (x.shape, hp, wp)
        return out.reshape(ho * wo, n * c).T.reshape(n, c, ho, wo)

    def backward(self, grad_out, input_grad=True):
        arg = self._need_cache("_arg")
        (n, c, h, w), hp, wp = self._shapes
        ho, wo = arg.shape[:2]
        g = grad_out.reshape(n * c, ho * wo).T.reshape(ho, wo, n * c)
        # where each window's maximum sat: (window corner + offset) in the plane, then
        # times N*C plus the sample-channel number, as a flat index into (hp, wp, N*C)
        corner = (np.arange(ho)[:, None] * wp + np.arange(wo)[None, :]) * self.stride
        index = (corner[:, :, None] + arg) * (n * c) + np.arange(n * c)
        gx = np.zeros(hp * wp * n * c, grad_out.dtype)
        if self.stride >= self.size:      # windows do not overlap: each cell wins at most once
            gx[index] = g
        else:                             # overlapping windows: a cell may win several times
            np.add.at(gx, index, g)
        gx = gx.reshape(hp, wp, n * c)[:h, :w]
        return np.ascontiguousarray(gx.reshape(h * w, n * c).T).reshape(n, c, h, w)


# ----------------------------------------------------------------------------- activations

class ReLU(Layer):
    """max(0, x): the gradient passes where the input was positive."""

    def forward(self, x):
        y = np.maximum(x, 0)
        self._y = y if self.training else None
        return y

    def backward(self, grad_out, input_grad=True):
        return grad_out * (self._need_cache("_y") > 0)


class ClippedReLU(Layer):
    """min(max(x, 0), 1): the efficiently updatable network's activation.

    Bounded on both sides, so a network's hidden values stay small whatever the
    position (that is what lets real engines run them in 8- and 16-bit integers).
    """

    def forward(self, x):
        self._x = x if self.training else None
        return np.clip(x, 0, 1)

    def backward(self, grad_out, input_grad=True):
        x = self._need_cache("_x")
        return grad_out * ((x > 0) & (x < 1))


class Sigmoid(Layer):
    """1 / (1 + e^-x), written with tanh so large |x| never overflows."""

    def forward(self, x):
        y = x * 0.5
        np.tanh(y, out=y)
        y += 1
        y *= 0.5
        self._y = y if self.training else None
        return y

    def backward(self, grad_out, input_grad=True):
        y = self._need_cache("_y")
        return grad_out * y * (1 - y)


class Tanh(Layer):
    def forward(self, x):
        y = np.tanh(x)
        self._y = y if self.training else None
        return y

    def backward(self, grad_out, input_grad=True):
        y = self._need_cache("_y")
        return grad_out * (1 - y * y)


class Flatten(Layer):
    """(N, C, H, W) -> (N, C*H*W), the bridge from convolutions to dense layers."""

    def forward(self, x):
        self._shape = x.shape
        return x.reshape(x.shape[0], -1)

    def backward(self, grad_out, input_grad=True):
        return grad_out.reshape(self._shape)


# ----------------------------------------------------------------------------- batch norm

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


# ----------------------------------------------------------------------------- NNUE

class FeatureTransformer(Layer):
    """The efficiently updatable network's first layer: ``y = x @ W + b`` for each side.

    Input ``(N, 2, n_features)``: one-hot piece-square features seen by the side to move
    (row 0) and by the opponent (row 1); both rows share ``W`` and ``b``. Output
    ``(N, 2 * n_out)``: the two "accumulators" side by side, the side to move's first.
    A move changes at most four features, so a search can update an accumulator by
    adding and subtracting a few rows of ``W`` instead of recomputing it
    (``chesslab.nnue``); training uses the plain matrix product.
    """

    def __init__(self, n_features: int = 768, n_out: int = 128, rng=None, dtype=DTYPE):
        super().__init__()
        self.n_features, self.n_out = int(n_features), int(n_out)
        # About 30 features are active at once: scale as if fan_in were 32, so an
        # accumulator starts near unit size (inside the clipped ReLU's range).
        self.params = {"W": he_normal((n_features, n_out), 64, rng, dtype),
                       "b": np.zeros(n_out, dtype)}
        self._x = None

    def forward(self, x):
        n = x.shape[0]
        flat = x.reshape(2 * n, self.n_features)
        self._x = flat if self.training else None
        y = flat @ self.params["W"]
        y += self.params["b"]
        return y.reshape(n, 2 * self.n_out)

    def backward(self, grad_out, input_grad=True):
        flat = self._need_cache("_x")
        g = grad_out.reshape(flat.shape[0], self.n_out)     # one row per side
        self.grads = {"W": flat.T @ g, "b": g.sum(axis=0)}
        if not input_grad:
            return None
        return (g @ self.params["W"].T).reshape(-1, 2, self.n_features)

    def config(self):
        return {"type": "FeatureTransformer", "n_features": self.n_features,
                "n_out": self.n_out}

    def __repr__(self):
        return f"FeatureTransformer(2 x {self.n_features} -> 2 x {self.n_out})"


# ----------------------------------------------------------------------------- containers

class Sequential(Layer):
    """Layers applied one after another; backward runs them in reverse."""

    def __init__(self, *layers):
        self.layers = list(layers[0] if len(layers) == 1 and isinstance(layers[0], list)
                           else layers)

    def add(self, layer):
        self.layers.append(layer)
        return self

    def forward(self, x):
        for layer in self.layers:
            x = layer.forward(x)
        return x

    def backward(self, grad_out, input_grad=True):
        last = len(self.layers) - 1
        for i in range(last, -1, -1):
            grad_out = self.layers[i].backward(grad_out, input_grad or i > 0)
        return grad_out

    def train(self, mode=True):
        self.training = mode
        for layer in self.layers:
            layer.train(mode)
        return self

    def astype(self, dtype):
        for layer in self.layers:
            layer.astype(dtype)
        return self

    def leaves(self):
        for layer in self.layers:
            yield from layer.leaves()

    def _named(self, attr):
        return {f"{i}.{key}": value for i, layer in enumerate(self.leaves())
                for key, value in getattr(layer, attr).items()}

    @property
    def params(self):
        """Every parameter, keyed ``"<leaf index>.<name>"`` (the arrays themselves)."""
        return self._named("params")

    @property
    def grads(self):
        return self._named("grads")

    def parameters(self):
        """(name, param, grad) for every parameter: what an optimiser updates."""
        for i, layer in enumerate(self.leaves()):
            for key, value in layer.params.items():
                yield f"{i}.{key}", value, layer.grads.get(key)

    def config(self):
        return {"type": type(self).__name__, "layers": [layer.config() for layer in self.layers]}

    def __repr__(self):
        inner = ",\n  ".join(repr(layer) for layer in self.layers)
        return f"{type(self).__name__}(\n  {inner})"


class NNUEHead(Sequential):
    """The rest of an NNUE after its feature transformer, with a linear PSQT path.

    Input ``(N, 2 * (hidden + 1))``: each side's accumulator of ``hidden`` numbers plus
    one more, its "piece-square total" (PSQT). The hidden numbers go through a clipped
    ReLU, a dense layer to ``head``, a clipped ReLU and a dense layer to one output; the
    PSQT difference (side to move's minus the opponent's, halved) is added to that
    output unclipped. Material and piece placement are mostly linear, and a clipped
    ReLU cannot carry "a rook and a knight up": this path can (Stockfish's NNUE has it).
    """

    def __init__(self, hidden: int, head: int = 32, rng=None, dtype=DTYPE):
        rng = _rng(rng)
        self.hidden, self.head = int(hidden), int(head)
        self.layers = [ClippedReLU(), Dense(2 * hidden, head, rng=rng, dtype=dtype),
                       ClippedReLU(), Dense(head, 1, init="xavier", rng=rng, dtype=dtype)]

    def _split(self, x):
        per_side = x.reshape(x.shape[0], 2, self.hidden + 1)
        return (per_side[:, :, :self.hidden].reshape(x.shape[0], 2 * self.hidden),
                per_side[:, 0, self.hidden] - per_side[:, 1, self.hidden])

    def forward(self, x):
        hidden, psqt = self._split(x)
        for layer in self.layers:
            hidden = layer.forward(hidden)
        return hidden + 0.5 * psqt[:, None]

    def backward(self, grad_out, input_grad=True):
        g = grad_out
        for layer in reversed(self.layers):
            g = layer.backward(g)
        n = grad_out.shape[0]
        out = np.zeros((n, 2, self.hidden + 1), dtype=grad_out.dtype)
        out[:, :, :self.hidden] = g.reshape(n, 2, self.hidden)
        out[:, 0, self.hidden] = 0.5 * grad_out[:, 0]
        out[:, 1, self.hidden] = -0.5 * grad_out[:, 0]
        return out.reshape(n, 2 * (self.hidden + 1))

    def config(self):
        return {"type": "NNUEHead", "hidden": self.hidden, "head": self.head}

    def __repr__(self):
        return f"NNUEHead(2 x {self.hidden} -> {self.head} -> 1, + PSQT)"


class Residual(Sequential):
    """The tutorial's residual block: conv-BN-ReLU-conv-BN, add the input, ReLU.

    The skip connection lets the gradient reach early layers unchanged, which is why
    deep stacks of these blocks still train.
    """

    def __init__(self, channels: int, kernel_size: int = 3, rng=None, dtype=DTYPE):
        rng = _rng(rng)
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


LAYER_TYPES = {cls.__name__: cls for cls in
               (Dense, Conv2D, MaxPool2D, ReLU, ClippedReLU, Sigmoid, Tanh, Flatten,
                BatchNorm, Residual, FeatureTransformer, NNUEHead, Sequential)}


def layer_from_config(cfg: dict, rng=None) -> Layer:
    """Rebuild a layer (random weights) from ``layer.config()``."""
    cfg = dict(cfg)
    kind = cfg.pop("type", None)
    if kind not in LAYER_TYPES:
        raise ValueError(f"unknown layer type {kind!r}; known: {', '.join(LAYER_TYPES)}")
    if kind == "Sequential":
        return Sequential([layer_from_config(c, rng) for c in cfg["layers"]])
    if kind in ("Dense", "Conv2D", "Residual", "FeatureTransformer", "NNUEHead"):
        cfg["rng"] = rng
    return LAYER_TYPES[kind](**cfg)
