"""A search that keeps its tree: the real searcher, recorded as it runs.

``RecordingSearcher`` is ``Searcher`` listening to its one hook, ``Searcher._note``:
the searcher tells it each node it enters, and at each return why the node ended (its
reason, value, the evaluator's score if asked, the refuting move of a cutoff). So the
recorded tree is the search itself, not a second implementation and not a guess: its
node count is the searcher's counter, its root value and best move are the searcher's
result, each reason is the one the searcher named. The plain ``Searcher``'s hook does
nothing.

A node is one *visit* of a position, exactly what the searcher counts: a position
searched twice (a principal-variation or late-move re-search) is two nodes, a move
pruned by futility is a node that was counted but not searched. ``record_search`` runs a
search and returns the ``SearchRecord``: its nodes in the order they were entered and
the steps (enter node i, leave node i) that the tree explorer replays.
"""
from __future__ import annotations

import gc
import math

import chess

from chesslab.board.rules import outcome
from chesslab.search.searcher import SWITCHES, Searcher

#: Why a node ended: the reasons ``SearchNode.reason`` takes.
REASONS = {
    "leaf": "leaf: the evaluator's score",
    "stand pat": "quiescence: stand pat",
    "captures": "quiescence: captures searched",
    "cutoff": "cut-off",
    "all moves": "all moves searched",
    "tt": "transposition table hit",
    "draw": "draw (repetition or rule)",
    "mate": "checkmate",
    "stalemate": "stalemate",
    "futility": "pruned by futility (not searched)",
    "reverse futility": "reverse futility: far above beta",
    "null move": "null-move cut-off",
    "root": "root: the best move",
}

#: Endings whose value is exact whatever the window: nothing below them was cut.
_EXACT = ("leaf", "draw", "mate", "stalemate", "root")


class SearchNode:
    """One visit of a position: how it was entered and why it ended.

    ``window`` is (alpha, beta) on entry and ``value`` the score on exit, both negamax
    scores (for the side to move here); ``depth`` is the depth left (None in
    quiescence); ``reason`` a key of ``REASONS``; ``refutation`` the move that caused a
    cut-off. ``static`` is the evaluator's score if it was asked.
    """

    __slots__ = ("index", "parent", "move", "ply", "kind", "depth", "alpha", "beta",
                 "value", "reason", "children", "static", "tt_hit", "draw",
                 "refutation", "exit_step", "enter_step", "quiescence")

    def __init__(self, index, parent, move, ply, kind, depth, alpha, beta, step):
        self.index, self.parent, self.move, self.ply = index, parent, move, ply
        self.kind, self.depth, self.alpha, self.beta = kind, depth, alpha, beta
        self.value = self.reason = self.static = self.refutation = None
        self.children = []
        self.tt_hit = self.draw = self.quiescence = False
        self.enter_step, self.exit_step = step, None

    @property
    def bound(self) -> str:
        """"exact", "lower" (failed high: at least value) or "upper" (at most value)."""
        if self.value is None or self.alpha is None or self.reason in _EXACT:
            return "exact"
        if self.value >= self.beta:
            return "lower"
        if self.value <= self.alpha:
            return "upper"
        return "exact"

    def __repr__(self):
        move = self.move.uci() if self.move else "root"
        return f"SearchNode({self.index}, {move}, value={self.value}, {self.reason})"


class SearchRecord:
    """A recorded search: ``nodes`` (entry order), ``steps`` ((kind, node index) with
    kind "enter" or "exit"), the ``result`` the searcher returned, its ``board``."""

    def __init__(self, board, nodes, steps, result, algorithm, depth, switches):
        self.board, self.nodes, self.steps, self.result = board, nodes, steps, result
        self.algorithm, self.depth, self.switches = algorithm, depth, switches

    @property
    def root(self) -> SearchNode:
        return self.nodes[0]

    def path(self, index: int) -> list:
        """The nodes from the root down to node ``index``."""
        path, node = [], self.nodes[index]
        while node is not None:
            path.append(node)
            node = None if node.parent is None else self.nodes[node.parent]
        return path[::-1]

    def moves_to(self, index: int) -> list:
        return [n.move for n in self.path(index)[1:]]

    def board_at(self, index: int) -> chess.Board:
        board = self.board.copy()
        for move in self.moves_to(index):
            board.push(move)
        return board

    def cutoffs(self) -> list:
        return [n for n in self.nodes if n.reason in ("cutoff", "null move")]

    def pruned_moves(self, index: int) -> list:
        """Legal moves of a cut-off node that were never searched (the pruned branches)."""
        node = self.nodes[index]
        if node.reason != "cutoff":
            return []
        board = self.board_at(index)
        tried = {self.nodes[c].move for c in node.children}
        if node.kind == "quiesce" or node.quiescence:
            return [m for m in board.generate_legal_captures() if m not in tried]
        return [m for m in board.legal_moves if m not in tried]

    def saved(self, index: int, budget: int = 20_000) -> tuple:
        """(positions, exact): how many positions a full-width search to the same depth
        would have visited below the pruned moves of node ``index``. Counting stops at
        ``budget`` positions (then ``exact`` is False: at least that many)."""
        node = self.nodes[index]
        pruned = self.pruned_moves(index)
        if not pruned:
            return 0, True
        board = self.board_at(index)
        left = 0 if node.depth is None else max(node.depth - 1, 0)
        counter = [0]
        try:
            for move in pruned:
                board.push(move)
                _full_width(board, left, counter, budget)
                board.pop()
        except _Budget:
            return budget, False
        return counter[0], True


