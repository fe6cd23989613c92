"""Checkers for the "your turn" cells of notebooks 07-12: search, matches, Naive Bayes
features, MCTS and the AlphaZero loop.

Most compare a student's function with chesslab's own code on seeded cases. The two
design exercises (an evaluation that beats ``material:2``, features for Naive Bayes) have
no single right answer: their checkers measure the result (games played, a test
log-loss) and say how far it is from the bar. The shared machinery is in
``chesslab.course.checking``.
"""
from __future__ import annotations

import copy
import math
import random

import numpy as np

from chesslab.board.rules import result_for
from chesslab.course.checking import CheckResult, close_arrays, run_cases, seeded_boards
from chesslab.evaluators.base import Evaluator
from chesslab.evaluators.bayes import CLASSES, GaussianNB
from chesslab.evaluators.features import StandardScaler
from chesslab.matches.rating import elo_difference, wilson_interval
from chesslab.search.ordering import MoveOrderer

#: The arena's bar: a challenger replaces the best network only above this score.
GATE_SCORE = 0.55


# ------------------------------------------------------------------ 07: move ordering
def mvv_lva_order(board):
    """The captures of ``board``, best first by the key 10 x victim - attacker (stable:
    ties keep ``generate_legal_captures`` order); the ordering ``MoveOrderer`` uses."""
    orderer = MoveOrderer()
    captures = list(board.generate_legal_captures())
    return sorted(captures, key=lambda m: -orderer.capture_key(board, m)[0])


def _capture_boards(count, seed):
    """Seeded positions with at least two captures (the order has to matter)."""
    boards, offset = [], 0
    while len(boards) < count:
        for board in seeded_boards(count, seed + offset):
            if len(list(board.generate_legal_captures())) >= 2 and len(boards) < count:
                boards.append(board)
        offset += 1000
    return boards


def check_mvv_lva(fn, cases: int = 60, seed: int = 0, show=True) -> CheckResult:
    """``fn(board) -> list of captures, best first`` (most valuable victim first, then
    least valuable attacker) against the capture ordering of ``chesslab.search.ordering``."""
    def compare(board):
        want = mvv_lva_order(board)
        got = list(fn(board.copy()))
        if [m.uci() for m in got] != [m.uci() for m in want]:
            return (f"{[board.san(m) for m in got][:6]} instead of "
                    f"{[board.san(m) for m in want][:6]} in {board.fen()}")
        return None
    return run_cases("MVV-LVA order", _capture_boards(cases, seed), compare, show)


# ------------------------------------------------------------------ 08: Elo and a design
def check_elo_difference(fn, cases: int = 60, seed: int = 0, show=True) -> CheckResult:
    """``fn(score) -> Elo difference`` against ``chesslab.matches.rating.elo_difference``:
    scores from 0 to 1, 0 and 1 included (where the answer is -inf and +inf)."""
    rng = np.random.default_rng(seed)
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
    return run_cases("Elo difference", scores, compare, show)


class FunctionEvaluator(Evaluator):
    """A student's ``evaluate(board) -> centipawns, White's view`` as an evaluator."""

    def __init__(self, fn, name="yours"):
        self.fn, self.name = fn, name

    def evaluate(self, board):
        return float(self.fn(board))


class MeasuredResult(CheckResult):
    """A design exercise's verdict: what was measured, and how far from the bar."""

    measured: str = ""

    def __str__(self):
        if not self.attempted:
            return super().__str__()
        verdict = "passes the bar" if self.ok else "does not pass yet"
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


def check_beats_material(fn, games: int = 4, seed: int = 0, depth: int = 2,
                         max_plies: int = 160, bar: float = 0.5, show=True) -> CheckResult:
    """A design exercise: ``fn(board) -> centipawns (White's view)`` searched at ``depth``
    plays ``games`` seeded games against ``material:2``; it passes when it scores more
    than ``bar`` of the points. The line says the score, its 95% interval and the gap."""
    from chesslab.matches.match import match
    from chesslab.matches.players import SearchPlayer

    def measure():
        yours = SearchPlayer(FunctionEvaluator(fn), depth=depth, name=f"yours:{depth}")
        result = match(yours, "material:2", games=games, seed=seed, max_plies=max_plies,
                       progress=False)
        points = result.wins + result.draws / 2
        low, high = wilson_interval(points, games)
        line = (f"{points:g} of {games} points (+{result.wins} ={result.draws} "
                f"-{result.losses}, 95% interval {low:.2f}-{high:.2f}); the bar: more than "
                f"{bar:.0%}")
        ok = points / games > bar
        if not ok:
            line += f", {math.floor(bar * games - points) + 0.5:g} points short"
        return ok, line
    return _measured("beats material:2", measure, show)


