"""Backprop vs central differences, in float64, for every layer and loss."""
import numpy as np
import pytest

from chesslab import nn

TOL = 1e-6


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


LAYERS = {
    "dense": (lambda: nn.Dense(5, 3), (4, 5)),
    "dense_xavier": (lambda: nn.Dense(5, 3, init="xavier"), (4, 5)),
    "conv_3x3": (lambda: nn.Conv2D(2, 3, 3), (2, 2, 6, 6)),
    "conv_stride2_pad1": (lambda: nn.Conv2D(2, 3, 3, stride=2, padding=1), (2, 2, 7, 7)),
    "conv_pad2_k2": (lambda: nn.Conv2D(3, 2, 2, padding=2), (2, 3, 4, 5)),
    "conv_same_not_square": (lambda: nn.Conv2D(2, 3, 3, padding=1), (2, 2, 5, 7)),
    "maxpool_3_ceil_8x8": (lambda: nn.MaxPool2D(3), (2, 2, 8, 8)),
    "maxpool_2": (lambda: nn.MaxPool2D(2), (2, 2, 6, 6)),
    "maxpool_3_stride2_overlap": (lambda: nn.MaxPool2D(3, stride=2), (2, 2, 7, 7)),
    "maxpool_3_floor": (lambda: nn.MaxPool2D(3, ceil_mode=False), (2, 2, 8, 8)),
    "relu": (lambda: nn.ReLU(), (3, 7)),
    "clipped_relu": (lambda: nn.ClippedReLU(), (4, 7)),
    "feature_transformer": (lambda: nn.FeatureTransformer(6, 3), (4, 2, 6)),
    "nnue_net": (lambda: nn.nnue_net(hidden=4, head=3, n_features=10), (3, 2, 10)),
    "nnue_net_no_psqt": (lambda: nn.nnue_net(hidden=4, head=3, n_features=10, psqt=False),
                         (3, 2, 10)),
    "nnue_head": (lambda: nn.NNUEHead(3, 2), (4, 8)),
    "linear_pst_net": (lambda: nn.linear_pst_net(n_features=9), (3, 9)),
    "sigmoid": (lambda: nn.Sigmoid(), (3, 7)),
    "tanh": (lambda: nn.Tanh(), (3, 7)),
    "flatten": (lambda: nn.Flatten(), (2, 3, 2, 2)),
    "batchnorm_train_2d": (lambda: nn.BatchNorm(4), (6, 4)),
    "batchnorm_train_4d": (lambda: nn.BatchNorm(3), (4, 3, 3, 3)),
    "residual": (lambda: nn.Residual(3), (3, 3, 4, 4)),
    "sequential": (lambda: nn.Sequential(nn.Conv2D(2, 3, 3, padding=1), nn.ReLU(),
                                         nn.MaxPool2D(2), nn.Flatten(), nn.Dense(12, 2),
                                         nn.Tanh()), (3, 2, 4, 4)),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_gradients_match_central_differences(name):
    make, shape = LAYERS[name]
    layer = make().astype(np.float64)
    for key in layer.params:          # non-trivial biases / batchnorm shifts
        if key.endswith(("b", "beta", "gamma")):
            layer.params[key] += rand(*layer.params[key].shape, seed=3) * 0.3
    errors = nn.check_layer(layer, rand(*shape, seed=1))
    assert set(errors) == {"input", *layer.params}
    assert max(errors.values()) < TOL, errors


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


LOSSES = {
    "mse": lambda: (nn.mse, rand(5, 1), (rand(5, 1, seed=2),)),
    "sigmoid_mse": lambda: (nn.sigmoid_mse, 2 * rand(6, 1),
                            (np.random.default_rng(2).uniform(0, 1, (6, 1)),)),
    "binary_cross_entropy": lambda: (
        nn.binary_cross_entropy, 1 / (1 + np.exp(-rand(6, 1))),
        (np.random.default_rng(2).uniform(0, 1, (6, 1)),)),
    "softmax_ce_indices": lambda: (nn.softmax_cross_entropy, rand(4, 6), (np.array([0, 5, 2, 2]),)),
    "softmax_ce_distribution_masked": lambda: (
        nn.softmax_cross_entropy, rand(3, 5),
        (np.array([[0.5, 0, 0.5, 0, 0], [0, 0, 0, 1.0, 0], [0.2, 0.2, 0.2, 0.2, 0.2]]),
         np.array([[1, 0, 1, 1, 0], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1]], bool))),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_gradients_match_central_differences(name):
    loss, pred, args = LOSSES[name]()
    assert nn.check_loss(loss, pred, *args) < TOL


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


def test_backward_overwrites_grads_instead_of_accumulating():
    layer = nn.Dense(3, 2).astype(np.float64)
    x, g = rand(4, 3), rand(4, 2)
    layer.forward(x)
    layer.backward(g)
    first = {k: v.copy() for k, v in layer.grads.items()}
    layer.forward(x)
    layer.backward(g)
    for key in first:
        assert np.array_equal(layer.grads[key], first[key])


def test_eval_mode_keeps_nothing_for_backward():
    layer = nn.Dense(3, 2).eval()
    layer.forward(np.ones((1, 3), np.float32))
    with pytest.raises(RuntimeError, match="training mode"):
        layer.backward(np.ones((1, 2), np.float32))
