"""The figures of figures/: a registry of name -> (drawing, caption) and byte-identical
PNG + SVG output (``python -m chesslab figures [--out DIR] [--only NAME]`` draws them)."""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
from tqdm.auto import tqdm

from chesslab.figures.board import example_position
from chesslab.figures.encoding import piece_table_figure, planes9_figure, planes14_figure
from chesslab.figures.training import (cnn_structure_figure, saved_model_figure,
                                       training_curves_figure)
from chesslab.figures.results import (accuracy_table_figure, depth_cost_figure,
                                      ladder_figure, tournament_figure)
from chesslab.figures.search import game_tree_figure


def figure_registry():
    """name -> (function making the figure, thesis-style caption)."""
    return {
        "game_tree_fragment": (game_tree_figure, "Game tree fragment example (1 - chess "
                               "board representation, 2 - move command, 3 - evaluation "
                               "value)."),
        "piece_table": (piece_table_figure, "The list of chess pieces types."),
        "cnn_structure": (cnn_structure_figure, "Structure of the implemented CNN (Conv - "
                          "convolutional layer, Pool - pooling layer, Activ - activation "
                          "layer, Full - fully connected layer)."),
        "saved_model_ann": (lambda: saved_model_figure("ann"),
                            "Example of file containing saved ANN model configuration."),
        "saved_model_cnn": (lambda: saved_model_figure("cnn"),
                            "Example of file containing saved CNN model configuration."),
        "planes14": (lambda: planes14_figure(example_position(),
                                             "planes14: Giuoco Piano after 8...d5"),
                     "The tutorial's 14 input planes of a middlegame position."),
        "planes9": (lambda: planes9_figure(example_position(),
                                           "planes9: Giuoco Piano after 8...d5 (White to move)"),
                    "The actor-critic's 9 input planes of the same position."),
        "training_curves": (training_curves_figure, "The shipped ANNs' and CNNs' "
                            "validation curves, each with its own epoch cap."),
        "accuracy_table": (accuracy_table_figure, "Accuracy of every evaluator on the same "
                           "test split."),
        "depth_cost": (depth_cost_figure, "Decision time and positions visited vs the "
                       "depth limit: minimax, alpha-beta and the full search."),
        "tournament": (tournament_figure, "Round robin between the course's players."),
        "ladder": (ladder_figure, "One Elo ladder for every player, anchored on Stockfish's "
                   "UCI_Elo levels."),
        "ladder_60+0.6": (lambda: ladder_figure(time_control="60+0.6"),
                          "The strongest players on Stockfish's own clock (60 s + 0.6 s a "
                          "move, where UCI_Elo is calibrated), anchored on its UCI_Elo levels."),
    }


def save_figure(fig, out_dir, name, formats=("png", "svg")):
    """Save ``fig`` as out_dir/name.png and .svg, byte-for-byte reproducible."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    with plt.rc_context({"svg.hashsalt": "chesslab", "svg.fonttype": "path"}):
        for fmt in formats:
            path = out_dir / f"{name}.{fmt}"
            metadata = {"Date": None} if fmt == "svg" else {"Software": None}
            fig.savefig(path, dpi=110, metadata=metadata)
            paths.append(path)
    plt.close(fig)
    return paths


def make_figures(out_dir="figures", only=None, progress=True):
    """Draw the figures (all, or the names in ``only``) into ``out_dir``.

    Returns [(name, status)], status "ok" or the reason a figure was skipped (a missing
    results file says which command makes it).
    """
    registry = figure_registry()
    names = list(registry) if not only else list(only)
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise ValueError(f"unknown figure(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(registry)}")
    report = []
    for name in tqdm(names, desc="figures", disable=not progress):
        try:
            fig = registry[name][0]()
        except FileNotFoundError as exc:
            report.append((name, f"skipped: {exc}"))
            continue
        save_figure(fig, out_dir, name)
        report.append((name, "ok"))
    return report
