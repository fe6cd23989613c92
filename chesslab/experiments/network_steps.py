"""What each step of the policy-value network's making bought, in play.

Each step is a network file (the one a training step left) with a name. For each, with
the same search (MCTS at a fixed number of simulations, the player's default settings):
its moves on held-out labelled positions (``move_quality``: Stockfish's best move share,
expected score lost) and a match against one fixed opponent, with the score's 95%
interval. Drawn by ``figures.network_steps_figure``; notebook 12 tells the story.

    python -m chesslab results network-steps --step "policy only=run/e1.json" ...
"""
from __future__ import annotations

import time
from pathlib import Path

from chesslab.base.files import file_tag, read_json, updating_json
from chesslab.base.parallel import parallel_map
from chesslab.experiments.move_quality import (held_out_positions, player_quality,
                                               positions_digest, stockfish_if_installed)
from chesslab.experiments.store import result_path, stamp
from chesslab.evaluators.policy_value import load_policy_value
from chesslab.matches.match import match
from chesslab.matches.players import make_player


def parse_step(text: str) -> tuple[str, Path]:
    """``"name=path"`` -> (name, path), with a message that says what is wrong."""
    name, sep, path = text.rpartition("=")
    if not sep or not name.strip() or not path.strip():
        raise ValueError(f"a step is NAME=NETWORK_FILE, e.g. 'policy only=runs/e1.json'; "
                         f"got {text!r}")
    path = Path(path.strip())
    if not path.exists():
        raise FileNotFoundError(f"step {name.strip()!r}: network file {path} does not exist")
    return name.strip(), path


def _notes_summary(path) -> dict:
    """The last held-out measurements the training wrote into the file, if any (and
    those after ``train recalibrate``, which the last epoch's do not include)."""
    notes = load_policy_value(path).training_notes
    last = (notes.get("history") or [{}])[-1]
    out = {k: last[k] for k in ("top1", "value_mse", "value_mse_all") if k in last}
    fixed = (notes.get("batch_norm_recalibrated") or {}).get("after", {})
    out.update({f"{k}_recalibrated": fixed[k] for k in ("top1", "value_mse") if k in fixed})
    return out


def network_steps(steps, simulations: int = 400, opponent: str = "pst:2", games: int = 20,
                  positions: int = 500, max_plies: int = 200, seed: int = 0, workers: int = 1,
                  path=None, progress: bool = True, command: str | None = None) -> dict:
    """Measure every ``(name, network file)`` of ``steps`` (in order), ``workers`` networks
    at a time; a network already measured with the same settings is kept, and each one is
    stored as it finishes, so a stopped run resumes. The order drawn: ``step_order``.
    ``command`` (the command line) is stored with the file: this run's. Each store reads
    the file again under its lock, so rows another command stored meanwhile are kept."""
    path = Path(path or result_path("network_steps"))
    doc = read_json(path, "results file") if path.exists() else {"rows": []}
    settings = {"simulations": simulations, "opponent": opponent, "games": games,
                "positions": positions, "max_plies": max_plies, "seed": seed}
    doc["command"] = command
    known = {_measured(r, settings) for r in doc["rows"]}
    tags = {name: file_tag(network, 16) for name, network in steps}
    jobs = [(name, str(network), tags[name], settings) for name, network in steps
            if (tags[name], *settings.values()) not in known]

    def save(_index, row):
        with updating_json(path, "results file", lambda: {"rows": []}, indent=1) as stored:
            stored["command"] = command
            if _measured(row, settings) not in {_measured(r, settings) for r in stored["rows"]}:
                stored["rows"].append(row)
            stored.update(stamp())
        if progress:
            print(f"{row['step']}: {row['summary']}; best move {row['best_move_share']:.3f}, "
                  f"expected score lost {row['expected_score_lost']:.4f}", flush=True)
    parallel_map(_measure_step, jobs, workers, on_result=save)
    with updating_json(path, "results file", lambda: {"rows": []}, indent=1) as stored:
        stored["command"] = command
        renamed = {}
        for row in stored["rows"]:               # a step may be renamed, not re-measured
            for name, tag in tags.items():
                if row["network"] == tag and all(row[k] == v for k, v in settings.items()):
                    renamed[row["step"]] = name
                    row["step"] = name
        stored["order"] = step_order(stored.get("order", []), renamed,
                                     [name for name, _ in steps],
                                     [row["step"] for row in stored["rows"]])
        new = [key for key in stamp() if key not in doc]
        for key in new:                  # the stamp last, unless the file had it before
            stored.pop(key, None)
        stored.update(stamp())
    return {k: v for k, v in stored.items() if k not in new}


def _measured(row: dict, settings: dict) -> tuple:
    """What makes a row the same measurement: its network and settings."""
    return (row["network"], *(row[k] for k in settings))


def step_order(stored, renamed: dict, given, measured) -> list:
    """The steps in the order drawn. A run that names every measured step sets the order;
    a run that names only some (the networks of earlier steps are often not kept) renames
    those in place and adds its new steps at the end."""
    if set(measured) <= set(given):
        return list(given)
    order = [renamed.get(name, name) for name in stored]
    return order + [name for name in given if name not in order]


def _measure_step(job) -> dict:
    name, network, tag, s = job
    data = held_out_positions(s["positions"])
    spec = f"mcts:{s['simulations']}"
    start = time.perf_counter()
    with stockfish_if_installed() as engine:
        quality = player_quality(make_player(spec, seed=s["seed"], model=network), data, engine)
    # a fresh player for the games: they do not depend on the positions asked before
    result = match(make_player(spec, seed=s["seed"], model=network), s["opponent"],
                   games=s["games"], seed=s["seed"], max_plies=s["max_plies"], progress=False)
    return {"step": name, "network": tag, **s, "positions_digest": positions_digest(data),
            **_notes_summary(network), **quality,
            **result.record(), "endings": [g.headers.get("Termination") for g in result.games],
            "seconds": round(time.perf_counter() - start, 1)}
