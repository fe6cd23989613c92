"""course.exercises.encoding: the checkers of notebooks 01, 11: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""

import chess
import numpy as np

from chesslab.board import encoding
from chesslab.course.exercises.encoding import (check_move_to_index, check_planes14,
                                                check_thesis_vector)
from tests.checker_helpers import twin


thesis_vector = twin(encoding.thesis_vector)
planes14 = twin(encoding.planes14)


def test_thesis_vector_checker(capsys):
    assert check_thesis_vector(thesis_vector, cases=40).ok
    assert "all 40 cases agree" in capsys.readouterr().out

    def colours_swapped(board):
        return -thesis_vector(board)
    bad = check_thesis_vector(colours_swapped, cases=40)
    assert not bad.ok and bad.passed == 0 and "expected" in bad.first_failure
    assert "/" in bad.first_failure                      # the FEN to reproduce it

    def upside_down(board):
        return thesis_vector(board).reshape(8, 8)[::-1].reshape(-1)
    assert not check_thesis_vector(upside_down, cases=40, show=False).ok


def planes14_by_hand(board, legal=True):
    planes = np.zeros((14, 8, 8))
    for square, piece in board.piece_map().items():
        offset = 0 if piece.color == chess.WHITE else 6
        planes[offset + piece.piece_type - 1, 7 - chess.square_rank(square),
               chess.square_file(square)] = 1
    for plane, color in ((12, chess.WHITE), (13, chess.BLACK)):
        turned = board.copy(stack=False)
        if turned.turn != color:
            turned.turn, turned.ep_square = color, None
        for move in (turned.legal_moves if legal else turned.pseudo_legal_moves):
            planes[plane, 7 - chess.square_rank(move.to_square),
                   chess.square_file(move.to_square)] = 1
    return planes


def test_planes14_checker():
    assert check_planes14(planes14, cases=30, show=False).ok

    def own_moves_only(board):                 # both move planes from the side to move
        planes = planes14(board).copy()
        planes[13] = planes[12]
        return planes
    bad = check_planes14(own_moves_only, cases=30, show=False)
    assert not bad.ok and bad.first_failure.startswith("plane, row, column[1")


def test_planes14_checker_accepts_a_hand_written_encoding():
    result = check_planes14(planes14_by_hand, show=False)
    assert result.ok, result.first_failure


def test_planes14_rule_positions_catch_a_version_without_en_passant():
    """The first cases are the rule positions, so even 6 cases try an en passant target
    (castling needs no case of its own: the rook reaches the king's target square too)."""
    for skipped in (chess.Board.is_en_passant,):
        def without(board, skipped=skipped):
            planes = planes14(board).copy()
            planes[12:] = 0
            for plane, color in ((12, chess.WHITE), (13, chess.BLACK)):
                side = board.copy(stack=False)
                if side.turn != color:
                    side.turn, side.ep_square = color, None
                for move in side.legal_moves:
                    if not skipped(side, move):
                        to = move.to_square
                        planes[plane, 7 - chess.square_rank(to), chess.square_file(to)] = 1
            return planes
        assert check_planes14(without, cases=6, show=False).ok is False, skipped

    def pseudo_legal(board):                   # moves that leave the king in check count
        return planes14_by_hand(board, legal=False)
    bad = check_planes14(pseudo_legal, show=False)
    assert not bad.ok and bad.first_failure.startswith("plane, row, column[1")


def test_move_to_index_checker():
    def by_hand(move):
        if move.promotion is None:
            return move.from_square * 64 + move.to_square
        pair = encoding.PROMOTION_PAIRS.index((move.from_square, move.to_square))
        return 4096 + 4 * pair + [chess.KNIGHT, chess.BISHOP, chess.ROOK,
                                  chess.QUEEN].index(move.promotion)
    assert check_move_to_index(by_hand, cases=10, show=False).ok

    def queen_promotions_as_plain(move):
        if move.promotion == chess.QUEEN:
            return move.from_square * 64 + move.to_square
        return by_hand(move)
    bad = check_move_to_index(queen_promotions_as_plain, cases=10, show=False)
    assert not bad.ok and "q:" in bad.first_failure
