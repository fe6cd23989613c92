"""Pictures of the networks and their training: the thesis CNN diagram and model-file
listings drawn from real models, training curves, and the recipe's ablation."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyBboxPatch

from chesslab.base.files import read_json
from chesslab.evaluators.registry import EVALUATORS
from chesslab.nn import (ANN, CNN, Conv2D, Dense, Flatten, MaxPool2D, ReLU, Residual, Sigmoid,
                         Tanh, save_model, thesis_cnn)
from chesslab.training.measure import SIGN_MARGIN_CP
from chesslab.training.recipe import RECIPE_STEPS
from chesslab.training.pipeline import History, load_history

_BOX_STYLE = {"Conv": "#cfe2f3", "Pool": "#d9ead3", "Activ": "#fff2cc", "Full": "#f4cccc",
              "Input": "#eeeeee", "Output": "#eeeeee"}


def network_boxes(model):
    """(kind, label, output shape) per block of a thesis-style network, from the model.

    Flatten and the dense layer after it form one "Full" box, as in the thesis figure.
    """
    boxes = [("Input", "input", tuple(model.input_shape))]
    counters = {}
    for layer, shape in model.shapes():
        if isinstance(layer, Flatten):
            continue
        if isinstance(layer, Conv2D):
            kind, detail = "Conv", f"{layer.out_channels} kernels {layer.kernel_size}x{layer.kernel_size}"
        elif isinstance(layer, MaxPool2D):
            kind, detail = "Pool", f"max {layer.size}x{layer.size}"
        elif isinstance(layer, (ReLU, Sigmoid, Tanh)):
            kind, detail = "Activ", type(layer).__name__
        elif isinstance(layer, Dense):
            kind, detail = "Full", f"{layer.n_in} -> {layer.n_out}"
        else:
            kind, detail = type(layer).__name__, ""
        counters[kind] = counters.get(kind, 0) + 1
        boxes.append((kind, f"{kind}{counters[kind]}\n{detail}", tuple(shape)))
    return boxes


def cnn_structure_figure(model=None):
    """The thesis figure "Structure of the implemented CNN", drawn from the real model.

    Boxes (Conv, Pool, Activ, Full) come from ``thesis_cnn()`` itself, with the shape
    each layer really outputs, so the picture cannot drift from the code.
    """
    model = thesis_cnn() if model is None else model
    boxes = network_boxes(model)
    n = len(boxes)
    fig, ax = plt.subplots(figsize=(1.45 * n + 0.4, 2.6))
    ax.set_xlim(-0.2, 1.45 * n)
    ax.set_ylim(-0.2, 2.1)
    ax.axis("off")
    for i, (kind, label, shape) in enumerate(boxes):
        x = 1.45 * i
        ax.add_patch(FancyBboxPatch((x, 0.75), 1.1, 0.95, boxstyle="round,pad=0.04",
                                    fc=_BOX_STYLE.get(kind, "white"), ec="0.3"))
        ax.text(x + 0.55, 1.22, label, ha="center", va="center", fontsize=8)
        ax.text(x + 0.55, 0.5, " x ".join(map(str, shape)), ha="center", va="center",
                fontsize=8, color="0.25")
        if i:
            ax.annotate("", xy=(x - 0.04, 1.22), xytext=(x - 0.31, 1.22),
                        arrowprops=dict(arrowstyle="->", color="0.3"))
    total = sum(p.size for _, p, _ in model.parameters())
    ax.text(0, 0.05, f"{model.name}: {total} parameters; shapes below each box are the "
            f"real output shapes (channels x rows x columns)", fontsize=8, color="0.35")
    ax.set_title("Structure of the implemented CNN (Conv - convolutional layer, Pool - "
                 "pooling layer, Activ - activation layer, Full - fully connected layer)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def _small_ann():
    """The thesis listing's ANN: 2 inputs, 1 hidden neuron, 1 output, its numbers."""
    net = ANN.from_topology([2, 1, 1], name="NN 1")
    dense = [leaf for leaf in net.leaves() if "W" in leaf.params]
    dense[0].params["W"][:] = [[0.1], [0.4]]
    dense[0].params["b"][:] = [0.2]
    dense[1].params["W"][:] = [[0.5]]
    dense[1].params["b"][:] = [0.3]
    return net


