"""course.exercises.mcts: the checkers of notebook 11: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import math

import numpy as np

from chesslab.course.exercises.mcts import (check_alphazero_loss, check_mcts_backup,
                                            check_puct_select)
from tests.checker_helpers import not_attempted


def test_puct_select_checker():
    def by_hand(Q, N, P, c_puct):
        total = max(N.sum(), 1)
        return int(np.argmax(Q + c_puct * P * math.sqrt(total) / (1 + N)))
    assert check_puct_select(by_hand, show=False).ok

    def zero_before_visits(Q, N, P, c_puct):     # sqrt(0): every U is 0 at a fresh node
        return int(np.argmax(Q + c_puct * P * math.sqrt(N.sum()) / (1 + N)))
    bad = check_puct_select(zero_before_visits, show=False)
    assert not bad.ok and "0 visits so far" in bad.first_failure


def _backup(path, value, flip=True):
    for node, a in reversed(path):
        if flip:
            value = -value
        node.N[a] += 1
        node.W[a] += value


def test_mcts_backup_checker():
    assert check_mcts_backup(_backup, show=False).ok
    no_flip = check_mcts_backup(lambda p, v: _backup(p, v, flip=False), show=False)
    assert not no_flip.ok and "W" in no_flip.first_failure

    def flips_after_adding(path, value):
        for node, a in reversed(path):
            node.N[a] += 1
            node.W[a] += value
            value = -value
    assert not check_mcts_backup(flips_after_adding, show=False).ok
    not_attempted(check_mcts_backup)


def _loss(logits, v, pi, z, mask, weights, c, sum_policy=False):
    value = np.mean((z - v) ** 2)
    masked = np.where(mask, logits, -np.inf)
    shifted = masked - masked.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    per_row = -np.sum(np.where(mask, pi * log_p, 0.0), axis=1)
    policy = per_row.sum() if sum_policy else per_row.mean()
    l2 = c * sum(float(np.sum(w * w)) for w in weights)
    return value, policy, l2


def test_alphazero_loss_checker():
    assert check_alphazero_loss(_loss, cases=6, show=False).ok
    summed = check_alphazero_loss(lambda *a: _loss(*a, sum_policy=True), cases=6,
                                            show=False)
    assert not summed.ok and "policy" in summed.first_failure

    def half_l2(*args):
        value, policy, l2 = _loss(*args)
        return value, policy, l2 / 2
    assert not check_alphazero_loss(half_l2, cases=6, show=False).ok
    not_attempted(check_alphazero_loss, cases=2)
