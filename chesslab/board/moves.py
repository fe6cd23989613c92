"""What a move changes on the board: the pieces it lifts and the pieces it puts down.

An incrementally updated evaluation (the piece-square tables in a search, the NNUE's
accumulator) follows a game by these changes instead of rescanning all 64 squares:
a quiet move lifts one piece and puts it down elsewhere, a capture also lifts the
victim, en passant lifts a pawn beside the target square, a promotion puts down another
piece, and castling moves a king and a rook.
"""
from __future__ import annotations

import chess

__all__ = ["piece_changes"]


def piece_changes(board: chess.Board, move: chess.Move):
    """``(added, removed)``: the ``(colour, piece type, square)`` of every piece ``move``
    puts down and lifts, ``board`` being the position before it.

    Castling is understood in both notations (``e1g1`` and king takes rook, as
    Chess960 writes it); the null move changes nothing.
    """
    if not move:
        return (), ()
    us = board.turn
    piece = board.piece_type_at(move.from_square)
    if piece == chess.KING and board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = board.is_kingside_castling(move)
        if board.piece_type_at(move.to_square) == chess.ROOK and board.color_at(move.to_square) == us:
            rook_from = move.to_square                       # king-takes-rook notation
        else:
            rook_from = chess.square(7 if kingside else 0, rank)
        return (((us, chess.KING, chess.square(6 if kingside else 2, rank)),
                 (us, chess.ROOK, chess.square(5 if kingside else 3, rank))),
                ((us, chess.KING, move.from_square), (us, chess.ROOK, rook_from)))
    added = ((us, move.promotion or piece, move.to_square),)
    if piece == chess.PAWN and board.is_en_passant(move):
        victim = (not us, chess.PAWN, move.to_square + (-8 if us == chess.WHITE else 8))
        return added, ((us, piece, move.from_square), victim)
    captured = board.piece_type_at(move.to_square)
    if captured:
        return added, ((us, piece, move.from_square), (not us, captured, move.to_square))
    return added, ((us, piece, move.from_square),)
