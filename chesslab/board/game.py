"""A game of chess between two players: the rules that end it and the one loop that plays it.

Every game in chesslab (a match in the arena, a self-play game of MCTS, a Stockfish
game record, the board in a notebook) ends by the same rule, ``outcome``:

* checkmate, stalemate, insufficient material, the 75-move rule, fivefold repetition
  (these end a game by themselves, FIDE 9.6);
* threefold repetition: the current position has occurred three times;
* the 50-move rule: 50 moves by each side without a capture or a pawn move have been
  played (and the last of them did not mate: checkmate is tested first).

python-chess's ``board.outcome(claim_draw=True)`` also reports a threefold repetition or
a 50-move draw that the side to move *could claim with its next move*, even when that
side has a mate in one; here a game ends only on a draw that has happened. A player who
would rather play on cannot: in a classroom game (and in a match between engines) the
arbiter claims the draw at once.

Two ways to stop a game before the rules do (adjudication):

* the **move cap**: after ``max_plies`` half-moves the game is scored by ``adjudicate``
  (default ``adjudicate_draw``; ``adjudicate_material`` gives it to the side 3 pawns
  ahead), recorded as ``Termination "move cap"`` so it can never hide as a win;
* the **resign rule** of engine testers: with ``resign_cp=C`` the game ends once the
  players' own searches agreed for ``resign_plies`` half-moves in a row (both sides'
  last moves) that one side is at least C centipawns ahead.

``play(white, black)`` plays one game and returns it as a ``chess.pgn.Game``.
"""
from __future__ import annotations

import random

import chess
import chess.pgn

__all__ = ["Player", "outcome", "is_over", "draw_by_rule", "Repetitions", "TERMINATION", "play",
           "adjudicate_draw", "adjudicate_material", "resign_verdict", "result_for", "check_max_plies"]


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


def outcome(board: chess.Board) -> chess.Outcome | None:
    """How the game on ``board`` has ended, or None while it goes on."""
    if not isinstance(board, chess.Board):
        raise TypeError(f"outcome() needs a chess.Board, got {type(board).__name__}")
    ended = board.outcome(claim_draw=False)
    if ended is not None:
        return ended
    if board.is_repetition(3):
        return chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
    if board.halfmove_clock >= 100:
        return chess.Outcome(chess.Termination.FIFTY_MOVES, None)
    return None


def is_over(board: chess.Board) -> bool:
    """True when ``outcome(board)`` is not None."""
    return outcome(board) is not None


def draw_by_rule(board: chess.Board) -> bool:
    """Drawn whatever the moves and the history: the 50-move rule or insufficient material.

    The part of ``outcome`` a search asks at every node, fast: it needs neither the
    legal moves (stalemate) nor the game's history (repetitions: a search keeps its own
    table, ``Repetitions``). A move that mates on the 100th half-move still wins: mate
    comes first.
    """
    if board.halfmove_clock >= 100:
        return not board.is_checkmate()
    return (not (board.pawns | board.rooks | board.queens)
            and board.is_insufficient_material())


class Repetitions:
    """The positions a search calls drawn by repetition: the game's positions since the
    last capture or pawn move (``board``'s own, the root included) and, as the search
    adds and removes them, those on the line it is searching.

    Not ``outcome``: inside a search a position that repeats once is already a draw (the
    side that repeats could not do better), and this is asked at every node, so it keeps
    a table of keys: ``hash(board._transposition_key())``, python-chess's own cheap
    position key (the one its repetition rules use).
    """

    def __init__(self, board: chess.Board):
        self.counts = {}
        replay = board.copy()
        for _ in range(min(board.halfmove_clock, len(board.move_stack)) + 1):
            self.add(hash(replay._transposition_key()))
            if not replay.move_stack:
                break
            replay.pop()

    def add(self, key) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    def remove(self, key) -> None:
        count = self.counts[key] - 1
        if count:
            self.counts[key] = count
        else:
            del self.counts[key]

    def is_draw(self, board: chess.Board, key) -> bool:
        """Drawn by ``draw_by_rule`` or by repeating a position of the game or the line
        (``key`` is ``board``'s key; a repetition needs at least 4 reversible plies)."""
        if draw_by_rule(board):
            return True
        return board.halfmove_clock >= 4 and key in self.counts


#: How each ending is named (the PGN ``Termination`` header, the board's messages).
TERMINATION = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventy-five-move rule",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
    chess.Termination.FIFTY_MOVES: "fifty-move rule",
    chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
}
#: The Termination of a game stopped at the move cap.
MOVE_CAP = "move cap"


# ---------------------------------------------------------------- adjudication

def adjudicate_draw(board: chess.Board) -> str:
    """At the move cap: a draw."""
    return "1/2-1/2"


#: Pawn units for ``adjudicate_material``.
_MATERIAL = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def adjudicate_material(board: chess.Board, margin: int = 3) -> str:
    """At the move cap: a win for the side ahead by ``margin`` pawns or more, else a draw."""
    diff = sum(v * (len(board.pieces(p, chess.WHITE)) - len(board.pieces(p, chess.BLACK)))
               for p, v in _MATERIAL.items())
    return "1-0" if diff >= margin else "0-1" if diff <= -margin else "1/2-1/2"


def resign_verdict(scores, resign_cp: float | None, resign_plies: int = 4):
    """(result, termination) when the last ``resign_plies`` scores (White's view, one per
    half-move, None where a player reported none) all say one side is at least
    ``resign_cp`` ahead; else None (also when ``resign_cp`` is None: the rule is off)."""
    recent = list(scores)[-resign_plies:]
    if resign_cp is None or len(recent) < resign_plies or None in recent:
        return None
    if min(recent) >= resign_cp:
        return "1-0", f"adjudicated: both engines see White {resign_cp:g}+ cp ahead"
    if max(recent) <= -resign_cp:
        return "0-1", f"adjudicated: both engines see Black {resign_cp:g}+ cp ahead"
    return None


def result_for(result: str, turn: chess.Color) -> float:
    """A game's result from the point of view of ``turn``: +1 win, 0 draw, -1 loss."""
    if result == "1/2-1/2":
        return 0.0
    return 1.0 if (result == "1-0") == (turn == chess.WHITE) else -1.0


def check_max_plies(max_plies, least: int = 1) -> None:
    """One clear line for a move cap that is not a whole number of at least ``least``."""
    if isinstance(max_plies, bool) or not isinstance(max_plies, int) or max_plies < least:
        raise ValueError(f"max_plies (the half-moves after which a game is adjudicated) "
                         f"must be a whole number of at least {least}, got {max_plies!r}")


# ---------------------------------------------------------------- the loop

def play(white, black, start: chess.Board | str | None = None, max_plies: int = 400,
         on_move=None, resign_cp: float | None = None, resign_plies: int = 4,
         adjudicate=adjudicate_draw) -> chess.pgn.Game:
    """Play one game from ``start`` (a board, kept unchanged, or a FEN; default the
    initial position) until ``outcome`` ends it, ``max_plies`` more half-moves are
    played (then ``adjudicate(board)`` gives the result) or the resign rule applies.

    ``white`` and ``black`` are players (may be the same object). ``on_move(board,
    move, player)`` is called before each move is pushed (``board`` is the position it is
    played in: a self-play recorder reads ``player.last_result`` there). Returns the
    game as PGN, moves of ``start``'s own move stack included, with headers ``White``,
    ``Black`` (the players' names), ``Result``, ``Termination`` and ``PlyCount``.
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
    return game

