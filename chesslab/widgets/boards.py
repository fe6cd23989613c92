"""A clickable chess board made of plain ipywidgets (no JavaScript build step).

Every square is a ``Button`` with stable CSS classes (``chesslab-sq chesslab-sq-e2``
plus the marks: ``chesslab-selected``, ``chesslab-target``, ``chesslab-last``,
``chesslab-check``), coloured by a small style sheet in an ``HTML`` widget. All the
rules live in ``chesslab.widgets.controller.GameController``; this module only draws it and runs
the AI in a background thread, so the board says "thinking", ignores clicks, and the
rest of the notebook stays usable while the AI searches. ``play_vs_ai`` and
``ai_vs_ai`` open a board in the two modes of the thesis; ``play_vs_stockfish`` puts
you where the tutorial's finale puts its network, against Stockfish, at a level you
choose (skill level or Elo).
"""
from __future__ import annotations

import html
import re
import threading
import time

import chess
import ipywidgets as widgets

from chesslab.evaluators.registry import EVALUATORS, load_evaluator
from chesslab.matches.specs import STOCKFISH_SECONDS, stockfish_spec
from chesslab.widgets.controller import (HUMAN, PROMOTION_PIECES, GameController, default_ai,
                                         draw_sides)
from chesslab.widgets.controls import (BOARD_CSS, GLYPHS, MARK_CLASSES, SQUARE_PX, SideSelector,
                                       StockfishLevel, action_button, engine_names, evalbar_html,
                                       explanation_html, split_spec)
from chesslab.board.scores import result_score
from chesslab.base.stockfish import INSTALL_HELP, find_stockfish

