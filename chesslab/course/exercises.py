"""Checkers for the course's "your turn" cells: a student's function against chesslab's.

Each ``check_*`` runs the student's function and the package's own code on many seeded
cases, prints one line (how many cases agree, and the first case that does not, shown
so it can be reproduced) and returns a ``CheckResult``. A checker never raises on a
wrong answer: a student's error is the thing to look at, not a traceback in the
checker. An exception inside the student's function is reported the same way, and a
stub that still raises ``NotImplementedError`` everywhere is "not attempted" (one line),
so a student's copy runs top to bottom before every exercise is done. The graded
verdict (the ``assert`` on ``.ok``) sits in the notebook's hidden tests, which the
student's copy leaves out: running it never stops on an unsolved exercise.
"""
from __future__ import annotations

import math

import chess
import numpy as np

from chesslab.matches.rating import wilson_interval
from chesslab.evaluators.bayes import GaussianNB
from chesslab.board.encoding import PROMOTION_PAIRS, move_to_index, planes14, thesis_vector
from chesslab.datasets.records import sample_plies
from chesslab.evaluators.handwritten import MaterialEvaluator
from chesslab.search.mcts import puct_select
from chesslab.nn import Dense, MaxPool2D, conv2d_naive
from chesslab.search import teaching
from chesslab.search.tree import GameTree
from chesslab.board.scores import is_mate_score
from chesslab.course.checking import CheckResult, close_all, close_arrays, run_cases, seeded_boards
from chesslab.course.exercises_learning import (check_accumulator_update,  # noqa: F401
                                                check_material_design, check_residual_forward,
                                                check_win_probability)


def check_thesis_vector(fn, cases: int = 200, seed: int = 0, show=True) -> CheckResult:
    """``fn(board) -> 64 numbers`` (K=7 Q=5 B=4 N=3 R=2 P=1, negative for Black, index 0
    = a8) against ``chesslab.board.encoding.thesis_vector``, on random positions."""
    def compare(board):
        problem = close_arrays(np.asarray(fn(board.copy())).reshape(-1), thesis_vector(board),
                         "square")
        return problem and f"{problem} in {board.fen()}"
    return run_cases("thesis_vector", seeded_boards(cases, seed), compare, show)


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
        return close_all(mine, {"grad_x": grad_x, "grad_W": layer.grads["W"],
                                 "grad_b": layer.grads["b"]},
                          f"x {x.shape}, W {layer.params['W'].shape}")
    return run_cases("Dense backward", shapes, compare, show)


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
        return close_arrays(fn(x.copy(), weight.copy(), bias.copy(), padding),
                      conv2d_naive(x, weight, bias, padding=padding),
                      f"output (kernel {k}x{k}, padding {padding})")
    return run_cases("conv2d", settings, compare, show)


def check_gaussian_nb_fit(fn, cases: int = 20, seed: int = 0, show=True) -> CheckResult:
    """``fn(X, y) -> (priors, means, variances)``: per class (in sorted order) its share
    of the rows, and the mean and the (population) variance of every feature, against
    ``chesslab.evaluators.bayes.GaussianNB(var_smoothing=0).fit``, on random data."""
    rng = np.random.default_rng(seed)
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
    return run_cases("GaussianNB fit", shapes, compare, show)


def check_planes14(fn, cases: int = 100, seed: int = 1, show=True) -> CheckResult:
    """``fn(board) -> (14, 8, 8)``: 6 White piece planes (P N B R Q K), 6 Black, then the
    squares White's and Black's moves go to; row 0 = rank 8. Against ``encoding.planes14``."""
    def compare(board):
        problem = close_arrays(fn(board.copy()), planes14(board), "plane, row, column")
        return problem and f"{problem} in {board.fen()}"
    return run_cases("planes14", seeded_boards(cases, seed), compare, show)


def check_max_pool(fn, cases: int = 30, seed: int = 0, show=True) -> CheckResult:
    """``fn(x, size) -> output``: the maximum of every ``size x size`` window (stride =
    size), keeping the last partial window (8 by 3 gives 3), on (N, C, H, W) arrays.
    Against ``nn.MaxPool2D(size).forward``."""
    rng = np.random.default_rng(seed)
    settings = [(int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.choice([3, 5, 8])),
                 int(rng.choice([2, 3]))) for _ in range(cases)]

    def compare(setting):
        n, c, h, size = setting
        x = rng.normal(size=(n, c, h, h))
        return close_arrays(fn(x.copy(), size), MaxPool2D(size).forward(x),
                      f"output (input {h}x{h}, window {size})")
    return run_cases("max pool", settings, compare, show)


