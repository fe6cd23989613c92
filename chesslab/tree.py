"""The thesis's decision system: an explicit game tree, minimax over it, and reuse.

A ``Node`` holds a board, the move that led to it, the evaluator's verdict on it and
its children. ``GameTree`` builds the nodes recursively down to a depth limit
(default 3), runs minimax over them and returns the move to play with the chosen path.
After our move and the opponent's reply, the node of the new position is looked up:
if the tree has it, its subtree is kept and grown back to the depth limit; otherwise
the tree is regenerated (the thesis's three-step cycle). Counters say how much was
reused.

Values are centipawns from White's point of view (White maximises, Black minimises).
The rules at the nodes are those of ``chesslab.search`` (a mate found ``ply`` plies
down scores ``MATE - ply``; 50-move rule and insufficient material are draws), so
``search(..., algorithm="minimax")`` gives the same answer without keeping a tree.
"""
from __future__ import annotations

import math

import chess

from chesslab.encoding import as_board
from chesslab.game import draw_by_rule, outcome
from chesslab.search import MATE, white_to_side


class Node:
    """One position of the tree."""

    __slots__ = ("board", "move", "san", "evaluation", "value", "children", "ply",
                 "visited")

    def __init__(self, board: chess.Board, move=None, san=None, ply=0):
        self.board = board          # a private copy (no move stack)
        self.move = move            # the move that led here (None at the root)
        self.san = san              # the same move in SAN, for drawings
        self.evaluation = None      # the evaluator's value (leaves) or terminal value
        self.value = None           # the minimax value, once computed
        self.children = []
        self.ply = ply              # distance from the root the tree was built from
        self.visited = True         # False: alpha-beta never looked at this node

    def size(self) -> int:
        """Nodes in this subtree, this one included."""
        return 1 + sum(child.size() for child in self.children)

    def __repr__(self):
        return (f"Node({self.san or 'root'}, value={self.value}, "
                f"children={len(self.children)})")