class ChessGame(widgets.VBox):
    """The board, its buttons and panels around one ``GameController``.

    ``mode`` names the game ("play": you against an AI, "watch": AI vs AI,
    "stockfish": you against Stockfish) and gives the widget the CSS class
    ``chesslab-mode-MODE``; ``controls`` are extra rows for the side panel (the
    Stockfish level). The AI answers a human at once; with no human on the board,
    Step / Play / Pause appear. Methods ``click``, ``step``, ``play``, ``pause``,
    ``set_player`` and ``wait`` do from code what the buttons and selectors do, so a
    notebook or a test can drive the board.
    """

    def __init__(self, controller: GameController, *, mode: str = "play",
                 evaluator: str = "pst", note: str | None = None, delay: float = 0.5,
                 controls=()):
        self.controller = controller
        self.mode = mode
        self.thinking = False
        self.playing = False
        self.error = None
        self._lock = threading.RLock()
        self._thread = None
        self._evaluator_cache = {}
        self._shown_orientation = None
        self._syncing = False
        self.controls = list(controls)     # extra rows (a Stockfish level) beside the board

        self.squares = {}
        for sq in chess.SQUARES:
            button = widgets.Button(description="\u00a0", tooltip=chess.square_name(sq),
                                    layout=widgets.Layout(width=f"{SQUARE_PX}px",
                                                          height=f"{SQUARE_PX}px"))
            button.on_click(lambda _b, sq=sq: self.click(sq))
            self.squares[sq] = button
        self.rank_labels = [widgets.HTML(layout=widgets.Layout(width="16px")) for _ in range(8)]
        self.file_labels = [widgets.HTML() for _ in range(8)]
        for label in self.rank_labels + self.file_labels:
            label.add_class("chesslab-label")
        self.grid = widgets.GridBox(layout=widgets.Layout(
            grid_template_columns=f"16px repeat(8, {SQUARE_PX}px)",
            grid_template_rows=f"repeat(8, {SQUARE_PX}px) 18px", grid_gap="0px",
            align_items="center"))
        self.grid.add_class("chesslab-board")

        self.status = widgets.HTML()
        self.status.add_class("chesslab-status")
        self.note = widgets.HTML(html.escape(note or ""))
        self.note.add_class("chesslab-note")
        self.evalbar = widgets.HTML()
        self.evalbar.add_class("chesslab-evalbar")

        self.promotion_buttons = []
        for piece in PROMOTION_PIECES:
            button = widgets.Button(description=GLYPHS[piece],
                                    tooltip=f"promote to a {chess.piece_name(piece)}",
                                    layout=widgets.Layout(width=f"{SQUARE_PX}px",
                                                          height=f"{SQUARE_PX}px"))
            button.add_class("chesslab-sq")
            button.add_class(f"chesslab-promote-{chess.piece_symbol(piece)}")
            button.on_click(lambda _b, piece=piece: self.promote(piece))
            self.promotion_buttons.append(button)
        cancel = widgets.Button(description="cancel", layout=widgets.Layout(width="70px"))
        cancel.on_click(lambda _b: self._do(self.controller.cancel_promotion))
        self.promotion = widgets.HBox([widgets.Label("Promote to:")] + self.promotion_buttons
                                      + [cancel])
        self.promotion.add_class("chesslab-promotion")

        def action(text, handler, css, tip):
            return action_button(text, handler, css, tip, width="96px")

        self.new_button = action("New game", self.new_game, "chesslab-new", "start again")
        self.undo_button = action("Undo", self.undo, "chesslab-undo",
                                  "take back your last move and the AI's reply")
        self.flip_button = action("Flip", self.flip, "chesslab-flip", "turn the board around")
        self.pgn_button = action("PGN", self.toggle_pgn, "chesslab-pgn-button",
                                 "show the game as PGN text")
        self.resign_button = action("Resign", self.resign, "chesslab-resign",
                                    "the side to move gives up")
        self.step_button = action("Step", self.step, "chesslab-step", "the AI to move plays one move")
        self.play_button = action("Play", self.play, "chesslab-play", "the AIs play on")
        self.pause_button = action("Pause", self.pause, "chesslab-pause", "stop after this move")
        self.speed = widgets.FloatSlider(value=delay, min=0.0, max=3.0, step=0.1,
                                         description="pause (s)", readout_format=".1f",
                                         layout=widgets.Layout(width="260px"))
        self.watch_row = widgets.HBox([self.step_button, self.play_button, self.pause_button,
                                       self.speed])
        self.watch_row.add_class("chesslab-watch")

        names = engine_names()
        self.sides = {c: SideSelector(c, controller.names[c], names, self._side_changed)
                      for c in (chess.WHITE, chess.BLACK)}
        evaluators = [n for n in names if n in EVALUATORS]
        if evaluator not in evaluators:
            evaluators.append(evaluator)
        self.evaluator = widgets.Dropdown(options=evaluators, value=evaluator,
                                          description="eval bar",
                                          layout=widgets.Layout(width="200px"))
        self.evaluator.observe(lambda _c: self._refresh(), names="value")

        self.moves = widgets.HTML()
        self.moves.add_class("chesslab-moves")
        self.explain = widgets.HTML()
        self.explain.add_class("chesslab-explain")
        self.pgn = widgets.Textarea(layout=widgets.Layout(width="330px", height="160px",
                                                          display="none"))
        self.pgn.add_class("chesslab-pgn")

        board_column = widgets.VBox([
            self.status, self.note,
            widgets.HBox([self.evalbar, self.grid]),
            self.promotion,
            widgets.HBox([self.new_button, self.undo_button, self.flip_button,
                          self.pgn_button, self.resign_button]),
            self.watch_row])
        side_column = widgets.VBox([
            self.sides[chess.WHITE], self.sides[chess.BLACK], *self.controls, self.evaluator,
            widgets.HTML("<b>Moves</b>"), self.moves, self.explain, self.pgn],
            layout=widgets.Layout(margin="0 0 0 16px", width="420px"))
        super().__init__([widgets.HTML(BOARD_CSS), widgets.HBox([board_column, side_column])])
        self.add_class("chesslab-game")
        self.add_class(f"chesslab-mode-{mode}")
        self._refresh()
        self._start_ai()

    def __repr__(self):
        c = self.controller
        if self.mode == "play":
            who = {color: "you" if c.is_human(color) else "AI" for color in (True, False)}
        else:
            who = {color: "you" if c.is_human(color) else c.names[color] for color in (True, False)}
        return f"ChessGame({self.mode}: White {who[True]}, Black {who[False]})"

    # ------------------------------------------------------------ user actions
    def click(self, square):
        """A click on a square (ignored while the AI thinks)."""
        with self._lock:
            if self.thinking:
                return "ignored"
            result = self.controller.click(square)
            self._refresh()
        if result == "moved":
            self._start_ai()
        return result

    def promote(self, piece):
        with self._lock:
            if self.thinking or self.controller.pending_promotion is None:
                return "ignored"
            result = self.controller.promote(piece)
            self._refresh()
        self._start_ai()
        return result

    def new_game(self):
        self._do(self.controller.new_game)
        self._start_ai()

    def undo(self):
        self._do(self.controller.undo)
        self._start_ai()

    def resign(self):
        self._do(self.controller.resign)

    def flip(self):
        self._do(self.controller.flip, busy_ok=True)

    def toggle_pgn(self):
        shown = self.pgn.layout.display != "none"
        self.pgn.value = self.controller.pgn()
        self.pgn.layout.display = "none" if shown else "flex"

    def step(self):
        """The AI to move plays one move (in the background)."""
        self._start_ai(manual=True)

    def play(self):
        """The AIs play on, one move per pause, until Pause or the end."""
        self.playing = True
        self._start_ai(loop=True, manual=True)

    def pause(self):
        self.playing = False
        self._refresh()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the AI has finished thinking (for notebooks and tests)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.thinking

    def _do(self, func, busy_ok=False):
        with self._lock:
            if self.thinking and not busy_ok:
                return
            self.error = None
            func()
            self._refresh()

    def set_player(self, color, spec) -> bool:
        """Give ``color`` to ``spec`` ("human" or a player spec) from code, as the side
        selectors do; refused (False) while the AI thinks. A bad spec shows its error on
        the status line and returns False."""
        with self._lock:
            if self.thinking:
                return False
            try:
                self.controller.set_player(color, spec)
                self.error = None
            except Exception as exc:          # a bad spec, a missing engine or model file
                self.error = f"{type(exc).__name__}: {exc}"
            self._show_side(color)
            self._refresh()
        self._start_ai()
        return self.error is None

    def _show_side(self, color):
        """Make the side selector show the controller's player (without re-applying it)."""
        selector = self.sides[color]
        name, depth, seconds = split_spec(self.controller.names[color])
        self._syncing = True
        try:
            if name not in selector.name.options:
                selector.name.options = [*selector.name.options, name]
            selector.name.value = name
            if depth is not None:
                selector.depth.value = depth
            selector.seconds.value = seconds
        finally:
            self._syncing = False

    def _side_changed(self, selector):
        if self._syncing:
            return
        with self._lock:
            if self.thinking:
                return
            try:
                self.controller.set_player(selector.color, selector.spec())
                self.error = None
            except Exception as exc:          # a bad spec or a missing model file
                self.error = f"{type(exc).__name__}: {exc}"
            self._refresh()
        self._start_ai()

    # ------------------------------------------------------------ the AI thread
    def _start_ai(self, loop=False, manual=False):
        """Let the AI to move think in a thread. The AI answers a human by itself; when
        no human plays, only Step and Play (``manual``) start it."""
        c = self.controller
        with self._lock:
            if self.thinking or not c.ai_to_move:
                return
            if not manual and not (c.is_human(chess.WHITE) or c.is_human(chess.BLACK)):
                return
            self.thinking = True
            self._refresh()
            self._thread = threading.Thread(target=self._worker, args=(loop,), daemon=True)
            self._thread.start()

    def _worker(self, loop):
        while True:
            generation = self.controller.generation
            try:
                decision, error = self.controller.think(), None
            except Exception as exc:
                decision, error = None, f"{type(exc).__name__}: {exc}"
            with self._lock:
                if decision is not None and generation == self.controller.generation:
                    self.controller.apply(decision)
                self.error = error
                more = loop and self.playing and error is None and self.controller.ai_to_move
                self.thinking = more
                self.playing = self.playing and more
                self._refresh()
            if not more:
                return
            time.sleep(self.speed.value)
            with self._lock:
                if not (self.playing and self.controller.ai_to_move):
                    self.thinking = self.playing = False
                    self._refresh()
                    return

    # ------------------------------------------------------------ drawing
    def _refresh(self):
        c = self.controller
        board = c.board
        if self._shown_orientation != c.orientation:
            self._layout_grid(c.orientation)
        marks = c.square_marks()
        for sq, button in self.squares.items():
            piece = board.piece_at(sq)
            light = (chess.square_file(sq) + chess.square_rank(sq)) % 2 == 1
            classes = ["chesslab-sq", f"chesslab-sq-{chess.square_name(sq)}",
                       "chesslab-light" if light else "chesslab-dark"]
            classes += [MARK_CLASSES[m] for m in sorted(marks[sq])]
            if piece is not None:
                classes += ["chesslab-occupied", "chesslab-white-piece" if piece.color
                            else "chesslab-black-piece"]
            # An empty description does not clear a Button's text in the browser.
            description = GLYPHS[piece.piece_type] if piece else "\u00a0"
            if button.description != description:
                button.description = description
            if tuple(button._dom_classes) != tuple(classes):
                button._dom_classes = tuple(classes)
        self._set_class(self, "chesslab-thinking", self.thinking)

        if self.error:
            status = f'<span style="color:#b00">{html.escape(self.error)}</span>'
        elif self.thinking and c.ai_to_move:
            side = "White" if board.turn == chess.WHITE else "Black"
            status = f"{side} ({html.escape(c.names[board.turn])}) is thinking\u2026"
        else:
            status = html.escape(c.status())
        self.status.value = status
        self.promotion.layout.display = "flex" if c.pending_promotion else "none"
        busy = self.thinking
        for button in (self.new_button, self.undo_button, self.step_button, self.play_button):
            button.disabled = busy
        self.pause_button.disabled = not self.playing
        self.resign_button.disabled = busy or c.over is not None
        for selector in [*self.sides.values(), *self.controls]:
            if hasattr(selector, "set_enabled"):
                selector.set_enabled(not busy)
        no_human = not (c.is_human(chess.WHITE) or c.is_human(chess.BLACK))
        self.watch_row.layout.display = "flex" if no_human else "none"
        self.moves.value = "".join(f"<div>{html.escape(row)}</div>" for row in c.move_rows())
        self.evalbar.value = self._evalbar_html()
        decision = c.last_decision
        self.explain.value = explanation_html(decision, c.orientation) if decision else ""
        if self.pgn.layout.display != "none":
            self.pgn.value = c.pgn()

    @staticmethod
    def _set_class(widget, name, on):
        if on and name not in widget._dom_classes:
            widget.add_class(name)
        elif not on and name in widget._dom_classes:
            widget.remove_class(name)

    def _layout_grid(self, orientation):
        children = []
        for row in range(8):
            rank = 7 - row if orientation == chess.WHITE else row
            self.rank_labels[row].value = str(rank + 1)
            children.append(self.rank_labels[row])
            for col in range(8):
                file = col if orientation == chess.WHITE else 7 - col
                children.append(self.squares[chess.square(file, rank)])
        children.append(widgets.HTML())
        for col, label in enumerate(self.file_labels):
            label.value = chess.FILE_NAMES[col if orientation == chess.WHITE else 7 - col]
            children.append(label)
        self.grid.children = children
        self._shown_orientation = orientation

    def _evalbar_html(self):
        c = self.controller
        end = c.over
        if end is not None:
            cp = result_score(end.result)
        else:
            name = self.evaluator.value
            try:
                if name not in self._evaluator_cache:
                    self._evaluator_cache[name] = load_evaluator(name)
                cp = float(self._evaluator_cache[name].evaluate(c.board))
            except Exception as exc:
                return f'<div title="{html.escape(str(exc))}">no eval</div>'
        return evalbar_html(cp, self.evaluator.value, c.orientation)


