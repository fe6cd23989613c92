"""Convolution and pooling: the im2col layer equals the loops, no kernel flip, pooling
ties and the board edge."""
import numpy as np

from chesslab import nn


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_conv2d_equals_naive_loops():
    rng = np.random.default_rng(5)
    for stride, padding, k in ((1, 0, 3), (1, 1, 3), (2, 1, 3), (2, 0, 2), (1, 2, 5)):
        conv = nn.Conv2D(3, 4, k, stride=stride, padding=padding, rng=rng).astype(np.float64)
        conv.params["b"] = rng.standard_normal(4)
        x = rng.standard_normal((2, 3, 8, 7))
        expected = nn.conv2d_naive(x, conv.params["W"], conv.params["b"], stride, padding)
        assert np.allclose(conv.forward(x), expected, atol=1e-12)
        conv.eval()
        assert np.allclose(conv.forward(x), expected, atol=1e-12)


def test_conv2d_is_cross_correlation_not_flipped():
    conv = nn.Conv2D(1, 1, 3, padding=1)
    conv.params["W"][:] = 0
    conv.params["W"][0, 0, 0, 0] = 1.0          # top-left weight: output sees up-left cell
    x = np.zeros((1, 1, 8, 8), np.float32)
    x[0, 0, 3, 4] = 1.0
    out = conv.forward(x)[0, 0]
    assert out[4, 5] == 1.0 and out.sum() == 1.0


def test_maxpool_ties_send_the_gradient_to_the_first_maximum():
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 0, 0] = x[0, 0, 1, 1] = 5.0         # tie inside window (0, 0)
    x[0, 0, 2:, 2:] = 1.0                       # four-way tie in window (1, 1)
    pool = nn.MaxPool2D(2)
    out = pool.forward(x)
    assert out[0, 0].tolist() == [[5, 0], [0, 1]]
    g = pool.backward(np.ones_like(out))[0, 0]
    assert g[0, 0] == 1 and g[1, 1] == 0        # first maximum only
    assert g[2, 2] == 1 and g[2:, 2:].sum() == 1
    # Along the direction that moves all tied cells together the max is differentiable:
    # the directional derivative must equal the gradient's sum over the tied cells.
    r = rand(1, 1, 2, 2, seed=4)
    g = pool.backward(r)

    def f(step, cells):
        y = x.copy()
        for cell in cells:
            y[(0, 0) + cell] += step
        return float(np.sum(pool.forward(y) * r))

    for cells in ([(0, 0), (1, 1)], [(2, 2), (2, 3), (3, 2), (3, 3)]):
        numeric = (f(1e-6, cells) - f(-1e-6, cells)) / 2e-6
        analytic = sum(g[(0, 0) + c] for c in cells)
        assert abs(numeric - analytic) < 1e-8


def test_maxpool_ceil_mode_keeps_the_board_edge():
    x = np.arange(64.0).reshape(1, 1, 8, 8)
    out = nn.MaxPool2D(3).forward(x)
    assert out.shape == (1, 1, 3, 3)
    assert out[0, 0, 2, 2] == 63                 # the partial window rows/cols 6-7
    assert nn.MaxPool2D(2).forward(out).shape == (1, 1, 2, 2)
    assert nn.MaxPool2D(3, ceil_mode=False).forward(x).shape == (1, 1, 2, 2)
