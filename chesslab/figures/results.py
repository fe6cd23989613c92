"""Pictures of measured results: decision cost vs depth, the round robin, the
evaluators' accuracy table, and won/drawn/lost bars of matches.

The measurements are made once by ``python -m chesslab results ...`` (timings and
long matches cannot be redone at every drawing); these functions read the files, or
take the same data as an argument.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from chesslab.matches.rating import PRIOR, format_elo, wilson_interval
from chesslab.base.files import RESULTS_DIR, read_json
from chesslab.experiments.tournament import score_matrix
from chesslab.matches.event import CALIBRATION_TC, NOMINAL


def read_results(name: str, command: str, folder=RESULTS_DIR):
    """The results file ``folder/NAME.json``; when it is missing, the error names the
    command that makes it."""
    path = Path(folder) / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"results file {path} is missing; make it with `{command}`")
    return read_json(path, "results file")


_ALGO_STYLE = {"minimax": ("#c0392b", "o"), "alphabeta": ("#2980b9", "s"),
               "full": ("#27ae60", "^")}


def depth_cost_figure(data=None):
    """Decision cost vs depth limit: nodes and seconds of minimax, alpha-beta and the
    full search (log scale), from ``python -m chesslab results depth-cost``."""
    data = data or read_results("depth_cost", "python -m chesslab results depth-cost")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for algorithm in dict.fromkeys(r["algorithm"] for r in data["rows"]):
        rows = [r for r in data["rows"] if r["algorithm"] == algorithm]
        color, marker = _ALGO_STYLE.get(algorithm, ("0.3", "x"))
        depths = [r["depth"] for r in rows]
        for ax, key in zip(axes, ("nodes", "seconds")):
            ax.plot(depths, [max(r[key], 1e-4) for r in rows], marker=marker, color=color,
                    label=algorithm)
    for ax, label in zip(axes, ("positions visited", "seconds")):
        ax.set_yscale("log")
        ax.set_xlabel("depth limit (plies)")
        ax.set_ylabel(label)
        ax.set_xticks(sorted({r["depth"] for r in data["rows"]}))
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=8)
    n = len(data["positions"])
    fig.suptitle(f"Cost of a decision vs depth ({data['evaluator']} evaluation, summed over "
                 f"{n} positions, measured {data['date']})", fontsize=10)
    fig.tight_layout()
    return fig


def tournament_figure(data=None):
    """Round-robin results as a heat map: each cell is the row player's score against
    the column player, from ``python -m chesslab results tournament``."""
    data = data or read_results("tournament", "python -m chesslab results tournament")
    players, matrix = score_matrix(data)
    grid = np.array([[np.nan if s is None else s for s in row] for row in matrix])
    n = len(players)
    fig, ax = plt.subplots(figsize=(1.0 * n + 2.6, 0.8 * n + 1.4))
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8)
    means = np.nanmean(grid, axis=1)
    ax.set_xticks(range(n))
    ax.set_xticklabels(players, rotation=40, ha="right", fontsize=8)
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{p} ({m:.2f})" for p, m in zip(players, means)], fontsize=8)
    ax.set_xlabel("opponent")
    ax.set_title(f"Score of the row player (mean in brackets); {data['games_per_pair']} "
                 f"games per pair", fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.04)
    fig.tight_layout()
    return fig


def accuracy_table_figure(table=None):
    """The evaluators' accuracy table on the test split, drawn as a table."""
    table = table or read_results("evaluators", "python -m chesslab results evaluators")
    header = ["evaluator", "depth-1 MAE (cp)", "static MAE (cp)", "correlation",
              "sign accuracy", "parameters"]
    rows = [[r["evaluator"],
             f"{r['search_depth1']['all']['mae_cp']:.0f}" if "search_depth1" in r else "-",
             f"{r['test']['mae_cp']:.0f}", f"{r['test']['correlation']:.3f}",
             f"{r['test']['sign_accuracy']:.3f}", f"{r['parameters']:,}"]
            for r in table["rows"]]
    fig, ax = plt.subplots(figsize=(7.6, 0.32 * len(rows) + 1.0))
    ax.axis("off")
    cells = ax.table(cellText=rows, colLabels=header, loc="center", cellLoc="center")
    cells.scale(1, 1.3)
    cells.set_fontsize(9)

    def value(i, c):
        text = rows[i][c]
        if text == "-":
            return -float("inf")
        return float(text) * (-1 if c in (1, 2) else 1)     # lower MAE is better
    best = {c: max(range(len(rows)), key=lambda i: value(i, c)) for c in (1, 2, 3, 4)}
    for (r, c), cell in cells.get_celld().items():
        if r == 0:
            cell.set_text_props(weight="bold")
            cell.set_facecolor("0.9")
        elif best.get(c) == r - 1:
            cell.set_facecolor("#d9ead3")
    n = table["rows"][0]["test"]["positions"]
    ax.set_title(f"Evaluators on the same test split ({n:,} positions; depth-1: a search "
                 f"of one move + captures, 2,000 of them)\nsign accuracy: the same side "
                 f"better as Stockfish says, where |cp| > {table['sign_margin_cp']}; best "
                 f"in green", fontsize=9)
    fig.tight_layout()
    return fig