def _human_side(human: str) -> str:
    human = str(human).lower()
    if human not in ("white", "black"):
        raise ValueError(f"human must be 'white' or 'black', got {human!r}")
    return human


def play_vs_ai(ai=None, human: str = "white", *, fen=None, seed: int = 0,
               evaluator: str = "pst"):
    """You against an AI on a clickable board (the thesis: you play White, first).

    ``ai`` is a make_player spec or player; the default is ``THESIS_AI`` (the CNN at
    depth 3, at most a second a move) when its model is trained, else ``FALLBACK_AI``
    (the line under the status says so).
    """
    note = None
    if ai is None:
        ai, note = default_ai()
    human = _human_side(human)
    white, black = (HUMAN, ai) if human == "white" else (ai, HUMAN)
    controller = GameController(white, black, fen=fen, seed=seed)
    return ChessGame(controller, mode="play", evaluator=evaluator, note=note)


#: What the Stockfish board shows instead when no Stockfish is installed.
NO_STOCKFISH = (
    "Stockfish is not installed on this machine, so this board cannot open (everything "
    "else in the notebook works without it). " + INSTALL_HELP + " Then run this cell again.")


def no_stockfish_message() -> widgets.HTML:
    """The message shown in place of the Stockfish board: how to install Stockfish."""
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(NO_STOCKFISH))
    message = widgets.HTML(f'<div style="border-left:4px solid #c80;padding:4px 8px">'
                           f'{text}</div>')
    message.add_class("chesslab-no-stockfish")
    return message


