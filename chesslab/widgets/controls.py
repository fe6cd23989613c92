"""The controls around the board: who plays each side, Stockfish's level, and the
explanation panel's HTML.

``SideSelector`` turns "White: [pst] depth [3] s/move [0]" into a ``make_player`` spec,
``StockfishLevel`` a skill level or an Elo into a Stockfish spec, ``explanation_html``
an AI's decision into its candidates, scores and expected line. ``chesslab.widgets.boards``
puts them beside the board.
"""
from __future__ import annotations

import html

import chess
import ipywidgets as widgets

from chesslab.evaluators.registry import EVALUATORS, is_available
from chesslab.board.scores import format_score
from chesslab.matches.specs import (MAX_DEPTH, SEARCH_ALGORITHMS, STOCKFISH_SECONDS, STOCKFISH_SKILL, format_spec,
                                    max_depth, parse_spec, stockfish_spec)
from chesslab.widgets.controller import HUMAN
from chesslab.base.stockfish import find_stockfish


#: The board's look: square size, piece glyphs, square marks and the CSS for them.
SQUARE_PX = 46
GLYPHS = {p: chess.UNICODE_PIECE_SYMBOLS[chess.piece_symbol(p)] + "\ufe0e"
           for p in chess.PIECE_TYPES}   # filled glyphs; CSS colours them
MARK_CLASSES = {"selected": "chesslab-selected", "target": "chesslab-target",
                 "last": "chesslab-last", "check": "chesslab-check"}

BOARD_CSS = f"""<style>
.chesslab-sq {{ font-size: 34px !important; line-height: {SQUARE_PX - 2}px !important;
  padding: 0 !important; margin: 0 !important; border-radius: 0 !important;
  box-shadow: none !important; font-family: 'DejaVu Sans', sans-serif !important; }}
.chesslab-light {{ background-color: #f0d9b5 !important; }}
.chesslab-dark {{ background-color: #b58863 !important; }}
.chesslab-last.chesslab-light {{ background-color: #cdd26a !important; }}
.chesslab-last.chesslab-dark {{ background-color: #aaa23a !important; }}
.chesslab-selected {{ background-color: #7fa650 !important; }}
.chesslab-target {{ background-image: radial-gradient(circle, rgba(20,85,30,.55) 18%,
  transparent 20%) !important; }}
.chesslab-target.chesslab-occupied {{ background-image: radial-gradient(circle,
  transparent 64%, rgba(20,85,30,.55) 66%) !important; }}
.chesslab-check {{ background-image: radial-gradient(circle, #ff3030 0%, #e00000 30%,
  rgba(169,0,0,0) 85%) !important; }}
.chesslab-white-piece {{ color: #fff !important; -webkit-text-stroke: 1.2px #222;
  text-shadow: 0 1px 1px #000; }}
.chesslab-black-piece {{ color: #111 !important; }}
.chesslab-thinking .chesslab-sq {{ cursor: wait !important; }}
.chesslab-label {{ color: #666; font-size: 12px; text-align: center; }}
.chesslab-status {{ font-weight: bold; }}
.chesslab-note {{ color: #777; font-size: 12px; }}
.chesslab-moves {{ font-family: monospace; max-height: 180px; overflow-y: auto; }}
.chesslab-explain table {{ border-collapse: collapse; font-size: 12px; }}
.chesslab-explain td {{ padding: 0 8px 0 0; }}
</style>"""


def action_button(text: str, handler, css: str, tip: str, width: str = "auto"):
    """A button that calls ``handler()`` when clicked, with a CSS class (what the tests
    and the browser find it by) and a tooltip."""
    button = widgets.Button(description=text, tooltip=tip, layout=widgets.Layout(width=width))
    button.add_class(css)
    button.on_click(lambda _button: handler())
    return button


def engine_names() -> list:
    """Player names the selectors offer: random, the hand-written evaluators, plain
    minimax and alpha-beta, the learned ones whose model file exists, Stockfish if
    installed."""
    hand = [n for n, e in EVALUATORS.items() if e.kind == "hand-written"]
    learned = [n for n, e in EVALUATORS.items() if e.kind != "hand-written" and is_available(n)]
    names = ["random", *hand, *SEARCH_ALGORITHMS, *learned]
    if find_stockfish(required=False):
        names += ["stockfish:1350", "stockfish:2000"]
    return names


def split_spec(spec: str):
    """What a side selector shows of a spec: (menu entry, depth, seconds; 0: no limit).

    'pst:3@1s' -> ('pst', 3, 1.0); 'pst@1s' -> ('pst', None, 1.0); a player that does not
    search (human, random, Stockfish at its level) is its own menu entry."""
    try:
        parsed = parse_spec(spec)
    except ValueError:
        return spec, None, 0.0
    if parsed.algorithm is None or parsed.name == HUMAN:
        return spec, None, 0.0
    return parsed.name, parsed.number, parsed.seconds or 0.0


