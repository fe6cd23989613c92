"""course.exercises.mcts: the checkers of notebook 11: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import math
import types

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


class _Walkable:
    """A checker's node as ``MCTS._backup`` walks it (no child yet, nothing proven)."""

    def __init__(self, node):
        self.node, self.children, self.terminal = node, [None] * len(node.N), None

    N = property(lambda self: self.node.N)
    W = property(lambda self: self.node.W)


def _refused(result, name):
    assert result.passed == 0, result
    assert result.first_failure.startswith(
        f"uses the reference: your function called chesslab's {name},"), result


def test_an_answer_that_calls_chesslab_scores_nothing():
    """Each of the notebook's references, and the second copy of the backup in
    ``MCTS`` and the losses ``policy_value_loss`` is made of, is switched off while the
    student's function runs: calling one fails every case with a line that says so."""
    from chesslab.evaluators.policy_value import policy_value_loss
    from chesslab.nn import losses
    from chesslab.search import mcts, teaching

    _refused(check_puct_select(lambda q, n, p, c: mcts.puct_select(q, n, p, c), show=False),
             "puct_select")
    _refused(check_mcts_backup(teaching.backup, show=False), "backup")

    def real_backup(path, value):
        mcts.MCTS(virtual_loss=0.0, solve=False)._backup(
            [(_Walkable(node), a) for node, a in path], value)
    _refused(check_mcts_backup(real_backup, show=False), "MCTS._backup")

    def l2(weights, c):
        return c * sum(float(np.sum(w * w)) for w in weights)

    def from_losses(logits, v, pi, z, mask, weights, c):
        return (losses.mse(v, z)[0], losses.softmax_cross_entropy(logits, pi, mask)[0],
                l2(weights, c))
    _refused(check_alphazero_loss(from_losses, cases=2, show=False), "mse")

    def from_log_softmax(logits, v, pi, z, mask, weights, c):
        log_p = losses.log_softmax(logits, mask)
        return (np.mean((z - v) ** 2), np.mean(-np.sum(np.where(mask, pi * log_p, 0), 1)),
                l2(weights, c))
    _refused(check_alphazero_loss(from_log_softmax, cases=2, show=False), "log_softmax")

    class Leaf:
        def __init__(self, w):
            self.params = {"W": w}

    def through_the_loss(logits, v, pi, z, mask, weights, c):
        net = types.SimpleNamespace(forward=lambda x: (logits, v),
                                    leaves=lambda: [Leaf(w) for w in weights])
        _, parts = policy_value_loss(net, None, pi, z, mask, c=c, backward=False)
        return parts["value"], parts["policy"], parts["l2"]
    _refused(check_alphazero_loss(through_the_loss, cases=2, show=False), "policy_value_loss")


def test_feedback_names_the_students_function_not_the_reference():
    """The printed line is labelled by the notebook's ``my_...`` function: naming the
    reference (``puct_select``, ``backup``) would tell the student where its source is."""
    results = {"my_puct_select": check_puct_select(lambda q, n, p, c: 0, cases=3, show=False),
               "my_backup": check_mcts_backup(_backup, cases=3, show=False),
               "my_alphazero_loss": check_alphazero_loss(_loss, cases=2, show=False)}
    for name, result in results.items():
        assert str(result).startswith(f"{name}: "), result


def test_the_l2_penalty_of_chesslab_is_switched_off_too():
    """``losses.l2_penalty`` computes the loss's third part from any object with
    ``leaves()``: a loss that borrows it is not the student's own."""
    from chesslab.nn import losses

    def borrowed_l2(logits, v, pi, z, mask, weights, c):
        value, policy, _ = _loss(logits, v, pi, z, mask, weights, c)
        layers = [types.SimpleNamespace(params={"W": w}, grads={}) for w in weights]
        model = types.SimpleNamespace(leaves=lambda: layers)
        return value, policy, 2 * losses.l2_penalty(model, c)
    _refused(check_alphazero_loss(borrowed_l2, cases=4, show=False), "l2_penalty")