def _elo_range(player) -> tuple:
    """The UCI_Elo range the running Stockfish announces (Stockfish 15: 1350-2850)."""
    option = getattr(getattr(player, "engine", None), "options", {}).get("UCI_Elo")
    return (option.min, option.max) if option is not None else (1350, 2850)


def play_vs_stockfish(skill=None, elo=None, *, human: str = "white",
                      seconds: float = STOCKFISH_SECONDS, fen=None, seed: int = 0,
                      evaluator: str = "pst"):
    """You against Stockfish at a level you choose (the tutorial's finale plays its
    network against full-strength Stockfish; here you take the network's place).

    ``skill`` is Stockfish's Skill Level (0-20, 20 is full strength), or ``elo`` an Elo
    rating (UCI_LimitStrength + UCI_Elo); neither: skill ``STOCKFISH_SKILL``. Stockfish
    thinks ``seconds`` per move. The "Stockfish" row beside the board changes the level
    during the game. Without Stockfish this returns ``no_stockfish_message()`` (how to
    install it) instead of a board.
    """
    human = _human_side(human)
    spec = stockfish_spec(skill, elo, seconds)
    if find_stockfish(required=False) is None:
        return no_stockfish_message()
    ai_color = chess.BLACK if human == "white" else chess.WHITE
    white, black = (HUMAN, spec) if human == "white" else (spec, HUMAN)
    controller = GameController(white, black, fen=fen, seed=seed)
    low, high = _elo_range(controller.players[ai_color])
    holder = {}
    level = StockfishLevel(lambda new: holder["game"].set_player(ai_color, new),
                           skill=skill, elo=elo, seconds=seconds, elo_range=(low, high))
    note = (f"Stockfish thinks {seconds:g} s a move; set its strength in the Stockfish row: "
            f"skill level 0-20 or Elo {low}-{high}")
    game = ChessGame(controller, mode="stockfish", evaluator=evaluator, note=note,
                     controls=[level])
    holder["game"] = game
    game.level = level
    return game


def ai_vs_ai(a, b, *, seed: int = 0, fen=None, max_plies: int = 200,
             evaluator: str = "pst", delay: float = 0.5):
    """Two AIs on one board; each gets its side at random (seeded), as in the thesis."""
    white, black = draw_sides(a, b, seed)
    controller = GameController(white, black, fen=fen, seed=seed, max_plies=max_plies)
    return ChessGame(controller, mode="watch", evaluator=evaluator, delay=delay,
                     note=f"sides drawn at random (seed {seed}): White {controller.names[True]}"
                          f", Black {controller.names[False]}")
