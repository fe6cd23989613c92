"""Checkers of notebook 06: counting a game tree (perft) and minimax.

The notebook asks for a recursion of the student's own, so while the student's function
runs, chesslab's other ways to the same number are switched off with the reference: the
game tree (building it enumerates every node and walks the moves for the student, for
both exercises; ``nodes``, ``size``), the teaching searches (for perft their leaf,
``teaching.static``, which all of them call) and the searcher (a counting evaluator counts
the leaves; their values are minimax's)."""
from __future__ import annotations

from collections import Counter

import chess

from chesslab.course.checking import CheckResult, own_work, run_cases, seeded_boards
from chesslab.evaluators.handwritten import MaterialEvaluator
from chesslab.search import teaching
from chesslab.search.searcher import Searcher
from chesslab.search.tree import GameTree, TreeNode


def perft(board: chess.Board, depth: int) -> int:
    """Leaf nodes (move sequences) ``depth`` plies below ``board``: a position reached by
    two move orders counts twice."""
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
    """``fn(board, depth) -> int``: how many move sequences lie ``depth`` plies below."""
    fn = own_work(fn, perft, GameTree.__init__, GameTree.nodes, GameTree.size, TreeNode.size,
                  teaching.static, Searcher._negamax)   # static: every teaching search's leaf
    settings = [(chess.Board(), 3)] + [(board, 1 + i % 2)
                                       for i, board in enumerate(seeded_boards(cases - 1, seed))]

    def compare(setting):
        board, depth = setting
        mine, want = fn(board.copy(), depth), perft(board.copy(), depth)
        return None if mine == want else \
            f"depth {depth}: you count {mine}, expected {want} in {board.fen()}"
    return run_cases("my_perft", settings, compare, show)


def check_minimax(fn, cases: int = 12, seed: int = 3, show=True) -> CheckResult:
    """``fn(board, depth, evaluate) -> value``, White's view: White takes the largest
    child value, Black the smallest, ``evaluate(board)`` at depth 0. Against
    ``tree.GameTree`` on positions with no mate or draw inside the tree (depths 1-2)."""
    evaluate = MaterialEvaluator().evaluate
    # GameTree.__init__ too: a tree built for the student walks the moves for them
    fn = own_work(fn, GameTree.__init__, GameTree.minimax, GameTree._back_up,
                  teaching.negamax, GameTree.alphabeta, teaching.alphabeta,
                  teaching.alphabeta_minmax, Searcher._negamax)

    def compare(case):
        board, depth, tree = case
        tree.minimax()
        mine = fn(board.copy(), depth, evaluate)
        return None if mine == tree.root.value else \
            f"depth {depth}: you return {mine}, minimax gives {tree.root.value} in {board.fen()}"
    trees = [t for i in range(2) for t in _quiet_trees(cases // 2, seed + i, 1 + i)]
    result = run_cases("my_minimax", trees, compare, show)
    if show:                                # the depths tried, counted (the filter guarantees the rest)
        per_depth = Counter(depth for _, depth, _ in trees)
        print("  " + ", ".join(f"{n} positions at depth {d}" for d, n in sorted(per_depth.items()))
              + "; no mate or draw inside their trees")
    return result
