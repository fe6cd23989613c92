"""Checkers of notebook 07: alpha-beta, captures in MVV-LVA order, and quiescence.

The quiescence reference is ``chesslab.search.teaching.quiesce`` (the one teaching
version), called here in the exercise's terms; a student's search runs under a node
budget, so a wrong window stops with a line instead of a frozen cell."""
from __future__ import annotations

import math
import random

import chess

from chesslab.board.scores import is_mate_score
from chesslab.course.checking import (CheckResult, CheckStop, own_work, run_cases,
                                      seeded_boards)
from chesslab.course.exercises.minimax import _quiet_trees
from chesslab.evaluators.handwritten import MaterialEvaluator
from chesslab.search import teaching
from chesslab.search.ordering import MoveOrderer
from chesslab.search.searcher import Searcher
from chesslab.search.tree import GameTree


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
    fn = own_work(fn, GameTree.alphabeta, teaching.alphabeta, teaching.alphabeta_minmax,
                  Searcher._negamax)

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
    return run_cases("my_alphabeta", trees, compare, show)


def mvv_lva_order(board):
    """The captures of ``board``, best first by the key 10 x victim - attacker (stable:
    ties keep ``generate_legal_captures`` order); the ordering ``MoveOrderer`` uses."""
    orderer = MoveOrderer()
    captures = list(board.generate_legal_captures())
    return sorted(captures, key=lambda m: -orderer.capture_key(board, m)[0])


#: Positions for each rule of the exercise that random positions rarely draw: en passant
#: (the victim is not on the target square), captures that promote (the new piece's value
#: is added, four captures from one pawn move, two of them tied), and a king that captures.
MVV_LVA_RULES = (
    "4k3/8/2n5/3pP3/1N6/8/8/4K3 w - d6 0 2",        # exd6 e.p. between Nxc6 and Nxd5
    "4k3/8/8/8/3pP3/2N5/8/4K3 b - e3 0 2",          # Black's e.p. after dxc3
    "r3k3/1P6/8/8/8/8/8/R3K3 w - - 0 1",            # bxa8=Q, =R, =B/=N (tied), then Rxa8
    "4k3/8/8/8/8/8/1p6/R1N1K3 b - - 0 1",           # two victims, four promotions each
    "4k3/8/8/8/8/8/3qp3/3RK3 w - - 0 1",            # Rxd2 before Kxd2: the king is worth 2000
    "n3k3/1P6/8/8/8/8/3r4/4K3 w - - 0 1",           # bxa8=N (3200) before Kxd2 (3000)
)


def mvv_lva_rule_boards(seed):
    """``MVV_LVA_RULES``, each as given and once more mirrored or flipped left to right
    (which one depends on ``seed``), so visible and hidden cases both try every rule."""
    rng = random.Random(seed)
    boards = []
    for fen in MVV_LVA_RULES:
        board = chess.Board(fen)
        other = board.mirror() if rng.random() < 0.5 else board.transform(chess.flip_horizontal)
        boards += [board, other]
    return boards


def _capture_boards(count, seed):
    """The rule positions, then seeded positions with at least two captures (the order
    has to matter)."""
    boards, offset = mvv_lva_rule_boards(seed)[:count], 0
    while len(boards) < count:
        for board in seeded_boards(count, seed + offset):
            if len(list(board.generate_legal_captures())) >= 2 and len(boards) < count:
                boards.append(board)
        offset += 1000
    return boards


def check_mvv_lva(fn, cases: int = 60, seed: int = 0, show=True) -> CheckResult:
    """``fn(board) -> list of captures, best first`` (most valuable victim first, then
    least valuable attacker; en passant takes a pawn, a promotion adds the new piece, ties
    keep the generator's order) against the capture ordering of ``chesslab.search.ordering``,
    on the positions of ``MVV_LVA_RULES`` and seeded positions."""
    fn = own_work(fn, mvv_lva_order, MoveOrderer.capture_key)

    def compare(board):
        want = mvv_lva_order(board)
        got = list(fn(board.copy()))
        if [m.uci() for m in got] != [m.uci() for m in want]:
            return (f"{[board.san(m) for m in got][:6]} instead of "
                    f"{[board.san(m) for m in want][:6]} in {board.fen()}")
        return None
    return run_cases("my_mvv_lva", _capture_boards(cases, seed), compare, show)


class _Evaluate:
    """A plain ``evaluate(board)`` function as an evaluator object."""

    def __init__(self, evaluate):
        self.evaluate = evaluate


def quiesce(board: chess.Board, alpha: float, beta: float, evaluate) -> float:
    """The exercise's reference: ``chesslab.search.teaching.quiesce`` in the exercise's
    terms (a plain ``evaluate`` function; a mate stays +-inf, as the evaluator says it)."""
    value = teaching.quiesce(board, _Evaluate(evaluate), alpha, beta)
    return math.copysign(math.inf, value) if is_mate_score(value) else value


class NodeBudget(CheckStop):
    """A student's search went on far past the nodes the reference needs."""


def budgeted(evaluate, reference_nodes: int, where: str, factor: int = 20, spare: int = 200):
    """``evaluate`` that counts its calls (one per node searched) and stops the search
    with ``NodeBudget`` past ``factor`` times the reference's nodes (plus ``spare``)."""
    budget, calls = factor * reference_nodes + spare, [0]

    def counted(board):
        calls[0] += 1
        if calls[0] > budget:
            raise NodeBudget(f"searched {calls[0] - 1} nodes where the reference needs "
                             f"{reference_nodes}, and was stopped there ({where}): check "
                             f"the window passed down (-beta, -alpha) and the cut")
        return evaluate(board)
    return counted


def check_quiesce(fn, cases: int = 40, seed: int = 5, show=True) -> CheckResult:
    """``fn(board, alpha, beta, evaluate) -> value`` for the side to move (``evaluate`` is
    White's view): stand pat on the static value, or do better with a capture. Against
    ``quiesce`` (``chesslab.search.teaching.quiesce``), on positions with captures, with
    full and narrow windows; a search that needs far more nodes than the reference is
    stopped (``budgeted``)."""
    evaluate = MaterialEvaluator().evaluate
    fn = own_work(fn, teaching.quiesce, quiesce, Searcher._quiesce)
    boards = [b for b in seeded_boards(cases * 3, seed)
              if any(b.generate_legal_captures())][:cases]

    def compare(board):
        calls = [0]

        def counting(b):
            calls[0] += 1
            return evaluate(b)
        want = quiesce(board.copy(), -math.inf, math.inf, counting)
        where = f"full window in {board.fen()}"
        mine = fn(board.copy(), -math.inf, math.inf, budgeted(evaluate, calls[0], where))
        if mine != want:
            return f"full window: you return {mine}, expected {want} in {board.fen()}"
        if math.isfinite(want):
            for alpha, beta in ((want - 50, want + 50), (want + 1, want + 300), (want - 300, want - 1)):
                where = f"window ({alpha}, {beta}) in {board.fen()}"
                got = fn(board.copy(), alpha, beta, budgeted(evaluate, calls[0], where))
                if not _within_window(got, want, alpha, beta):
                    return (f"window ({alpha}, {beta}): you return {got}, the value is {want} "
                            f"in {board.fen()}")
        return None
    return run_cases("my_quiesce", boards, compare, show)
