"""The rules that end a game, and the two ways to stop one early (adjudication).

Every game in chesslab (a match, a self-play game of MCTS, a Stockfish game record, the
board in a notebook, a search's tree) ends by the same rule, ``outcome``:

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

Two ways to stop a game before the rules do:

* the **move cap**: after ``max_plies`` half-moves the game is scored by ``adjudicate``
  (default ``adjudicate_draw``; ``adjudicate_material`` gives it to the side 3 pawns
  ahead), recorded as ``Termination "move cap"`` so it can never hide as a win;
* the **resign rule** of engine testers: with ``resign_cp=C`` the game ends once the
  players' own searches agreed for ``resign_plies`` half-moves in a row (both sides'
  last moves) that one side is at least C centipawns ahead.

A result string and points convert here too (``points``, ``result_for``).
"""
from __future__ import annotations

import chess

from chesslab.board.scores import PIECE_VALUES, material_balance

__all__ = ["position_problems", "check_position", "check_playable", "history_key", "outcome", "drawn_with_moves_left", "draw_by_rule", "Repetitions", "TERMINATION", "MOVE_CAP",
           "adjudicate_draw", "adjudicate_material", "resign_verdict", "result_for", "points", "result_of", "winner_of", "RESULTS",
           "check_max_plies", "TIME_FORFEIT", "flag_result"]


#: What each of python-chess's status flags means, in words (``position_problems``).
_STATUS_WORDS = (
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "White has no king"),
    (chess.STATUS_NO_BLACK_KING, "Black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "a side has more than one king"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "White has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "Black has more than 8 pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "White has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "Black has more than 16 pieces"),
    (chess.STATUS_BAD_CASTLING_RIGHTS,
     "a castling right names a king or rook that is not on its square (a Chess960 "
     "position needs chess.Board(fen, chess960=True); chesslab's UCI engine plays "
     "standard chess only)"),
    (chess.STATUS_INVALID_EP_SQUARE,
     "the en passant square does not lie behind a pawn that has just moved two squares"),
    (chess.STATUS_OPPOSITE_CHECK,
     "the side not to move is in check (its king could be captured)"),
    (chess.STATUS_TOO_MANY_CHECKERS, "the side to move is in check by more than two pieces"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "the side to move is in a check no legal move can give"),
)


def position_problems(board: chess.Board) -> list:
    """What makes ``board`` an impossible chess position, in words (empty: a legal one).

    python-chess parses and even generates moves for such positions (two kings in check,
    a missing king, a pawn on the back rank), so a search would answer nonsense about
    them instead of failing: the searches, MCTS, the players and ``play_game`` ask here
    first."""
    status = board.status()
    return [words for flag, words in _STATUS_WORDS if status & flag]


def check_position(board: chess.Board, who: str = "chesslab") -> None:
    """A clear ``ValueError`` naming what is wrong when ``board`` is not a legal chess
    position (``position_problems``); ``who`` names the caller in the message."""
    problems = position_problems(board)
    if problems:
        raise ValueError(f"{who} cannot play {board.fen()!r}: it is not a legal chess "
                         f"position: {'; '.join(problems)}")


def outcome(board: chess.Board, claim_draws: bool = True) -> chess.Outcome | None:
    """How the game on ``board`` has ended, or None while it goes on.

    ``claim_draws=False``: only the endings that need no claim (checkmate, stalemate,
    insufficient material, the 75-move rule, fivefold repetition), e.g. for a random
    walk that should stop only where python-chess itself calls the game over.
    """
    if not isinstance(board, chess.Board):
        raise TypeError(f"outcome() needs a chess.Board, got {type(board).__name__}")
    ended = board.outcome(claim_draw=False)
    if ended is not None or not claim_draws:
        return ended
    if board.is_repetition(3):
        return chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
    if board.halfmove_clock >= 100:
        return chess.Outcome(chess.Termination.FIFTY_MOVES, None)
    return None


def drawn_with_moves_left(board: chess.Board) -> bool:
    """``outcome`` for a position known to have a legal move: is it a draw?

    For a search that has generated the moves already (MCTS's leaves): only the draws
    remain to test, and the 75-move rule and fivefold repetition are caught by their
    50-move and threefold forms.
    """
    return draw_by_rule(board) or board.is_repetition(3)


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


def check_playable(board: chess.Board, who: str = "chesslab") -> None:
    """``check_position``, and a clear ``ValueError`` when the side to move has no legal
    move (checkmate, stalemate). A draw by rule that still has moves is playable: a GUI
    may ask there (a repetition or the 50-move rule is drawn only when claimed)."""
    check_position(board, who)
    if not any(board.generate_legal_moves()):
        ended = outcome(board)
        raise ValueError(f"the game is over ({ended.result()}, "
                         f"{TERMINATION[ended.termination]}); {who} has no move to choose "
                         f"in {board.fen()}")


def history_key(board: chess.Board) -> tuple:
    """The position with the moves since the last capture or pawn move: what its future
    repetitions depend on. Two boards with the same key play on alike; two with the same
    FEN but other histories may not (a search tree kept for one is wrong for the other)."""
    stack = board.move_stack
    return board.fen(), tuple(stack[max(len(stack) - board.halfmove_clock, 0):])


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


def adjudicate_material(board: chess.Board, margin: int = 3) -> str:
    """At the move cap: a win for the side ahead by ``margin`` pawns or more, else a draw."""
    diff = material_balance(board) / PIECE_VALUES[chess.PAWN]
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


RESULTS = ("1-0", "1/2-1/2", "0-1")


def result_for(result: str, turn: chess.Color) -> float:
    """A game's result from the point of view of ``turn``: +1 win, 0 draw, -1 loss
    (the value a self-play position is trained towards)."""
    return 2.0 * points(result, turn) - 1.0


def points(result: str, color: chess.Color = chess.WHITE) -> float:
    """What a result is worth to ``color`` in a match table: 1 win, 1/2 draw, 0 loss.

    A game still going ("*") or any other string is refused: it has no points yet."""
    if result not in RESULTS:
        raise ValueError(f"a finished game's result is one of {', '.join(RESULTS)}; "
                         f"got {result!r}")
    if result == "1/2-1/2":
        return 0.5
    return 1.0 if (result == "1-0") == (color == chess.WHITE) else 0.0


def result_of(winner: chess.Color | None) -> str:
    """The result string of a game won by ``winner`` (None: a draw)."""
    return {chess.WHITE: "1-0", chess.BLACK: "0-1", None: "1/2-1/2"}[winner]


def winner_of(result: str) -> chess.Color | None:
    """Who won a game with this result (None: a draw); a clear error for anything else."""
    if result not in RESULTS:
        raise ValueError(f"result must be one of {', '.join(RESULTS)}, got {result!r}")
    return None if result == "1/2-1/2" else result == "1-0"


def check_max_plies(max_plies, least: int = 1) -> None:
    """One clear line for a move cap that is not a whole number of at least ``least``."""
    if isinstance(max_plies, bool) or not isinstance(max_plies, int) or max_plies < least:
        raise ValueError(f"max_plies (the half-moves after which a game is adjudicated) "
                         f"must be a whole number of at least {least}, got {max_plies!r}")


#: The ``Termination`` of a game whose mover's clock ran out.
TIME_FORFEIT = "time forfeit"


def flag_result(board: chess.Board, color: chess.Color) -> str:
    """The result when ``color``'s clock runs out in ``board``: a loss, or a draw when the
    opponent has too little material to mate by any series of moves (FIDE 6.9)."""
    if board.has_insufficient_material(not color):
        return "1/2-1/2"
    return "0-1" if color == chess.WHITE else "1-0"
