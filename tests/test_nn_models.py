"""Builders (topology, presets, the CNN layer by layer), seeds, and learning."""
import numpy as np
import pytest

from chesslab import nn


def test_topology_rules_name_the_broken_rule():
    net = nn.ANN.from_topology([64, 64, 64, 1])
    assert net.topology == [64, 64, 64, 1]
    assert [type(layer).__name__ for layer in net.layers] == \
        ["Dense", "Sigmoid", "Dense", "Sigmoid", "Dense"]
    with pytest.raises(ValueError, match="rule 1"):
        nn.ANN.from_topology([64])
    with pytest.raises(ValueError, match="rule 2.*position 2"):
        nn.ANN.from_topology([64, 8, 0, 1])
    with pytest.raises(ValueError, match="rule 2"):
        nn.ANN.from_topology([64, -3, 1])


def test_thesis_presets_shapes_and_dtype():
    ann = nn.thesis_ann()
    assert ann.learning_rate == 0.001
    cnn = nn.thesis_cnn()
    shapes = [shape for _, shape in cnn.shapes()]
    assert shapes == [(13, 8, 8), (13, 3, 3), (13, 3, 3), (10, 3, 3), (10, 2, 2), (10, 2, 2),
                      (40,), (1,)]
    assert "(13, 3, 3)" in cnn.summary()
    x = np.random.default_rng(0).standard_normal((5, 1, 8, 8))
    for net, batch in ((ann, x.reshape(5, 64)), (cnn, x), (nn.conv_net(8, 2), np.zeros((5, 14, 8, 8))),
                       (nn.residual_net(8, 1), np.zeros((5, 14, 8, 8)))):
        out = net.forward(batch)
        assert out.shape == (5, 1) and out.dtype == np.float32
        assert net.predict(batch[0]).shape == (1,)


def test_cnn_builder_needs_an_output_layer_and_checks_shapes():
    cnn = nn.CNN((1, 8, 8))
    cnn.add(nn.Conv2D(1, 4, 3, padding=1))
    with pytest.raises(RuntimeError, match="add_output_layer"):
        cnn.forward(np.zeros((1, 1, 8, 8)))
    with pytest.raises(ValueError, match="input channels"):
        cnn.add(nn.Conv2D(3, 4, 3))
    cnn.layers.pop()
    cnn.add_output_layer(2)
    assert cnn.forward(np.zeros((3, 1, 8, 8))).shape == (3, 2)
    with pytest.raises(RuntimeError):
        cnn.add(nn.ReLU())
    with pytest.raises(ValueError, match="expects a batch"):
        cnn.forward(np.zeros((3, 64)))


def test_same_seed_same_weights_other_seed_other_weights():
    a, b, c = nn.thesis_cnn(seed=1), nn.thesis_cnn(seed=1), nn.thesis_cnn(seed=2)
    assert all(np.array_equal(a.params[k], b.params[k]) for k in a.params)
    assert not np.array_equal(a.params["0.W"], c.params["0.W"])


def _fit(net, x, y, opt, steps, loss=nn.mse):
    for _ in range(steps):
        value = nn.train_step(net, opt, x, y, loss)
    return value


def test_tiny_net_learns_xor():
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
    y = np.array([[0], [1], [1], [0]], np.float32)
    net = nn.ANN.from_topology([2, 8, 1], activation="tanh", output_activation="sigmoid", seed=0)
    loss = _fit(net, x, y, nn.Adam(lr=0.05), 500, nn.binary_cross_entropy)
    assert loss < 0.05
    assert np.array_equal(net.predict(x) > 0.5, y > 0.5)


def test_small_regression_reaches_low_loss():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (128, 3)).astype(np.float32)
    y = (np.sin(2 * x[:, :1]) + x[:, 1:2] * x[:, 2:3]).astype(np.float32)
    net = nn.ANN.from_topology([3, 32, 32, 1], activation="relu", seed=0)
    start = nn.mse(net.predict(x), y)[0]
    loss = _fit(net, x, y, nn.Adam(lr=0.01), 400)
    assert loss < 0.01 < start


def test_cnn_learns_to_count_pieces_with_sgd():
    rng = np.random.default_rng(1)
    x = (rng.uniform(size=(64, 1, 8, 8)) < 0.2).astype(np.float32)
    y = x.sum(axis=(1, 2, 3)).reshape(-1, 1) / 10
    net = nn.CNN((1, 8, 8), seed=0)
    net.add(nn.Conv2D(1, 4, 3, padding=1, rng=net.rng))
    net.add(nn.ReLU())
    net.add_output_layer(1)
    start = nn.mse(net.predict(x), y)[0]
    loss = _fit(net, x, y, nn.SGD(lr=0.01, momentum=0.9), 300)
    assert loss < 0.01 < start
