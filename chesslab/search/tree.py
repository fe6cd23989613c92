"""The thesis's decision system: an explicit game tree, minimax over it, and reuse.

A ``TreeNode`` holds a board, the move that led to it, the evaluator's verdict on it and
its children. ``GameTree`` builds the nodes recursively down to a depth limit
(default 3), runs minimax over them and returns the move to play with the chosen path.
After our move and the opponent's reply, the node of the new position is looked up:
if the tree has it, its subtree is kept and grown back to the depth limit; otherwise
the tree is regenerated (the thesis's three-step cycle). Counters say how much was
reused.

Values are centipawns from White's point of view (White maximises, Black minimises).
The rules at the nodes are those of ``chesslab.search.searcher`` (a mate found ``ply`` plies
down scores ``MATE - ply``; 50-move rule and insufficient material are draws), so
``search(..., algorithm="minimax")`` gives the same answer without keeping a tree.
"""
from __future__ import annotations

import chess

from chesslab.board.encoding import as_board
from chesslab.board.rules import draw_by_rule, outcome
from chesslab.board.scores import MATE, white_to_side
from chesslab.search.teaching import alphabeta_minmax


class TreeNode:
    """One position of the tree."""

    __slots__ = ("board", "move", "san", "evaluation", "value", "children", "ply",
                 "visited", "bound")

    def __init__(self, board: chess.Board, move=None, san=None, ply=0):
        self.board = board          # a private copy (no move stack)
        self.move = move            # the move that led here (None at the root)
        self.san = san              # the same move in SAN, for drawings
        self.evaluation = None      # the evaluator's value (leaves) or terminal value
        self.value = None           # the minimax value, once computed
        self.children = []
        self.ply = ply              # distance from the root the tree was built from
        self.visited = True         # False: alpha-beta never looked at this node
        self.bound = "exact"        # after alpha-beta: "exact", "upper" (<=) or "lower" (>=)

    def size(self) -> int:
        """Nodes in this subtree, this one included."""
        return 1 + sum(child.size() for child in self.children)

    def __repr__(self):
        return (f"TreeNode({self.san or 'root'}, value={self.value}, "
                f"children={len(self.children)})")


def _no_moves_value(board: chess.Board, ply: int) -> int:
    """White-view value of a position without legal moves (``chesslab.board.rules.outcome``):
    checkmate ``ply`` plies from the root, or a draw (stalemate)."""
    winner = outcome(board).winner
    if winner is None:
        return 0
    return MATE - ply if winner == chess.WHITE else -(MATE - ply)


class GameTree:
    """The thesis's game tree, built to ``depth`` plies with ``evaluator`` at the leaves."""

    def __init__(self, board, evaluator, depth: int = 3):
        if depth < 1:
            raise ValueError(f"the tree depth limit must be at least 1, got {depth}")
        self.evaluator = evaluator
        self.depth = depth
        self.built = 0          # nodes created since the start
        self.reused = 0         # nodes kept at the last advance()
        self.regenerations = 0  # times the tree was thrown away and rebuilt
        self.root = self._new_root(as_board(board).copy(stack=False))

    # ------------------------------------------------------------ building
    def _new_root(self, board):
        root = TreeNode(board)
        self.built += 1
        self._grow(root, self.depth)
        return root

    def _grow(self, node: TreeNode, levels: int):
        """Give ``node`` children down to ``levels`` more plies (existing ones kept)."""
        if node.ply > 0 and draw_by_rule(node.board):
            node.evaluation, node.children = 0, []
            return
        if levels == 0:
            if node.evaluation is None:
                node.evaluation = white_to_side(self.evaluator.evaluate(node.board),
                                                chess.WHITE, node.ply)
            return
        if not node.children:
            for move in node.board.legal_moves:
                child_board = node.board.copy(stack=False)
                san = child_board.san(move)
                child_board.push(move)
                node.children.append(TreeNode(child_board, move, san, node.ply + 1))
                self.built += 1
            if not node.children:
                node.evaluation = _no_moves_value(node.board, node.ply)
                return
        node.evaluation = None
        for child in node.children:
            self._grow(child, levels - 1)

    # ------------------------------------------------------------ deciding
    def minimax(self):
        """(move, path): the move to play and the chosen path of nodes (root first)."""
        for node in self.nodes():
            node.bound = "exact"              # minimax's values are all exact
        self._back_up(self.root)
        path = [self.root]
        while path[-1].children:
            node = path[-1]
            path.append(next(c for c in node.children if c.value == node.value))
        move = path[1].move if len(path) > 1 else None
        return move, path

    def _back_up(self, node: TreeNode):
        """Minimax: White picks the largest child value, Black the smallest."""
        if not node.children:
            node.value = node.evaluation
            return node.value
        values = [self._back_up(child) for child in node.children]
        node.value = max(values) if node.board.turn == chess.WHITE else min(values)
        return node.value

    def alphabeta(self):
        """(move, visited): minimax's answer, looking at as few nodes as possible.

        The teaching alpha-beta (``teaching.alphabeta_minmax``, White maximising) on this
        tree. Marks every node ``visited`` or not, so a drawing can grey out what
        alpha-beta pruned; ``value`` is exact on the chosen path and elsewhere a bound
        (``bound``: "upper" for at most, "lower" for at least).
        """
        for node in self.nodes():
            node.visited = False
        log = []
        alphabeta_minmax(self.root, lambda node: node.children,
                         lambda node: node.evaluation,
                         lambda node: node.board.turn == chess.WHITE, log=log)
        for entry in log:
            node = entry["node"]
            node.visited, node.value, node.bound = True, entry["value"], entry["bound"]
        best = next((c.move for c in self.root.children if c.value == self.root.value), None)
        visited = sum(1 for node in self.nodes() if node.visited)
        return best, visited              # no move (None) when the game is over at the root

    def nodes(self, node=None):
        """Every node of the subtree under ``node`` (default: the whole tree), root first."""
        node = self.root if node is None else node
        yield node
        for child in node.children:
            yield from self.nodes(child)

    # ------------------------------------------------------------ reuse
    def advance(self, *moves: chess.Move) -> bool:
        """Play ``moves`` (ours and the reply); keep the subtree if the tree has it.

        Returns True when a subtree was reused, False when the tree was regenerated.
        """
        node = self.root
        board = self.root.board.copy(stack=False)
        for move in moves:
            if move not in board.legal_moves:
                raise ValueError(f"illegal move {move} in {board.fen()}")
            board.push(move)
            if node is not None:
                node = next((c for c in node.children if c.move == move), None)
        if node is None:
            self.reused = 0
            self.regenerations += 1
            self.root = self._new_root(board.copy(stack=False))
            return False
        self.reused = node.size()
        self._rebase(node, 0)
        node.move = node.san = None
        self.root = node
        self._grow(node, self.depth)
        return True

    def _rebase(self, node: TreeNode, ply: int):
        """Plies count from the new root (mate distances are measured from there)."""
        node.ply = ply
        if not node.children:
            node.evaluation = None  # re-scored (mate distances changed) when regrown
        for child in node.children:
            self._rebase(child, ply + 1)

    def size(self) -> int:
        return self.root.size()

