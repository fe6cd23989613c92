"""Checkers for the course's "your turn" cells: a student's function against chesslab's.

Each ``check_*`` runs the student's function and the package's own code on many seeded
cases, prints one line (how many cases agree, and the first case that does not, shown
so it can be reproduced) and returns a ``CheckResult``. A checker never raises on a
wrong answer: a student's error is the thing to look at, not a traceback in the
checker. An exception inside the student's function is reported the same way.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from .bayes import GaussianNB
from .data import random_board
from .encoding import thesis_vector
from .nn import Dense, conv2d_naive


@dataclass
class CheckResult:
    """Did the student's function agree with the reference on every case?"""
    name: str
    cases: int
    passed: int
    first_failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.passed == self.cases

    def __str__(self):
        if self.ok:
            return f"{self.name}: all {self.cases} cases agree with chesslab's"
        return (f"{self.name}: {self.passed} of {self.cases} cases agree; first difference: "
                f"{self.first_failure}")


def _run(name, cases, compare, show=True) -> CheckResult:
    """``compare(case)`` returns None when the student agrees, else what differs."""
    passed, first = 0, None
    for case in cases:
        try:
            problem = compare(case)
        except NotImplementedError as exc:
            problem = f"not written yet ({exc})"
        except Exception as exc:           # noqa: BLE001  (the student's code may raise anything)
            problem = f"raised {type(exc).__name__}: {exc}"
        if problem is None:
            passed += 1
        elif first is None:
            first = problem
    result = CheckResult(name, len(cases), passed, first)
    if show:
        print(result)
    return result


def _close(mine, theirs, what, atol=1e-6):
    """None if two arrays agree (shape and values), else a short description."""
    mine, theirs = np.asarray(mine, dtype=float), np.asarray(theirs, dtype=float)
    if mine.shape != theirs.shape:
        return f"{what} has shape {mine.shape}, expected {theirs.shape}"
    if not np.allclose(mine, theirs, atol=atol, rtol=1e-5):
        i = np.unravel_index(np.argmax(np.abs(mine - theirs)), mine.shape)
        return f"{what}{[int(v) for v in i]} is {mine[i]:.6g}, expected {theirs[i]:.6g}"
    return None


def _close_all(mine, wants: dict, context: str):
    """None if ``mine`` is a tuple agreeing with every array of ``wants`` (name ->
    expected, in order), else what differs, with ``context`` to reproduce it."""
    names = ", ".join(wants)
    if not isinstance(mine, tuple) or len(mine) != len(wants):
        return f"return ({names}): {len(wants)} arrays"
    for got, (what, want) in zip(mine, wants.items()):
        problem = _close(got, want, what)
        if problem:
            return f"{problem} ({context})"
    return None


def _boards(count, seed):
    rng, boards = random.Random(seed), []
    while len(boards) < count:
        board = random_board(rng, max_plies=80)
        if board is not None:
            boards.append(board)
    return boards


def check_thesis_vector(fn, cases: int = 200, seed: int = 0, show=True) -> CheckResult:
    """``fn(board) -> 64 numbers`` (K=7 Q=5 B=4 N=3 R=2 P=1, negative for Black, index 0
    = a8) against ``chesslab.encoding.thesis_vector``, on random positions."""
    def compare(board):
        problem = _close(np.asarray(fn(board.copy())).reshape(-1), thesis_vector(board),
                         "square")
        return problem and f"{problem} in {board.fen()}"
    return _run("thesis_vector", _boards(cases, seed), compare, show)


def check_dense_backward(fn, cases: int = 50, seed: int = 0, show=True) -> CheckResult:
    """``fn(x, W, grad_out) -> (grad_x, grad_W, grad_b)`` for ``y = x @ W + b`` against
    ``chesslab.nn.Dense.backward``, on random shapes and numbers."""
    rng = np.random.default_rng(seed)
    shapes = [tuple(int(v) for v in rng.integers(1, 7, size=3)) for _ in range(cases)]

    def compare(shape):
        n, n_in, n_out = shape
        layer = Dense(n_in, n_out, rng=np.random.default_rng(n * 100 + n_in * 10 + n_out),
                      dtype=np.float64)
        x = rng.normal(size=(n, n_in))
        grad_out = rng.normal(size=(n, n_out))
        layer.forward(x)
        grad_x = layer.backward(grad_out)
        mine = fn(x.copy(), layer.params["W"].copy(), grad_out.copy())
        return _close_all(mine, {"grad_x": grad_x, "grad_W": layer.grads["W"],
                                 "grad_b": layer.grads["b"]},
                          f"x {x.shape}, W {layer.params['W'].shape}")
    return _run("Dense backward", shapes, compare, show)


def check_conv2d(fn, cases: int = 30, seed: int = 0, show=True) -> CheckResult:
    """``fn(x, weight, bias, padding) -> output`` (cross-correlation, no kernel flip;
    x is (N, C, H, W), weight (out, C, k, k)) against ``chesslab.nn.conv2d_naive``."""
    rng = np.random.default_rng(seed)
    settings = [(int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4)),
                 int(rng.choice([1, 3])), int(rng.integers(0, 2))) for _ in range(cases)]

    def compare(setting):
        n, c, out, k, padding = setting
        x = rng.normal(size=(n, c, 8, 8))
        weight = rng.normal(size=(out, c, k, k))
        bias = rng.normal(size=out)
        return _close(fn(x.copy(), weight.copy(), bias.copy(), padding),
                      conv2d_naive(x, weight, bias, padding=padding),
                      f"output (kernel {k}x{k}, padding {padding})")
    return _run("conv2d", settings, compare, show)


def check_gaussian_nb_fit(fn, cases: int = 20, seed: int = 0, show=True) -> CheckResult:
    """``fn(X, y) -> (priors, means, variances)``: per class (in sorted order) its share
    of the rows, and the mean and the (population) variance of every feature, against
    ``chesslab.bayes.GaussianNB(var_smoothing=0).fit``, on random data."""
    rng = np.random.default_rng(seed)
    shapes = [(int(rng.integers(10, 60)), int(rng.integers(1, 6)), int(rng.integers(2, 4)))
              for _ in range(cases)]

    def compare(shape):
        n, d, k = shape
        y = np.concatenate([np.arange(k), np.arange(k), rng.integers(0, k, n - 2 * k)])
        X = rng.normal(size=(n, d)) * rng.uniform(0.5, 50, d) + y[:, None]
        model = GaussianNB(var_smoothing=0.0).fit(X, y)
        return _close_all(fn(X.copy(), y.copy()),
                          {"priors": model.class_prior_, "means": model.theta_,
                           "variances": model.var_}, f"{n} rows, {d} features, {k} classes")
    return _run("GaussianNB fit", shapes, compare, show)
