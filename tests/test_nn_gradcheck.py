"""Backprop vs central differences (``nn.check_layer``, ``nn.check_loss``), in float64,
for every layer and loss."""
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
