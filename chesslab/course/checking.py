"""What every checker of the course shares: the verdict (``CheckResult``), the loop over
cases that turns a student's exception or untouched stub into a line instead of a
traceback (``run_cases``), the student's function run as the student's own work
(``own_work``: the exercise's reference switched off, the input named when it raises),
array comparison, and seeded positions.

The checkers themselves live in ``chesslab.course.exercises``, one module per notebook
topic; a notebook imports the checkers it uses from its module.
"""
from __future__ import annotations

import contextlib
import random
import warnings
from dataclasses import dataclass

import chess
import numpy as np

from chesslab.datasets.positions import random_board


class CheckStop(Exception):
    """The checker stopped a case itself; its message is the whole verdict line."""


class UsesReference(CheckStop):
    """The student's function called code that grading switches off: the reference it is
    checked against, or chesslab code that computes the same answer under another name."""

    def __init__(self, name="its reference"):
        self.name = name
        super().__init__(f"uses the reference: your function called chesslab's {name}, "
                         f"which grading switches off: write your own")


_REFUSALS: dict = {}


def _refusal_code(function):
    """The code of a function that raises ``UsesReference`` naming ``function``, with
    ``function``'s free variables (a method using ``super()`` has ``__class__``; a code
    swap must keep them). It runs in the reference's module, hence the import."""
    key = (function.__qualname__, function.__code__.co_freevars)
    if key not in _REFUSALS:
        free = function.__code__.co_freevars
        source = ("def outer():\n" + "".join(f"    {name} = None\n" for name in free)
                  + "    def refuse(*args, **kwargs):\n"
                  + (f"        ({', '.join(free)},)\n" if free else "")
                  + "        raise __import__('chesslab.course.checking', fromlist=['x'])"
                  f".UsesReference({function.__qualname__!r})\n    return refuse\n")
        space = {}
        exec(source, space)                   # noqa: S102  (our own fixed text)
        code = space["outer"]().__code__
        _REFUSALS[key] = code if code.co_freevars == free else None
    return _REFUSALS[key]


@contextlib.contextmanager
def references_off(references):
    """While inside, each function of ``references`` raises ``UsesReference``, however the
    student reached it (an import, an alias such as ``my_f = f``, a module attribute):
    its code object is swapped, not a name."""
    saved = []
    try:
        for function in references:
            code = _refusal_code(function)
            if code is not None:
                saved.append((function, function.__code__))
                function.__code__ = code
        yield
    finally:
        for function, code in saved:
            function.__code__ = code


class StudentError(CheckStop):
    """The student's function raised: the exception and the input it was given."""


def describe(value, depth: int = 0) -> str:
    """A short, reproducible description of an input: a board by its FEN, a move in UCI,
    an array by its shape, numbers as they are."""
    if isinstance(value, chess.Board):
        return f"board {value.fen()!r}"
    if isinstance(value, chess.Move):
        return f"move {value.uci()}"
    if isinstance(value, np.ndarray):
        return (f"array {np.array2string(value, precision=4, separator=', ')}"
                if value.size <= 6 else f"array of shape {value.shape}")
    if isinstance(value, (bool, int, float, str, np.number)) or value is None:
        return repr(value.item() if isinstance(value, np.number) else value)
    if isinstance(value, (list, tuple)):
        if depth or len(value) > 6:
            return f"a {type(value).__name__} of {len(value)}"
        return "[" + ", ".join(describe(v, depth + 1) for v in value) + "]"
    if callable(value):
        return getattr(value, "__name__", type(value).__name__)
    return f"a {type(value).__name__}"


def own_work(fn, *references):
    """``fn`` as the checkers call it: with ``references`` (the exercise's reference
    code) switched off while it runs, and, when it raises, a ``StudentError`` that names
    the input. A stub's ``NotImplementedError`` and a checker's own stop pass through."""
    def student(*args, **kwargs):
        try:
            with references_off(references):
                return fn(*args, **kwargs)
        except (NotImplementedError, CheckStop):
            raise
        except Exception as exc:           # noqa: BLE001  (the student's code may raise anything)
            given = ", ".join([describe(a) for a in args]
                              + [f"{k}={describe(v)}" for k, v in kwargs.items()])
            raise StudentError(f"raised {type(exc).__name__}: {exc} (called with {given})") \
                from exc
    student.__wrapped__ = fn
    return student


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
        except CheckStop as exc:
            problem = str(exc)
        except Exception as exc:           # noqa: BLE001  (the student's code may raise anything)
            problem = f"raised {type(exc).__name__}: {exc}" + (
                f" (for {describe(case)})" if case is not None else "")
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
