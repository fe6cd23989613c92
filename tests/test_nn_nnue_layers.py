"""nn.nnue_layers: the feature transformer (one weight matrix shared by both sides, an
accumulator that can be updated row by row) and the head with its linear PSQT path.
The general gradient checks of both layers are in test_nn_gradcheck.py."""
import numpy as np
import pytest

from chesslab import nn
from chesslab.nn import FeatureTransformer, NNUEHead


def onehot(rows, n_features):
    """(N, 2, n_features) from lists of active feature indices per side."""
    x = np.zeros((len(rows), 2, n_features))
    for i, (mover, other) in enumerate(rows):
        x[i, 0, mover] = 1
        x[i, 1, other] = 1
    return x


def test_both_sides_share_the_weights_and_the_movers_accumulator_comes_first():
    layer = FeatureTransformer(10, 4, rng=np.random.default_rng(0)).astype(np.float64)
    layer.params["b"] += np.arange(4)
    x = onehot([([1, 5], [2]), ([7], [0, 3, 9])], 10)
    y = layer.forward(x)
    assert y.shape == (2, 8)
    W, b = layer.params["W"], layer.params["b"]
    for i in range(2):
        np.testing.assert_allclose(y[i, :4], x[i, 0] @ W + b)
        np.testing.assert_allclose(y[i, 4:], x[i, 1] @ W + b)
    swapped = layer.forward(x[:, ::-1])                # the other side to move
    np.testing.assert_allclose(swapped, np.concatenate([y[:, 4:], y[:, :4]], axis=1))


def test_a_move_updates_the_accumulator_by_adding_and_subtracting_rows():
    """What a search does instead of a forward pass: remove the features a move clears,
    add the ones it sets; the result is the forward pass of the new position."""
    layer = FeatureTransformer(768, 8, rng=np.random.default_rng(1)).astype(np.float64)
    before = onehot([([12, 100, 400], [7, 300])], 768)
    after = onehot([([12, 164, 400], [300])], 768)   # a piece moves, another is captured
    accumulator = layer.forward(before)[0].copy()
    W = layer.params["W"]
    accumulator[:8] += W[164] - W[100]
    accumulator[8:] -= W[7]
    np.testing.assert_allclose(accumulator, layer.forward(after)[0], atol=1e-12)


def test_feature_transformer_gradients_are_sums_over_both_sides():
    layer = FeatureTransformer(6, 3, rng=np.random.default_rng(2)).astype(np.float64)
    x = onehot([([0, 4], [1]), ([2], [2, 5])], 6)
    layer.forward(x)
    g = np.random.default_rng(3).standard_normal((2, 6))
    grad_in = layer.backward(g)
    per_side = g.reshape(4, 3)
    np.testing.assert_allclose(layer.grads["W"], x.reshape(4, 6).T @ per_side)
    np.testing.assert_allclose(layer.grads["b"], per_side.sum(axis=0))
    assert grad_in.shape == x.shape
    assert layer.backward(g, input_grad=False) is None and "W" in layer.grads


def test_the_psqt_path_adds_half_the_difference_unclipped():
    """One more pawn's worth of piece-square total for the side to move raises the
    output by exactly half of it, however large: the clipped ReLUs never see it."""
    head = NNUEHead(3, 2, rng=np.random.default_rng(4)).astype(np.float64)
    x = np.random.default_rng(5).standard_normal((5, 8))
    base = head.forward(x)
    for column, sign in ((3, 0.5), (7, -0.5)):           # mover's PSQT, then opponent's
        for step in (1.0, 50.0):
            moved = x.copy()
            moved[:, column] += step
            np.testing.assert_allclose(head.forward(moved) - base, sign * step)
    head.train()
    head.forward(x)
    grad = head.backward(np.ones((5, 1)))
    np.testing.assert_allclose(grad[:, 3], 0.5)
    np.testing.assert_allclose(grad[:, 7], -0.5)


def test_nnue_layers_describe_themselves_and_survive_a_model_file(tmp_path):
    net = nn.nnue_net(hidden=4, head=3, n_features=12, seed=6)
    assert [layer.config()["type"] for layer in net.layers] == ["FeatureTransformer",
                                                               "NNUEHead"]
    assert net.layers[0].config() == {"type": "FeatureTransformer", "n_features": 12,
                                      "n_out": 5}
    assert repr(net.layers[1]) == "NNUEHead(2 x 4 -> 3 -> 1, + PSQT)"
    x = onehot([([0, 3], [5]), ([11], [1, 2])], 12).astype(np.float32)
    nn.save_model(net, tmp_path / "nnue.json")
    back = nn.load_model(tmp_path / "nnue.json")
    np.testing.assert_allclose(back.predict(x), net.predict(x), rtol=1e-6)


def test_backward_before_a_training_forward_is_refused():
    layer = FeatureTransformer(6, 3)
    layer.eval()
    layer.forward(np.zeros((1, 2, 6), dtype=np.float32))
    with pytest.raises(Exception, match="forward"):
        layer.backward(np.zeros((1, 6), dtype=np.float32))
