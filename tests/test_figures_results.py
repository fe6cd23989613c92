"""figures.results: pictures of measured results, from data or from a results folder."""
import json

import matplotlib.pyplot as plt
import numpy as np
import pytest

from chesslab.figures import results as fr

DEPTH_COST = {"evaluator": "material", "date": "2026-01-01", "positions": {"start": "x"},
              "rows": [{"algorithm": a, "depth": d, "nodes": n, "seconds": n / 1e4}
                       for a, d, n in (("minimax", 1, 20), ("minimax", 2, 420),
                                       ("alphabeta", 1, 20), ("alphabeta", 2, 60))]}
TOURNAMENT = {"players": ["a", "b", "c"], "games_per_pair": 2,
              "pairs": {"a vs b": {"wins": 2, "draws": 0, "losses": 0},
                        "a vs c": {"wins": 0, "draws": 2, "losses": 0},
                        "b vs c": {"wins": 0, "draws": 0, "losses": 0}}}


def test_a_missing_results_file_names_its_path_and_command(tmp_path):
    with pytest.raises(FileNotFoundError, match="make it with `python -m chesslab x`") as e:
        fr.read_results("depth_cost", "python -m chesslab x", folder=tmp_path)
    assert str(tmp_path / "depth_cost.json") in str(e.value)
    (tmp_path / "depth_cost.json").write_text(json.dumps(DEPTH_COST))
    assert fr.read_results("depth_cost", "unused", folder=tmp_path) == DEPTH_COST


def test_depth_cost_draws_one_line_per_algorithm_and_measure():
    nodes_ax, seconds_ax = fr.depth_cost_figure(DEPTH_COST).axes
    assert [line.get_label() for line in nodes_ax.lines] == ["minimax", "alphabeta"]
    assert list(nodes_ax.lines[0].get_ydata()) == [20, 420]
    assert nodes_ax.get_yscale() == "log" and len(seconds_ax.lines) == 2


def test_tournament_cells_are_the_row_players_score():
    ax = fr.tournament_figure(TOURNAMENT).axes[0]
    grid = ax.images[0].get_array()
    assert grid[0, 1] == 1.0 and grid[1, 0] == 0.0 and grid[0, 2] == 0.5
    assert np.ma.is_masked(grid[1, 2]) or np.isnan(grid[1, 2])   # a pair with no games
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "a (0.75)"


def test_plot_results_stacks_won_drawn_lost_and_writes_the_score():
    ax = fr.plot_results([("a vs b", 3, 2, 1), ("a vs c", 0, 0, 4)])
    widths = sorted((round(p.get_y() + p.get_height() / 2), p.get_x(), p.get_width())
                    for p in ax.patches)
    # bottom bar (y 0) is the second row: 0 won, 0 drawn, 4 lost; top (y 1): 3, 2, 1
    assert widths == [(0, 0, 0), (0, 0, 0), (0, 0, 4), (1, 0, 3), (1, 3, 2), (1, 5, 1)]
    texts = sorted(t.get_text().strip() for t in ax.texts)
    # score and Wilson interval: 0 of 4 is not "0.00-0.00"
    assert texts == ["0.00 (0.00-0.49)", "0.67 (0.30-0.90)"]
    ax = fr.plot_results([("a vs c", 1, 0, 39)], digits=3)      # 0.025 is not "0.03"
    assert [t.get_text().strip() for t in ax.texts] == ["0.025 (0.004-0.129)"]


def test_standings_figure_writes_score_interval_and_faults():
    rows = [{"player": "a", "points": 3.5, "games": 4, "score": 0.875, "interval95": (0.5, 0.98),
             "elo": 120.0, "faults": 0},
            {"player": "b", "points": 0.5, "games": 4, "score": 0.125, "interval95": (0.02, 0.5),
             "elo": -120.0, "faults": 2}]
    ax = fr.standings_figure(rows).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "a"]      # best on top
    texts = [t.get_text() for t in ax.texts]
    assert "3.5/4 = 0.88 (0.50-0.98)" in texts
    assert "0.5/4 = 0.12 (0.02-0.50), 2 faults" in texts


