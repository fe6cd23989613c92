"""Checkers of notebook 11: the AlphaZero loss, MCTS's backup and PUCT's choice."""
from __future__ import annotations

import copy

import numpy as np

from chesslab.course.checking import (CheckResult, close_arrays, own_work, run_cases,
                                      seeded_boards)
from chesslab.search import mcts, teaching
from chesslab.search.mcts import puct_select


def check_puct_select(fn, cases: int = 200, seed: int = 9, show=True) -> CheckResult:
    """``fn(Q, N, P, c_puct) -> index``: the move with the largest Q + U, U = c_puct * P *
    sqrt(sum N) / (1 + N), sum N counted as at least 1. Against ``mcts.puct_select``,
    on random statistics (a third of them not yet visited)."""
    rng, fn = np.random.default_rng(seed), own_work(fn, mcts.puct_select)

    def case(i):
        k = int(rng.integers(1, 40))
        n = np.zeros(k) if i % 3 == 0 else rng.integers(0, 30, k).astype(float)
        q = np.where(n > 0, rng.uniform(-1, 1, k), 0.0)
        return q, n, rng.dirichlet(np.ones(k) * 0.5), float(rng.choice([0.5, 1.5, 4.0]))

    def compare(stats):
        q, n, p, c = stats
        mine, want = fn(q.copy(), n.copy(), p.copy(), c), puct_select(q, n, p, c)
        return None if mine == want else (
            f"you pick {mine}, PUCT picks {want} (c_puct {c}, {len(q)} moves, "
            f"{int(n.sum())} visits so far)")
    return run_cases("my_puct_select", [case(i) for i in range(cases)], compare, show)


class _Node:
    """What a backup touches: per-move visit counts N and value sums W."""

    def __init__(self, n_moves, rng):
        self.N = rng.integers(0, 5, size=n_moves).astype(float)
        self.W = rng.uniform(-1, 1, size=n_moves) * self.N


def _reference_backup(path, value):
    for node, a in reversed(path):
        value = -value
        node.N[a] += 1
        node.W[a] += value


def check_mcts_backup(fn, cases: int = 40, seed: int = 0, show=True) -> CheckResult:
    """``fn(path, value)`` updates the nodes of ``path`` (a list of (node, move index)
    from the root down; ``value`` is for the side to move at the leaf) in place, as
    ``chesslab.search.teaching.backup`` does; paths of 1 to 7 plies. Both of chesslab's
    backups are switched off while ``fn`` runs: the teaching one and ``MCTS._backup``."""
    rng, fn = (np.random.default_rng(seed),
               own_work(fn, teaching.backup, mcts.MCTS._backup, _reference_backup))

    def make(i):
        length = 1 + i % 7
        nodes = [_Node(int(rng.integers(1, 6)), rng) for _ in range(length)]
        path = [(node, int(rng.integers(0, len(node.N)))) for node in nodes]
        return path, float(rng.choice([-1.0, 0.0, 1.0, round(float(rng.uniform(-1, 1)), 3)]))

    def compare(case):
        path, value = case
        mine = copy.deepcopy(path)
        want = copy.deepcopy(path)
        fn(mine, value)
        _reference_backup(want, value)
        for ply, ((m, _), (w, _)) in enumerate(zip(mine, want)):
            for what in ("N", "W"):
                problem = close_arrays(getattr(m, what), getattr(w, what), what)
                if problem:
                    return (f"{problem} at ply {ply} of a {len(path)}-ply path, leaf value "
                            f"{value:+g}")
        return None
    return run_cases("my_backup", [make(i) for i in range(cases)], compare, show)


def _loss_cases(cases, seed):
    from chesslab.board.encoding import legal_indices, planes9_batch
    from chesslab.evaluators.policy_value import PolicyValueNet
    net = PolicyValueNet(channels=8, blocks=1, policy_k=8, seed=seed)
    rng = np.random.default_rng(seed)
    boards = seeded_boards(4 * cases, seed)
    out = []
    for i in range(cases):
        batch = boards[4 * i: 4 * i + 1 + i % 4]
        x = planes9_batch(batch)
        logits, v = net.forward(x)
        mask = np.zeros_like(logits, dtype=bool)
        pi = np.zeros_like(logits)
        for row, board in enumerate(batch):
            idx = legal_indices(board)
            mask[row, idx] = True
            share = rng.dirichlet(np.ones(len(idx)))
            pi[row, idx] = share
        z = rng.choice([-1.0, 0.0, 1.0], size=len(batch))
        c = float(rng.choice([0.0, 1e-4, 1e-2]))
        out.append((net, x, logits, v, pi, z, mask, c))
    return out


def check_alphazero_loss(fn, cases: int = 12, seed: int = 0, show=True) -> CheckResult:
    """``fn(logits, v, pi, z, mask, weights, c) -> (value, policy, l2)``: the three parts
    of ``(z - v)^2 - pi . log p + c ||theta||^2`` for a batch (means over the batch,
    p the softmax over the legal moves), against ``policy_value_loss``. The losses it is
    made of (``chesslab.nn.losses``: ``mse``, ``softmax_cross_entropy``, ``log_softmax``,
    which ``softmax`` calls, and ``l2_penalty``) are switched off with it while ``fn`` runs."""
    from chesslab.evaluators.policy_value import policy_value_loss
    from chesslab.nn import losses
    fn = own_work(fn, policy_value_loss, losses.mse, losses.softmax_cross_entropy,
                  losses.log_softmax, losses.l2_penalty)

    def compare(case):
        net, x, logits, v, pi, z, mask, c = case
        weights = [layer.params["W"].copy() for layer in net.leaves() if "W" in layer.params]
        _, parts = policy_value_loss(net, x, pi, z, mask, c=c, backward=False)
        got = fn(logits.copy(), v.copy(), pi.copy(), z.copy(), mask.copy(), weights, c)
        if not isinstance(got, tuple) or len(got) != 3:
            return "return (value, policy, l2)"
        for mine, what in zip(got, ("value", "policy", "l2")):
            want = parts[what]
            if not np.isfinite(float(mine)) or abs(float(mine) - want) > 1e-5 * max(1, abs(want)):
                return f"{what} part {float(mine):.6g}, expected {want:.6g} (batch of {len(z)}, c={c:g})"
        return None
    return run_cases("my_alphazero_loss", _loss_cases(cases, seed), compare, show)
