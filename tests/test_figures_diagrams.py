"""The diagrams: alpha-beta's windows, the Elo scale, the network's parts, the loop."""
import math

import matplotlib
import matplotlib.pyplot as plt

from chesslab import figures
from chesslab.evaluators.policy_value import PolicyValueNet
from chesslab.search.teaching import alphabeta_trace

matplotlib.use("Agg")


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_the_trace_gives_minimax_value_windows_and_bounds():
    trace = alphabeta_trace(figures.EXAMPLE_TREE)
    root = trace[0]
    assert root["value"] == 7 and root["bound"] == "exact" and root["window"] == (-math.inf, math.inf)
    by_path = {t["path"]: t for t in trace}
    assert by_path[(1,)]["bound"] == "upper" and by_path[(1,)]["value"] == 2
    assert by_path[(0, 1)]["bound"] == "lower"
    assert (1, 1) not in by_path                       # pruned
    assert alphabeta_trace([[1, 2], [3, 4]])[0]["value"] == 3


def test_alphabeta_windows_figure_shows_bounds_and_pruned_nodes():
    texts = _texts(figures.alphabeta_windows_figure())
    assert "≤ 2" in texts and "pruned" in texts and "1. [−∞, +∞]" in texts
    plt.close("all")


def test_elo_figure_and_loop_draw():
    assert figures.elo_figure(games=(20,)).axes
    latest = _texts(figures.alphazero_loop_figure())
    assert any("55%" in t for t in latest)
    assert any(t.startswith("latest network (the trainee)") for t in latest)
    best = _texts(figures.alphazero_loop_figure(player="best"))
    assert any(t.startswith("best network plays itself") for t in best)
    assert "next iteration" in best and not any("latest" in t for t in best)
    plt.close("all")


def test_network_figure_reads_the_parts_of_any_network():
    net = PolicyValueNet(channels=4, blocks=2, policy_k=4, seed=0)
    texts = _texts(figures.network_figure(net))
    assert "Residual ×2 → 4×8×8" in texts
    assert any(t.startswith("value head") for t in texts) and net.training
    plt.close("all")


def test_draw_fragment_labels_a_bound():
    import chess
    from chesslab import load_evaluator
    from chesslab.search.tree import GameTree
    tree = GameTree(chess.Board("4k3/8/8/3q4/8/2N5/8/4K3 w - - 0 1"), load_evaluator("material"), 2)
    tree.alphabeta()
    nb5 = next(c for c in tree.root.children if c.san == "Nb5")
    assert nb5.bound == "upper" and nb5.value == -600
    figures.draw_fragment(tree, levels=2, width=3, best_first=False)
    assert "≤ -600 cp" in _texts(plt.gcf()) or any(t.startswith("≤ ") for t in _texts(plt.gcf()))
    tree.minimax()
    assert nb5.bound == "exact"
    plt.close("all")


def test_the_compute_gap_draws_both_bars_of_each_quantity_and_their_ratio():
    from chesslab.figures import ALPHAZERO_CHESS, compute_gap_figure
    ours = {"self-play games": 1200, "training positions": 1e6, "network weights": 2e5,
            "simulations per second": 800}
    fig = compute_gap_figure(ours)
    ax = fig.axes[0]
    widths = sorted(round(p.get_width()) for p in ax.patches)
    assert widths == sorted([round(v) for v in ALPHAZERO_CHESS.values()] + [round(v) for v in ours.values()])
    texts = [t.get_text() for t in ax.texts]
    assert f"1,200  (1/{ALPHAZERO_CHESS['self-play games'] / 1200:,.0f})" in texts
    plt.close(fig)


def test_the_network_picture_reads_a_side_to_move_network_too():
    from chesslab.evaluators.policy_value import PolicyValueNet
    from chesslab.figures import network_figure
    fig = network_figure(PolicyValueNet(8, 1, policy_k=8, planes="mover"))
    assert any("16" in t.get_text() for t in fig.axes[0].texts)
    plt.close(fig)