def _no_moves_value(board: chess.Board, ply: int) -> int:
    """White-view value of a position without legal moves (``chesslab.game.outcome``):
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
        root = Node(board)
        self.built += 1
        self._grow(root, self.depth)
        return root

    def _grow(self, node: Node, levels: int):
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
                node.children.append(Node(child_board, move, san, node.ply + 1))
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
        self._back_up(self.root)
        path = [self.root]
        while path[-1].children:
            node = path[-1]
            path.append(next(c for c in node.children if c.value == node.value))
        move = path[1].move if len(path) > 1 else None
        return move, path

    def _back_up(self, node: Node):
        """Minimax: White picks the largest child value, Black the smallest."""
        if not node.children:
            node.value = node.evaluation
            return node.value
        values = [self._back_up(child) for child in node.children]
        node.value = max(values) if node.board.turn == chess.WHITE else min(values)
        return node.value

    def alphabeta(self):
        """(move, visited): minimax's answer, looking at as few nodes as possible.

        Marks every node ``visited`` or not, so a drawing can grey out what alpha-beta
        pruned; ``value`` is exact on the chosen path and a bound elsewhere.
        """
        def mark(node, seen):
            node.visited = seen
            for child in node.children:
                mark(child, False)

        def visit(node, alpha, beta):
            node.visited = True
            if not node.children:
                node.value = node.evaluation
                return node.value
            white = node.board.turn == chess.WHITE
            best = -math.inf if white else math.inf
            for child in node.children:
                value = visit(child, alpha, beta)
                if white:
                    best, alpha = max(best, value), max(alpha, value)
                else:
                    best, beta = min(best, value), min(beta, value)
                if alpha >= beta:
                    break  # the opponent already has something better: skip the rest
            node.value = best
            return best

        mark(self.root, True)
        visit(self.root, -math.inf, math.inf)
        best = next(c for c in self.root.children if c.value == self.root.value)
        visited = sum(1 for _ in self._nodes(self.root) if _.visited)
        return best.move, visited

    def _nodes(self, node):
        yield node
        for child in node.children:
            yield from self._nodes(child)

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

    def _rebase(self, node: Node, ply: int):
        """Plies count from the new root (mate distances are measured from there)."""
        node.ply = ply
        if not node.children:
            node.evaluation = None  # re-scored (mate distances changed) when regrown
        for child in node.children:
            self._rebase(child, ply + 1)

    def size(self) -> int:
        return self.root.size()


# ---------------------------------------------------------------- drawing
_GLYPHS = {"K": "\u2654", "Q": "\u2655", "R": "\u2656", "B": "\u2657", "N": "\u2658",
           "P": "\u2659", "k": "\u265a", "q": "\u265b", "r": "\u265c", "b": "\u265d",
           "n": "\u265e", "p": "\u265f"}


def draw_board(ax, board: chess.Board, x: float, y: float, size: float,
               points_per_unit: float = 72.0, light="#f0d9b5", dark="#b58863",
               alpha: float = 1.0):
    """A small board with its lower-left corner at (x, y) on matplotlib axes ``ax``.

    ``points_per_unit``: how many typographic points one data unit spans (sets the
    piece size).
    """
    from matplotlib.patches import Rectangle

    cell = size / 8
    for square in chess.SQUARES:
        file, rank = chess.square_file(square), chess.square_rank(square)
        color = light if (file + rank) % 2 else dark
        ax.add_patch(Rectangle((x + file * cell, y + rank * cell), cell, cell,
                               facecolor=color, edgecolor="none", alpha=alpha))
        piece = board.piece_at(square)
        if piece:
            ax.text(x + (file + 0.5) * cell, y + (rank + 0.45) * cell,
                    _GLYPHS[piece.symbol()], ha="center", va="center",
                    fontsize=cell * points_per_unit * 0.9, color="black", alpha=alpha)
    ax.add_patch(Rectangle((x, y), size, size, facecolor="none", edgecolor="#333333",
                           linewidth=0.8))


def _format_value(value):
    if value is None:
        return "?"
    if abs(value) >= MATE - 1000:
        plies = MATE - abs(value)
        return f"{'+' if value > 0 else '-'}M{(plies + 1) // 2}"
    return f"{value:+.0f}"


def draw_fragment(tree: GameTree, levels: int = 2, width: int = 3, ax=None,
                  best_first: bool = True):
    """The thesis's figure "Game tree fragment": boards at nodes, moves on edges, values.

    Shows ``width`` children per node (the minimax choice first and highlighted, or
    the first ones in move order with ``best_first=False``), down to ``levels``
    plies. Nodes alpha-beta did not visit (after ``tree.alphabeta()``) are faded.
    Calls ``tree.minimax()`` first if no values are filled in yet.
    """
    import matplotlib.pyplot as plt

    if tree.root.value is None:
        tree.minimax()
    leaves = width ** levels
    board_size, gap = 0.85, 1.75  # board width and level spacing, in leaf slots
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6.0, 1.3 * leaves), 2.4 * (levels + 1)))
    x_range, y_range = leaves + 0.2, levels * gap + 0.6 + board_size
    fig_w, fig_h = ax.figure.get_size_inches()
    box = ax.get_position()
    points_per_unit = 72 * min(fig_w * box.width / x_range, fig_h * box.height / y_range)

    def shown(node):
        if not best_first:
            return node.children[:width]
        best = [c for c in node.children if c.value == node.value][:1]
        rest = [c for c in node.children if c not in best]
        return (best + rest)[:width]

    def place(node, level, left, right, on_path):
        cx, cy = (left + right) / 2, -level * gap
        draw_board(ax, node.board, cx - board_size / 2, cy, board_size, points_per_unit,
                   alpha=1.0 if node.visited else 0.25)
        label = _format_value(node.value) if node.visited else "pruned"
        ax.text(cx, cy - 0.08, label, ha="center", va="top",
                fontsize=9, fontweight="bold" if on_path else "normal",
                color="#c0392b" if on_path else ("black" if node.visited else "#999999"))
        if level == levels:
            return
        children = shown(node)
        span = (right - left) / max(1, len(children))
        chosen = next((c for c in node.children if c.value == node.value), None)
        for i, child in enumerate(children):
            c_left = left + i * span
            child_x, child_y = c_left + span / 2, -(level + 1) * gap + board_size
            best = on_path and child.visited and child is chosen
            ax.plot([cx, child_x], [cy - 0.3, child_y + 0.02],
                    color="#c0392b" if best else "#888888", linewidth=2 if best else 1)
            ax.text((cx + child_x) / 2, (cy - 0.3 + child_y) / 2, child.san, fontsize=8,
                    ha="center", va="center",
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="white",
                              edgecolor="none"))
            place(child, level + 1, c_left, c_left + span, best)

    place(tree.root, 0, 0, leaves, True)
    ax.set_xlim(-0.1, leaves + 0.1)
    ax.set_ylim(-levels * gap - 0.5, board_size + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
