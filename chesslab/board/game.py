"""A game between two players: what a player is, and the one loop that plays a game.

``play_game(white, black)`` plays one game, from the initial position, a FEN, a board or
after an opening's UCI moves, until ``chesslab.board.rules.outcome`` ends it (or the move
cap or the resign rule stops it), and returns it as a ``chess.pgn.Game``. Matches,
tournaments, self-play and the Stockfish game records all play through it.
"""
from __future__ import annotations

import random

import chess
import chess.pgn

from chesslab.board.rules import (MOVE_CAP, TERMINATION, adjudicate_draw, check_max_plies,
                                  outcome, resign_verdict)

__all__ = ["Player", "play_game"]


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
              round_: str | None = None) -> chess.pgn.Game:
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
        move = player.choose_move(board.copy())
        name = getattr(player, "name", type(player).__name__)
        if not isinstance(move, chess.Move) or not board.is_legal(move):
            raise ValueError(f"{name} chose the illegal move {move} in {board.fen()}")
        if on_move is not None:
            on_move(board, move, player)
        board.push(move)
        # a search's centipawn score, for the resign rule (MCTS players have none)
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
    return game

