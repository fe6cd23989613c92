"""A game between two players: what a player is, and the one loop that plays a game.

``play_game(white, black)`` plays one game, from the initial position, a FEN, a board or
after an opening's UCI moves, until ``chesslab.board.rules.outcome`` ends it (or the move
cap or the resign rule stops it), and returns it as a ``chess.pgn.Game``. Matches,
tournaments, self-play and the Stockfish game records all play through it.

On a clock (``clock=(seconds, increment)``, e.g. ``(60, 0.6)``) each side has its own:
the wall-clock time of each player's call is taken off the mover's clock and the
increment added after the move. A side whose clock runs out loses on time, unless its
opponent cannot mate by any series of moves (a lone king, FIDE 6.9): then the game is
drawn. The PGN gets a ``TimeControl`` header and each move the mover's clock after it
(``[%clk h:mm:ss]``, as PGN writers record a clock). How long to think is the player's
business: one that has ``choose_move_on_clock(board, clock)`` is told both clocks
(``GameClock``); ``matches.clock.on_clock`` gives the course's players that method.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import chess
import chess.pgn

from chesslab.board.rules import (MOVE_CAP, TERMINATION, TIME_FORFEIT, adjudicate_draw,
                                  check_max_plies, check_position, flag_result, outcome,
                                  resign_verdict)

__all__ = ["Player", "play_game", "GameClock", "format_time_control"]

@dataclass(frozen=True)
class GameClock:
    """The clocks when a player is asked to move: seconds left for White and for Black,
    and the increment each side gets after its move."""

    white: float
    black: float
    increment: float

    def remaining(self, color: chess.Color) -> float:
        return self.white if color == chess.WHITE else self.black


def format_time_control(seconds: float, increment: float = 0.0) -> str:
    """A clock as PGN's ``TimeControl`` writes it: ``60+0.6``, or ``300`` without an
    increment."""
    return f"{seconds:g}+{increment:g}" if increment else f"{seconds:g}"


def _check_clock(clock) -> tuple[float, float]:
    try:
        seconds, increment = (float(x) for x in clock)
    except (TypeError, ValueError):
        raise TypeError(f"clock is (seconds per game, increment per move), e.g. (60, 0.6), "
                        f"not {clock!r:.40}") from None
    if not (math.isfinite(seconds) and math.isfinite(increment)) or seconds <= 0 \
            or increment < 0:
        raise ValueError(f"a clock needs positive seconds per game and an increment of 0 "
                         f"or more, not {clock!r}")
    return seconds, increment


class Player:
    """What a game needs from a player: ``choose_move(board) -> chess.Move`` (the board
    is the player's own copy) and ``close()`` (release an engine; safe twice).

    Any object with ``choose_move`` can play; this base class adds a ``name`` (the spec
    it was made from), a seeded ``rng`` for breaking ties, ``last_result`` (what the last
    search found, if the player searches) and ``with player:`` closing.
    """

    def __init__(self, name: str, seed: int = 0):
        self.name = name
        self.seed = seed
        self.rng = random.Random(seed)
        self.last_result = None

    def choose_move(self, board: chess.Board) -> chess.Move:
        raise NotImplementedError

    def close(self):
        """Release resources (engines); safe to call twice."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


def play_game(white, black, start: chess.Board | str | None = None, max_plies: int = 400, *,
              opening: str | None = None, on_move=None, resign_cp: float | None = None,
              resign_plies: int = 4, adjudicate=adjudicate_draw,
              round_: str | None = None, clock=None) -> chess.pgn.Game:
    """Play one game from ``start`` (a board, kept unchanged, or a FEN; default the
    initial position) after the UCI moves of ``opening`` (e.g. "e2e4 e7e5"), until
    ``outcome`` ends it, ``max_plies`` more half-moves are played (then
    ``adjudicate(board)`` gives the result) or the resign rule applies.

    ``white`` and ``black`` are players (may be the same object). ``on_move(board,
    move, player)`` is called before each move is pushed (``board`` is the position it is
    played in: a self-play recorder reads ``player.last_result`` there). Returns the
    game as PGN, moves of ``start``'s own move stack included, with headers ``White``,
    ``Black`` (the players' names), ``Result``, ``Termination`` and ``PlyCount``; with
    ``opening`` an ``Opening`` header, and with ``round_`` (a game of a match) the
    ``Event``, ``Site`` and ``Round`` headers.

    ``clock``: ``(seconds, increment)`` for each side (the module docstring says how a
    game on a clock is played and recorded); the opening's moves are not on it.
    """
    check_max_plies(max_plies, least=0)
    for side, player in (("white", white), ("black", black)):
        if not callable(getattr(player, "choose_move", None)):
            raise TypeError(f"a game needs players (make_player('pst:2'), ...) as {side}, "
                            f"not {type(player).__name__} {player!r:.40}")
    if start is None:
        board = chess.Board()
    elif isinstance(start, str):
        try:
            board = chess.Board(start)
        except ValueError as exc:
            raise ValueError(f"start is not a FEN: {start!r} ({exc})") from None
    elif isinstance(start, chess.Board):
        board = start.copy()
    else:
        raise TypeError(f"start must be a chess.Board or a FEN, not {type(start).__name__}")
    check_position(board, "play_game")
    if opening is not None and not isinstance(opening, str):
        raise TypeError(f"opening must be UCI moves in one string (e.g. 'e2e4 e7e5'), "
                        f"not {type(opening).__name__}")
    for uci in (opening or "").split():
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            raise ValueError(f"opening {opening!r}: {uci!r} is not a move in UCI notation "
                             f"(from-square, to-square, promotion: e2e4, e7e8q)") from None
        if move not in board.legal_moves:
            raise ValueError(f"opening {opening!r}: {uci} is illegal in {board.fen()}; "
                             f"each move must be legal after the ones before it")
        board.push(move)
    if clock is not None:
        base, increment = _check_clock(clock)
        left = {chess.WHITE: base, chess.BLACK: base}
        clocks = []      # the mover's clock after each move played here
    first = len(board.move_stack)
    scores = []          # White's-view score each mover's search reported (None: none)
    while True:
        ended = outcome(board)
        if ended is not None:
            result, termination = ended.result(), TERMINATION[ended.termination]
            break
        verdict = resign_verdict(scores, resign_cp, resign_plies)
        if verdict is not None:
            result, termination = verdict
            break
        if len(board.move_stack) - first >= max_plies:
            result, termination = adjudicate(board), MOVE_CAP
            break
        player = white if board.turn == chess.WHITE else black
        if clock is None:
            move = player.choose_move(board.copy())
        else:
            ask = getattr(player, "choose_move_on_clock", None)
            started = time.perf_counter()
            move = (ask(board.copy(), GameClock(left[chess.WHITE], left[chess.BLACK], increment))
                    if callable(ask) else player.choose_move(board.copy()))
            left[board.turn] -= time.perf_counter() - started
            if left[board.turn] <= 0:          # the flag fell: this move is not played
                result, termination = flag_result(board, board.turn), TIME_FORFEIT
                break
            left[board.turn] += increment
            clocks.append(left[board.turn])
        name = getattr(player, "name", type(player).__name__)
        if not isinstance(move, chess.Move) or not board.is_legal(move):
            raise ValueError(f"{name} chose the illegal move {move} in {board.fen()}")
        if on_move is not None:
            on_move(board, move, player)
        board.push(move)
        # the player's centipawn score (a search's, an MCTS player's), for the resign rule;
        # None from a player that reports none
        scores.append(getattr(getattr(player, "last_result", None), "score", None))
    game = chess.pgn.Game.from_board(board)
    game.headers.update(White=str(getattr(white, "name", type(white).__name__)),
                        Black=str(getattr(black, "name", type(black).__name__)),
                        Result=result, Termination=termination,
                        PlyCount=str(len(board.move_stack)))
    if round_ is not None:
        game.headers.update(Event="chesslab match", Site="chesslab", Round=str(round_))
    if opening:
        game.headers["Opening"] = opening
    if clock is not None:
        game.headers["TimeControl"] = format_time_control(base, increment)
        nodes = list(game.mainline())
        for node, seconds in zip(nodes[len(nodes) - len(clocks):], clocks):
            node.set_clock(round(seconds, 1))
    return game

