"""See the search think: step through a recorded search of a real position.

``explore_search`` records one search of the package's searcher
(``chesslab.search.recording``: the real search, written down as it runs) and replays it
step by step: each step enters a node or leaves it. The tree is drawn around the node in
view: the path from the root, at each level the siblings near the path (the others
collapsed into one box), the children searched so far, and the moves a cut-off pruned
(greyed, with how many positions a full-width search would have visited there). A node
shows its move, its window (alpha, beta) on entry and its value and bound on exit; the
panel beside shows its board, its path and why it ended. Scores are negamax scores: for
the side to move at that node (the parent sees minus them).

Buttons: Back, Step, Step over (to the end of the node in view), Run to end, Restart;
the node buttons under the tree select a node (its path, its children). The methods
``step``, ``back``, ``step_over``, ``run_to_end``, ``restart`` and ``select`` do the
same from code. ``explore_mcts`` is in ``chesslab.widgets.mcts_explorer``.
"""
from __future__ import annotations

import bisect
import html
import math

import chess
import chess.svg
import ipywidgets as widgets

from chesslab.board.encoding import as_board
from chesslab.board.scores import MATE, MATE_THRESHOLD
from chesslab.search.recording import REASONS, record_search
from chesslab.widgets.controls import action_button
from chesslab.widgets.tree_drawing import Box, tree_svg, window_of

ROW = 7             # boxes per level before the siblings collapse
LEVELS = 6          # levels drawn (the path's top is collapsed into a note beyond)
NODE_BUTTONS = 14   # clickable nodes under the tree (path and children)
SAVED_BUDGET = 3000  # positions counted for a pruned branch before saying "more than"

SHORT = {"leaf": "leaf", "stand pat": "stand pat", "captures": "captures",
         "cutoff": "cut-off", "all moves": "all", "tt": "TT hit", "draw": "draw",
         "mate": "mate", "stalemate": "stalemate", "futility": "futile",
         "reverse futility": "rev. futility", "null move": "null cut",
         "root": "best"}


def format_value(value) -> str:
    """A negamax score as text: +35, -120, +inf, M3 (mates in plies from the root)."""
    if value is None:
        return "?"
    if math.isinf(value):
        return "+\u221e" if value > 0 else "\u2212\u221e"
    if abs(value) >= MATE_THRESHOLD:
        return f"{'+' if value > 0 else '-'}M{MATE - abs(value):.0f}"
    return f"{value:+.0f}"


