"""figures.search: the game tree drawing follows the tree; MCTS pictures follow the visits."""
import chess
import numpy as np
from types import SimpleNamespace

from chesslab.evaluators.registry import load_evaluator
from chesslab.figures import search as fs
from chesslab.board.scores import format_score
from chesslab.search.tree import GameTree


def test_fragment_draws_the_minimax_value_and_the_chosen_move():
    tree = GameTree(chess.Board(), load_evaluator("material"), depth=2)
    ax = fs.draw_fragment(tree, levels=1, width=2)
    assert tree.root.value is not None                    # minimax was run for the drawing
    texts = [t.get_text() for t in ax.texts]
    assert texts.count(format_score(tree.root.value, unit="cp")) >= 1
    best = next(c for c in tree.root.children if c.value == tree.root.value)
    assert best.san in texts                              # best first, on its edge
    assert len(ax.lines) == 2


def test_alphabeta_fragment_shows_pruned_nodes():
    tree = GameTree(chess.Board(), load_evaluator("material"), depth=2)
    tree.alphabeta()
    ax = fs.draw_fragment(tree, levels=2, width=3, best_first=False)
    assert "pruned" in [t.get_text() for t in ax.texts]


def test_pruning_figure_agrees_with_minimax_and_marks_the_bounds():
    board = chess.Board("4k3/8/8/3q4/8/2N5/8/4K3 w - - 0 1")    # Nxd5 takes the queen
    drawn = fs.pruning_figure(board, load_evaluator("material"), depth=2, title="pruned")
    assert drawn.move == drawn.minimax_move == chess.Move.from_uci("c3d5")
    assert drawn.value == 0                                     # a lone knight: a draw
    assert 0 < drawn.visited < drawn.nodes
    assert drawn.returned[0] == ("Nxd5", "exact", 0)            # searched first, full window
    assert {bound for _, bound, _ in drawn.returned[1:]} == {"upper"}
    assert all(value <= 0 for _, _, value in drawn.returned[1:])
    texts = [t.get_text() for t in drawn.figure.axes[0].texts]
    assert "pruned" in texts and drawn.figure.axes[0].get_title() == "pruned"


def test_negamax_listing_is_the_teaching_negamax_only():
    listing = fs.negamax_listing()
    assert listing.startswith("def negamax(")
    assert "def alphabeta" not in listing and "def quiesce" not in listing


def _result():
    moves = [chess.Move.from_uci(u) for u in ("e2e4", "d2d4", "g1f3")]
    return SimpleNamespace(moves=moves, visits=np.array([3, 10, 1]),
                           q=np.array([0.2, -0.1, 0.0]))


def test_plot_search_orders_moves_by_visits():
    axes = fs.plot_search(chess.Board(), _result(), top=2)
    assert [t.get_text() for t in axes[0].get_xticklabels()] == ["d4", "e4"]
    assert [p.get_height() for p in axes[0].patches] == [10, 3]
    assert "14 simulations" in axes[0].get_title()
    one = _result()
    one.visits = np.array([0, 1, 0])
    axes = fs.plot_search(chess.Board(), one)
    assert axes[0].get_title() == "visits N (1 simulation)"
    axes[0].figure.canvas.draw()
    assert all(float(t).is_integer() for t in axes[0].get_yticks())   # no 0.2 of a visit


def test_search_svg_draws_the_most_visited_move_in_green():
    svg = fs.search_svg(chess.Board(), _result(), top=2)
    assert svg.count("#15781B") == 2 and svg.count("#888888") == 2   # line + head each


def test_search_svg_draws_no_arrow_for_an_unvisited_move():
    result = _result()
    result.visits = np.array([0, 5, 0])
    svg = fs.search_svg(chess.Board(), result, top=3)
    assert svg.count("#15781B") == 2 and "#888888" not in svg


def test_plot_curve_counts_an_unmated_start_as_the_cap():
    curve = [{"iteration": 1, "mate_rate": 0.5, "per_start": [10, None]}]
    axes = fs.plot_curve(curve, max_moves=30)
    assert list(axes[1].lines[0].get_ydata()) == [20.0]


def test_mcts_steps_figure_shows_the_four_steps_in_order():
    from chesslab.figures import search as fs
    fig = fs.mcts_steps_figure()
    assert [ax.get_title(loc="left") for ax in fig.axes] == [t for t, _ in fs.MCTS_STEPS]
    nodes = [sum(len(c.get_offsets()) for c in ax.collections) for ax in fig.axes]
    assert nodes == [6, 7, 7, 7]          # the new leaf appears at "expand" and stays
    backup = [t.get_text() for t in fig.axes[3].texts]
    assert backup.count("+v") == 2 and backup.count("-v") == 2


def test_mcts_steps_figure_title_names_the_simulations():
    assert "repeated 100 times" in fs.mcts_steps_figure(100)._suptitle.get_text()
    assert "300" not in fs.mcts_steps_figure()._suptitle.get_text()