def _small_cnn():
    """A tiny CNN in the spirit of the thesis listing: one 2x2 kernel, one output."""
    net = CNN((1, 3, 3), name="NN 2", seed=0)
    net.add(Conv2D(1, 1, 2, rng=net.rng))
    net.add_output_layer(1)
    conv, dense = [leaf for leaf in net.leaves() if "W" in leaf.params]
    conv.params["W"][:] = [[[[0.1, 0.5], [0.4, 0.9]]]]
    conv.params["b"][:] = [0.3]
    dense.params["W"][:] = [[0.7], [0.6], [0.2], [0.5]]
    dense.params["b"][:] = [0.5]
    return net


def model_listing(model, max_numbers: int = 12) -> str:
    """The JSON that ``save_model`` really writes for ``model``, laid out like the thesis.

    The file is written to a temporary folder and read back; arrays longer than
    ``max_numbers`` are cut with "...". The architecture entry is summarised.
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.json"
        save_model(model, path)
        doc = read_json(path, "model file")

    def short(value):
        flat = np.asarray(value, dtype=float).ravel()
        text = json.dumps(np.round(np.asarray(value, dtype=float), 3).tolist())
        if flat.size > max_numbers:
            text = json.dumps(np.round(flat[:max_numbers], 3).tolist())[:-1] + ", ...]"
        return text

    lines = ["{", f'  "name": {json.dumps(doc["name"])},']
    for key, value in doc.items():
        if key in ("name", "architecture", "format_version"):
            continue
        if isinstance(value, dict):
            lines.append(f'  "{key}": {{')
            lines += [f'    "{k}": {short(v)},' for k, v in value.items()]
            lines[-1] = lines[-1].rstrip(",")
            lines.append("  },")
        else:
            lines.append(f'  "{key}": {short(value)},')
    layers = ", ".join(layer["type"] for layer in doc["architecture"]["layers"])
    lines.append(f'  "format_version": {doc["format_version"]},')
    lines.append(f'  "architecture": {{"class": "{doc["architecture"]["class"]}", '
                 f'"layers": [{layers}], ...}}')
    lines.append("}")
    return "\n".join(lines)


def saved_model_figure(kind="ann"):
    """The thesis listings "Example of file containing saved ANN/CNN model configuration",
    rendered from a real file written by ``chesslab.nn.save_model``."""
    if kind not in ("ann", "cnn"):
        raise ValueError(f"kind must be 'ann' or 'cnn', got {kind!r}")
    model = _small_ann() if kind == "ann" else _small_cnn()
    text = model_listing(model)
    n_lines = text.count("\n") + 1
    fig, ax = plt.subplots(figsize=(7.2, 0.17 * n_lines + 0.6))
    ax.axis("off")
    ax.text(0.01, 0.98, text, family="monospace", fontsize=8.5, va="top", ha="left",
            transform=ax.transAxes)
    what = "ANN" if kind == "ann" else "CNN"
    ax.set_title(f"Example of file containing saved {what} model configuration "
                 f"(written by save_model)", fontsize=9)
    fig.tight_layout()
    return fig


# --- training -------------------------------------------------------------------------
def training_curves_figure(names=("ann64", "cnn64", "ann", "cnn")):
    """The shipped ANNs and CNNs: validation loss and accuracy per epoch, read from the
    training history stored in each model file; each net labelled with its title in the
    registry. Each had its own epoch cap (some stopped early, some at the cap), so these
    curves show how each net learned, not which is better: ``comparison_curves_figure``
    draws the nets trained alike."""
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(9.5, 3.6))
    drawn = 0
    for name in names:
        label = EVALUATORS[name].title
        try:
            history = load_history(name)
        except FileNotFoundError:
            continue
        style = "-" if "64" in name else "--"
        color = "#2980b9" if name.startswith("ann") else "#c0392b"
        ax_loss.plot(history.epoch, history.val_loss, style, color=color, label=label)
        ax_acc.plot(history.epoch, history.val_accuracy, style, color=color, label=label)
        drawn += 1
    if not drawn:
        raise FileNotFoundError("no trained ANN/CNN model files in data/models; train them "
                                "with `python -m chesslab train nets all`")
    ax_loss.set(xlabel="epoch", ylabel="validation MSE (scaled target)",
                title="validation loss")
    ax_acc.set(xlabel="epoch", ylabel="sign accuracy", title="validation accuracy")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
    ax_acc.legend(fontsize=7)
    fig.suptitle("the shipped ANNs and CNNs (each with its own epoch cap)", fontsize=10)
    fig.tight_layout()
    return fig


def _comparison_runs(data: dict, nets) -> dict:
    """Each of ``nets``' runs in a stored comparison, by seed; a net with none is named."""
    runs = {net: sorted((r for r in data["runs"].values() if r["net"] == net),
                        key=lambda r: r["seed"]) for net in nets}
    missing = [net for net, found in runs.items() if not found]
    if missing:
        raise ValueError(f"the comparison holds no run of {', '.join(missing)}; run "
                         f"`python -m chesslab results net-comparison`")
    return runs


