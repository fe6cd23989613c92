"""Checkers of notebook 08: Wilson's interval, the Elo difference of a score, and a
design exercise (an evaluation that scores more than half against ``material:2``) measured
by playing games."""
from __future__ import annotations

import math

import numpy as np

from chesslab.course.checking import CheckResult, close_arrays, own_work, run_cases
from chesslab.evaluators.base import Evaluator
from chesslab.matches import rating
from chesslab.matches.rating import elo_difference, wilson_interval


def check_wilson_interval(fn, show=True, cases: int = 60, seed: int = 6) -> CheckResult:
    """``fn(points, games, z=1.96) -> (low, high)``: Wilson's score interval, against
    ``rating.wilson_interval``, on four edge cases and ``cases`` random scores from
    0 of 1 to 200 of 200 (half points are draws)."""
    rng, fn = np.random.default_rng(seed), own_work(fn, rating.wilson_interval)
    cases = [(0.0, 4), (4.0, 4), (2.0, 4), (0.5, 1)] + [
        (float(rng.integers(0, 2 * n + 1)) / 2, n) for n in rng.integers(1, 201, cases)]

    def compare(case):
        points, games = case
        return close_arrays(fn(points, games), wilson_interval(points, games),
                      f"({points} of {games}) bound ")
    return run_cases("my_wilson_interval", cases, compare, show)


def check_elo_difference(fn, cases: int = 60, seed: int = 0, show=True) -> CheckResult:
    """``fn(score) -> Elo difference`` against ``chesslab.matches.rating.elo_difference``:
    scores from 0 to 1, 0 and 1 included (where the answer is -inf and +inf)."""
    rng, fn = np.random.default_rng(seed), own_work(fn, rating.elo_difference)
    scores = [0.0, 1.0, 0.5, 0.64, 0.76, 0.25, 0.01, 0.99]
    scores += [round(float(s), 4) for s in rng.uniform(0.001, 0.999, max(cases - len(scores), 0))]

    def compare(score):
        want, got = elo_difference(score), fn(score)
        if math.isinf(want):
            if got is None or not math.isinf(float(got)) or (float(got) > 0) != (want > 0):
                return f"score {score}: {got}, expected {want} (no finite Elo fits it)"
            return None
        if got is None or not math.isfinite(float(got)) or abs(float(got) - want) > 1e-6:
            return f"score {score}: {got}, expected {want:.4f}"
        return None
    return run_cases("my_elo_difference", scores, compare, show)


class FunctionEvaluator(Evaluator):
    """A student's ``evaluate(board) -> centipawns, White's view`` as an evaluator."""

    def __init__(self, fn, name="yours"):
        self.fn, self.name = fn, name

    def evaluate(self, board):
        return float(self.fn(board))


class MeasuredResult(CheckResult):
    """A design exercise's verdict: what was measured, and how far from the bar."""

    measured: str = ""
    #: said instead of "passes the bar" when the games cannot show it (too few of them)
    verdict: str = ""

    def __str__(self):
        if not self.attempted:
            return super().__str__()
        verdict = self.verdict or ("passes the bar" if self.ok else "does not pass yet")
        return f"{self.name}: {verdict}: {self.first_failure or self.measured}"


def _measured(name, measure, show):
    """Run ``measure() -> (ok, line)`` as a one-case check (a stub: "not attempted")."""
    said = {}

    def compare(_):
        ok, said["line"] = measure()
        return None if ok else said["line"]
    result = run_cases(name, [None], compare, show=False)
    result = MeasuredResult(result.name, result.cases, result.passed, result.first_failure,
                            result.attempted)
    result.measured = said.get("line", "")
    if show:
        print(result)
    return result


def decided(points: float, played: int, games: int, bar: float) -> bool:
    """Whether ``points`` from the first ``played`` of ``games`` games already settle "more
    than ``bar`` of the points": every result of the games left gives the same verdict
    (the points are already above the bar, or stay at most at it even if all are won)."""
    return points > bar * games or points + (games - played) <= bar * games


def check_beats_material(fn, games: int = 4, seed: int = 0, depth: int = 2,
                         max_plies: int = 160, bar: float = 0.5, resign_cp: float = 400,
                         show=True, until_decided: bool = False) -> CheckResult:
    """A design exercise: ``fn(board) -> centipawns (White's view)`` searched at ``depth``
    plays ``games`` seeded games against ``material:2``; it passes when it scores more
    than ``bar`` of the points. The line says the score, its 95% interval and the gap.
    A score above the bar whose 95% interval still holds the bar (two games, say) is
    reported as "plays", not "passes the bar": those games cannot show it.
    A game ends when both sides see one of them ``resign_cp`` ahead for four plies (the
    engine testers' resign rule): a won game is not played out to mate, which at depth 2
    is most of the time a class's grading spends here.
    The evaluation must be the student's own: while ``fn`` runs, chesslab's evaluators
    (their ``evaluate``, and ``evaluate_batch`` where a class defines its own) raise
    ``UsesReference``, so a submission that calls one scores 0 with that line. Only
    inside ``fn``: ``material:2``, the opponent, evaluates as usual.
    ``until_decided``: the match stops once the games left cannot change pass or fail
    (``decided``), the verdict of all ``games`` without the games that cannot matter (a
    grader's saving); the line then says how many were played and why the rest were not."""
    from chesslab.evaluators.bayes import BayesEvaluator
    from chesslab.evaluators.handwritten import MaterialEvaluator, PSTEvaluator
    from chesslab.evaluators.neural import NetworkEvaluator
    from chesslab.evaluators.nnue import LinearPSTEvaluator, NNUEEvaluator
    from chesslab.matches.match import match
    from chesslab.matches.players import SearchPlayer
    evaluators = (MaterialEvaluator.evaluate, PSTEvaluator.evaluate, NNUEEvaluator.evaluate,
                  LinearPSTEvaluator.evaluate, NetworkEvaluator.evaluate,
                  NetworkEvaluator.evaluate_batch, BayesEvaluator.evaluate,
                  BayesEvaluator.evaluate_batch)
    fn = own_work(fn, *evaluators)
    shown = {}

    def measure():
        yours = SearchPlayer(FunctionEvaluator(fn), depth=depth, name=f"yours:{depth}")
        stop = ((lambda so_far: decided(so_far.wins + so_far.draws / 2, so_far.n, games,
                                        bar)) if until_decided else None)
        result = match(yours, "material:2", games=games, seed=seed, max_plies=max_plies,
                       progress=False, resign_cp=resign_cp, stop=stop)
        points, played = result.wins + result.draws / 2, result.n
        low, high = wilson_interval(points, played)
        line = (f"{points:g} of {played} points against material:2 (+{result.wins} "
                f"={result.draws} -{result.losses}, 95% interval {low:.2f}-{high:.2f})")
        ok = points > bar * games
        if played < games:
            left = games - played
            line += (f" after {played} of the {games} games: " + (
                f"already more than {bar * games:g} of {games} points" if ok else
                f"at most {points + left:g} of {games} points even if it wins the other "
                f"{left}") + f", so the other {left} were not played; the bar: more than "
                f"{bar:.0%}")
        else:
            line += f"; the bar: more than {bar:.0%}"
            if not ok:
                line += f", {math.floor(bar * games - points) + 0.5:g} points short"
        if ok and low <= bar:
            shown["verdict"] = "plays"
            line += (f", but {played} games cannot show it: their 95% interval still holds "
                     f"{bar:.2f}")
        return ok, line
    result = _measured("my_evaluation", measure, show=False)
    result.verdict = shown.get("verdict", "")
    if show:
        print(result)
    return result
