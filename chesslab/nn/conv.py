"""Convolution and pooling: the layers that look at a board as planes of squares.

``conv2d_naive`` is the definition in loops; ``Conv2D`` computes the same numbers as one
matrix product (im2col); ``MaxPool2D`` keeps the largest number of each window.
Arrays are channels-first, ``(N, C, H, W)``, like every layer (``chesslab.nn.layers``).
"""
from __future__ import annotations

import numpy as np

from chesslab.nn.layers import DTYPE, Layer, he_normal


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
    product and one transpose copy follows (measured on 8x8 boards at batch 256: the
    thesis CNN's 1 -> 13 channels clearly faster the first way, the conv net's 32 -> 32
    channels the second; ``bench/nn_speed.py`` times the layers).
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
    floats (measured several times faster than from a channels-first array). The gather
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
