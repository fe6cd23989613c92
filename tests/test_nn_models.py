"""Builders, optimisers, learning, and JSON model files."""
import json

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


def test_batchnorm_eval_uses_running_statistics():
    bn = nn.BatchNorm(2)
    x = np.random.default_rng(0).normal(3.0, 2.0, (500, 2, 2, 2)).astype(np.float32)
    for _ in range(100):      # momentum 0.1: 0.9**100 of the start value is left
        bn.forward(x)
    assert np.allclose(bn.running_mean, x.mean(axis=(0, 2, 3)), atol=1e-3)
    bn.eval()
    one = bn.forward(x[:1])
    assert np.allclose(one, bn.forward(x)[:1])       # a position scores the same alone
    assert abs(float(bn.forward(x).mean())) < 0.05


def test_sgd_momentum_and_adam_follow_their_formulas():
    layer = nn.Dense(1, 1)
    net = nn.Sequential(layer)
    layer.params["W"][:] = 1.0
    layer.grads = {"W": np.array([[0.5]], np.float32), "b": np.array([0.0], np.float32)}
    sgd = nn.SGD(lr=0.1, momentum=0.9)
    sgd.step(net)
    sgd.step(net)       # v1 = -0.05, v2 = 0.9 * -0.05 - 0.05 = -0.095
    assert layer.params["W"][0, 0] == pytest.approx(1 - 0.05 - 0.095)
    layer.params["W"][:] = 1.0
    adam = nn.Adam(lr=0.01)
    adam.step(net)      # first Adam step moves by lr * sign(g)
    assert layer.params["W"][0, 0] == pytest.approx(0.99, abs=1e-6)


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


# ----------------------------------------------------------------------------- files

@pytest.mark.parametrize("make", [nn.thesis_ann, nn.thesis_cnn, lambda: nn.residual_net(4, 1)])
def test_save_load_gives_identical_outputs(tmp_path, make):
    net = make()
    if any(isinstance(layer, nn.BatchNorm) for layer in net.leaves()):
        net.forward(np.random.default_rng(0).standard_normal((8,) + net.input_shape))
    x = np.random.default_rng(1).standard_normal((7,) + net.input_shape).astype(np.float32)
    path = tmp_path / "model.json"
    nn.save_model(net, path)
    loaded = nn.load_model(path)
    assert not loaded.training
    assert type(loaded) is type(net) and loaded.name == net.name
    assert np.array_equal(loaded.forward(x), net.predict(x))
    assert [tmp.name for tmp in tmp_path.iterdir()] == ["model.json"]    # no temp left


def test_file_reads_like_the_thesis_listing(tmp_path):
    net = nn.ANN.from_topology([2, 1], name="NN 1")
    nn.save_model(net, tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert list(doc)[:3] == ["name", "layer1", "bias1"]
    assert doc["name"] == "NN 1"
    assert np.allclose(doc["layer1"]["inputWeights"], net.params["0.W"])
    assert doc["format_version"] == nn.FORMAT_VERSION


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def ann_doc(tmp_path):
    nn.save_model(nn.thesis_ann(), tmp_path / "good.json")
    return json.loads((tmp_path / "good.json").read_text())


def test_malformed_files_give_clear_errors(tmp_path, ann_doc):
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "layer1": ')
    with pytest.raises(ValueError, match="not valid JSON"):
        nn.load_model(bad)
    with pytest.raises(FileNotFoundError):
        nn.load_model(tmp_path / "missing.json")

    doc = dict(ann_doc, format_version=99)
    with pytest.raises(ValueError, match="format_version 99"):
        nn.load_model(_write(bad, doc))

    doc = {k: v for k, v in ann_doc.items() if k != "architecture"}
    with pytest.raises(ValueError, match="'architecture'"):
        nn.load_model(_write(bad, doc))

    doc = {k: v for k, v in ann_doc.items() if k != "bias2"}
    with pytest.raises(ValueError, match="missing bias2"):
        nn.load_model(_write(bad, doc))

    doc = dict(ann_doc, layer2={"inputWeights": np.zeros((64, 32)).tolist()})
    with pytest.raises(ValueError, match=r"layer2.inputWeights has shape \(64, 32\), "
                                         r"expected \(64, 64\)"):
        nn.load_model(_write(bad, doc))

    doc = dict(ann_doc, layer1={"inputWeights": [[1.0, 2.0], [3.0]]})
    with pytest.raises(ValueError, match="layer1.inputWeights is not"):
        nn.load_model(_write(bad, doc))

    with pytest.raises(ValueError, match="not a chesslab model"):
        nn.load_model(_write(bad, [1, 2, 3]))


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e300"])
def test_non_finite_weights_are_refused_with_file_and_key(tmp_path, ann_doc, number):
    doc = dict(ann_doc, bias2=[0.0] * 63 + ["HERE"])
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(doc).replace('"HERE"', number))   # as a damaged file has it
    with pytest.raises(ValueError, match=rf"damaged.json: bias2 holds a non-finite number "
                                         rf"at index \[63\]"):
        nn.load_model(path)


def test_architecture_that_is_not_an_object_is_named(tmp_path, ann_doc):
    with pytest.raises(ValueError, match="'architecture' should be a JSON object"):
        nn.load_model(_write(tmp_path / "bad.json", dict(ann_doc, architecture="ANN")))


def test_a_diverged_model_is_not_saved(tmp_path):
    model = nn.thesis_ann()
    model.layers[0].params["b"][3] = np.nan
    with pytest.raises(ValueError, match="bias1 holds NaN or infinite numbers"):
        nn.save_model(model, tmp_path / "nan.json")
    assert not (tmp_path / "nan.json").exists()
