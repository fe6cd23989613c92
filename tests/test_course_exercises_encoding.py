"""course.exercises.encoding: the checkers of notebooks 01, 11: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""

import chess
import numpy as np
import pytest

from chesslab.board import encoding
from chesslab.course.exercises.encoding import (check_move_to_index, check_planes14,
                                                check_thesis_vector)


def thesis_vector(board):
    """The thesis's 64 numbers written by hand (a twin of chesslab's would call
    ``thesis_vectors``, which the checker switches off with it)."""
    codes = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 4, chess.ROOK: 2, chess.QUEEN: 5,
             chess.KING: 7}
    out = np.zeros(64, dtype=np.float32)
    for square, piece in board.piece_map().items():
        row, col = 7 - chess.square_rank(square), chess.square_file(square)
        out[8 * row + col] = codes[piece.piece_type] * (1 if piece.color else -1)
    return out


def planes14(board):
    return planes14_by_hand(board)


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


def _thesis_by_bits(board):                    # evaluators.features' piece bits, reordered
    from chesslab.evaluators import features
    bits = features.piece_bits([board])[0].reshape(12, 8, 8)[:, ::-1].reshape(12, 64)
    codes = np.array([1, 3, 4, 2, 5, 7], dtype=float)
    return np.concatenate([codes, -codes]) @ bits


def _planes14_by_move_targets(board):          # the piece planes by hand, the rest borrowed
    planes = planes14_by_hand(board)
    for plane, color in ((12, chess.WHITE), (13, chess.BLACK)):
        mask = encoding._move_targets(board, color)
        planes[plane] = 0
        for square in chess.scan_forward(mask):
            planes[plane, 7 - chess.square_rank(square), chess.square_file(square)] = 1
    return planes


def test_the_policy_index_lists_are_switched_off_by_their_own_name():
    """mover_indices with White to move gives move_to_index's answer: a student who calls
    it is told so by its name, and it works again afterwards."""
    result = check_move_to_index(lambda m: int(encoding.mover_indices(chess.Board(), [m])[0]),
                                 cases=1, show=False)
    assert result.passed == 0 and "called chesslab's mover_indices" in result.first_failure
    assert encoding.mover_indices(chess.Board(), [chess.Move.from_uci("d2d4")])[0] == 731


def _index_by_inverse(move):                   # looks the move up in the inverse table
    table = {encoding._index_to_raw_move(i): i for i in range(encoding.POLICY_SIZE)}
    return table[move]


@pytest.mark.parametrize("checker, cheat, cases", [
    (check_thesis_vector, lambda b: encoding.thesis_vectors([b])[0], 20),
    (check_thesis_vector, _thesis_by_bits, 20),
    (check_planes14, lambda b: encoding.planes14_batch([b])[0], 10),
    (check_planes14, _planes14_by_move_targets, 10),
    (check_move_to_index, _index_by_inverse, 1)],
    ids=["thesis_vectors", "features.piece_bits", "planes14_batch", "_move_targets",
         "_index_to_raw_move"])
def test_the_functions_the_reference_is_built_from_are_switched_off_too(checker, cheat, cases):
    """A batch version, a private helper or a sibling that computes the same answer is
    the reference by another name: each case fails with "uses the reference", and the
    functions work again afterwards."""
    result = checker(cheat, cases=cases, show=False)
    assert result.passed == 0 and result.first_failure.startswith("uses the reference"), result
    assert encoding.thesis_vectors([chess.Board()]).shape == (1, 64)
    assert encoding._index_to_raw_move(0) == chess.Move(0, 0)
