"""Every picture of chesslab, one function each, each returning a matplotlib Figure or
drawing on the axes it is given:

* ``backprop``: one neuron's computation graph, values forward and gradients back;
* ``board``: 8x8 arrays as heat maps, positions as small boards, max pooling on a map;
* ``encoding``: the thesis's 64 numbers, the 14 and 9 planes, the piece table, the policy;
* ``training``: the CNN diagram, model-file listings, training curves, the recipe;
* ``search``: the thesis game tree, alpha-beta's pruning on it, the teaching negamax's
  listing, MCTS visits and values, the self-play curve;
* ``results``: cost vs depth, the round robin, the accuracy table, match bars;
* ``diagrams``: alpha-beta's windows, the Elo scale, the policy-value network, the
  AlphaZero loop;
* ``gallery``: the registry behind ``python -m chesslab figures`` and figures/.

Everything is importable from here (``from chesslab import figures``;
``figures.planes14_figure(board)``).
"""
from chesslab.figures.backprop import backprop_graph_figure, backprop_values
from chesslab.figures.board import (EXAMPLE_LINE, FILES, RANKS, draw_board, draw_board_array,
                                    example_position, max_pool_figure)
from chesslab.figures.encoding import (PIECE_NAMES, PLANE9_TITLES, PLANE14_TITLES,
                                       piece_table_figure, planes9_figure, planes14_figure,
                                       planes_figure, policy_figure, thesis_vector_figure)
from chesslab.figures.diagrams import (ALPHAZERO_CHESS, EXAMPLE_TREE, alphabeta_windows_figure,
                                       alphazero_loop_figure, compute_gap_figure, elo_figure,
                                       network_figure)
from chesslab.figures.gallery import figure_registry, make_figures, save_figure
from chesslab.figures.training import (cnn_structure_figure, model_listing, network_boxes,
                                       plot_history, plot_recipe, residual_block_figure,
                                       saved_model_figure, training_curves_figure)
from chesslab.figures.results import (accuracy_table_figure, depth_cost_figure, ladder_figure,
                                      network_steps_figure, plot_results, read_results,
                                      standings_figure, tournament_figure)
from chesslab.figures.search import (MCTS_STEPS, PrunedTree, draw_fragment, game_tree_figure,
                                     mcts_steps_figure, negamax_listing, plot_curve,
                                     plot_search, pruning_figure, search_svg)

__all__ = [
    "backprop_graph_figure", "backprop_values",
    "EXAMPLE_LINE", "FILES", "RANKS", "draw_board", "draw_board_array", "example_position",
    "max_pool_figure",
    "PIECE_NAMES", "PLANE9_TITLES", "PLANE14_TITLES", "piece_table_figure", "planes9_figure",
    "planes14_figure", "planes_figure", "policy_figure", "thesis_vector_figure",
    "EXAMPLE_TREE", "ALPHAZERO_CHESS", "alphabeta_windows_figure", "alphazero_loop_figure",
    "compute_gap_figure", "elo_figure",
    "network_figure",
    "figure_registry", "make_figures", "save_figure",
    "cnn_structure_figure", "model_listing", "network_boxes", "plot_history", "plot_recipe",
    "residual_block_figure", "saved_model_figure", "training_curves_figure",
    "accuracy_table_figure", "depth_cost_figure", "ladder_figure", "network_steps_figure",
    "plot_results", "read_results", "standings_figure", "tournament_figure",
    "MCTS_STEPS", "PrunedTree", "draw_fragment", "game_tree_figure", "mcts_steps_figure",
    "negamax_listing", "plot_curve", "plot_search", "pruning_figure", "search_svg",
]
