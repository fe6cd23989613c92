"""MCTS one simulation at a time, each simulation written down as it runs.

``RecordingMCTS`` is ``MCTS`` with its hooks (``_select``, ``_call``, ``_leaf_value``,
``_backup``) wrapped: the wrappers call the real methods and note what they saw, so a
recorded simulation is the search's own (its visits are the tree's visits). A step is
``MCTS.search(board, simulations=1)`` on the kept tree: N steps build the tree that one
search of N simulations with ``batch_size=1`` builds. ``undo`` takes the last simulation
back (the explorer's Back button).
"""
from __future__ import annotations

import math

import chess
import numpy as np

from chesslab.board.rules import check_position, history_key
from chesslab.search.mcts import MCTS, MCTSNode, terminal_value, uniform_evaluate


class Edge:
    """One step of the selection path: the move taken and its statistics *before* this
    simulation (Q, U, prior P, visits N) as PUCT saw them."""

    __slots__ = ("move", "q", "u", "prior", "visits", "created", "node", "index", "backed")

    def __init__(self, move, q, u, prior, visits, node, index):
        self.move, self.q, self.u, self.prior, self.visits = move, q, u, prior, visits
        self.node, self.index = node, index
        self.created = False     # the child node did not exist before this simulation
        self.backed = None       # the value added to this edge by the backup

    def __repr__(self):
        return (f"Edge({self.move.uci()}, Q={self.q:+.3f}, U={self.u:.3f}, "
                f"P={self.prior:.3f}, N={int(self.visits)})")


class Simulation:
    """One simulation: the ``path`` of edges, how the leaf was valued (``leaf``:
    "expanded" by the network, "terminal": the game is over there) and its ``value``
    for the side to move at the leaf; each edge's ``backed`` is the value it received
    (the sign flips at every ply)."""

    def __init__(self, number):
        self.number, self.path, self.leaf, self.value, self.expanded_moves = number, [], None, None, 0

    @property
    def moves(self) -> list:
        return [edge.move for edge in self.path]

    def __repr__(self):
        line = " ".join(m.uci() for m in self.moves)
        return f"Simulation({self.number}: {line}, {self.leaf} {self.value:+.3f})"


class RecordingMCTS(MCTS):
    """``MCTS`` stepped one simulation at a time, keeping a ``Simulation`` per step.

    ``start(board)`` expands the root; ``step()`` runs one simulation and returns its
    record; ``undo()`` takes the last one back; ``simulations_run`` lists them.
    """

    def __init__(self, evaluate=uniform_evaluate, c_puct: float = 1.5, seed: int = 0, **options):
        # no proofs climbing the tree: a step must be exactly undoable
        options.setdefault("solve", False)
        super().__init__(evaluate, simulations=1, c_puct=c_puct, batch_size=1,
                         reuse_tree=True, seed=seed, **options)
        self.simulations_run, self._current, self.board = [], None, None

    def start(self, board: chess.Board) -> MCTSNode:
        if not isinstance(board, chess.Board):
            raise TypeError(f"RecordingMCTS needs a chess.Board, got {type(board).__name__}")
        check_position(board, "RecordingMCTS")
        if terminal_value(board, self.draw_value) is not None:
            raise ValueError(f"the game is over in {board.fen()!r}; nothing to search")
        self.reset()
        self.board, self.simulations_run = board.copy(), []
        return self._start_root()

    def _start_root(self):
        root = MCTSNode()
        self._expand_now(self.board.copy(), root)
        self.root, self.root_key, self._root_prior = root, history_key(self.board), root.prior
        return root

    def step(self) -> Simulation:
        if self.root is None:
            raise RuntimeError("call start(board) before step()")
        self._current = Simulation(len(self.simulations_run) + 1)
        self.search(self.board, simulations=1)
        simulation, self._current = self._current, None
        self.simulations_run.append(simulation)
        return simulation

    def run(self, n: int) -> list:
        return [self.step() for _ in range(int(n))]

    def undo(self) -> Simulation | None:
        """Take the last simulation back: its visits and values, and the node it made."""
        if not self.simulations_run:
            return None
        simulation = self.simulations_run.pop()
        for edge in simulation.path:
            edge.node.N[edge.index] -= 1
            edge.node.W[edge.index] -= edge.backed
        last = simulation.path[-1] if simulation.path else None
        if last is not None and last.created:
            last.node.children[last.index] = None
        return simulation

    # ------------------------------------------------------------ the hooks
    def _select(self, node, prior, root=False):
        q, n = node.q(), node.N.copy()
        a = super()._select(node, prior, root)
        if self._current is not None:
            u = self.c_puct * prior[a] * math.sqrt(max(float(np.sum(n)), 1.0)) / (1.0 + n[a])
            edge = Edge(node.moves[a], float(q[a]), float(u), float(prior[a]), float(n[a]), node, a)
            edge.created = node.children[a] is None
            self._current.path.append(edge)
        return a

    def _call(self, boards, move_lists):
        priors, values = super()._call(boards, move_lists)
        if self._current is not None:
            self._current.leaf, self._current.value = "expanded", float(values[0])
            self._current.expanded_moves = len(move_lists[0])
        return priors, values

    def _leaf_value(self, board, moves):
        value = super()._leaf_value(board, moves)
        if value is not None and self._current is not None:
            self._current.leaf, self._current.value = "terminal", float(value)
        return value

    def _backup(self, path, value):
        if self._current is not None:
            if self._current.leaf is None:      # a terminal node visited again
                self._current.leaf, self._current.value = "terminal", float(value)
            backed = value
            for edge in reversed(self._current.path):
                backed = -backed
                edge.backed = backed
        super()._backup(path, value)


def root_table(mcts: MCTS) -> list:
    """(move, visits, Q, prior) for every root move, most visited first."""
    root = mcts.root
    q = root.q()
    rows = [(m, int(root.N[i]), float(q[i]), float(root.prior[i]))
            for i, m in enumerate(root.moves)]
    return sorted(rows, key=lambda r: (-r[1], -r[3]))
