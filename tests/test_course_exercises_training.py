"""course.exercises.training: the checkers of notebooks 04, 05: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""

import numpy as np

from chesslab.course.exercises.training import check_sample_plies, check_win_probability
from chesslab.datasets import records
from tests.checker_helpers import twin


sample_plies = twin(records.sample_plies)


def test_sample_plies_checker():
    def by_hand(n):
        keep = [p for p in range(1, n + 1) if (p % 6 == 0 if p <= 0.75 * n else p % 2 == 0)]
        return keep if keep and keep[-1] == n else keep + [n]
    assert check_sample_plies(by_hand, show=False).ok

    def forgets_the_last(n):
        return [p for p in sample_plies(n) if p != n] or [n]
    bad = check_sample_plies(forgets_the_last, show=False)
    assert not bad.ok and "missing" in bad.first_failure

    def last_twice(n):
        return sample_plies(n) + [n]
    twice = check_sample_plies(last_twice, show=False)
    assert not twice.ok
    assert twice.first_failure == "a game of 1 ply: you keep [1, 1]; kept more than once [1]"

    def backwards(n):
        return sample_plies(n)[::-1]
    swapped = check_sample_plies(backwards, lengths=[12], show=False)
    assert not swapped.ok and "increasing order" in swapped.first_failure
    assert "12 plies" in swapped.first_failure


def stub(*args):
    raise NotImplementedError("your code here")


def to_score(cp):
    return 1 / (1 + np.exp(-np.asarray(cp, dtype=float) / 400))


def to_cp(p):
    p = np.asarray(p, dtype=float)
    return 400 * np.log(p / (1 - p))


def test_win_probability_right_wrong_and_stub(capsys):
    assert check_win_probability(to_score, to_cp).ok
    assert "all 200 cases agree" in capsys.readouterr().out
    tanh_target = lambda cp: np.tanh(np.asarray(cp, dtype=float) / 400)   # noqa: E731
    assert not check_win_probability(tanh_target, to_cp, show=False).ok
    no_scale = lambda p: np.log(p / (1 - p))                              # noqa: E731
    wrong = check_win_probability(to_score, no_scale, show=False)
    assert not wrong.ok and "back from p" in wrong.first_failure
    per_pawn = lambda cp: 1 / (1 + np.exp(-np.asarray(cp, dtype=float) / 100))  # noqa: E731
    assert not check_win_probability(per_pawn, to_cp, show=False).ok
    result = check_win_probability(stub, stub)
    assert not result.attempted and "not attempted yet" in capsys.readouterr().out