def check_sample_plies(fn, show=True, lengths=range(1, 301)) -> CheckResult:
    """``fn(n_plies) -> list of plies``: every 6th ply in the first 75% of the game, every
    2nd after, always the last; for games of ``lengths`` plies (1 to 300 unless told),
    against ``records.sample_plies``."""
    def compare(n):
        mine, want = [int(p) for p in fn(n)], sample_plies(n)
        if mine == want:
            return None
        extra, missing = sorted(set(mine) - set(want)), sorted(set(want) - set(mine))
        return (f"a game of {n} plies: you keep {mine[:12]}{'...' if len(mine) > 12 else ''}"
                f"; extra {extra[:6]}, missing {missing[:6]}"
                + (", or out of order" if not extra and not missing else ""))
    return run_cases("sample_plies", list(lengths), compare, show)


# ------------------------------------------------------------ search
def perft(board: chess.Board, depth: int) -> int:
    """Leaf positions ``depth`` plies below ``board``: the size of a full game tree."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total


def _quiet_trees(count, seed, depth):
    """Random positions whose depth-``depth`` tree has no mate, stalemate or draw."""
    material = MaterialEvaluator()
    found = []
    for board in seeded_boards(count * 3, seed):
        tree = GameTree(board, material, depth)
        if all(n.ply == depth for n in tree.nodes() if not n.children):
            found.append((board, depth, tree))
        if len(found) == count:
            break
    return found


def check_perft(fn, cases: int = 20, seed: int = 2, show=True) -> CheckResult:
    """``fn(board, depth) -> int``: how many positions lie ``depth`` plies below."""
    settings = [(chess.Board(), 3)] + [(board, 1 + i % 2)
                                       for i, board in enumerate(seeded_boards(cases - 1, seed))]

    def compare(setting):
        board, depth = setting
        mine, want = fn(board.copy(), depth), perft(board.copy(), depth)
        return None if mine == want else \
            f"depth {depth}: you count {mine}, expected {want} in {board.fen()}"
    return run_cases("perft", settings, compare, show)


def check_minimax(fn, cases: int = 12, seed: int = 3, show=True) -> CheckResult:
    """``fn(board, depth, evaluate) -> value``, White's view: White takes the largest
    child value, Black the smallest, ``evaluate(board)`` at depth 0. Against
    ``tree.GameTree`` on positions with no mate or draw inside the tree (depths 1-2)."""
    evaluate = MaterialEvaluator().evaluate

    def compare(case):
        board, depth, tree = case
        tree.minimax()
        mine = fn(board.copy(), depth, evaluate)
        return None if mine == tree.root.value else \
            f"depth {depth}: you return {mine}, minimax gives {tree.root.value} in {board.fen()}"
    trees = [t for i in range(2) for t in _quiet_trees(cases // 2, seed + i, 1 + i)]
    return run_cases("minimax", trees, compare, show)


def _within_window(mine, want, alpha, beta):
    """Alpha-beta's contract: exact inside (alpha, beta), a bound outside it."""
    if want <= alpha:
        return mine <= alpha
    if want >= beta:
        return mine >= beta
    return mine == want


