"""Pictures of ideas the notebooks would otherwise print as numbers: alpha-beta's
windows on a small tree, the Elo scale with its uncertainty, the policy-value
network's parts, the AlphaZero loop."""
from __future__ import annotations

import math

import chess
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from chesslab.board.encoding import planes9_batch
from chesslab.matches.rating import elo_difference, wilson_interval
from chesslab.search.teaching import alphabeta_trace

#: A textbook tree (root maximises): small enough to read every window.
EXAMPLE_TREE = [[[3, 5], [6, 9]], [[1, 2], [0, -1]], [[8, 4], [7, 2]]]


def _bound_text(value, bound):
    sign = {"upper": "≤ ", "lower": "≥ "}.get(bound, "")
    return f"{sign}{value:g}"


def _window_text(window):
    def one(v):
        return "−∞" if v == -math.inf else "+∞" if v == math.inf else f"{v:g}"
    return f"[{one(window[0])}, {one(window[1])}]"


def alphabeta_windows_figure(tree=EXAMPLE_TREE, ax=None):
    """Every node of ``tree`` (nested lists, the root maximises) with the window
    (alpha, beta) alpha-beta entered it with, the order of the visits, and the value it
    returned (exact, or a bound ≤ / ≥); subtrees it never visited are faded."""
    trace = {t["path"]: (k, t) for k, t in enumerate(alphabeta_trace(tree))}

    def leaves(node):
        return 1 if not isinstance(node, (list, tuple)) else sum(leaves(c) for c in node)

    def depth(node):
        return 0 if not isinstance(node, (list, tuple)) else 1 + max(depth(c) for c in node)

    width, levels = leaves(tree), depth(tree)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(8, 1.1 * width), 1.9 * (levels + 1)))

    def place(node, path, left, level, maximise):
        span = leaves(node)
        x, y = left + span / 2, -level
        seen = path in trace
        colour = "black" if seen else "#bbbbbb"
        marker = "^" if maximise else "v"
        if isinstance(node, (list, tuple)):
            start = left
            for i, child in enumerate(node):
                cx = start + leaves(child) / 2
                ax.plot([x, cx], [y - 0.12, -(level + 1) + 0.12],
                        color="#888888" if path + (i,) in trace else "#dddddd", zorder=1)
                place(child, path + (i,), start, level + 1, not maximise)
                start += leaves(child)
            ax.scatter([x], [y], s=320, marker=marker, color="white", edgecolors=colour,
                       zorder=2)
        else:
            ax.scatter([x], [y], s=260, marker="s", color="white", edgecolors=colour, zorder=2)
        if not seen:
            ax.text(x, y - 0.28, "pruned" if level else "", ha="center", va="top", fontsize=7,
                    color=colour)
            if not isinstance(node, (list, tuple)):
                ax.text(x, y, f"{node:g}", ha="center", va="center", fontsize=8, color=colour)
            return
        order, t = trace[path]
        if isinstance(node, (list, tuple)):
            ax.text(x + 0.2, y, _bound_text(t["value"], t["bound"]), ha="left", va="center",
                    fontsize=9, fontweight="bold", zorder=3,
                    color="#c0392b" if t["bound"] != "exact" else "black")
        else:
            ax.text(x, y, f"{node:g}", ha="center", va="center", fontsize=8, zorder=3)
        ax.text(x, y + 0.22, f"{order + 1}. {_window_text(t['window'])}", ha="center",
                va="bottom", fontsize=7, color="#1f5fa8")

    place(tree, (), 0, 0, True)
    ax.set_xlim(-0.2, width + 0.2)
    ax.set_ylim(-levels - 0.6, 0.7)
    ax.axis("off")
    ax.set_title("Alpha-beta, node by node: visit order and window [α, β] on entry (blue), "
                 "value returned (red: only a bound); ▲ max, ▼ min", fontsize=9)
    return ax.figure