# ------------------------------------------------------------------ 10: features
def check_standardise(fn, cases: int = 30, seed: int = 0, show=True) -> CheckResult:
    """``fn(X_train, X_test) -> (Z_train, Z_test)`` against ``features.StandardScaler``:
    mean and standard deviation from the training rows only, sigma 1 for a constant column."""
    rng = np.random.default_rng(seed)

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
    return run_cases("standardise", [make(i) for i in range(cases)], compare, show)


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

    def measure():
        A, B = (np.asarray(fn(X.copy()), dtype=float) for X in (X_train, X_test))
        A, B = (M.reshape(len(M), -1) for M in (A, B))
        if A.shape[0] != len(X_train) or B.shape[0] != len(X_test):
            return False, "return one row per position"
        loss = nb_log_loss(A, y_train, B, y_test)
        line = f"test log-loss {loss:.3f} with {A.shape[1]} column(s); the bar: below {bar:.3f}"
        return loss < bar, line if loss < bar else f"{line}, {loss - bar:.3f} above it"
    return _measured("Naive Bayes features", measure, show)


# ------------------------------------------------------------------ 11: MCTS and the loss
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
    ``chesslab.search.teaching.backup`` does; paths of 1 to 7 plies."""
    rng = np.random.default_rng(seed)

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
    return run_cases("MCTS backup", [make(i) for i in range(cases)], compare, show)


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
    p the softmax over the legal moves), against ``policy_value_loss``."""
    from chesslab.evaluators.policy_value import policy_value_loss

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
    return run_cases("AlphaZero loss", _loss_cases(cases, seed), compare, show)


# ------------------------------------------------------------------ 12: the loop
def check_value_targets(fn, cases: int = 60, seed: int = 0, show=True) -> CheckResult:
    """``fn(result, turns) -> list of z``: a finished game's ``result`` ("1-0", "0-1",
    "1/2-1/2") and the side to move ("w" or "b") at each recorded position; z is +1 if
    that side won, -1 if it lost, 0 for a draw (as ``selfplay.self_play_game`` stores it)."""
    rng = random.Random(seed)

    def make(i):
        result = ("1-0", "0-1", "1/2-1/2")[i % 3]
        first = "w" if (i // 3) % 2 == 0 else "b"
        length = rng.randint(1, 40)
        turns = [first if k % 2 == 0 else ("b" if first == "w" else "w") for k in range(length)]
        return result, turns

    def compare(case):
        result, turns = case
        want = [result_for(result, t == "w") for t in turns]
        got = list(fn(result, list(turns)))
        if len(got) != len(want):
            return f"{len(got)} targets for {len(want)} positions ({result})"
        for k, (g, w) in enumerate(zip(got, want)):
            if g != w:
                return (f"position {k} ({'White' if turns[k] == 'w' else 'Black'} to move) of "
                        f"a game ending {result}: z = {g}, expected {w:+g}")
        return None
    return run_cases("value targets", [make(i) for i in range(cases)], compare, show)


def gate_decision(wins, draws, losses, threshold=GATE_SCORE):
    """(accepted, low, high): the arena's verdict and the score's 95% Wilson interval."""
    games = wins + draws + losses
    points = wins + draws / 2
    low, high = wilson_interval(points, games)
    return points / games > threshold, low, high


def check_gate(fn, cases: int = 60, seed: int = 0, show=True) -> CheckResult:
    """``fn(wins, draws, losses) -> (accepted, low, high)``: accepted only for a score
    strictly above 55%, and the 95% Wilson interval of the score."""
    rng = np.random.default_rng(seed)
    results = [(11, 0, 9), (10, 2, 8), (12, 0, 8), (0, 20, 0), (20, 0, 0), (0, 0, 20),
               (55, 0, 45), (110, 0, 90)]
    while len(results) < cases:
        games = int(rng.choice([10, 20, 40, 100, 400]))
        w = int(rng.integers(0, games + 1))
        d = int(rng.integers(0, games - w + 1))
        results.append((w, d, games - w - d))

    def compare(case):
        want = gate_decision(*case)
        got = fn(*case)
        if not isinstance(got, tuple) or len(got) != 3:
            return "return (accepted, low, high)"
        if bool(got[0]) != want[0]:
            return (f"+{case[0]} ={case[1]} -{case[2]}: accepted={bool(got[0])}, expected "
                    f"{want[0]} (score {(case[0] + case[1] / 2) / sum(case):.3f})")
        problem = close_arrays(got[1:], want[1:], "(low, high)")
        return problem and f"{problem} for +{case[0]} ={case[1]} -{case[2]}"
    return run_cases("gate", results[:cases], compare, show)