class SideSelector(widgets.HBox):
    """'White: [pst] depth [3] s/move [0]': a make_player spec for one side."""

    def __init__(self, color, spec, names, on_change):
        self.color = color
        name, depth, seconds = split_spec(spec)
        options = [HUMAN] + list(names)
        if name not in options:
            options.append(name)
        small = widgets.Layout(width="120px")
        self.name = widgets.Dropdown(options=options, value=name, layout=widgets.Layout(width="130px"))
        deepest = max(MAX_DEPTH.values())
        if depth is None:
            depth = deepest if seconds else 3
        self.depth = widgets.BoundedIntText(value=depth, min=1, max=deepest, description="depth",
                                            layout=small, style={"description_width": "40px"})
        self.depth.tooltip = "the deepest the search goes (plies)"
        self.seconds = widgets.BoundedFloatText(value=seconds, min=0, max=30, step=0.5,
                                                description="s/move", layout=small,
                                                style={"description_width": "50px"})
        self.seconds.tooltip = "at most this many seconds per move (0: no limit)"
        label = widgets.Label("White" if color == chess.WHITE else "Black",
                              layout=widgets.Layout(width="42px"))
        super().__init__([label, self.name, self.depth, self.seconds])
        self.add_class("chesslab-side-" + ("white" if color == chess.WHITE else "black"))
        self.name.observe(lambda _change: self._show_fields(), names="value")
        self._show_fields()
        for w in (self.name, self.depth, self.seconds):
            w.observe(lambda _change: on_change(self), names="value")

    def takes_depth(self) -> bool:
        """Does the chosen player search (a depth and a time apply)? Not a human, random
        or Stockfish (whose level is its own)."""
        return not (self.name.value in (HUMAN, "random") or ":" in self.name.value)

    def _show_fields(self):
        shown = "visible" if self.takes_depth() else "hidden"
        self.depth.layout.visibility = self.seconds.layout.visibility = shown
        if self.takes_depth():      # minimax and alpha-beta may not go as deep as the rest
            self.depth.max = max_depth(self.name.value)

    def spec(self) -> str:
        name = self.name.value
        if not self.takes_depth():
            return name
        return format_spec(name, self.depth.value, self.seconds.value or None)

    def set_enabled(self, enabled: bool) -> None:
        for w in (self.name, self.depth, self.seconds):
            w.disabled = not enabled


class StockfishLevel(widgets.HBox):
    """'Stockfish [skill level] [slider]': how strong the Stockfish side plays.

    By skill level (Stockfish's ``Skill Level``, 0-20) or by Elo (``UCI_Elo``, in the
    range the engine announces); every change calls ``on_change(spec)`` with the new
    ``stockfish_spec``.
    """

    def __init__(self, on_change, *, skill=None, elo=None, seconds=STOCKFISH_SECONDS,
                 elo_range=(1350, 2850)):
        self.on_change = on_change
        self.seconds = seconds
        self.elo_range = tuple(elo_range)
        if skill is None and elo is None:
            skill = STOCKFISH_SKILL
        self.values = {"skill": STOCKFISH_SKILL if skill is None else skill,
                       "elo": self.elo_range[0] if elo is None else elo}
        mode = "skill" if skill is not None else "elo"
        self.by = widgets.Dropdown(options=[("skill level", "skill"), ("Elo", "elo")],
                                   value=mode, layout=widgets.Layout(width="110px"))
        self.by.tooltip = "weaken Stockfish by its skill level (0-20) or to an Elo rating"
        self.level = widgets.IntSlider(layout=widgets.Layout(width="230px"),
                                       continuous_update=False)
        self._quiet = False
        self._set_range(mode)
        label = widgets.Label("Stockfish", layout=widgets.Layout(width="64px"))
        super().__init__([label, self.by, self.level])
        self.add_class("chesslab-stockfish-level")
        self.by.observe(self._by_changed, names="value")
        self.level.observe(self._level_changed, names="value")

    def _set_range(self, mode):
        low, high = (0, 20) if mode == "skill" else self.elo_range
        self._quiet = True
        try:       # widen first, so that min never passes max on the way
            self.level.min, self.level.max = min(low, self.level.min), max(high, self.level.max)
            self.level.value = self.values[mode]
            self.level.min, self.level.max = low, high
            self.level.step = 1 if mode == "skill" else 50
        finally:
            self._quiet = False

    def _by_changed(self, _change):
        self._set_range(self.by.value)
        self.on_change(self.spec())

    def _level_changed(self, _change):
        if not self._quiet:
            self.values[self.by.value] = self.level.value
            self.on_change(self.spec())

    def spec(self) -> str:
        level = {self.by.value: self.level.value}
        return stockfish_spec(**level, seconds=self.seconds)

    def set_enabled(self, enabled: bool) -> None:
        self.by.disabled = self.level.disabled = not enabled


def evalbar_html(cp: float, title: str, orientation=chess.WHITE) -> str:
    """The evaluation bar beside the board: White's share from the bottom (or the top,
    with Black below), the score under it."""
    edge = "bottom" if orientation == chess.WHITE else "top"
    return (f'<div style="width:16px;height:{8 * SQUARE_PX}px;background:#404040;'
            f'position:relative;border:1px solid #888" title="{title}: {format_score(cp)}">'
            f'<div style="position:absolute;{edge}:0;width:100%;'
            f'height:{100 * white_share(cp):.1f}%;background:#f4f4f4"></div></div>'
            f'<div style="font-size:11px">{format_score(cp)}</div>')


def white_share(cp: float) -> float:
    """Share of the bar that is White's: an Elo-like curve, 0.5 at equality."""
    cp = max(-4000.0, min(4000.0, cp))
    return 1.0 / (1.0 + 10 ** (-cp / 400))


def explanation_html(decision, orientation=chess.WHITE) -> str:
    """Why the AI moved: top candidates with scores, and its expected line as arrows."""
    rows = "".join(
        f"<tr><td>{'<b>' if move == decision.move else ''}{html.escape(san)}"
        f"{'</b>' if move == decision.move else ''}</td><td>{format_score(score)}</td></tr>"
        for move, san, score in decision.candidates)
    table = (f"<table><tr><td><i>candidate</i></td><td><i>score (White)</i></td></tr>"
             f"{rows}</table>") if rows else ""
    pv = " ".join(decision.pv_san)
    return (f"<div><b>Why {html.escape(decision.san)}?</b> {html.escape(decision.summary())}"
            f" ({decision.seconds:.1f} s)</div>{table}"
            f"<div>expected line: {html.escape(pv)}</div>"
            f"<div>{decision.svg(orientation)}</div>")
