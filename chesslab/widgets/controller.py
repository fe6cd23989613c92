"""Playing a game in a notebook: a game controller that knows the rules of clicking.

The controller is pure logic (no widgets), so every rule of the board is unit-tested
without a browser: a first click selects one of your pieces and lists its legal
targets, a second click on a target moves (or asks which piece to promote to), a click
on another of your pieces reselects, anything else is ignored. ``undo`` takes back the
AI's reply together with your move, so you are to move again. ``chesslab.widgets.boards``
draws a controller as a clickable ipywidgets board, and its ``play_vs_ai`` and
``ai_vs_ai`` are the two modes of the thesis (you play White and move first; two AIs
get their sides at random); ``play_vs_stockfish`` puts you where the tutorial's
finale puts its network, against Stockfish, at a level written by ``stockfish_spec``.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import chess
import chess.pgn
import chess.svg

from chesslab.board.encoding import as_board
from chesslab.board.rules import TERMINATION, outcome, result_of, winner_of
from chesslab.matches.players import is_available, make_player, model_file
from chesslab.board.scores import format_score

#: A side played by clicks on the board.
HUMAN = "human"
#: Promotion choices, most useful first (the picker shows them in this order).
PROMOTION_PIECES = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
#: The thesis AI (CNN evaluation, depth 3), capped at one second a move so that a
#: reply comes in about a second even in sharp positions; and what plays when no CNN
#: is trained yet.
THESIS_AI = "cnn:3@1s"
FALLBACK_AI = "pst@1s"


#: How many root moves a search makes exact, so the explanation panel can list them.
CANDIDATES = 3


def side_player(spec, seed: int = 0):
    """The player of one side: None for "human", else ``players.make_player(spec)`` (or
    the object itself, if it has choose_move).

    Search players built here score their best ``CANDIDATES`` root moves exactly (the
    search's ``multipv``): it costs them about one ply, and it is what the explanation
    panel shows.
    """
    if spec is None or spec == HUMAN:
        return None
    if hasattr(spec, "choose_move"):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"a player is 'human', a spec string like 'pst:3' or an object "
                        f"with choose_move(board); got {type(spec).__name__}")
    player = make_player(spec, seed=seed)
    searcher = getattr(player, "searcher", None)
    if searcher is not None:
        searcher.multipv = max(searcher.multipv, CANDIDATES)
    return player


def player_name(player, spec=None) -> str:
    if player is None:
        return HUMAN
    if isinstance(spec, str):
        return spec
    return str(getattr(player, "name", None) or type(player).__name__)


def default_ai():
    """(spec, note): the thesis CNN at depth 3 (at most 1 s) if its model exists, else
    pst with 1 s a move and a note saying why."""
    if is_available(THESIS_AI):
        return THESIS_AI, None
    return FALLBACK_AI, (f"{THESIS_AI} unavailable (no model file {model_file(THESIS_AI)}); "
                         f"playing {FALLBACK_AI}")


def draw_sides(a, b, seed: int = 0):
    """(white, black): the thesis gives each AI its side at random (seeded)."""
    return (a, b) if random.Random(seed).random() < 0.5 else (b, a)


def parse_square(square) -> chess.Square:
    if isinstance(square, str):
        try:
            return chess.parse_square(square.strip().lower())
        except ValueError:
            raise ValueError(f"not a square: {square!r}; use a name like 'e4' or an "
                             f"index 0..63") from None
    if isinstance(square, int) and 0 <= square < 64:
        return square
    raise ValueError(f"not a square: {square!r}; use a name like 'e4' or an index 0..63")


@dataclass
class GameOver:
    """How a game ended: result string, reason and winner (None for a draw)."""

    result: str
    reason: str
    winner: chess.Color | None = None

    def text(self) -> str:
        if self.winner is None:
            return f"Draw by {self.reason} ({self.result})"
        side = "White" if self.winner == chess.WHITE else "Black"
        return f"{self.reason.capitalize()}: {side} wins ({self.result})"


def game_over(board: chess.Board) -> GameOver | None:
    """How the game has ended (``chesslab.board.rules.outcome``, the rule of every play loop).

    An arbiter would wait for a claim of threefold repetition or the 50-move rule; in a
    classroom game the board ends it as soon as either has happened.
    """
    ended = outcome(board)
    if ended is None:
        return None
    return GameOver(ended.result(), TERMINATION[ended.termination], ended.winner)


def _san_line(board: chess.Board, moves) -> list:
    """SAN of ``moves`` played from ``board``, stopping at the first illegal one."""
    board = board.copy(stack=False)
    out = []
    for move in moves:
        if move not in board.legal_moves:
            break
        out.append(board.san(move))
        board.push(move)
    return out


@dataclass
class Decision:
    """What an AI chose and why: its search result, made readable.

    ``score`` is in centipawns from White's point of view; ``candidates`` are the
    best root moves as (move, san, score), best first; ``pv`` the line it expects.
    """

    move: chess.Move
    san: str
    color: chess.Color
    player: str
    fen: str
    seconds: float
    score: float | None = None
    depth: int | None = None
    nodes: int | None = None
    candidates: list = field(default_factory=list)
    pv: list = field(default_factory=list)
    pv_san: list = field(default_factory=list)

    @classmethod
    def from_player(cls, board, move, player, name, seconds):
        """Read the player's ``last_result`` (when it has one for this move)."""
        result = getattr(player, "last_result", None)
        if result is not None and getattr(result, "move", move) != move:
            result = None  # stale: from an earlier position
        score = getattr(result, "score", None)
        pv = list(getattr(result, "pv", None) or [])
        if not pv or pv[0] != move:
            pv = [move]
        candidates = []
        for cand, cand_score in list(getattr(result, "root_moves", None) or [])[:5]:
            if cand in board.legal_moves:
                candidates.append((cand, board.san(cand), cand_score))
        pv_san = _san_line(board, pv)
        return cls(move=move, san=board.san(move), color=board.turn, player=name,
                   fen=board.fen(), seconds=seconds, score=score,
                   depth=getattr(result, "depth", None), nodes=getattr(result, "nodes", None),
                   candidates=candidates, pv=pv[:len(pv_san)], pv_san=pv_san)

    def summary(self) -> str:
        parts = [f"{self.player} played {self.san}"]
        if self.score is not None:
            parts.append(f"score {format_score(self.score)}")
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"{self.nodes} nodes")
        return ", ".join(parts)

    def svg(self, orientation: chess.Color = chess.WHITE, size: int = 240) -> str:
        """The position the AI saw, its expected line drawn as arrows: green for its own
        moves, red for the replies it expects, fainter further ahead."""
        arrows = []
        for i, move in enumerate(self.pv[:4]):
            color = "#15781b" if i % 2 == 0 else "#882020"
            arrows.append(chess.svg.Arrow(move.from_square, move.to_square,
                                          color=color + ("cc" if i < 2 else "66")))
        return chess.svg.board(chess.Board(self.fen), orientation=orientation,
                               arrows=arrows, size=size)


