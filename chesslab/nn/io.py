"""Model files: JSON shaped like the thesis's listings, plus what rebuilds the model.

    {"name": "thesis ANN",
     "layer1": {"inputWeights": [[...], ...]}, "bias1": [...],
     "layer2": {"inputWeights": ...}, "bias2": ...,
     "format_version": 1, "architecture": {"class": "ANN", "layers": [...], ...}}

Layers are numbered like the thesis: only layers with numbers to store count
(dense and convolution layers; batch norm stores gamma, beta and running statistics).
Written atomically; never pickle (a pickle can run code when loaded).
"""
from __future__ import annotations

import numpy as np

from chesslab.base.files import read_json, write_json_atomic
from chesslab.nn.models import Network
from chesslab.nn.residual import BatchNorm

FORMAT_VERSION = 1

_BATCHNORM_KEYS = {"gamma": "gamma", "beta": "beta", "running_mean": "runningMean",
                   "running_var": "runningVar"}


def weight_entries(model):
    """(file key, inner key or None, layer, attribute) for every stored array, in order."""
    k = 0
    for layer in model.leaves():
        if isinstance(layer, BatchNorm):
            k += 1
            for attr, key in _BATCHNORM_KEYS.items():
                yield f"layer{k}", key, layer, attr
        elif "W" in layer.params:
            k += 1
            yield f"layer{k}", "inputWeights", layer, "W"
            yield f"bias{k}", None, layer, "b"


def _get(layer, attr):
    return layer.params[attr] if attr in layer.params else getattr(layer, attr)


def _as_list(array):
    """Nested lists of floats; float32 values as their shortest text ("0.1", not
    "0.10000000149011612"), which still reads back to exactly the same float32."""
    if array.dtype == np.float32:
        array = array.astype(str).astype(np.float64)
    return array.tolist()


def save_model(model: Network, path, extra: dict | None = None) -> None:
    """Write ``model`` to ``path`` as JSON (temp file + rename); ``extra`` adds
    top-level entries (e.g. how the model was trained)."""
    doc = {"name": model.name}
    for key, inner, layer, attr in weight_entries(model):
        array = _get(layer, attr)
        if not np.all(np.isfinite(array)):
            name = key if inner is None else f"{key}.{inner}"
            raise ValueError(f"cannot save {path}: {name} holds NaN or infinite numbers "
                             f"(training diverged?); lower the learning rate and retrain")
        values = _as_list(array)
        if inner is None:
            doc[key] = values
        else:
            doc.setdefault(key, {})[inner] = values
    doc["format_version"] = FORMAT_VERSION
    doc["architecture"] = model.architecture()
    doc.update(extra or {})
    write_json_atomic(path, doc)


def load_weights(model, doc: dict, where: str) -> None:
    """Put the arrays of a model file's ``doc`` into ``model`` (built from its
    architecture), checking each one; errors name ``where`` and the first bad entry."""
    for key, inner, layer, attr in weight_entries(model):
        name = key if inner is None else f"{key}.{inner}"
        if key not in doc or (inner is not None and inner not in doc[key]):
            raise ValueError(f"{where} is missing {name}, needed by layer {layer!r}")
        raw = doc[key] if inner is None else doc[key][inner]
        try:
            with np.errstate(over="ignore"):     # 1e300 -> inf in float32: caught below
                value = np.array(raw, dtype=model.dtype)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: {name} is not a (rectangular) array of numbers") from None
        if not np.all(np.isfinite(value)):
            # A NaN or infinite weight makes every evaluation NaN and the search's choice
            # arbitrary: refuse the file rather than play nonsense.
            bad = np.argwhere(~np.isfinite(value))[0].tolist()
            raise ValueError(f"{where}: {name} holds a non-finite number at index {bad} "
                             f"(NaN, Infinity or a value too big for {np.dtype(model.dtype)}); "
                             f"the file is damaged: retrain the model or restore the file")
        expected = _get(layer, attr).shape
        if value.shape != expected:
            raise ValueError(f"{where}: {name} has shape {value.shape}, expected {expected}")
        if attr in layer.params:
            layer.params[attr] = value
        else:
            setattr(layer, attr, value)


#: How to rebuild (with random weights) a model class defined outside ``nn``, by the
#: "class" of its architecture entry: e.g. the policy-value network registers itself.
_BUILDERS = {}


def register_architecture(name: str, build) -> None:
    """Let ``load_model`` rebuild models whose architecture says ``"class": name``:
    ``build(architecture) -> model`` (weights are loaded after, shapes checked)."""
    _BUILDERS[name] = build


def load_model(path) -> Network:
    """Rebuild a model from a file written by ``save_model``; checks every shape.

    The model comes back in eval mode (ready to evaluate positions); call
    ``model.train()`` to train it further.
    """
    return model_from_doc(read_json(path, "model file"), f"model file {path}")


def model_from_doc(doc, where: str) -> Network:
    """``load_model`` for a model file already read (``doc``, its JSON); errors name
    ``where``."""
    if not isinstance(doc, dict):
        raise ValueError(f"{where} holds a {type(doc).__name__}, not a chesslab model "
                         f"(a JSON object with 'name', 'layer1', ...)")
    for key in ("format_version", "architecture"):
        if key not in doc:
            raise ValueError(f"{where} has no {key!r} key; it was not written by "
                             f"chesslab.nn.save_model (re-save the model with it)")
    if doc["format_version"] != FORMAT_VERSION:
        raise ValueError(f"{where} has format_version {doc['format_version']!r}; this "
                         f"chesslab reads version {FORMAT_VERSION}")
    if not isinstance(doc["architecture"], dict):
        raise ValueError(f"{where}: 'architecture' should be a JSON object describing the "
                         f"layers, not {type(doc['architecture']).__name__} "
                         f"{doc['architecture']!r:.40}; re-save the model with save_model")
    build = _BUILDERS.get(doc["architecture"].get("class"), Network.from_architecture)
    try:
        model = build(doc["architecture"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{where}: the 'architecture' entry cannot be rebuilt ({exc!r})") from None
    load_weights(model, doc, where)
    return model.eval()