def plot_results(rows, ax=None, title=None, digits=2):
    """Stacked bars of won / drawn / lost games, one bar per match.

    ``rows``: ``(label, wins, draws, losses)`` tuples, drawn top to bottom; the score
    (1 per win, 1/2 per draw) and its 95% Wilson interval are written after each bar,
    with ``digits`` decimals (more when a table next to the figure prints more).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 0.9 + 0.45 * len(rows)), layout="constrained")
    labels = [r[0] for r in rows]
    y = list(range(len(rows)))[::-1]
    left = [0] * len(rows)
    for k, (name, color) in enumerate((("won", "#4c9a2a"), ("drawn", "#b0b0b0"),
                                       ("lost", "#c0392b"))):
        counts = [r[1 + k] for r in rows]
        ax.barh(y, counts, left=left, color=color, label=name)
        left = [a + b for a, b in zip(left, counts)]
    for yi, (_, w, d, _), total in zip(y, rows, left):
        if total:
            low, high = wilson_interval(w + d / 2, total)
            ax.text(total, yi, f"  {(w + d / 2) / total:.{digits}f} "
                               f"({low:.{digits}f}-{high:.{digits}f})",
                    va="center", fontsize=9)
    ax.set_yticks(y, labels)
    ax.set_xlabel("games")
    ax.set_xlim(0, max(left + [1]) * 1.4)
    # the legend above the bars: at the right it would cover the longest bar's score
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3, fontsize=8, frameon=False)
    if title:
        ax.set_title(title, pad=20)
    return ax


def standings_figure(standings, ax=None, title="Standings"):
    """The standings as Elo bars, best on top, each with the player's score, its 95%
    Wilson interval and any faults.

    ``standings``: the rows of ``rating.standings`` (ratings of mean 0), or a class
    event's record (``run_tournament``): then the ladder's players are grey, the bars
    start below the weakest when the ratings are anchored on the ladder's, and the
    players withdrawn are named under the axis. A zero or full score's bar is hatched
    and reaches its one-sided bound, not a rating.
    """
    record = standings if isinstance(standings, dict) else None
    rows = record["standings"] if record else standings
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 1.1 + 0.45 * len(rows)), layout="constrained")
    anchored = bool(record and record.get("elo_anchored"))
    elos = [_shown_elo(r) for r in rows][::-1]
    base = 100 * np.floor(min(elos) / 100) - 100 if anchored else 0.0
    names = [r["player"] + (" (ladder)" if r.get("kind") == "ladder" else "")
             for r in rows][::-1]
    colors = ["0.65" if r.get("kind") == "ladder" else
              ("#2980b9" if anchored else "#4c9a2a" if _shown_elo(r) >= 0 else "#c0392b")
              for r in rows][::-1]
    bars = ax.barh(names, [e - base for e in elos], left=base, color=colors)
    for bar, r in zip(bars, rows[::-1]):
        if _bounded(r):
            bar.set_hatch("//")
            bar.set_alpha(0.6)
    ax.axvline(base, color="0.3", linewidth=0.8)
    span = max(max(abs(e - base) for e in elos), 50)
    ax.set_xlim(base - (0 if anchored else 1.9 * span), base + 1.9 * span)
    for y, r in enumerate(rows[::-1]):
        low, high = r["interval95"]
        if r["score"] is None:
            words = "no games"
        else:
            words = f"{r['points']:g}/{r['games']} = {r['score']:.2f} ({low:.2f}-{high:.2f})"
        if _bounded(r):
            words += f", Elo {format_elo(r, signed=not anchored)}"
        if r.get("faults"):
            words += f", {r['faults']} fault{'' if r['faults'] == 1 else 's'}"
        x = _shown_elo(r)
        right = anchored or x >= 0
        ax.text(x + (0.04 if right else -0.04) * span, y, words, va="center", fontsize=8,
                ha="left" if right else "right", color="#c0392b" if r.get("faults") else "k")
    if record is None:
        ax.set_xlabel(f"Elo (mean 0; {PRIOR}); text: points, score and its 95% Wilson "
                      f"interval; hatched: a one-sided bound")
    else:
        label = "\n".join(textwrap.wrap(f"Elo, {record['elo_scale']}", 110))
        if record.get("withdrawn"):
            label += "\nwithdrawn: " + ", ".join(f"{w['player']} ({w['reason'][:50]})"
                                                 for w in record["withdrawn"])
        ax.set_xlabel(label, fontsize=8)
    ax.set_title(title)
    return ax.figure


def _bounded(row) -> bool:
    """Whether a standings row's rating is a one-sided bound (a zero or full score)."""
    return format_elo(row)[0] in "<>"


