"""Pictures of search: the thesis game tree with boards at its nodes, alpha-beta's
pruning on it, the teaching negamax's listing, and what MCTS found (visit counts, mean
values, arrows) and learned (the endgame curve)."""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import chess
import chess.svg
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator
import numpy as np

from chesslab.evaluators.registry import load_evaluator
from chesslab.figures.board import draw_board
from chesslab.board.scores import format_score
from chesslab.search.teaching import negamax
from chesslab.search.tree import GameTree


def draw_fragment(tree: GameTree, levels: int = 2, width: int = 3, ax=None,
                  best_first: bool = True):
    """The thesis's figure "Game tree fragment": boards at nodes, moves on edges, values.

    Shows ``width`` children per node (the minimax choice first and highlighted, or
    the first ones in move order with ``best_first=False``), down to ``levels``
    plies. Nodes alpha-beta did not visit (after ``tree.alphabeta()``) are faded.
    Calls ``tree.minimax()`` first if no values are filled in yet.
    """
    if tree.root.value is None:
        tree.minimax()
    leaves = width ** levels
    board_size, gap = 0.85, 1.75  # board width and level spacing, in leaf slots
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6.0, 1.3 * leaves), 2.4 * (levels + 1)))
    x_range, y_range = leaves + 0.2, levels * gap + 0.6 + board_size
    fig_w, fig_h = ax.figure.get_size_inches()
    box = ax.get_position()
    points_per_unit = 72 * min(fig_w * box.width / x_range, fig_h * box.height / y_range)

    def shown(node):
        if not best_first:
            return node.children[:width]
        best = [c for c in node.children if c.value == node.value][:1]
        rest = [c for c in node.children if c not in best]
        return (best + rest)[:width]

    def place(node, level, left, right, on_path):
        cx, cy = (left + right) / 2, -level * gap
        draw_board(ax, node.board, cx - board_size / 2, cy, board_size, points_per_unit,
                   alpha=1.0 if node.visited else 0.25)
        label = format_score(node.value, unit="cp") if node.visited else "pruned"
        if node.visited and getattr(node, "bound", "exact") != "exact":
            label = ("≤ " if node.bound == "upper" else "≥ ") + label
        ax.text(cx, cy - 0.08, label, ha="center", va="top",
                fontsize=9, fontweight="bold" if on_path else "normal",
                color="#c0392b" if on_path else ("black" if node.visited else "#999999"))
        if level == levels:
            return
        children = shown(node)
        span = (right - left) / max(1, len(children))
        chosen = next((c for c in node.children if c.value == node.value), None)
        for i, child in enumerate(children):
            c_left = left + i * span
            child_x, child_y = c_left + span / 2, -(level + 1) * gap + board_size
            best = on_path and child.visited and child is chosen
            ax.plot([cx, child_x], [cy - 0.3, child_y + 0.02],
                    color="#c0392b" if best else "#888888", linewidth=2 if best else 1)
            ax.text((cx + child_x) / 2, (cy - 0.3 + child_y) / 2, child.san, fontsize=8,
                    ha="center", va="center",
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="white",
                              edgecolor="none"))
            place(child, level + 1, c_left, c_left + span, best)

    place(tree.root, 0, 0, leaves, True)
    ax.set_xlim(-0.1, leaves + 0.1)
    ax.set_ylim(-levels * gap - 0.5, board_size + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def game_tree_figure(depth: int = 3, levels: int = 2, width: int = 3):
    """The thesis figure "Game tree fragment example": boards at nodes (1), move commands
    on edges (2), evaluation values (3), the minimax path in red.

    The tree is built to the thesis's default depth limit (3); its top ``levels`` are
    drawn, each node with the value minimax backed up from the leaves."""
    board = chess.Board()
    for san in "e4 e5 Nf3 Nc6 Bc4 Nf6".split():     # Two Knights Defence: White to move
        board.push_san(san)
    tree = GameTree(board, load_evaluator("pst"), depth=depth)
    tree.minimax()
    ax = draw_fragment(tree, levels=levels, width=width)
    ax.set_title(f"Game tree fragment: depth limit {depth}, top {levels} levels drawn, "
                 f"{width} children per node; pst evaluation, minimax values in "
                 f"centipawns for White", fontsize=10)
    return ax.figure


@dataclass
class PrunedTree:
    """What ``pruning_figure`` drew: alpha-beta's move and the nodes it visited of the
    tree's ``nodes``, minimax's move and root ``value``, and ``returned``: (san, bound,
    value) of the root's first children as alpha-beta left them (bound "exact", "upper"
    for at most or "lower" for at least)."""
    figure: object
    move: chess.Move
    visited: int
    nodes: int
    minimax_move: chess.Move
    value: float
    returned: list


def pruning_figure(board: chess.Board, evaluator, depth: int = 2, levels: int = 2,
                   width: int = 3, title: str | None = None) -> PrunedTree:
    """Alpha-beta on a small game tree, drawn like the thesis's fragment: the first
    ``width`` children in move order, faded where alpha-beta never looked, each value as
    alpha-beta returned it (a bound marked with its sign). Minimax runs on the same tree
    first, for the move and value alpha-beta must agree with."""
    tree = GameTree(board, evaluator, depth=depth)
    minimax_move, _ = tree.minimax()
    value = tree.root.value
    move, visited = tree.alphabeta()        # marks the visited nodes and the bounds
    fig, ax = plt.subplots(figsize=(11, 5.5))
    draw_fragment(tree, levels=levels, width=width, ax=ax, best_first=False)
    if title:
        ax.set_title(title)
    returned = [(c.san, c.bound, c.value) for c in tree.root.children[:width]]
    return PrunedTree(fig, move, visited, tree.size(), minimax_move, value, returned)


def negamax_listing() -> str:
    """The source of the teaching negamax (minimax written once for both sides), the
    base alpha-beta is written on. Notebook 06 grades minimax and is over by then; the
    listing comes from here so that a notebook names no module holding the references
    of exercises still open (alpha-beta's and quiescence's)."""
    return inspect.getsource(negamax)


# --- MCTS -----------------------------------------------------------------------------
def _most_visited(result, top: int):
    """Indices of the ``top`` most visited root moves of an MCTS result, most first."""
    return np.argsort(-result.visits, kind="stable")[:top]


def search_svg(board: chess.Board, result, top: int = 4, size: int = 320):
    """The board with an arrow for each of the ``top`` most visited moves of an MCTS
    ``result`` (the most visited in green); a move the search never visited gets none,
    even when fewer than ``top`` were visited (an arrow would rank it by move order)."""
    arrows = [chess.svg.Arrow(result.moves[i].from_square, result.moves[i].to_square,
                              color="#15781B" if k == 0 else "#888888")
              for k, i in enumerate(_most_visited(result, top)) if result.visits[i] > 0]
    return chess.svg.board(board, arrows=arrows, size=size)


def plot_search(board: chess.Board, result, top: int = 10, axes=None):
    """Bar charts of the visit count N and the mean value Q of the most visited moves
    of an MCTS ``result``."""
    order = _most_visited(result, top)
    names = [board.san(result.moves[i]) for i in order]
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(9, 3))
    axes[0].bar(names, result.visits[order], color="#4C72B0")
    runs = int(result.visits.sum())
    axes[0].set_title(f"visits N ({runs} simulation{'' if runs == 1 else 's'})")
    axes[0].yaxis.set_major_locator(MaxNLocator(integer=True))     # visits are counts
    axes[1].bar(names, result.q[order], color=["#55A868" if q >= 0 else "#C44E52"
                                              for q in result.q[order]])
    axes[1].axhline(0, color="black", lw=0.8)
    axes[1].set_ylim(-1, 1)
    axes[1].set_title("mean value Q for the side to move")
    for ax in axes:
        ax.tick_params(axis="x", rotation=45)
    return axes


