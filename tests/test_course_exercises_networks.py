"""course.exercises.networks: the checkers of notebooks 02, 03: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""

import numpy as np

from chesslab.course.exercises.networks import (check_conv2d, check_dense_backward, check_max_pool,
                                                check_residual_forward)
from chesslab import nn
from tests.checker_helpers import twin


conv2d_naive = twin(nn.conv2d_naive)


def dense_backward(x, W, grad_out):
    return grad_out @ W.T, x.T @ grad_out, grad_out.sum(axis=0)


def test_dense_backward_checker():
    assert check_dense_backward(dense_backward, show=False).ok

    def forgot_the_transpose(x, W, grad_out):    # wrong numbers, or raises if W is not square
        _, gw, gb = dense_backward(x, W, grad_out)
        return grad_out @ W, gw, gb
    bad = check_dense_backward(forgot_the_transpose, show=False)
    assert not bad.ok and "grad_x[" in bad.first_failure
    assert bad.passed < bad.cases // 2

    def mean_not_sum(x, W, grad_out):
        gx, gw, _ = dense_backward(x, W, grad_out)
        return gx, gw, grad_out.mean(axis=0)
    bad = check_dense_backward(mean_not_sum, show=False)
    assert not bad.ok and "grad_b" in bad.first_failure


def test_conv2d_checker_and_a_student_who_has_not_started(capsys):
    def reference(x, weight, bias, padding):
        return conv2d_naive(x, weight, bias, padding=padding)
    assert check_conv2d(reference, show=False).ok

    def flipped_kernel(x, weight, bias, padding):
        return conv2d_naive(x, weight[:, :, ::-1, ::-1], bias, padding=padding)
    bad = check_conv2d(flipped_kernel, show=False)
    assert not bad.ok and 0 < bad.passed < bad.cases      # a 1x1 kernel is the same flipped

    def stub(x, weight, bias, padding):
        raise NotImplementedError("slide the kernel over the padded board")
    stub_result = check_conv2d(stub, cases=5)
    assert not stub_result.ok and not stub_result.attempted
    assert capsys.readouterr().out == ("my_conv2d: not attempted yet (slide the kernel over the "
                                       "padded board)\n")

    calls = []

    def half_written(x, weight, bias, padding):       # started: the first difference shows
        calls.append(1)
        if len(calls) % 2:
            raise NotImplementedError("the padding")
        return conv2d_naive(x, weight, bias, padding=padding)
    started = check_conv2d(half_written, cases=4, show=False)
    assert started.attempted and started.passed == 2
    assert started.first_failure == "not written yet (the padding)"

    def warns(x, weight, bias, padding):       # a warning stays off stderr (nbgrader: 0)
        np.log(np.zeros(1))
        return conv2d_naive(x, weight, bias, padding=padding)
    assert check_conv2d(warns, cases=3).ok
    assert capsys.readouterr().err == ""

    def index_error(x, weight, bias, padding):      # a crash is reported, never raised
        return x[:, :, 99]
    bad = check_conv2d(index_error, show=False)
    assert bad.passed == 0 and bad.first_failure.startswith("raised IndexError: index 99")


def test_max_pool_checker():
    def by_hand(x, size):
        n, c, h, w = x.shape
        out_h, out_w = -(-h // size), -(-w // size)
        out = np.empty((n, c, out_h, out_w))
        for i in range(out_h):
            for j in range(out_w):
                window = x[:, :, i * size:(i + 1) * size, j * size:(j + 1) * size]
                out[:, :, i, j] = window.max(axis=(2, 3))
        return out
    assert check_max_pool(by_hand, show=False).ok

    def floor_mode(x, size):                   # drops the last partial window
        h = x.shape[2] // size * size
        windows = x[:, :, :h, :h].reshape(len(x), x.shape[1], h // size, size, h // size, size)
        return windows.max(axis=(3, 5))
    bad = check_max_pool(floor_mode, show=False)
    assert not bad.ok and "has shape" in bad.first_failure


def stub(*args):
    raise NotImplementedError("your code here")


def residual(x, block, relu_before_add=False, no_eps=False):
    conv1, bn1, _, conv2, bn2 = block.layers

    def norm(bn, h):
        shape = (1, -1, 1, 1)
        eps = 0.0 if no_eps else bn.eps
        scale = bn.params["gamma"] / np.sqrt(bn.running_var + eps)
        return (h - bn.running_mean.reshape(shape)) * scale.reshape(shape) \
            + bn.params["beta"].reshape(shape)
    h = np.maximum(norm(bn1, conv1.forward(x)), 0)
    h = norm(bn2, conv2.forward(h))
    return np.maximum(h, 0) + x if relu_before_add else np.maximum(h + x, 0)


def test_residual_forward_right_wrong_and_stub(capsys):
    assert check_residual_forward(residual, show=False).ok
    wrong = check_residual_forward(
        lambda x, b: residual(x, b, relu_before_add=True), show=False)
    assert not wrong.ok and "output" in wrong.first_failure
    no_skip = lambda x, b: residual(x, b) - x                           # noqa: E731
    assert not check_residual_forward(no_skip, show=False).ok
    assert not check_residual_forward(stub).attempted
    assert "my_residual_forward: not attempted yet" in capsys.readouterr().out


def test_a_convolution_by_the_layers_im2col_scores_0():
    """``Conv2D.im2col`` cuts every window out (the exercise's loops): with the weights
    as one matrix it is the layer's forward, which the notebook rules out."""
    def by_im2col(x, weight, bias, padding):
        out, c, k, _ = weight.shape
        layer = nn.Conv2D(c, out, k, padding=padding)
        cols, ho, wo = layer.im2col(x)
        y = np.einsum("ok,nkp->nop", weight.reshape(out, -1), cols) + bias[None, :, None]
        return y.reshape(len(x), out, ho, wo)
    result = check_conv2d(by_im2col, cases=6, show=False)
    assert result.passed == 0 and result.first_failure.startswith("uses the reference"), result