def check_alphabeta(fn, cases: int = 12, seed: int = 4, show=True) -> CheckResult:
    """``fn(board, depth, alpha, beta, evaluate) -> value`` (White's view): minimax's value
    when it lies inside (alpha, beta), else a bound on the right side, evaluating exactly
    the leaves ``tree.GameTree.alphabeta`` does (moves in ``board.legal_moves`` order,
    cut when alpha >= beta)."""
    evaluate = MaterialEvaluator().evaluate

    def compare(case):
        board, depth, tree = case
        tree.alphabeta()
        want = tree.root.value
        calls = []

        def counting(b):
            calls.append(1)
            return evaluate(b)
        mine = fn(board.copy(), depth, -math.inf, math.inf, counting)
        if mine != want:
            return f"depth {depth}, full window: you return {mine}, expected {want} in {board.fen()}"
        leaves = sum(1 for n in tree.nodes() if n.visited and not n.children)
        if len(calls) != leaves:
            return (f"depth {depth}: you evaluate {len(calls)} leaves, alpha-beta needs "
                    f"{leaves} (minimax: {sum(1 for n in tree.nodes() if not n.children)})"
                    f" in {board.fen()}")
        for alpha, beta in ((want - 50, want + 50), (want + 1, want + 200), (want - 200, want - 1)):
            got = fn(board.copy(), depth, alpha, beta, evaluate)
            if not _within_window(got, want, alpha, beta):
                return (f"window ({alpha}, {beta}): you return {got}, but the value is {want} "
                        f"(outside the window only a bound is needed) in {board.fen()}")
        return None
    trees = [t for i in range(2) for t in _quiet_trees(cases // 2, seed + i, 1 + i)]
    return run_cases("alphabeta", trees, compare, show)


class _Evaluate:
    """A plain ``evaluate(board)`` function as an evaluator object."""

    def __init__(self, evaluate):
        self.evaluate = evaluate


def quiesce(board: chess.Board, alpha: float, beta: float, evaluate) -> float:
    """The exercise's reference: ``chesslab.search.teaching.quiesce`` in the exercise's
    terms (a plain ``evaluate`` function; a mate stays +-inf, as the evaluator says it)."""
    value = teaching.quiesce(board, _Evaluate(evaluate), alpha, beta)
    return math.copysign(math.inf, value) if is_mate_score(value) else value


def check_quiesce(fn, cases: int = 40, seed: int = 5, show=True) -> CheckResult:
    """``fn(board, alpha, beta, evaluate) -> value`` for the side to move (``evaluate`` is
    White's view): stand pat on the static value, or do better with a capture. Against
    ``exercises.quiesce``, on positions with captures, with full and narrow windows."""
    evaluate = MaterialEvaluator().evaluate
    boards = [b for b in seeded_boards(cases * 3, seed)
              if any(b.generate_legal_captures())][:cases]

    def compare(board):
        want = quiesce(board.copy(), -math.inf, math.inf, evaluate)
        mine = fn(board.copy(), -math.inf, math.inf, evaluate)
        if mine != want:
            return f"full window: you return {mine}, expected {want} in {board.fen()}"
        if math.isfinite(want):
            for alpha, beta in ((want - 50, want + 50), (want + 1, want + 300), (want - 300, want - 1)):
                got = fn(board.copy(), alpha, beta, evaluate)
                if not _within_window(got, want, alpha, beta):
                    return (f"window ({alpha}, {beta}): you return {got}, the value is {want} "
                            f"in {board.fen()}")
        return None
    return run_cases("quiesce", boards, compare, show)


def check_wilson_interval(fn, show=True, cases: int = 60, seed: int = 6) -> CheckResult:
    """``fn(points, games, z=1.96) -> (low, high)``: Wilson's score interval, against
    ``rating.wilson_interval``, on four edge cases and ``cases`` random scores from
    0 of 1 to 200 of 200 (half points are draws)."""
    rng = np.random.default_rng(seed)
    cases = [(0.0, 4), (4.0, 4), (2.0, 4), (0.5, 1)] + [
        (float(rng.integers(0, 2 * n + 1)) / 2, n) for n in rng.integers(1, 201, cases)]

    def compare(case):
        points, games = case
        return close_arrays(fn(points, games), wilson_interval(points, games),
                      f"({points} of {games}) bound ")
    return run_cases("wilson_interval", cases, compare, show)


def _mate_and_check_boards(cases, seed):
    """Random positions, half of them right after a checking move, plus two mates."""
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

    def compare(board):
        mine, want = fn(board.copy()), material.evaluate(board)
        return None if mine == want else f"you score {mine}, expected {want} in {board.fen()}"
    return run_cases("material", _mate_and_check_boards(cases, seed), compare, show)


def check_move_to_index(fn, cases: int = 60, seed: int = 8, show=True) -> CheckResult:
    """``fn(move) -> 0..4271``: ``from*64 + to`` (a1 = 0), or 4096 + 4 * (promotion pair)
    + (N, B, R, Q = 0..3) with the pairs of ``encoding.PROMOTION_PAIRS``. Against
    ``encoding.move_to_index`` on every legal move of random positions and every
    promotion."""
    moves = {m for board in seeded_boards(cases, seed) for m in board.legal_moves}
    moves |= {chess.Move(f, t, promotion=p) for f, t in PROMOTION_PAIRS
              for p in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)}

    def compare(move):
        mine, want = fn(move), move_to_index(move)
        return None if mine == want else f"{move.uci()}: you give {mine}, expected {want}"
    return run_cases("move_to_index", sorted(moves, key=move_to_index), compare, show)


def check_puct_select(fn, cases: int = 200, seed: int = 9, show=True) -> CheckResult:
    """``fn(Q, N, P, c_puct) -> index``: the move with the largest Q + U, U = c_puct * P *
    sqrt(sum N) / (1 + N), sum N counted as at least 1. Against ``mcts.puct_select``,
    on random statistics (a third of them not yet visited)."""
    rng = np.random.default_rng(seed)

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
    return run_cases("puct_select", [case(i) for i in range(cases)], compare, show)
from chesslab.course.exercises_search import (check_alphazero_loss, check_beats_material,  # noqa: E402,F401
                                              check_elo_difference, check_gate, check_mcts_backup,
                                              check_mvv_lva, check_nb_features, check_standardise,
                                              check_value_targets)