class GameController:
    """One game: the board, who plays each side, the clicks and what the AI decided.

    ``white`` and ``black`` are "human", a ``make_player`` spec or a player object.
    ``max_plies`` adjudicates a draw after that many half-moves (AI vs AI).
    """

    def __init__(self, white=HUMAN, black=HUMAN, *, fen=None, seed: int = 0,
                 max_plies: int | None = None):
        if max_plies is not None and (not isinstance(max_plies, int) or max_plies < 1):
            raise ValueError(f"max_plies must be a whole number of at least 1 (or None: "
                             f"no limit), got {max_plies!r}")
        self.seed = seed
        self.max_plies = max_plies
        self.players = {}
        self.names = {}
        for color, spec in ((chess.WHITE, white), (chess.BLACK, black)):
            self.set_player(color, spec)
        humans = [c for c in (chess.WHITE, chess.BLACK) if self.players[c] is None]
        self.orientation = humans[0] if len(humans) == 1 else chess.WHITE
        self.generation = 0
        self.new_game(fen)

    # ------------------------------------------------------------ players
    def set_player(self, color: chess.Color, spec) -> None:
        """Give ``color`` to a human or an AI (takes effect at once)."""
        seed = self.seed + (0 if color == chess.WHITE else 1)
        player = side_player(spec, seed=seed)
        old = self.players.get(color)
        if old is not None and old is not player and hasattr(old, "close"):
            old.close()                    # an engine process (Stockfish)
        self.players[color] = player
        self.names[color] = player_name(self.players[color], spec)

    def is_human(self, color: chess.Color) -> bool:
        return self.players[color] is None

    @property
    def human_to_move(self) -> bool:
        return self.over is None and self.is_human(self.board.turn)

    @property
    def ai_to_move(self) -> bool:
        return self.over is None and not self.is_human(self.board.turn)

    # ------------------------------------------------------------ game state
    def new_game(self, fen=None) -> None:
        """Start again from ``fen`` (default: the position this controller began with)."""
        if fen is not None:
            self.start_fen = as_board(fen).fen()
        elif not hasattr(self, "start_fen"):
            self.start_fen = chess.STARTING_FEN
        self.board = chess.Board(self.start_fen)
        self.decisions = []          # one entry per move played: Decision or None
        self.ended = None            # a GameOver set by resign() / adjudicate()
        self._deselect()
        self.generation += 1

    @property
    def over(self) -> GameOver | None:
        """The game's end (None while it goes on)."""
        if self.ended is not None:
            return self.ended
        end = game_over(self.board)
        if end is None and self.max_plies is not None and self.ply >= self.max_plies:
            end = GameOver("1/2-1/2", f"adjudication after {self.max_plies} plies")
        return end

    @property
    def ply(self) -> int:
        return len(self.board.move_stack)

    def resign(self, color: chess.Color | None = None) -> GameOver:
        """``color`` (default: the side to move) gives up."""
        color = self.board.turn if color is None else color
        self.ended = GameOver(result_of(not color), "resignation", not color)
        self._deselect()
        return self.ended

    def adjudicate(self, result: str, reason: str = "adjudication") -> GameOver:
        """End the game by decision (an arbiter, a move limit, an engine verdict)."""
        self.ended = GameOver(result, reason, winner_of(result))
        self._deselect()
        return self.ended

    def flip(self) -> chess.Color:
        """Turn the board around; returns the colour now at the bottom."""
        self.orientation = not self.orientation
        return self.orientation

    # ------------------------------------------------------------ clicks
    def _deselect(self) -> None:
        self.selected = None
        self.targets = set()
        self.pending_promotion = None

    def _moves_from(self, square):
        return [m for m in self.board.legal_moves if m.from_square == square]

    def click(self, square) -> str:
        """One click on ``square``: 'selected', 'deselected', 'moved', 'promotion' or
        'ignored' (not your turn, game over, a piece you cannot move, an illegal target).
        """
        square = parse_square(square)
        if not self.human_to_move or self.pending_promotion is not None:
            return "ignored"
        if self.selected is not None and square == self.selected:
            self._deselect()
            return "deselected"
        if self.selected is not None and square in self.targets:
            moves = [m for m in self._moves_from(self.selected) if m.to_square == square]
            if any(m.promotion for m in moves):
                self.pending_promotion = (self.selected, square)
                return "promotion"
            self._push(moves[0], None)
            return "moved"
        piece = self.board.piece_at(square)
        moves = self._moves_from(square)
        if piece is not None and piece.color == self.board.turn and moves:
            self.selected = square
            self.targets = {m.to_square for m in moves}
            return "selected"
        return "ignored"

    def promote(self, piece) -> str:
        """Finish a pending promotion with ``piece`` ('q', 'n', chess.QUEEN, ...)."""
        if self.pending_promotion is None:
            raise ValueError("no promotion is waiting; move a pawn to the last rank first")
        if isinstance(piece, str):
            letter = piece.strip().lower()[:1]
            piece = {"q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP,
                     "n": chess.KNIGHT}.get(letter, piece)
        if piece not in PROMOTION_PIECES:
            raise ValueError(f"promote to a queen, rook, bishop or knight "
                             f"('q', 'r', 'b', 'n'), not {piece!r}")
        move = chess.Move(*self.pending_promotion, promotion=piece)
        self._push(move, None)
        return "moved"

    def cancel_promotion(self) -> None:
        self._deselect()

    def play(self, move) -> chess.Move:
        """Play a move given as chess.Move, UCI ('e2e4') or SAN ('e4') for the side to move."""
        if self.over is not None:
            raise ValueError(f"the game is over ({self.over.text()}); start a new game")
        if isinstance(move, str):
            text = move.strip()
            try:
                move = self.board.parse_uci(text)
            except ValueError:
                try:
                    move = self.board.parse_san(text)
                except ValueError:
                    raise ValueError(f"{text!r} is not a legal move here (FEN "
                                     f"{self.board.fen()}); legal moves: "
                                     f"{', '.join(self.legal_san())}") from None
        if not isinstance(move, chess.Move):
            raise TypeError(f"play() takes a chess.Move, a UCI text like 'e2e4' or SAN like "
                            f"'e4', not {type(move).__name__} {move!r:.40}")
        if move not in self.board.legal_moves:
            raise ValueError(f"{move} is not a legal move in {self.board.fen()}")
        self._push(move, None)
        return move

    def _push(self, move, decision) -> None:
        self.board.push(move)
        self.decisions.append(decision)
        self._deselect()

    def legal_san(self) -> list:
        return [self.board.san(m) for m in self.board.legal_moves]

    # ------------------------------------------------------------ the AI
    def think(self) -> Decision:
        """Ask the player to move for its move (does not play it; safe in a thread)."""
        if not self.ai_to_move:
            raise RuntimeError("it is not an AI's turn" if self.over is None
                               else f"the game is over ({self.over.text()})")
        color = self.board.turn
        player = self.players[color]
        board = self.board.copy()
        start = time.perf_counter()
        move = player.choose_move(board.copy())
        seconds = time.perf_counter() - start
        if move not in board.legal_moves:
            raise RuntimeError(f"{self.names[color]} chose {move}, which is not legal in "
                               f"{board.fen()}")
        return Decision.from_player(board, move, player, self.names[color], seconds)

    def apply(self, decision: Decision) -> bool:
        """Play an AI's decision if the board is still where it was made."""
        if decision.fen != self.board.fen() or self.over is not None:
            return False
        self._push(decision.move, decision)
        return True

    def ai_move(self) -> Decision:
        """Think and play (blocking); the widget does the same in a thread."""
        decision = self.think()
        self.apply(decision)
        return decision

    @property
    def last_decision(self) -> Decision | None:
        return next((d for d in reversed(self.decisions) if d is not None), None)

    def undo(self) -> int:
        """Take back moves until a human is to move again (your move and the AI's
        reply); with no human, one move. Returns how many half-moves were taken back."""
        self._deselect()
        self.ended = None
        if not self.board.move_stack:
            return 0
        humans = [c for c in (chess.WHITE, chess.BLACK) if self.is_human(c)]
        taken = 0
        while self.board.move_stack:
            mover = not self.board.turn
            self.board.pop()
            self.decisions.pop()
            taken += 1
            if not humans or mover in humans:
                break
        self.generation += 1
        return taken

    # ------------------------------------------------------------ what to show
    @property
    def last_move(self) -> chess.Move | None:
        return self.board.peek() if self.board.move_stack else None

    def square_marks(self) -> dict:
        """square -> set of marks: 'selected', 'target', 'last' (last move), 'check'."""
        marks = {sq: set() for sq in chess.SQUARES}
        if self.selected is not None:
            marks[self.selected].add("selected")
        for sq in self.targets:
            marks[sq].add("target")
        last = self.last_move
        if last is not None:
            marks[last.from_square].add("last")
            marks[last.to_square].add("last")
        if self.board.is_check():
            marks[self.board.king(self.board.turn)].add("check")
        return marks

    def san_moves(self) -> list:
        return _san_line(chess.Board(self.start_fen), self.board.move_stack)

    def move_text(self) -> str:
        """The moves as a score sheet: '1. e4 e5 2. Nf3'."""
        board = chess.Board(self.start_fen)
        return board.variation_san(self.board.move_stack) if self.board.move_stack else ""

    def move_rows(self) -> list:
        """Score-sheet rows: '1. e4 e5', '2. Nf3' (a game from a FEN may start '1... e5')."""
        start = chess.Board(self.start_fen)
        number, rows = start.fullmove_number, []
        sans = self.san_moves()
        if start.turn == chess.BLACK and sans:
            rows.append(f"{number}... {sans[0]}")
            sans, number = sans[1:], number + 1
        for i in range(0, len(sans), 2):
            rows.append(f"{number}. " + " ".join(sans[i:i + 2]))
            number += 1
        return rows

    def pgn(self) -> str:
        """The game as PGN text (headers name the players and how it ended)."""
        game = chess.pgn.Game.from_board(self.board)
        game.headers["Event"] = "chesslab game"
        game.headers["Site"] = "chesslab"
        game.headers["White"] = self.names[chess.WHITE]
        game.headers["Black"] = self.names[chess.BLACK]
        end = self.over
        game.headers["Result"] = end.result if end else "*"
        if end is not None:
            game.headers["Termination"] = end.reason
        return str(game)

    def status(self) -> str:
        """One line: the result, or who is to move."""
        end = self.over
        if end is not None:
            return end.text()
        color = self.board.turn
        side = "White" if color == chess.WHITE else "Black"
        who = "you" if self.is_human(color) else self.names[color]
        check = ", check" if self.board.is_check() else ""
        if self.pending_promotion is not None:
            return f"{side} ({who}): choose the promotion piece"
        return f"{side} to move ({who}){check}"