def _shown_elo(row) -> float:
    """Where a row's rating is drawn: its bound when it has one, else its rating."""
    low, high = row.get("elo95") or [None, None]
    if _bounded(row):
        return high if low is None else low
    return row["elo"]


def ladder_figure(data=None, ax=None, time_control=None):
    """Every player on one Elo scale (``python -m chesslab results ladder``): a dot per
    player with its 95% interval, Stockfish's anchors as diamonds at their UCI_Elo, and
    a zero or full score as an arrow from its one-sided bound. Without ``data`` it reads
    ladder.json, or with ``time_control`` (``"60+0.6"``) the ladder played on that clock;
    only a ladder on the clock Stockfish calibrates UCI_Elo at is labelled calibrated."""
    if data is None:
        name, tc = ("ladder", "") if time_control is None else (f"ladder_{time_control}",
                                                                  f" --tc {time_control}")
        data = read_results(name, f"python -m chesslab results ladder{tc}")
    rows = sorted(data["standings"], key=_shown_elo)     # a bound has no "elo": at its bound
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 1.0 + 0.38 * len(rows)), layout="constrained")
    anchors = data.get("anchors", {})
    for y, r in enumerate(rows):
        anchor = r["player"] in anchors
        low, high = r.get("elo95", [None, None])
        if _bounded(r):
            x = _shown_elo(r)
            end = x + (150 if high is None else -150)
            ax.plot([x, end], [y, y], color="#2980b9", linewidth=2, alpha=0.6)
            ax.plot(end, y, ">" if high is None else "<", color="#2980b9", markersize=7)
            ax.plot(x, y, "|", color="#2980b9", markersize=10)
            ax.text(x, y + 0.22, format_elo(r), ha="center", fontsize=7)
            continue
        if low is not None and not anchor:
            ax.plot([low, high], [y, y], color="#2980b9", linewidth=2, alpha=0.6)
        ax.plot(r["elo"], y, "D" if anchor else "o", color="0.35" if anchor else "#2980b9",
                markersize=7)
        ax.text(r["elo"], y + 0.22, f"{r['elo']:.0f}", ha="center", fontsize=7)
    # equal ratings are a tie, not the order the sort happened to leave them in
    rated = [round(r["elo"]) for r in rows if not _bounded(r)]
    tied = {elo for elo in rated if rated.count(elo) > 1}
    ax.set_yticks(range(len(rows)), [
        r["player"] + (" (anchor)" if r["player"] in anchors else "")
        + (" (tied)" if not _bounded(r) and round(r["elo"]) in tied else "") for r in rows])
    for elo in anchors.values():
        ax.axvline(elo, color="0.8", linewidth=0.8, zorder=0)
    seconds, clock = data.get("seconds_per_move"), data.get("time_control")
    scale = ("the clock Stockfish calibrates UCI_Elo at" if clock == CALIBRATION_TC
             else NOMINAL)
    ax.set_xlabel("Elo on Stockfish's UCI_Elo scale"
                  + (f", {seconds:g} s a move" if seconds else "")
                  + (f", on a {clock} clock" if clock else "")
                  + f"\n({scale}); {data['games_per_pair']} games a pair\n{PRIOR}; lines: "
                    f"95% intervals"
                  + ("; arrow: a zero or full score's one-sided bound"
                     if any(_bounded(r) for r in rows) else ""), fontsize=8)
    ax.set_title("One ladder for every player" if not clock else
                 f"The ladder on a {clock} clock")
    return ax.figure