def elo_figure(games=(20, 100), ax=None):
    """Elo difference against the score, with the band of Elo differences a match of
    ``games`` games leaves open (the 95% Wilson interval of the observed score)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))
    s = np.linspace(0.01, 0.99, 197)
    ax.plot(s, [elo_difference(v) for v in s], color="black", label="Elo difference")
    for n, colour in zip(games, ("#f4a582", "#92c5de", "#b2abd2")):
        bands = np.array([wilson_interval(v * n, n) for v in s])
        low = [elo_difference(max(b, 1e-3)) for b in bands[:, 0]]
        high = [elo_difference(min(b, 1 - 1e-3)) for b in bands[:, 1]]
        ax.fill_between(s, low, high, color=colour, alpha=0.55,
                        label=f"95% band after {n} games")
    ax.set_ylim(-800, 800)
    ax.set_xlim(0, 1)
    ax.axhline(0, color="grey", linewidth=0.5)
    ax.axvline(0.5, color="grey", linewidth=0.5)
    ax.set_xlabel("score (1 win, ½ draw, 0 loss per game)")
    ax.set_ylabel("Elo difference")
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("Elo = −400·log10(1/score − 1): no finite Elo at 0 or 1", fontsize=10)
    return ax.figure


def _probe(part, x):
    """([(layer name, output shape)], output) of ``part`` for the input ``x``."""
    layers = getattr(part, "layers", [part])
    rows = []
    for layer in layers:
        x = layer.forward(x)
        rows.append((type(layer).__name__, tuple(x.shape[1:])))
    return rows, x


def _parameters(part):
    return sum(int(np.size(p)) for layer in part.leaves() for p in layer.params.values())


def network_figure(net, ax=None):
    """The policy-value network as its parts (``net.parts``: the trunk and the two
    heads), each layer with the shape it outputs, read from the network itself by one
    forward pass on the starting position (in inference mode; the network is left as
    it was)."""
    x = (net.encode([chess.Board()]) if hasattr(net, "encode")
         else planes9_batch([chess.Board()])).astype(net.dtype)
    input_shape = x.shape[1:]
    was = net.training
    net.eval()
    try:
        trunk = net.parts["trunk"]
        trunk_rows, out = _probe(trunk, x)
        heads = {name: _probe(part, out)[0] for name, part in net.parts.items()
                 if name != "trunk"}
    finally:
        net.train(was)
    # repeated blocks of the trunk drawn once, "x n"
    merged = []
    for name, shape in trunk_rows:
        if merged and merged[-1][0] == name and merged[-1][1] == shape:
            merged[-1][2] += 1
        else:
            merged.append([name, shape, 1])
    if ax is None:
        rows = 2 + len(merged) + max(len(r) for r in heads.values())
        _, ax = plt.subplots(figsize=(9, 0.55 * rows + 1))

    def box(x, y, text, colour):
        ax.add_patch(FancyBboxPatch((x - 1.6, y - 0.2), 3.2, 0.4, boxstyle="round,pad=0.05",
                                    facecolor=colour, edgecolor="#555555"))
        ax.text(x, y, text, ha="center", va="center", fontsize=8)

    def arrow(a, b):
        ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=10,
                                     color="#555555"))

    def shape_text(shape):
        return "×".join(str(v) for v in shape)

    y = 0.0
    box(0, y, f"input planes {shape_text(input_shape)}", "#eeeeee")
    for name, shape, times in merged:
        arrow((0, y - 0.25), (0, y - 0.75))
        y -= 1
        box(0, y, f"{name}{f' ×{times}' if times > 1 else ''} → {shape_text(shape)}",
            "#d6e4f0")
    ax.text(1.8, y / 2, f"trunk\n{_parameters(net.parts['trunk']):,} parameters",
            fontsize=8, va="center")
    top = y
    bottom = y
    for k, (name, rows) in enumerate(heads.items()):
        x = -2.3 if k == 0 else 2.3
        hy = top
        arrow((0, top - 0.25), (x, hy - 0.75))
        for layer, shape in rows:
            hy -= 1
            box(x, hy, f"{layer} → {shape_text(shape)}",
                "#f6d8c8" if k == 0 else "#d9ead3")
            if layer != rows[-1][0] or shape != rows[-1][1]:
                arrow((x, hy - 0.25), (x, hy - 0.75))
        ax.text(x, hy - 0.5, f"{name} head: {_parameters(net.parts[name]):,} parameters",
                ha="center", va="top", fontsize=8, fontweight="bold")
        bottom = min(bottom, hy)
    ax.set_xlim(-4.5, 4.5)
    ax.set_ylim(bottom - 1, 0.6)
    ax.axis("off")
    ax.set_title(f"{net!r}: one trunk, two heads", fontsize=10)
    return ax.figure


def alphazero_loop_figure(gate=0.55, player="latest", ax=None):
    """The loop of ``selfplay.train_selfplay``: self-play fills a replay buffer, a trainee
    learns from it, the arena keeps the better network as the best. ``player`` is who
    plays the next games, as its setting of that name: "latest" (the trainee, as in
    AlphaZero) or "best" (the gated best, as in AlphaGo Zero)."""
    if player not in ("latest", "best"):
        raise ValueError(f"player must be 'latest' or 'best', not {player!r}")
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 4.4))
    who = "latest network (the trainee)\n" if player == "latest" else "best network "
    stages = {"self-play": (0, 1, f"{who}plays itself\n(MCTS, noise, temperature)"),
              "buffer": (3, 1, "replay buffer\n(position, visit share π, result z)"),
              "train": (6, 1, "train the trainee\n(z − v)² − π·log p + c‖θ‖²"),
              "arena": (6, -1, f"arena: trainee vs best\nboth colours, accept if > {gate:.0%}"),
              "best": (3, -1, "best network\n(replaced, or kept)"),
              "measure": (0, -1, "measure the best\n(fixed test, never trains)")}
    colours = {"self-play": "#d6e4f0", "buffer": "#eeeeee", "train": "#f6d8c8",
               "arena": "#fce5a5", "best": "#d9ead3", "measure": "#eeeeee"}
    for name, (x, y, text) in stages.items():
        ax.add_patch(FancyBboxPatch((x - 1.25, y - 0.45), 2.5, 0.9, boxstyle="round,pad=0.08",
                                    facecolor=colours[name], edgecolor="#555555"))
        ax.text(x, y, text, ha="center", va="center", fontsize=8)
    links = [("self-play", "buffer", "games"), ("buffer", "train", "samples"),
             ("train", "arena", "trainee"), ("arena", "best", "winner"),
             ("best", "measure", "")] + ([("best", "self-play", "next iteration")]
                                          if player == "best" else [])
    for a, b, label in links:
        (xa, ya, _), (xb, yb, _) = stages[a], stages[b]
        if ya == yb:
            start = (xa + 1.35 * np.sign(xb - xa), ya)
            end = (xb - 1.35 * np.sign(xb - xa), yb)
        else:
            start, end = (xa + (0.6 if xa == 0 else 0), ya - 0.55 * np.sign(ya - yb)), \
                         (xb + (0.6 if xb == 0 else 0), yb + 0.55 * np.sign(ya - yb))
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14,
                                     color="#555555",
                                     connectionstyle="arc3,rad=0.0"))
        if label:
            ax.text((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + 0.12, label,
                    ha="center", va="bottom", fontsize=7, color="#555555")
    if player == "latest":      # the trainee goes on playing, accepted or not
        ax.add_patch(FancyArrowPatch((6, 1.55), (0, 1.55), arrowstyle="-|>",
                                     mutation_scale=14, color="#555555",
                                     connectionstyle="arc3,rad=0.12"))
        ax.text(3, 1.98, "next iteration: the trainee plays on, accepted or not",
                ha="center", va="bottom", fontsize=7, color="#555555")
    ax.set_xlim(-1.6, 7.6)
    ax.set_ylim(-1.7, 2.3)
    ax.axis("off")
    ax.set_title(f"One iteration of the loop (self-play by the {player} network)", fontsize=10)
    return ax.figure


#: AlphaZero's chess run (Silver et al., the 2017 preprint arXiv:1712.01815 and the 2018
#: Science paper): self-play games and positions sampled for training (700,000 steps of
#: 4,096) as reported; simulations per second in play (on 4 TPUs: the preprint's
#: "positions searched per second", one position per simulation; the Science paper gives a
#: somewhat lower rate); the weights are our
#: estimate from the architecture (19 residual blocks of 256 filters), not a reported
#: figure.
ALPHAZERO_CHESS = {"self-play games": 44e6, "training positions": 700_000 * 4096,
                   "network weights": 2.4e7, "simulations per second": 8e4}


def compute_gap_figure(ours: dict, theirs=ALPHAZERO_CHESS, ax=None):
    """What separates a laptop's AlphaZero from the paper's: each quantity of ``theirs``
    beside ``ours`` (same keys; 0 or missing: none) on a log scale, with the ratio."""
    keys = list(theirs)
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.9 + 0.7 * len(keys)), layout="constrained")
    y = np.arange(len(keys))[::-1]
    mine = [max(float(ours.get(k) or 0), 1.0) for k in keys]
    ax.barh(y + 0.18, [theirs[k] for k in keys], height=0.34, color="0.6", label="AlphaZero")
    ax.barh(y - 0.18, mine, height=0.34, color="#2980b9", label="chesslab, this laptop")
    ax.set_xscale("log")
    ax.set_yticks(y, keys)
    for yi, k, m in zip(y, keys, mine):
        ax.text(theirs[k] * 1.3, yi + 0.18, f"{theirs[k]:.3g}", va="center", fontsize=8)
        words = f"{ours.get(k) or 0:,.4g}" + (f"  (1/{theirs[k] / m:,.0f})" if ours.get(k) else "")
        ax.text(m * 1.3, yi - 0.18, words, va="center", fontsize=8)
    ax.set_xlim(1, max(theirs.values()) * 200)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title("AlphaZero's chess run against ours (log scale)")
    return ax.figure
