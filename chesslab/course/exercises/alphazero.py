"""Checkers of notebook 12: the value targets of a self-play game and the gate that
accepts a new network."""
from __future__ import annotations

import random

import numpy as np

from chesslab.board import rules
from chesslab.board.rules import result_for
from chesslab.course.checking import CheckResult, close_arrays, own_work, run_cases
from chesslab.matches import rating
from chesslab.matches.rating import wilson_interval

#: The arena's bar: a challenger replaces the best network only above this score.
GATE_SCORE = 0.55


def check_value_targets(fn, cases: int = 60, seed: int = 0, show=True) -> CheckResult:
    """``fn(result, turns) -> list of z``: a finished game's ``result`` ("1-0", "0-1",
    "1/2-1/2") and the side to move ("w" or "b") at each recorded position; z is +1 if
    that side won, -1 if it lost, 0 for a draw (as ``selfplay.self_play_game`` stores it)."""
    rng, fn = random.Random(seed), own_work(fn, result_for, rules.points)   # 2 points - 1

    def make(i):
        result = ("1-0", "0-1", "1/2-1/2")[i % 3]
        first = "w" if (i // 3) % 2 == 0 else "b"
        length = rng.randint(1, 40)
        turns = [first if k % 2 == 0 else ("b" if first == "w" else "w") for k in range(length)]
        return result, turns

    def compare(case):
        result, turns = case
        want = [result_for(result, t == "w") for t in turns]
        got = list(fn(result, list(turns)))
        if len(got) != len(want):
            return f"{len(got)} targets for {len(want)} positions ({result})"
        for k, (g, w) in enumerate(zip(got, want)):
            if g != w:
                return (f"position {k} ({'White' if turns[k] == 'w' else 'Black'} to move) of "
                        f"a game ending {result}: z = {g}, expected {w:+g}")
        return None
    return run_cases("my_value_targets", [make(i) for i in range(cases)], compare, show)


def gate_decision(wins, draws, losses, threshold=GATE_SCORE):
    """(accepted, low, high): the arena's verdict and the score's 95% Wilson interval."""
    games = wins + draws + losses
    points = wins + draws / 2
    low, high = wilson_interval(points, games)
    return points / games > threshold, low, high


def check_gate(fn, cases: int = 60, seed: int = 0, show=True) -> CheckResult:
    """``fn(wins, draws, losses) -> (accepted, low, high)``: accepted only for a score
    strictly above 55%, and the 95% Wilson interval of the score."""
    rng, fn = np.random.default_rng(seed), own_work(fn, gate_decision, rating.wilson_interval)
    results = [(11, 0, 9), (10, 2, 8), (12, 0, 8), (0, 20, 0), (20, 0, 0), (0, 0, 20),
               (55, 0, 45), (110, 0, 90)]
    while len(results) < cases:
        games = int(rng.choice([10, 20, 40, 100, 400]))
        w = int(rng.integers(0, games + 1))
        d = int(rng.integers(0, games - w + 1))
        results.append((w, d, games - w - d))

    def compare(case):
        want = gate_decision(*case)
        got = fn(*case)
        if not isinstance(got, tuple) or len(got) != 3:
            return "return (accepted, low, high)"
        if bool(got[0]) != want[0]:
            return (f"+{case[0]} ={case[1]} -{case[2]}: accepted={bool(got[0])}, expected "
                    f"{want[0]} (score {(case[0] + case[1] / 2) / sum(case):.3f})")
        problem = close_arrays(got[1:], want[1:], "(low, high)")
        return problem and f"{problem} for +{case[0]} ={case[1]} -{case[2]}"
    return run_cases("my_gate", results[:cases], compare, show)