class _Budget(Exception):
    pass


def _full_width(board, depth, counter, budget):
    counter[0] += 1
    if counter[0] >= budget:
        raise _Budget
    if depth <= 0 or outcome(board) is not None:
        return
    for move in board.legal_moves:
        board.push(move)
        _full_width(board, depth - 1, counter, budget)
        board.pop()


class RecordingSearcher(Searcher):
    """``Searcher`` that records the tree it searches (see the module docstring): it
    listens to the searcher's one hook, ``_note``, and changes nothing else."""

    def __init__(self, evaluator, algorithm="alphabeta", **switches):
        super().__init__(evaluator, algorithm, **switches)
        self.nodes_list, self.steps, self._open = [], [], []

    def search(self, board, depth=None, time_limit=None, rng=None, node_limit=None):
        self.nodes_list, self.steps, self._open = [], [], []
        root = self._new_node(None, "root", depth, -math.inf, math.inf, 0)   # plies from here
        result = super().search(board, depth, time_limit, rng, node_limit)
        root.value = result.score if board.turn == chess.WHITE else -result.score
        root.reason = "root" if root.children else ("mate" if board.is_check() else "stalemate")
        root.refutation = result.move
        self._close(root)
        return result

    # ------------------------------------------------------------ the hook
    def _note(self, event, value=None, board=None, ply=None, depth=None, alpha=None,
              beta=None, static=None, refutation=None, quiescence=False):
        if event == "enter":
            move = board.move_stack[-1]
            kind = "quiesce" if depth is None else "null" if move == chess.Move.null() \
                else "search"
            self._new_node(move, kind, depth, alpha, beta, ply)
        elif event == "futility":     # counted, never searched
            node = self._new_node(board.move_stack[-1], "quiesce", None, None, None, ply)
            node.reason = "futility"
            self._close(node)
        else:                         # the node entered last ends, for this reason
            node = self._open[-1]
            node.value, node.reason, node.refutation = value, event, refutation
            node.static = static
            node.tt_hit, node.draw = event == "tt", event == "draw"
            node.quiescence = quiescence and node.kind != "quiesce"
            self._close(node)
        return value

    def _new_node(self, move, kind, depth, alpha, beta, ply):
        parent = self._open[-1].index if self._open else None
        node = SearchNode(len(self.nodes_list), parent, move, ply, kind, depth, alpha, beta,
                          len(self.steps))
        if parent is not None:
            self.nodes_list[parent].children.append(node.index)
        self.nodes_list.append(node)
        self.steps.append(("enter", node.index))
        self._open.append(node)
        return node

    def _close(self, node):
        node.exit_step = len(self.steps)
        self.steps.append(("exit", node.index))
        if self._open and self._open[-1] is node:
            self._open.pop()


def record_search(board: chess.Board, evaluator="material", depth: int = 3,
                  algorithm: str = "alphabeta", **switches) -> SearchRecord:
    """Search ``board`` with the package's searcher and keep the tree it searched.

    ``algorithm`` is "minimax", "alphabeta" or "full"; ``switches`` are the full
    search's (``SWITCHES``: ``ordering=False`` replays the same search without move
    ordering). Returns a ``SearchRecord`` whose root value, best move and node count are
    the search's own.
    """
    if not isinstance(board, chess.Board):
        raise TypeError(f"record_search needs a chess.Board, got {type(board).__name__}")
    unknown = sorted(set(switches) - set(SWITCHES))
    if unknown:
        raise ValueError(f"unknown switch {', '.join(unknown)}; the switches are "
                         f"{', '.join(SWITCHES)}")
    if isinstance(evaluator, str):
        from chesslab.evaluators.registry import load_evaluator
        evaluator = load_evaluator(evaluator)
    if depth is None or depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    searcher = RecordingSearcher(evaluator, algorithm, **switches)
    collecting = gc.isenabled()
    gc.disable()       # tens of thousands of new nodes would wake the collector again and again
    try:
        result = searcher.search(board, depth)
    finally:
        if collecting:
            gc.enable()
    return SearchRecord(board.copy(), searcher.nodes_list, searcher.steps, result,
                        algorithm, depth, dict(switches))
