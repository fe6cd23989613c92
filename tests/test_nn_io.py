"""JSON model files: identical outputs after loading, the thesis's layout, clear errors."""
import json

import numpy as np
import pytest

from chesslab import nn


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
    with pytest.raises(ValueError, match=r"damaged.json: bias2 holds a non-finite number "
                                         r"at index \[63\]"):
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
