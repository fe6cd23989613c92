"""Watch MCTS choose: one simulation at a time, the tree and the root's visits live.

``explore_mcts`` steps the package's MCTS (``chesslab.search.mcts_recording``: the real
search, one simulation per step) and shows what a simulation does: the selection path
with Q, U, the prior P and the visits N of each edge as PUCT saw them, the leaf (expanded
with the network's value, or an exact end of the game), and the backup, whose sign flips
at every ply. Beside it: the root's moves as bars of visits with their Q, and the tree to
a chosen depth, edge width by visits (the most visited children of each node; the last
simulation's path highlighted). Back takes the last simulation back.
"""
from __future__ import annotations

import html

import chess
import chess.svg
import ipywidgets as widgets

from chesslab.board.encoding import as_board
from chesslab.search.mcts import shipped_network, uniform_evaluate
from chesslab.search.mcts_recording import RecordingMCTS, root_table
from chesslab.widgets.controls import action_button
from chesslab.widgets.tree_drawing import Box, bars_svg, edge_width, tree_svg

BARS = 10                           # root moves drawn as bars
LEVEL_WIDTH = 8                     # most visited edges drawn per level


class MCTSExplorer(widgets.VBox):
    """``recorder`` (a ``RecordingMCTS`` started on a board) stepped by buttons; see the
    module docstring. ``simulations`` is where "Run to" stops."""

    def __init__(self, recorder: RecordingMCTS, simulations: int = 200, depth: int = 2,
                 title: str = ""):
        self.recorder, self.simulations = recorder, int(simulations)

        self.batch = widgets.BoundedIntText(value=10, min=1, max=10_000, description="N",
                                            style={"description_width": "20px"},
                                            layout=widgets.Layout(width="110px"))
        self.depth = widgets.IntSlider(value=depth, min=1, max=5, description="tree depth",
                                       continuous_update=False)
        self.depth.observe(lambda _: self._refresh(), names="value")
        self.buttons = [
            action_button("\u25c0 Back", self.back, "chesslab-mcts-back",
                          "take the last simulation back"),
            action_button("Step \u25b6", self.step, "chesslab-mcts-step", "one simulation"),
            action_button("Run N", lambda: self.run(self.batch.value), "chesslab-mcts-run",
                   "N simulations"),
            action_button(f"Run to {self.simulations}", self.run_to_end, "chesslab-mcts-end",
                   "simulations up to the total"),
            action_button("Restart", self.restart, "chesslab-mcts-restart", "an empty tree"),
        ]
        self.status = widgets.HTML()
        self.status.add_class("chesslab-mcts-status")
        self.path_view = widgets.HTML(layout=widgets.Layout(width="430px"))
        self.path_view.add_class("chesslab-mcts-path")
        self.bars = widgets.HTML()
        self.board_view = widgets.HTML()
        self.tree = widgets.HTML()
        self.tree.add_class("chesslab-mcts-tree")
        heading = widgets.HTML(f"<b>{html.escape(title or 'MCTS, one simulation at a time')}</b>")
        super().__init__([heading, widgets.HBox(self.buttons + [self.batch]), self.status,
                          widgets.HBox([self.board_view, self.path_view]),
                          widgets.HBox([self.bars, self.depth]), self.tree])
        self.add_class("chesslab-mcts-explorer")
        self._refresh()

    def __repr__(self):
        return f"MCTSExplorer({self.done} of {self.simulations} simulations)"

    @property
    def done(self) -> int:
        return len(self.recorder.simulations_run)

    @property
    def board(self) -> chess.Board:
        return self.recorder.board

    # ------------------------------------------------------------ actions
    def step(self):
        self.recorder.step()
        self._refresh()

    def run(self, n: int):
        self.recorder.run(n)
        self._refresh()

    def run_to_end(self):
        self.run(max(0, self.simulations - self.done))

    def back(self):
        self.recorder.undo()
        self._refresh()

    def restart(self):
        self.recorder.start(self.board)
        self._refresh()

    # ------------------------------------------------------------ drawing
    def _refresh(self):
        rows = root_table(self.recorder)
        best = rows[0]
        sims = self.recorder.simulations_run
        self.status.value = (f"simulations {self.done} (run to {self.simulations}) &middot; most "
                             f"visited {html.escape(self.board.san(best[0]))} N={best[1]} "
                             f"Q={best[2]:+.3f}")
        last = sims[-1] if sims else None
        self.path_view.value = self.simulation_html(last)
        first = last.path[0].move if last and last.path else None
        most = max(rows[0][1], 1)
        self.bars.value = bars_svg(
            [(self.board.san(m), n / most, f"N={n} Q={q:+.2f} P={p:.2f}", m == first)
             for m, n, q, p in rows[:BARS]], title="root moves: visits (bar), Q, prior", width=420)
        arrows = []
        if last is not None:
            for i, edge in enumerate(last.path[:4]):
                arrows.append(chess.svg.Arrow(edge.move.from_square, edge.move.to_square,
                                              color="#e67e22" if i == 0 else "#4a78c2"))
        self.board_view.value = chess.svg.board(self.board, size=240, arrows=arrows)
        self.tree.value = tree_svg(self.tree_levels(), "edge width: visits; Q for the player who makes the move")

    def simulation_html(self, sim) -> str:
        """The last simulation: selection, leaf, backup (HTML table)."""
        if sim is None:
            return "<i>no simulation yet: press Step</i>"
        board = self.board.copy()
        rows = []
        for ply, edge in enumerate(sim.path):
            san = board.san(edge.move)
            board.push(edge.move)
            rows.append(f"<tr><td>{ply + 1}</td><td><b>{html.escape(san)}</b></td>"
                        f"<td>{int(edge.visits)}</td><td>{edge.prior:.3f}</td>"
                        f"<td>{edge.q:+.3f}</td><td>{edge.u:.3f}</td>"
                        f"<td>{edge.q + edge.u:.3f}</td><td>{edge.backed:+.3f}</td></tr>")
        side = "White" if board.turn else "Black"
        if sim.leaf == "expanded":
            leaf = (f"expanded: {sim.expanded_moves} moves get priors; the network's value "
                    f"{sim.value:+.3f} for {side} (to move there)")
        else:
            leaf = f"the game is over there: exact value {sim.value:+.3f} for {side}"
        head = "".join(f"<th>{h}</th>" for h in ("ply", "move", "N", "P", "Q", "U", "Q+U",
                                                  "backup"))
        return (f"<div><b>simulation {sim.number}</b>: selection (statistics before it)</div>"
                f"<table style='font-size:12px;text-align:right'><tr>{head}</tr>"
                f"{''.join(rows)}</table><div>{html.escape(leaf)}</div>"
                "<div style='color:#777;font-size:11px'>backup: the leaf's value, its sign "
                "flipped at each ply up (each edge gets it for the player who moved)</div>")

    def text(self) -> str:
        """The last simulation as text: each edge (N, P, Q, U before it; the backup), the leaf."""
        sims = self.recorder.simulations_run
        if not sims:
            return "no simulation yet"
        sim, board, lines = sims[-1], self.board.copy(), []
        for edge in sim.path:
            lines.append(f"  {board.san(edge.move):7} N={int(edge.visits):<3d} P={edge.prior:.3f} "
                         f"Q={edge.q:+.3f} U={edge.u:.3f}  backup {edge.backed:+.3f}")
            board.push(edge.move)
        leaf = ("expanded, network value" if sim.leaf == "expanded" else "game over, exact value")
        side = "White" if board.turn else "Black"
        return "\n".join([f"simulation {sim.number}:"] + lines +
                         [f"  leaf: {leaf} {sim.value:+.3f} for {side}"])

    def tree_levels(self):
        """Levels of boxes: the root, then the most visited children to the chosen depth."""
        root = self.recorder.root
        total = max(float(root.N.sum()), 1.0)
        sims = self.recorder.simulations_run
        hot = set()
        if sims:
            hot = {(id(e.node), e.index) for e in sims[-1].path}
        levels = [[Box(id(root), ["root", f"N={int(total) if sims else 0}", ""], "selected")]]
        frontier = [(root, self.board.copy())]
        for _ in range(self.depth.value):
            edges = []      # (visits, parent's place, move index, node, board)
            for place, (node, board) in enumerate(frontier):
                if node.expanded:
                    edges += [(node.N[a], place, a, node, board)
                              for a in range(len(node.moves)) if node.N[a] > 0]
            edges.sort(key=lambda e: (-e[0], e[1], e[2]))
            kept = edges[:LEVEL_WIDTH]
            kept += [e for e in edges[LEVEL_WIDTH:] if (id(e[3]), e[2]) in hot]
            if not kept:
                break
            kept.sort(key=lambda e: (e[1], -e[0], e[2]))     # under their parents
            row, frontier = [], []
            for visits, _, a, node, board in kept:
                move, child = node.moves[a], node.children[a]
                style = "current" if (id(node), a) in hot else "done"
                key = id(child) if child is not None else f"{id(node)}-{a}"
                row.append(Box(key, [board.san(move), f"N={int(visits)}",
                                     f"Q={node.q()[a]:+.2f}"], style, id(node),
                               edge_width(visits, total)))
                if child is not None:
                    after = board.copy(stack=False)
                    after.push(move)
                    frontier.append((child, after))
            levels.append(row)
        return levels


def explore_mcts(board, simulations: int = 200, net=None, *, c_puct: float = 1.5,
                 depth: int = 2, seed: int = 0) -> MCTSExplorer:
    """An explorer of MCTS on ``board`` (a ``chess.Board`` or a FEN), one simulation at a
    time up to ``simulations``.

    ``net`` is a policy-value network (``chesslab.search.mcts.shipped_network()`` when
    None) or "uniform": equal priors and value 0, the search without any knowledge.
    """
    if simulations < 1:
        raise ValueError(f"simulations must be at least 1, not {simulations}")
    if net is None:
        net = shipped_network()
    elif isinstance(net, str):
        if net != "uniform":
            raise ValueError(f"net is a policy-value network, None (the shipped one) or "
                             f"'uniform', not {net!r}")
        net = uniform_evaluate
    recorder = RecordingMCTS(net, c_puct=c_puct, seed=seed)
    recorder.start(as_board(board))
    return MCTSExplorer(recorder, simulations, depth)
