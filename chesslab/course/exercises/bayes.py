"""Checkers of notebook 10: standardising features, a design exercise (features for
Naive Bayes, measured by a test log-loss), Gaussian Naive Bayes' fit, and material."""
from __future__ import annotations

import chess
import numpy as np

from chesslab.course.checking import (CheckResult, close_all, close_arrays, own_work, run_cases,
                                      seeded_boards)
from chesslab.course.exercises.matches import _measured
from chesslab.board.scores import material_balance
from chesslab.evaluators import features
from chesslab.evaluators.bayes import CLASSES, GaussianNB
from chesslab.evaluators.features import StandardScaler
from chesslab.evaluators.handwritten import MaterialEvaluator


def check_standardise(fn, cases: int = 30, seed: int = 0, show=True) -> CheckResult:
    """``fn(X_train, X_test) -> (Z_train, Z_test)`` against ``features.StandardScaler``:
    mean and standard deviation from the training rows only, sigma 1 for a constant column."""
    rng = np.random.default_rng(seed)
    fn = own_work(fn, StandardScaler.fit, StandardScaler.transform)

    def make(i):
        n, k = int(rng.integers(2, 30)), int(rng.integers(1, 6))
        X = rng.normal(size=(n + 5, k)) * rng.uniform(0.1, 500, size=k) + rng.normal(0, 50, k)
        if i % 3 == 0:
            X[:, int(rng.integers(0, k))] = float(rng.integers(0, 2))   # a constant column
        if i % 4 == 1:
            X[n:] += 7.0                        # test rows that differ from the training rows
        return X[:n], X[n:]

    def compare(data):
        X_train, X_test = data
        scaler = StandardScaler().fit(X_train)
        return close_arrays_pair(fn(X_train.copy(), X_test.copy()),
                                 scaler.transform(X_train), scaler.transform(X_test),
                                 f"{X_train.shape[0]} training rows, {X_train.shape[1]} columns")
    return run_cases("my_standardise", [make(i) for i in range(cases)], compare, show)


def close_arrays_pair(mine, train, test, context):
    if not isinstance(mine, tuple) or len(mine) != 2:
        return "return (Z_train, Z_test)"
    for got, want, what in ((mine[0], train, "Z_train"), (mine[1], test, "Z_test")):
        problem = close_arrays(got, want, what, atol=1e-6)
        if problem:
            return f"{problem} ({context})"
    return None


def nb_log_loss(X_train, y_train, X_test, y_test) -> float:
    """Test log-loss of Gaussian Naive Bayes trained on standardised columns."""
    scaler = StandardScaler().fit(X_train)
    nb = GaussianNB().fit(scaler.transform(X_train), y_train, classes=CLASSES)
    proba = np.exp(nb.predict_log_proba(scaler.transform(X_test)))
    index = {c: i for i, c in enumerate(CLASSES)}
    p = proba[np.arange(len(y_test)), [index[c] for c in y_test]]
    return float(-np.mean(np.log(np.clip(p, 1e-15, 1.0))))


def check_nb_features(fn, X_train, y_train, X_test, y_test, bar=None, show=True) -> CheckResult:
    """A design exercise: ``fn(X) -> new feature columns`` (from the thirteen columns of
    ``features.FEATURE_NAMES``, one row per position). Naive Bayes is trained on the
    columns of the training rows and scored on the test rows; it passes when its
    test log-loss is below ``bar`` (default: Naive Bayes on material alone)."""
    if bar is None:
        bar = nb_log_loss(X_train[:, :1], y_train, X_test[:, :1], y_test)
    fn = own_work(fn)

    def measure():
        A, B = (np.asarray(fn(X.copy()), dtype=float) for X in (X_train, X_test))
        A, B = (M.reshape(len(M), -1) for M in (A, B))
        if A.shape[0] != len(X_train) or B.shape[0] != len(X_test):
            return False, "return one row per position"
        loss = nb_log_loss(A, y_train, B, y_test)
        line = f"test log-loss {loss:.3f} with {A.shape[1]} column(s); the bar: below {bar:.3f}"
        return loss < bar, line if loss < bar else f"{line}, {loss - bar:.3f} above it"
    return _measured("my_features", measure, show)


def check_gaussian_nb_fit(fn, cases: int = 20, seed: int = 0, show=True) -> CheckResult:
    """``fn(X, y) -> (priors, means, variances)``: per class (in sorted order) its share
    of the rows, and the mean and the (population) variance of every feature, against
    ``chesslab.evaluators.bayes.GaussianNB(var_smoothing=0).fit``, on random data."""
    rng, fn = np.random.default_rng(seed), own_work(fn, GaussianNB.fit)
    shapes = [(int(rng.integers(10, 60)), int(rng.integers(1, 6)), int(rng.integers(2, 4)))
              for _ in range(cases)]

    def compare(shape):
        n, d, k = shape
        y = np.concatenate([np.arange(k), np.arange(k), rng.integers(0, k, n - 2 * k)])
        X = rng.normal(size=(n, d)) * rng.uniform(0.5, 50, d) + y[:, None]
        model = GaussianNB(var_smoothing=0.0).fit(X, y)
        return close_all(fn(X.copy(), y.copy()),
                          {"priors": model.class_prior_, "means": model.theta_,
                           "variances": model.var_}, f"{n} rows, {d} features, {k} classes")
    return run_cases("my_nb_fit", shapes, compare, show)


def _mate_and_check_boards(cases, seed):
    """Random positions (every second one that has a checking move is played on with
    it, so the check bonus is tried), plus two mates."""
    boards = []
    for i, board in enumerate(seeded_boards(cases, seed)):
        checks = [m for m in board.legal_moves if board.gives_check(m)]
        if i % 2 and checks:
            board.push(checks[0])
        boards.append(board)
    fool = chess.Board()
    for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):
        fool.push_uci(uci)
    scholar = chess.Board("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4")
    return boards + [fool, scholar]


def check_material(fn, cases: int = 100, seed: int = 7, show=True) -> CheckResult:
    """``fn(board) -> White's score``: P 100, N 300, B 300, R 500, Q 900 (kings 0), +10 for
    the side giving check, +-inf for checkmate. Against ``handwritten.MaterialEvaluator``."""
    material = MaterialEvaluator()
    fn = own_work(fn, MaterialEvaluator.evaluate, material_balance,   # and the features' material
                  features.piece_bits)

    def compare(board):
        mine, want = fn(board.copy()), material.evaluate(board)
        return None if mine == want else f"you score {mine}, expected {want} in {board.fen()}"
    boards = _mate_and_check_boards(cases, seed)
    result = run_cases("my_material", boards, compare, show)
    if show:                                # what was tried, counted, not described
        mates = sum(board.is_checkmate() for board in boards)
        checks = sum(board.is_check() for board in boards) - mates
        print(f"  the {len(boards)} positions: {checks} in check (the +-10 bonus), {mates} "
              f"checkmates (+-inf), {len(boards) - checks - mates} neither")
    return result