def comparison_curves_figure(data: dict, nets=("ann64", "cnn64")):
    """The nets of a fair comparison (``results net-comparison``, its JSON as ``data``)
    side by side, one panel each on a shared scale: training (dashed) and validation
    (solid) loss per epoch of every seed, the best epoch marked; the panel title says how
    each run stopped."""
    runs = _comparison_runs(data, nets)
    fig, axes = plt.subplots(1, len(nets), figsize=(4.6 * len(nets), 3.4), sharey=True,
                             squeeze=False)
    for ax, net in zip(axes[0], nets):
        for k, run in enumerate(runs[net]):
            epochs = np.arange(1, run["epochs"] + 1)
            color = f"C{k}"
            ax.plot(epochs, run["train_loss"], "--", color=color, lw=1)
            ax.plot(epochs, run["val_loss"], "-", color=color, label=f"seed {run['seed']}")
            ax.plot(run["best_epoch"], run["val_loss"][run["best_epoch"] - 1], "o",
                    color=color, ms=5)
        stops = sorted({"early stopping" if r["stop_reason"].startswith("early") else
                        r["stop_reason"] for r in runs[net]})
        ax.set(xlabel="epoch", title=f"{EVALUATORS[net].title}\n{runs[net][0]['parameters']:,}"
                                     f" parameters; stopped by {', '.join(stops)}")
        ax.title.set_fontsize(9)
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("loss (dashed: training, solid: validation)")
    axes[0][-1].legend(fontsize=7, title="dot: best epoch", title_fontsize=7)
    fig.suptitle(f"the same recipe on the same {data['recipe']['train_positions']:,} training "
                 f"positions, each until early stopping", fontsize=10)
    fig.tight_layout()
    return fig


def comparison_errors_figure(data: dict, nets=None):
    """Each compared net's depth-1 test error in a fair comparison (``results
    net-comparison``, its JSON as ``data``): one dot per seed and a bar at their mean, the
    nets sorted by that mean, each labelled with its size. The picture beside the printed
    verdicts, which say which of the gaps are beyond the noise."""
    nets = list(nets or dict.fromkeys(r["net"] for r in data["runs"].values()))
    runs = _comparison_runs(data, nets)
    errors = {net: [r["test_depth1"]["mae_cp"] for r in runs[net]] for net in nets}
    order = sorted(nets, key=lambda net: np.mean(errors[net]))
    fig, ax = plt.subplots(figsize=(1.4 * len(order) + 1.6, 3.4))
    x = np.arange(len(order))
    ax.bar(x, [np.mean(errors[net]) for net in order], 0.6, color="lightgrey",
           label="mean of the seeds")
    for k, net in enumerate(order):
        ax.plot(np.full(len(errors[net]), k), errors[net], "o", color="C0", ms=4,
                label="one seed" if k == 0 else None)
    ax.set_xticks(x, [f"{net}\n{runs[net][0]['parameters']:,} param." for net in order],
                  fontsize=8)
    ax.set_ylabel("depth-1 test MAE (cp)")
    ax.set_title(f"trained alike on the same {data['recipe']['train_positions']:,} positions "
                 f"(lower is better)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def plot_history(history: History, title: str = "", axes=None):
    """Loss (train and validation) and validation accuracy per epoch; returns the figure."""
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    else:
        fig = axes[0].figure
    ax_loss, ax_acc = axes
    ax_loss.plot(history.epoch, history.train_loss, "o-", ms=3, label="train")
    ax_loss.plot(history.epoch, history.val_loss, "o-", ms=3, label="validation")
    ax_loss.set(xlabel="epoch", ylabel="MSE (scaled target)", title=f"{title} loss".strip())
    ax_loss.legend()
    ax_acc.plot(history.epoch, history.val_accuracy, "o-", ms=3, color="C2")
    ax_acc.set(xlabel="epoch", ylabel=f"sign accuracy (|cp| > {SIGN_MARGIN_CP})",
               title=f"{title} validation accuracy".strip())
    if history.best_epoch:
        for ax in axes:
            ax.axvline(history.best_epoch, color="grey", ls=":", lw=1)
    fig.tight_layout()
    return fig


def plot_recipe(ablation: dict, ax=None):
    """Depth-1 MAE after each recipe step, one line per net, White/Black to move dotted."""
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
    # Only the steps the file measured get a tick: a step the run skipped is not drawn as
    # an empty place on the axis.
    measured = {r["step"] for r in ablation["rows"]}
    steps = [label for label, _ in RECIPE_STEPS if label in measured]
    for k, net in enumerate(dict.fromkeys(r["net"] for r in ablation["rows"])):
        rows = [r for r in ablation["rows"] if r["net"] == net]
        x = [steps.index(r["step"]) for r in rows]
        color = f"C{k}"
        ax.plot(x, [r["search_depth1"]["all"]["mae_cp"] for r in rows], "o-", color=color,
                label=f"{net}: all")
        for side, style in (("white_to_move", ":"), ("black_to_move", "--")):
            ax.plot(x, [r["search_depth1"][side]["mae_cp"] for r in rows], style,
                    color=color, lw=1, label=f"{net}: {side.replace('_', ' ')}")
    ax.set_xticks(range(len(steps)), steps, rotation=20, ha="right")
    ax.set_ylabel("MAE after a depth-1 search (cp)")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)
    return ax