def plot_curve(curve, axes=None, label=None, max_moves: int = 25):
    """The endgame learning curve: mate rate, and White's moves per test start (a start
    not mated counts as the ``max_moves`` cap, so fewer is better on both counts)."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(9, 3))
    its = [r["iteration"] for r in curve]
    axes[0].plot(its, [r["mate_rate"] for r in curve], "o-", label=label)
    axes[0].set_ylim(0, 1)
    axes[0].set_title("mate rate on the test starts")
    moves = [np.mean([max_moves if m is None else m for m in r["per_start"]]) for r in curve]
    axes[1].plot(its, moves, "o-", label=label)
    axes[1].set_title(f"moves to mate (not mated = {max_moves})")
    for ax in axes:
        ax.set_xlabel("self-play iteration")
        ax.grid(alpha=0.3)
    return axes


#: The schematic tree of ``mcts_steps_figure``: node -> (x, y), and its edges.
_STEP_NODES = {"root": (0.5, 0.9), "a": (0.2, 0.6), "b": (0.5, 0.6), "c": (0.8, 0.6),
               "b1": (0.38, 0.3), "b2": (0.62, 0.3), "new": (0.62, 0.05)}
_STEP_EDGES = [("root", "a"), ("root", "b"), ("root", "c"), ("b", "b1"), ("b", "b2")]
MCTS_STEPS = (
    ("1. select", "from the root, follow the move\nwith the largest Q + U"),
    ("2. expand", "a position never seen:\nadd it to the tree"),
    ("3. evaluate", "the network gives priors P for\nits moves and a value v (no rollout)"),
    ("4. back up", "add v to W and 1 to N on the path,\nthe sign flipping at every ply"),
)


def mcts_steps_figure(simulations: int | None = None):
    """The four steps of one MCTS simulation on a small schematic tree; the title says
    how many ``simulations`` a search repeats them (none named when None)."""
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.6))
    path = [("root", "b"), ("b", "b2")]
    for step, (ax, (title, words)) in enumerate(zip(axes, MCTS_STEPS)):
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.12, 1.0)
        ax.axis("off")
        ax.set_title(title, fontsize=11, loc="left")
        ax.text(0.0, -0.1, words, fontsize=8.5, va="top", color="0.25")
        edges = _STEP_EDGES + ([("b2", "new")] if step >= 1 else [])
        for a, b in edges:
            (x0, y0), (x1, y1) = _STEP_NODES[a], _STEP_NODES[b]
            on_path = (a, b) in path or (a, b) == ("b2", "new")
            colour = "tab:red" if on_path and step in (0, 3) else "0.6"
            ax.plot([x0, x1], [y0, y1], color=colour, lw=2.2 if on_path and step in (0, 3) else 1,
                    linestyle="--" if b == "new" and step == 1 else "-", zorder=1)
        for name, (x, y) in _STEP_NODES.items():
            if name == "new" and step == 0:
                continue
            new = name == "new"
            ax.scatter([x], [y], s=420, zorder=2, edgecolors="black",
                       facecolors="gold" if new and step >= 1 else "white",
                       linestyle="--" if new and step == 1 else "-")
        if step == 0:
            for a, b in path:
                (x0, y0), (x1, y1) = _STEP_NODES[a], _STEP_NODES[b]
                ax.annotate("max Q+U", ((x0 + x1) / 2, (y0 + y1) / 2), xytext=(6, 0),
                            textcoords="offset points", fontsize=8, color="tab:red")
        if step == 2:
            x, y = _STEP_NODES["new"]
            ax.annotate("network\n(P, v)", (x, y), xytext=(0.86, 0.22), fontsize=9,
                        ha="center", bbox=dict(boxstyle="round", fc="#dbe9f6", ec="tab:blue"),
                        arrowprops=dict(arrowstyle="<-", color="tab:blue"))
        if step == 3:
            for name, sign in (("new", "+v"), ("b2", "-v"), ("b", "+v"), ("root", "-v")):
                x, y = _STEP_NODES[name]
                ax.text(x + 0.07, y + 0.02, sign, fontsize=9, color="tab:red")
    repeated = f"{simulations} times" if simulations is not None else "for every simulation"
    fig.suptitle(f"One MCTS simulation, repeated {repeated} before each move", fontsize=11)
    fig.tight_layout()
    return fig