def network_steps_figure(data=None):
    """The policy-value network's steps (``python -m chesslab results network-steps``),
    top to bottom in the order they were made: the match score against the fixed opponent
    with its 95% interval, and the expected score each move gives away against Stockfish's
    best (with its standard error)."""
    if data is None:
        data = read_results("network_steps", "python -m chesslab results network-steps")
    by_step = {r["step"]: r for r in data["rows"]}
    rows = [by_step[name] for name in data.get("order", by_step) if name in by_step]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 1.5 + 0.5 * len(rows)), sharey=True,
                                      layout="constrained")
    y = np.arange(len(rows))[::-1]
    for yi, r in zip(y, rows):
        low, high = r["interval95"]
        left.plot([low, high], [yi, yi], color="#2980b9", linewidth=2, alpha=0.6)
        left.plot(r["score"], yi, "o", color="#2980b9")
        left.text(r["score"], yi + 0.18, f"{r['score']:.3g}", ha="center", fontsize=8)
        lost = np.asarray(r["lost_per_position"])
        error = lost.std(ddof=1) / np.sqrt(len(lost))
        right.barh(yi, lost.mean(), xerr=error, color="#8e44ad", alpha=0.7, capsize=3)
        right.text(lost.mean() + error, yi, f"  {100 * lost.mean():.1f}%", va="center",
                   fontsize=8)
    left.axvline(0.5, color="0.7", linewidth=0.8, zorder=0)
    left.set_xlim(0, 1)
    left.set_yticks(y, [r["step"] for r in rows])
    first = rows[0] if rows else {"a": "mcts", "opponent": "?", "games": 0}
    left.set_xlabel(f"{first['a']} vs {first['opponent']}\nscore over {first['games']} "
                    f"games (line: 95% interval)")
    right.set_xlabel(f"expected score lost per move against Stockfish's best\n"
                     f"({first.get('positions', 0)} held-out positions, same search)")
    right.set_xlim(0, max([0.01] + [float(np.mean(r["lost_per_position"])) for r in rows]) * 1.35)
    fig.suptitle("What each step of the network's making bought")
    return fig
