"""What every checker of the course shares: the verdict (``CheckResult``), the loop over
cases that turns a student's exception or untouched stub into a line instead of a
traceback (``run_cases``), array comparison, and seeded positions.

The checkers themselves live by topic (``exercises``, ``exercises_learning``,
``exercises_search``); notebooks import them all from ``chesslab.course.exercises``.
"""
from __future__ import annotations

import random
import warnings
from dataclasses import dataclass

import numpy as np

from chesslab.datasets.positions import random_board


@dataclass
class CheckResult:
    """Did the student's function agree with the reference on every case?"""
    name: str
    cases: int
    passed: int
    first_failure: str | None = None
    attempted: bool = True

    @property
    def ok(self) -> bool:
        return self.passed == self.cases

    def __str__(self):
        if not self.attempted:
            return f"{self.name}: not attempted yet{self.first_failure or ''}"
        if self.ok:
            return f"{self.name}: all {self.cases} cases agree with chesslab's"
        return (f"{self.name}: {self.passed} of {self.cases} cases agree; first difference: "
                f"{self.first_failure}")


def run_cases(name, cases, compare, show=True) -> CheckResult:
    """``compare(case)`` returns None when the student agrees, else what differs."""
    passed, first, stubs, hint = 0, None, 0, ""
    for case in cases:
        try:
            with warnings.catch_warnings():   # a warning would land on stderr, which
                warnings.simplefilter("ignore")   # nbgrader scores as a failed test
                problem = compare(case)
        except NotImplementedError as exc:
            problem, stubs, hint = f"not written yet ({exc})", stubs + 1, str(exc)
        except Exception as exc:           # noqa: BLE001  (the student's code may raise anything)
            problem = f"raised {type(exc).__name__}: {exc}"
        if problem is None:
            passed += 1
        elif first is None:
            first = problem
    if cases and stubs == len(cases):      # the untouched stub: one line, no case shown
        result = CheckResult(name, len(cases), 0, f" ({hint})" if hint else "", attempted=False)
    else:
        result = CheckResult(name, len(cases), passed, first)
    if show:
        print(result)
    return result


def close_arrays(mine, theirs, what, atol=1e-6):
    """None if two arrays agree (shape and values), else a short description."""
    mine, theirs = np.asarray(mine, dtype=float), np.asarray(theirs, dtype=float)
    if mine.shape != theirs.shape:
        return f"{what} has shape {mine.shape}, expected {theirs.shape}"
    if not np.allclose(mine, theirs, atol=atol, rtol=1e-5):
        i = np.unravel_index(np.argmax(np.abs(mine - theirs)), mine.shape)
        where = f"{what}{[int(v) for v in i]}" if i else what      # a scalar has no index
        return f"{where} is {mine[i]:.6g}, expected {theirs[i]:.6g}"
    return None


def close_all(mine, wants: dict, context: str):
    """None if ``mine`` is a tuple agreeing with every array of ``wants`` (name ->
    expected, in order), else what differs, with ``context`` to reproduce it."""
    names = ", ".join(wants)
    if not isinstance(mine, tuple) or len(mine) != len(wants):
        return f"return ({names}): {len(wants)} arrays"
    for got, (what, want) in zip(mine, wants.items()):
        problem = close_arrays(got, want, what)
        if problem:
            return f"{problem} ({context})"
    return None


def seeded_boards(count, seed):
    rng, boards = random.Random(seed), []
    while len(boards) < count:
        board = random_board(rng, max_plies=80)
        if board is not None:
            boards.append(board)
    return boards