def residual_block_figure(block=None):
    """The tutorial's residual block, drawn from a real ``nn.Residual``: its branch of
    layers, the skip connection that carries the input around them, the sum, the ReLU."""
    block = Residual(32) if block is None else block
    names = [repr(layer) for layer in block.layers]
    kinds = ["Conv" if isinstance(layer, Conv2D) else "Activ" if isinstance(layer, ReLU)
             else "Norm" for layer in block.layers]
    n = len(names)
    fig, ax = plt.subplots(figsize=(1.5 * (n + 3), 2.8))
    ax.set_xlim(-0.3, 1.5 * (n + 3))
    ax.set_ylim(0, 3)
    ax.axis("off")
    style = {**_BOX_STYLE, "Norm": "#e6d5f2"}
    ax.text(0.3, 1.2, "x", fontsize=14, ha="center", va="center")
    for i, (name, kind) in enumerate(zip(names, kinds)):
        x = 1.5 * (i + 1)
        ax.add_patch(FancyBboxPatch((x - 0.55, 0.75), 1.1, 0.9, boxstyle="round,pad=0.04",
                                    fc=style[kind], ec="0.3"))
        label = name.removesuffix("()").replace("(", "\n(", 1).replace(", ", ",\n")
        ax.text(x, 1.2, label, ha="center", va="center", fontsize=7)
        ax.annotate("", xy=(x - 0.6, 1.2), xytext=(x - 0.9, 1.2),
                    arrowprops=dict(arrowstyle="->", color="0.3"))
    plus = 1.5 * (n + 1)
    ax.add_patch(plt.Circle((plus, 1.2), 0.22, fc="white", ec="0.2"))
    ax.text(plus, 1.2, "+", ha="center", va="center", fontsize=14)
    ax.annotate("", xy=(plus - 0.24, 1.2), xytext=(plus - 0.9, 1.2),
                arrowprops=dict(arrowstyle="->", color="0.3"))
    ax.annotate("", xy=(plus, 1.43), xytext=(0.3, 1.45),
                arrowprops=dict(arrowstyle="->", color="tab:red", lw=1.8,
                                connectionstyle="bar,fraction=-0.12"))
    ax.text((plus + 0.3) / 2, 2.7, "skip connection: the input is added unchanged, so the "
            "gradient reaches earlier blocks through the +,\nstopped only where the last ReLU "
            "is off (its input below 0)", ha="center", va="bottom", fontsize=8,
            color="tab:red")
    out = 1.5 * (n + 2)
    ax.add_patch(FancyBboxPatch((out - 0.45, 0.85), 0.9, 0.7, boxstyle="round,pad=0.04",
                                fc=style["Activ"], ec="0.3"))
    ax.text(out, 1.2, "ReLU", ha="center", va="center", fontsize=8)
    ax.annotate("", xy=(out - 0.5, 1.2), xytext=(plus + 0.24, 1.2),
                arrowprops=dict(arrowstyle="->", color="0.3"))
    ax.text(0.3, 0.35, f"{block!r}: out = ReLU(branch(x) + x); input and output have the same "
            f"shape (channels x 8 x 8)", fontsize=8, color="0.35")
    fig.tight_layout()
    return fig
