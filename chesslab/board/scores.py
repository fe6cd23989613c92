"""Scores: centipawns from White's point of view, and the one way a mate is written.

Every number that judges a position in chesslab is in centipawns (100 = a pawn) from
White's side: positive is good for White. A mate has no centipawn value, so it is
written by one convention, depending on how much is known about it:

* an **evaluator** only sees that the position on the board is checkmate: it returns
  ``+inf`` (White has mated) or ``-inf`` (White is mated), ``checkmate_score(board)``;
* a **search** knows how far away the mate is: a mate found ``ply`` half-moves from the
  root scores ``MATE - ply`` (``-(MATE - ply)`` when White is mated), so a nearer mate
  scores higher; the search turns an evaluator's ``+-inf`` into that number;
* a **finished game** scores ``+-MATE`` (mated now, ``result_score``);
* **showing** a score: ``is_mate_score`` is true for all of these (anything at or beyond
  ``MATE_THRESHOLD``, infinity included), ``mate_in`` gives the moves to mate, and
  ``format_score`` writes any score the one way chesslab shows it: ``+0.35`` (pawns) or
  ``+35`` (centipawns), ``+M2`` for "White mates in 2", ``-M1`` for "Black mates in 1",
  ``+M`` for a mate whose distance is unknown (an evaluator's ``+inf``).

Training labels use a smaller scale on purpose, ``LABEL_MATE_CP``: Stockfish's "mate in
n moves" is stored as ``+-(LABEL_MATE_CP - n)`` and every label is clipped to
``+-LABEL_MATE_CP``. The dataset stores labels as int16 (at most 32,767, too small for
``MATE``), and training squashes them anyway (``tanh(10000 / 400)`` is 1.0), so the
labels only need to be far beyond any material balance.
"""
from __future__ import annotations

import math

import chess

#: A search's score for "mated right now"; a mate ``ply`` half-moves away is MATE - ply.
MATE = 100_000
#: Scores at or beyond this (in either direction) are mates.
MATE_THRESHOLD = MATE - 1000
#: Training labels: Stockfish's mate in n moves is +-(LABEL_MATE_CP - n), all labels
#: clipped to +-LABEL_MATE_CP (int16 storage; see the module docstring).
LABEL_MATE_CP = 10_000


#: Centipawns of each piece: the Naive Bayes chapter's values (the king is never captured).
#: Evaluators, move ordering and adjudication all count material with these.
PIECE_VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300,
                chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 0}

def material_balance(board: chess.Board) -> int:
    """White's material minus Black's, in centipawns (``PIECE_VALUES``)."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    total = 0
    for piece_type in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        mask = board.pieces_mask(piece_type, chess.WHITE) | board.pieces_mask(piece_type,
                                                                              chess.BLACK)
        total += PIECE_VALUES[piece_type] * (chess.popcount(mask & white)
                                             - chess.popcount(mask & black))
    return total


def checkmate_score(board: chess.Board) -> float | None:
    """+-inf (White's view) if the side to move is checkmated, else None: what an
    evaluator returns for a mate. Legal moves are generated only when in check."""
    if board.is_check() and not any(board.generate_legal_moves()):
        return -math.inf if board.turn == chess.WHITE else math.inf
    return None


def is_mate_score(cp) -> bool:
    """Is ``cp`` a mate: an evaluator's +-inf or a search's +-(MATE - ply)?"""
    return cp is not None and abs(cp) >= MATE_THRESHOLD


def mate_in(cp) -> int | None:
    """Moves to mate of a search's score: n > 0 White mates in n, n < 0 Black mates in
    -n; None if ``cp`` is no mate or an evaluator's +-inf (the distance is unknown)."""
    if not is_mate_score(cp) or math.isinf(cp):
        return None
    plies = MATE - abs(cp)
    return int(math.copysign((plies + 1) // 2, cp))


def format_score(cp, unit: str = "pawns") -> str:
    """A White's-view score as text: ``+0.35`` (``unit="pawns"``) or ``+35``
    (``unit="cp"``); a mate as ``+M2`` / ``-M1`` (``+M`` / ``-M`` when its distance is
    unknown); ``?`` for no score."""
    if unit not in ("pawns", "cp"):
        raise ValueError(f"unit is 'pawns' or 'cp', got {unit!r}")
    if cp is None:
        return "?"
    if is_mate_score(cp):
        moves = mate_in(cp)
        return f"{'+' if cp > 0 else '-'}M{'' if moves is None else abs(moves)}"
    return f"{cp / 100 + 0.0:+.2f}" if unit == "pawns" else f"{int(round(cp)):+d}"


def result_score(result: str) -> float:
    """A finished game's score: +MATE for "1-0", -MATE for "0-1", 0 for a draw."""
    return {"1-0": MATE, "0-1": -MATE}.get(result, 0)


def mate_value(ply: int) -> int:
    """Negamax score of the side to move when it is checkmated ``ply`` plies deep."""
    return -(MATE - ply)


def white_to_side(value: float, turn: chess.Color, ply: int) -> float:
    """An evaluator's White-view value -> negamax score; +-inf becomes a mate score."""
    if value == math.inf:
        value = MATE - ply
    elif value == -math.inf:
        value = -(MATE - ply)
    return value if turn == chess.WHITE else -value