def test_ladder_figure_puts_each_player_at_its_elo_and_anchors_as_diamonds():
    from chesslab.figures import ladder_figure
    data = {"anchors": {"stockfish:1350@0.2s": 1350.0}, "games_per_pair": 4,
            "seconds_per_move": 0.2,
            "standings": [{"player": "pst@0.2s", "elo": 1500.0, "elo95": [1400.0, 1600.0]},
                          {"player": "stockfish:1350@0.2s", "elo": 1350.0,
                           "elo95": [1350.0, 1350.0]},
                          {"player": "random", "elo": 600.0, "elo95": [None, None]}]}
    fig = ladder_figure(data)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "random", "stockfish:1350@0.2s (anchor)", "pst@0.2s"]
    dots = {tuple(line.get_xydata()[0]): line.get_marker() for line in ax.lines
            if len(line.get_xydata()) == 1}
    assert dots[(600.0, 0.0)] == "o" and dots[(1350.0, 1.0)] == "D" and dots[(1500.0, 2.0)] == "o"
    assert any(list(line.get_xdata()) == [1400.0, 1600.0] for line in ax.lines)
    assert "arrow" not in ax.get_xlabel()              # no bound among these rows
    plt.close(fig)
    bounded = {**data, "standings": data["standings"][:2] + [
        {"player": "random", "elo": None, "elo95": [None, 884.0]}]}       # lost every game
    fig = ladder_figure(bounded)
    assert "arrow: a zero or full score's one-sided bound" in fig.axes[0].get_xlabel()
    plt.close(fig)
    tie = {**data, "standings": data["standings"] + [
        {"player": "nnue@0.2s", "elo": 1500.2, "elo95": [1400.0, 1600.0]}]}   # same rounded Elo
    fig = ladder_figure(tie)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert {"pst@0.2s (tied)", "nnue@0.2s (tied)"} <= set(labels)
    assert "random" in labels and "stockfish:1350@0.2s (anchor)" in labels      # no tie there
    plt.close(fig)


def test_a_ladder_on_the_calibration_clock_is_labelled_calibrated_and_read_from_its_file(
        monkeypatch):
    from chesslab.figures import ladder_figure
    row = {"player": "nnue", "elo": 1800.0, "elo95": [1700.0, 1900.0]}
    anchor = {"player": "stockfish:1900", "elo": 1900.0, "elo95": [1900.0, 1900.0]}
    data = {"anchors": {"stockfish:1900": 1900.0}, "games_per_pair": 10,
            "seconds_per_move": None, "time_control": "60+0.6", "standings": [row, anchor]}
    labels = {}
    for tc in ("60+0.6", "10+0.1", None):
        fig = ladder_figure({**data, "time_control": tc} if tc else
                            {**data, "seconds_per_move": 0.1, "time_control": None})
        labels[tc] = (fig.axes[0].get_xlabel(), fig.axes[0].get_title())
        plt.close(fig)
    assert "on a 60+0.6 clock\n(the clock Stockfish calibrates UCI_Elo at)" in labels["60+0.6"][0]
    assert "on a 10+0.1 clock\n(nominal:" in labels["10+0.1"][0]
    assert "0.1 s a move\n(nominal:" in labels[None][0] and "clock" not in labels[None][0]
    assert labels["60+0.6"][1] == "The ladder on a 60+0.6 clock"
    assert labels[None][1] == "One ladder for every player"
    assert all("arrow" not in label for label, _ in labels.values())   # no bound: no arrow
    asked = []
    monkeypatch.setattr(fr, "read_results", lambda name, command: asked.append(
        (name, command)) or data)
    plt.close(ladder_figure(time_control="60+0.6"))
    plt.close(ladder_figure())
    assert asked == [("ladder_60+0.6", "python -m chesslab results ladder --tc 60+0.6"),
                     ("ladder", "python -m chesslab results ladder")]


def test_network_steps_figure_draws_each_step_in_order_with_its_interval_and_loss():
    from chesslab.figures import network_steps_figure
    row = lambda step, score, low, high, lost: {  # noqa: E731
        "step": step, "score": score, "interval95": [low, high], "a": "mcts:400",
        "opponent": "pst:2", "games": 20, "positions": 3, "lost_per_position": lost}
    data = {"order": ["policy only", "+ value data"],
            "rows": [row("+ value data", 0.6, 0.4, 0.8, [0.01, 0.02, 0.03]),
                     row("policy only", 0.1, 0.03, 0.3, [0.05, 0.06, 0.07]),
                     row("not in the order", 0.9, 0.8, 1.0, [0.0, 0.0, 0.0])]}
    fig = network_steps_figure(data)
    left, right = fig.axes
    labels = {t.get_position()[1]: t.get_text() for t in left.get_yticklabels()}
    assert labels == {1.0: "policy only", 0.0: "+ value data"}      # first step on top
    dots = {tuple(line.get_xydata()[0]) for line in left.lines if len(line.get_xydata()) == 1}
    assert dots == {(0.1, 1.0), (0.6, 0.0)}
    assert any(list(line.get_xdata()) == [0.03, 0.3] for line in left.lines)
    assert left.get_xlabel().startswith("mcts:400 vs pst:2\nscore over 20 games")
    widths = sorted(round(p.get_width(), 6) for p in right.patches)
    assert widths == [0.02, 0.06]                            # mean loss per step
    plt.close(fig)