class SearchExplorer(widgets.VBox):
    """A recorded search (``record``) replayed step by step; see the module docstring."""

    def __init__(self, record, title: str = ""):
        self.record = record
        self.position = 1                     # steps applied: the root is entered
        self.selected = 0
        entered, count = [], 0
        for kind, _ in record.steps:
            count += kind == "enter"
            entered.append(count)
        self._entered = entered
        self._saved = {}
        self._cutoff_exits = sorted(n.exit_step for n in record.cutoffs())
        self._san = {}

        self.buttons = [
            action_button("\u25c0 Back", self.back, "chesslab-explore-back",
                          "take the last step back"),
            action_button("Step \u25b6", self.step, "chesslab-explore-step",
                   "enter the next node or leave the current one"),
            action_button("Step over", self.step_over, "chesslab-explore-over",
                   "finish the node in view: its whole subtree"),
            action_button("Run to end", self.run_to_end, "chesslab-explore-end",
                   "the finished search"),
            action_button("Restart", self.restart, "chesslab-explore-restart", "back to the root"),
        ]
        self.status = widgets.HTML()
        self.status.add_class("chesslab-explore-status")
        self.tree = widgets.HTML()
        self.tree.add_class("chesslab-explore-tree")
        self.board_view = widgets.HTML()
        self.info = widgets.HTML(layout=widgets.Layout(width="300px"))
        self.info.add_class("chesslab-explore-info")
        self.node_buttons = []
        for _ in range(NODE_BUTTONS):
            b = widgets.Button(layout=widgets.Layout(width="auto", display="none"))
            b.add_class("chesslab-node-button")
            b.on_click(lambda b: self.select(b._node))
            b._node = 0
            self.node_buttons.append(b)
        heading = widgets.HTML(f"<b>{html.escape(title or self.describe())}</b>")
        super().__init__([heading, widgets.HBox(self.buttons), self.status, self.tree,
                          widgets.HBox(self.node_buttons,
                                       layout=widgets.Layout(flex_flow="row wrap")),
                          widgets.HBox([self.board_view, self.info])])
        self.add_class("chesslab-search-explorer")
        self._refresh()

    def __repr__(self):
        return f"SearchExplorer({self.describe()}, step {self.position}/{len(self.record.steps)})"

    def describe(self) -> str:
        r = self.record
        switches = "".join(f", {k}={v}" for k, v in r.switches.items())
        plural = "" if len(r.nodes) == 1 else "s"
        return (f"{r.algorithm} depth {r.depth}{switches}: {len(r.nodes)} position{plural}, "
                f"{len(r.cutoffs())} cut-offs, best {r.board.san(r.result.move) if r.result.move else '-'}")

    def node_text(self, index: int) -> str:
        """One node as a line of text: its path, window, value, bound and why it ended."""
        node = self.record.nodes[index]
        path = " ".join(self._move_text(n) for n in self.record.path(index)[1:]) or "root"
        lines = self._lines(node)
        if not self._done(node):
            return f"{path}  {lines[1]}  searching"
        why = REASONS[node.reason]
        if node.refutation is not None and node.parent is not None:
            why += f" by {self._move_text(self.record.nodes[node.children[-1]]).split(' (')[0]}"
        return f"{path}  {lines[1]}  {self._value_text(node)}  ({why})"

    def line(self) -> str:
        """The step just taken, as text (what the status and the tree show)."""
        kind, index = self.record.steps[self.position - 1]
        verb = "enter" if kind == "enter" else "leave"
        return f"step {self.position}: {verb} {self.node_text(index)}"

    # ------------------------------------------------------------ stepping
    @property
    def current(self) -> int:
        """The node of the last step taken."""
        return self.record.steps[self.position - 1][1]

    @property
    def visited(self) -> int:
        """Positions entered so far."""
        return self._entered[self.position - 1]

    def goto(self, position: int) -> None:
        self.position = max(1, min(int(position), len(self.record.steps)))
        self.selected = self.current
        self._refresh()

    def step(self):
        self.goto(self.position + 1)

    def back(self):
        self.goto(self.position - 1)

    def run_to_end(self):
        self.goto(len(self.record.steps))

    def restart(self):
        self.goto(1)

    def step_over(self):
        """Finish the node in view (its subtree); if it is finished, take one step."""
        node = self.record.nodes[self.selected]
        if node.exit_step >= self.position:
            self.goto(node.exit_step + 1)
        else:
            self.step()

    def select(self, index: int):
        """Show node ``index`` (entered already) without moving the search."""
        if self.record.nodes[index].enter_step < self.position:
            self.selected = index
            self._refresh()

    # ------------------------------------------------------------ state at this step
    def _seen(self, node) -> bool:
        return node.enter_step < self.position

    def _done(self, node) -> bool:
        return node.exit_step < self.position

    def _children(self, node) -> list:
        nodes = self.record.nodes
        return [nodes[c] for c in node.children if nodes[c].enter_step < self.position]

    def _move_text(self, node) -> str:
        if node.parent is None:
            return "root"
        text = self._san.get(node.index)
        if text is None:
            move = node.move
            if move == chess.Move.null():
                text = "null move"
            else:
                text = self.record.board_at(node.parent).san(move)
            if node.kind == "quiesce":
                text += " (q)"
            self._san[node.index] = text
        return text

    def _style(self, node) -> str:
        if node.index == self.selected:
            return "selected"
        if node.index == self.current:
            return "current"
        if not self._done(node):
            return "open"
        if node.reason in ("cutoff", "null move"):
            return "cutoff"
        if node.reason == "tt":
            return "tt"
        if node.kind == "quiesce" or node.quiescence:
            return "quiesce"
        return "done"

    def _lines(self, node) -> list:
        if node.alpha is None:
            window = "not searched"
        else:
            window = f"[{format_value(node.alpha)}, {format_value(node.beta)}]"
        if not self._done(node):
            return [self._move_text(node), window, "..."]
        if node.reason == "futility":
            return [self._move_text(node), window, "futile"]
        why = SHORT.get(node.reason, node.reason)
        if node.reason == "cutoff" and node.parent is not None:    # name the refutation
            why = "by " + self._move_text(self.record.nodes[node.children[-1]]).split(" (")[0]
        return [self._move_text(node), window, f"{self._value_text(node)} {why}"]

    @staticmethod
    def _value_text(node) -> str:
        sign = {"lower": "\u2265", "upper": "\u2264", "exact": "="}[node.bound]
        return f"{sign} {format_value(node.value)}"

    def _pruned_box(self, node, parent_key):
        pruned = self.record.pruned_moves(node.index)
        if not pruned:
            return None
        saved, exact = self.saved(node.index)
        return Box(f"pruned{node.index}",
                   [f"{len(pruned)} pruned", "saved", f"{saved}" if exact else f">{saved}"],
                   "pruned", parent_key)

    def saved(self, index: int) -> tuple:
        """(positions, exact) a full-width search would visit below the pruned moves."""
        if index not in self._saved:
            self._saved[index] = self.record.saved(index, SAVED_BUDGET)
        return self._saved[index]

    def _row(self, parent, on_path):
        """The boxes under ``parent``: siblings near ``on_path`` (a node, or None for the
        last child seen), the rest collapsed, then the pruned moves of a cut-off."""
        children = self._children(parent)
        keep = children.index(on_path) if on_path in children else len(children) - 1
        first, last = window_of(children, keep, ROW)
        row = []
        if first:
            row.append(Box(f"left{parent.index}", [f"+{first} more", "", ""], "collapsed",
                           parent.index))
        row += [Box(c.index, self._lines(c), self._style(c), parent.index)
                for c in children[first:last]]
        if last < len(children):
            row.append(Box(f"right{parent.index}", [f"+{len(children) - last} more", "", ""],
                           "collapsed", parent.index))
        if self._done(parent) and parent.reason == "cutoff":
            pruned = self._pruned_box(parent, parent.index)
            if pruned is not None:
                row.append(pruned)
        return row

    def tree_levels(self):
        """The levels drawn now: the selected node's path, rows around it, its children."""
        path = self.record.path(self.selected)
        top = max(0, len(path) - LEVELS)
        shown = path[top:]
        levels = [[Box(shown[0].index, self._lines(shown[0]), self._style(shown[0]))]]
        for parent, child in zip(shown, shown[1:]):
            levels.append(self._row(parent, child))
        below = self._row(path[-1], None)
        if below:
            levels.append(below)
        note = f"{top} levels above not drawn" if top else ""
        return levels, note

    # ------------------------------------------------------------ drawing
    def _refresh(self):
        r = self.record
        kind, index = r.steps[self.position - 1]
        verb = "entered" if kind == "enter" else "left"
        cutoffs = bisect.bisect_left(self._cutoff_exits, self.position)
        self.status.value = (
            f"step {self.position}/{len(r.steps)}: {verb} {html.escape(self._move_text(r.nodes[index]))}"
            f" &middot; positions visited {self.visited}/{len(r.nodes)}"
            f" &middot; cut-offs {cutoffs}")
        levels, note = self.tree_levels()
        self.tree.value = tree_svg(levels, note)
        self._show_node(r.nodes[self.selected])
        self._node_buttons()

    def _show_node(self, node):
        r = self.record
        board = r.board_at(node.index)
        arrows = []
        if node.refutation is not None and self._done(node) and node.refutation != chess.Move.null():
            arrows = [chess.svg.Arrow(node.refutation.from_square, node.refutation.to_square)]
        last = node.move if node.move and node.move != chess.Move.null() else None
        self.board_view.value = chess.svg.board(board, size=240, lastmove=last, arrows=arrows)
        moves = r.moves_to(node.index)
        line = r.board.variation_san(moves) if moves and chess.Move.null() not in moves else \
            " ".join(m.uci() for m in moves)
        rows = [("path", line or "(the root)"),
                ("side to move", "White" if board.turn else "Black"),
                ("depth left", node.depth if node.depth is not None else
                 "-" if node.reason == "futility" else "quiescence"),
                ("window on entry", self._lines(node)[1])]
        if node.reason == "futility" and self._done(node):
            rows.append(("why it ended", REASONS["futility"]))
        elif self._done(node):
            rows.append(("value on exit", f"{format_value(node.value)} ({node.bound})"))
            reason = REASONS.get(node.reason, node.reason)
            if node.refutation is not None and node.parent is not None:
                reason += f" by {board.san(node.refutation)}"
            elif node.reason == "root" and node.refutation is not None:
                reason += f": {board.san(node.refutation)}"
            rows.append(("why it ended", reason))
            if node.static is not None:
                rows.append(("evaluator", format_value(node.static)))
            pruned = r.pruned_moves(node.index)
            if pruned:
                saved, exact = self.saved(node.index)
                names = " ".join(board.san(m) for m in pruned[:8]) + (" ..." if len(pruned) > 8 else "")
                rows.append(("pruned", f"{len(pruned)} moves ({names}); a full-width search "
                                       f"visits {'' if exact else 'more than '}{saved} "
                                       f"positions there"))
        else:
            rows.append(("value", "being searched"))
        rows.append(("children so far", len(self._children(node))))
        cells = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(str(v))}</td></tr>"
                        for k, v in rows)
        self.info.value = (f"<table style='font-size:12px'>{cells}</table>"
                           "<div style='color:#777;font-size:11px'>scores are for the side "
                           "to move at this node</div>")

    def _node_buttons(self):
        node = self.record.nodes[self.selected]
        path = self.record.path(node.index)[:-1][-4:]
        targets = [(p, "\u2191 ") for p in path] + [(c, "\u2193 ") for c in self._children(node)]
        targets = targets[:NODE_BUTTONS]
        for b, (target, arrow) in zip(self.node_buttons, targets):
            b.description = arrow + self._move_text(target)
            b._node = target.index
            b.layout.display = "flex"
        for b in self.node_buttons[len(targets):]:
            b.layout.display = "none"


def explore_search(board, evaluator="material", depth: int = 3, algorithm: str = "alphabeta",
                   **switches) -> SearchExplorer:
    """An explorer of one search of ``board``: step through the tree the package's
    searcher searched (see the module docstring).

    ``board`` is a ``chess.Board`` or a FEN; ``evaluator`` an evaluator or its name;
    ``algorithm`` "minimax", "alphabeta" or "full", and ``switches`` the full search's
    (``ordering=False``, ``quiescence=True``, ...): replay the same position with and
    without one and compare the counts.
    """
    record = record_search(as_board(board), evaluator, depth=depth, algorithm=algorithm,
                           **switches)
    return SearchExplorer(record)
