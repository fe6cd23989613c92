"""Backpropagation as a picture: the computation graph of one dense neuron, every value
going forward and every gradient coming back (drawn in the manner of micrograd)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyBboxPatch

from chesslab.nn import Dense, Sigmoid, mse


def backprop_values(x, w, b, target):
    """Forward and backward through ``L = (sigmoid(x . w + b) - target)^2``, node by node.

    Returns {node: (value, dL/dnode)}; the weights' and the bias's gradients come from
    chesslab's own ``Dense`` and ``Sigmoid`` layers, so the picture shows what they compute.
    """
    x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
    dense = Dense(len(x), 1, dtype=np.float64)
    dense.params["W"][:, 0], dense.params["b"][:] = w, b
    act = Sigmoid()
    z = dense.forward(x[None, :])
    h = act.forward(z)
    loss, grad_h = mse(h, np.array([[target]], dtype=np.float64))
    grad_z = act.backward(grad_h)
    grad_x = dense.backward(grad_z)[0]
    nodes = {"L": (float(loss), 1.0), "h": (float(h[0, 0]), float(grad_h[0, 0])),
             "z": (float(z[0, 0]), float(grad_z[0, 0])), "b": (float(b), float(dense.grads["b"][0]))}
    for i in range(len(x)):
        nodes[f"x{i + 1}w{i + 1}"] = (float(x[i] * w[i]), float(grad_z[0, 0]))   # d z / d(x w) = 1
        nodes[f"w{i + 1}"] = (float(w[i]), float(dense.grads["W"][i, 0]))
        nodes[f"x{i + 1}"] = (float(x[i]), float(grad_x[i]))
    return nodes


def backprop_graph_figure(x=(1.0, -2.0), w=(0.5, 0.25), b=0.1, target=1.0):
    """The graph of one neuron with two inputs: value boxes (value above, gradient in
    red below), operation circles, and the local rule each operation applies backwards."""
    nodes = backprop_values(x, w, b, target)
    fig, ax = plt.subplots(figsize=(11, 4.4))
    ax.set_xlim(0, 11.1)
    ax.set_ylim(-0.25, 5.0)
    ax.axis("off")
    where = {"x1": (0.6, 4.4), "w1": (0.6, 3.3), "x2": (0.6, 2.0), "w2": (0.6, 0.9),
             "b": (4.2, 0.2), "x1w1": (3.0, 3.85), "x2w2": (3.0, 1.45), "z": (6.0, 2.6),
             "h": (8.2, 2.6), "L": (10.5, 2.6)}
    ops = {"×1": (1.9, 3.85), "×2": (1.9, 1.45), "+": (4.9, 2.6), "σ": (7.1, 2.6),
           "(h - t)²": (9.35, 2.6)}
    edges = [("x1", "×1"), ("w1", "×1"), ("×1", "x1w1"), ("x2", "×2"), ("w2", "×2"),
             ("×2", "x2w2"), ("x1w1", "+"), ("x2w2", "+"), ("b", "+"), ("+", "z"), ("z", "σ"),
             ("σ", "h"), ("h", "(h - t)²"), ("(h - t)²", "L")]
    points = {**where, **ops}
    def edge_of(name, dx, dy):
        """How far from its centre an arrow along (dx, dy) leaves a box or a circle."""
        if name in ops:
            return 0.32
        return 0.03 + min(0.58 / abs(dx) if dx else np.inf, 0.36 / abs(dy) if dy else np.inf)

    for a, c in edges:
        (xa, ya), (xc, yc) = points[a], points[c]
        length = np.hypot(xc - xa, yc - ya)
        ux, uy = (xc - xa) / length, (yc - ya) / length
        start, end = edge_of(a, ux, uy), edge_of(c, ux, uy)
        ax.annotate("", xy=(xc - ux * end, yc - uy * end), xytext=(xa + ux * start, ya + uy * start),
                    arrowprops=dict(arrowstyle="-|>", color="0.45", shrinkA=0, shrinkB=0))
    names = {"x1w1": "x₁w₁", "x2w2": "x₂w₂", "x1": "x₁", "x2": "x₂", "w1": "w₁", "w2": "w₂"}
    for name, (px, py) in where.items():
        value, grad = nodes[name]
        fill = "#fde9c9" if name.startswith("w") or name == "b" else "#dbe9f6"
        ax.add_patch(FancyBboxPatch((px - 0.55, py - 0.33), 1.1, 0.66, boxstyle="round,pad=0.03",
                                    fc=fill, ec="0.3"))
        ax.text(px, py + 0.12, f"{names.get(name, name)} = {value:.3f}", ha="center",
                va="center", fontsize=8.5)
        ax.text(px, py - 0.16, f"grad {grad:+.3f}", ha="center", va="center", fontsize=8.5,
                color="tab:red")
    for name, (px, py) in ops.items():
        ax.add_patch(plt.Circle((px, py), 0.3, fc="white", ec="0.2"))
        ax.text(px, py, name.rstrip("12"), ha="center", va="center", fontsize=9)
    rules = {"×1": "× sends back the\nother input × grad", "+": "+ sends the\ngrad unchanged",
             "σ": "σ: grad × h(1 - h)", "(h - t)²": f"2(h - t), t = {target:g}"}
    for name, rule in rules.items():
        px, py = ops[name]
        ax.text(px, py + (0.55 if name == "×1" else 0.45), rule, ha="center", va="bottom",
                fontsize=7.5, color="0.35")
    ax.set_title("one neuron, L = (σ(x₁w₁ + x₂w₂ + b) - t)²: values flow right, gradients "
                 "(red, dL/d that box) flow back left", fontsize=10)
    return fig
