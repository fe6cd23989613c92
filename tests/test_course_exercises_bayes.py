"""course.exercises.bayes: the checkers of notebook 10: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import math

import chess
import numpy as np
import pytest

from chesslab.course.exercises.bayes import (check_gaussian_nb_fit, check_material,
                                             check_nb_features, check_standardise)
from tests.checker_helpers import not_attempted


def test_gaussian_nb_checker():
    def reference(X, y):
        classes = np.unique(y)
        rows = [X[y == c] for c in classes]
        return (np.array([len(r) / len(X) for r in rows]),
                np.stack([r.mean(axis=0) for r in rows]), np.stack([r.var(axis=0) for r in rows]))
    assert check_gaussian_nb_fit(reference, show=False).ok

    def sample_variance(X, y):                 # ddof=1: not what Gaussian NB fits
        priors, means, _ = reference(X, y)
        return priors, means, np.stack([X[y == c].var(axis=0, ddof=1) for c in np.unique(y)])
    bad = check_gaussian_nb_fit(sample_variance, show=False)
    assert not bad.ok and "variances" in bad.first_failure

    def equal_priors(X, y):
        _, means, variances = reference(X, y)
        return np.full(len(means), 1 / len(means)), means, variances
    assert "priors" in check_gaussian_nb_fit(equal_priors, show=False).first_failure


def test_material_checker(capsys):
    values = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
              chess.QUEEN: 900, chess.KING: 0}

    def by_hand(board):
        if board.is_checkmate():
            return -math.inf if board.turn == chess.WHITE else math.inf
        score = sum(values[p.piece_type] * (1 if p.color else -1)
                    for p in board.piece_map().values())
        if board.is_check():
            score += 10 if board.turn == chess.BLACK else -10
        return score
    assert check_material(by_hand, show=False).ok

    def no_check_bonus(board):
        return by_hand(board) if not board.is_check() or board.is_checkmate() else \
            by_hand(board) - (10 if board.turn == chess.BLACK else -10)
    assert not check_material(no_check_bonus, show=False).ok
    # the count it prints of positions in check is the count a missing bonus gets wrong
    check_material(by_hand)
    in_check = int(capsys.readouterr().out.split(" positions: ")[1].split()[0])
    missed = check_material(no_check_bonus, show=False)
    assert in_check > 0 and missed.cases - missed.passed == in_check


def _standardise(X_train, X_test, own_test_stats=False):
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    if own_test_stats:
        t_mean, t_std = X_test.mean(axis=0), X_test.std(axis=0)
        return (X_train - mean) / std, (X_test - t_mean) / np.where(t_std > 0, t_std, 1.0)
    return (X_train - mean) / std, (X_test - mean) / std


def test_standardise_checker():
    assert check_standardise(_standardise, show=False).ok
    leak = check_standardise(lambda a, b: _standardise(a, b, True), show=False)
    assert not leak.ok
    def divides_by_zero(a, b):
        return (a - a.mean(0)) / a.std(0), (b - a.mean(0)) / a.std(0)
    assert not check_standardise(divides_by_zero, show=False).ok
    not_attempted(check_standardise)


@pytest.fixture(scope="module")
def nb_data():
    rng = np.random.default_rng(0)
    n = 600
    y = rng.choice(["1-0", "1/2-1/2", "0-1"], size=n)
    signal = np.select([y == "1-0", y == "0-1"], [1.0, -1.0], 0.0)
    X = rng.normal(size=(n, 13))
    X[:, 0] += 2 * signal             # material predicts the result
    X[:, 1] += 2 * signal             # a second, independent predictor
    X[:, 2] = X[:, 0] + 0.01 * rng.normal(size=n)   # a copy of material
    return X[:400], y[:400], X[400:], y[400:]


def test_nb_features_checker_measures_against_the_bar(nb_data):
    X_train, y_train, X_test, y_test = nb_data
    good = check_nb_features(lambda X: X[:, [0, 1]], *nb_data, show=False)
    assert good.ok and "log-loss" in str(good)
    copies = check_nb_features(lambda X: X[:, [0, 2]], *nb_data, show=False)
    assert not copies.ok and "above it" in copies.first_failure
    not_attempted(check_nb_features, *nb_data)
    broken = check_nb_features(lambda X: X[:, 20], *nb_data, show=False)
    assert not broken.ok
    assert broken.first_failure.startswith("raised IndexError")
    assert "(called with array of shape (" in broken.first_failure


def _material_by_balance(board):
    from chesslab.board.scores import material_balance
    material = material_balance(board)
    if board.is_checkmate():
        return -math.inf if board.turn == chess.WHITE else math.inf
    bonus = (10 if board.turn == chess.BLACK else -10) if board.is_check() else 0
    return material + bonus


def _material_by_features(board):
    from chesslab.evaluators import features
    material = features.features(board)["material"]
    if board.is_checkmate():
        return -math.inf if board.turn == chess.WHITE else math.inf
    bonus = (10 if board.turn == chess.BLACK else -10) if board.is_check() else 0
    return material + bonus


@pytest.mark.parametrize("cheat", [_material_by_balance, _material_by_features],
                         ids=["scores.material_balance", "features.material"])
def test_material_from_chesslabs_material_count_scores_0(cheat):
    """The material count ``MaterialEvaluator`` is built from, and the feature column
    that counts the same material: the reference by another name."""
    result = check_material(cheat, cases=10, show=False)
    assert result.passed == 0 and result.first_failure.startswith("uses the reference"), result
