"""Checkers of the training data and its targets: notebook 04 (which plies of a game are
kept) and notebook 05 (centipawns to an expected score and back)."""
from __future__ import annotations

import numpy as np

from chesslab.course.checking import CheckResult, close_arrays, own_work, run_cases
from chesslab.datasets import records
from chesslab.datasets.records import sample_plies
from chesslab.evaluators import neural
from chesslab.evaluators.neural import expected_score, target_to_cp


def check_sample_plies(fn, show=True, lengths=range(1, 301)) -> CheckResult:
    """``fn(n_plies) -> list of plies``: every 6th ply in the first 75% of the game, every
    2nd after, always the last; for games of ``lengths`` plies (1 to 300 unless told),
    against ``records.sample_plies``."""
    fn = own_work(fn, records.sample_plies)

    def compare(n):
        mine, want = [int(p) for p in fn(n)], sample_plies(n)
        if mine == want:
            return None
        extra, missing = sorted(set(mine) - set(want)), sorted(set(want) - set(mine))
        twice = sorted(p for p in set(mine) if mine.count(p) > 1)
        problems = [f"{what} {plies[:6]}" for what, plies in
                    (("extra", extra), ("missing", missing), ("kept more than once", twice))
                    if plies]
        if not problems:
            problems = ["the right plies, out of order: keep them in increasing order"]
        return (f"a game of {n} {'ply' if n == 1 else 'plies'}: you keep "
                f"{mine[:12]}{'...' if len(mine) > 12 else ''}; {', '.join(problems)}")
    return run_cases("my_sample_plies", list(lengths), compare, show)


def check_win_probability(to_score, to_cp, cases: int = 200, seed: int = 10,
                          show=True) -> CheckResult:
    """``to_score(cp) -> expected score`` (sigmoid(cp / 400)) and ``to_cp(p) -> cp``
    (its inverse), for numbers and numpy arrays, against ``neural.expected_score`` and
    ``neural.target_to_cp(p, "prob")``. Edge cases: 0, +-400, a mate (+-10,000)."""
    rng = np.random.default_rng(seed)
    refs = (expected_score, target_to_cp, neural.cp_to_target)
    to_score, to_cp = own_work(to_score, *refs), own_work(to_cp, *refs)
    fixed = [0.0, 400.0, -400.0, 10_000.0, -10_000.0, 100.0]
    cps = fixed + [float(v) for v in rng.normal(0, 600, cases - len(fixed) - 1)]
    settings = [("cp", cp) for cp in cps] + [("array", rng.normal(0, 600, 7))]

    def compare(setting):
        kind, cp = setting
        want = expected_score(cp)
        problem = close_arrays(to_score(np.copy(cp) if kind == "array" else cp), want,
                               "expected score", atol=1e-9)
        if problem:
            return f"{problem} for {np.round(cp, 1)} cp"
        if np.all(np.abs(np.asarray(cp)) > 3000):       # p rounds to 0 or 1: no way back
            return None
        back = target_to_cp(want, "prob")
        problem = close_arrays(to_cp(np.copy(want) if kind == "array" else float(want)), back,
                               "centipawns", atol=1e-4)
        return problem and f"{problem} back from p = {np.round(want, 6)}"
    return run_cases("my_expected_score and my_centipawns", settings, compare, show)
