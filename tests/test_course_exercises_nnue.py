"""course.exercises.nnue: the checkers of notebook 05: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import chess
import numpy as np
import pytest

from chesslab.course.exercises.nnue import check_accumulator_update, nnue_move_cases, small_nnue


def stub(*args):
    raise NotImplementedError("your code here")


def update(evaluator, accumulator, board, move, skip=None):
    """A student's answer written from the rules; ``skip`` plants a mistake."""
    def row(color, piece, square):
        return evaluator.rows[((0 if color == chess.WHITE else 1) * 6 + piece - 1) * 64 + square]
    us, piece = board.turn, board.piece_type_at(move.from_square)
    acc = accumulator - row(us, piece, move.from_square)
    if board.is_castling(move) and skip != "castling":
        rank, kingside = chess.square_rank(move.from_square), board.is_kingside_castling(move)
        acc -= row(us, chess.ROOK, chess.square(7 if kingside else 0, rank))
        acc += row(us, chess.ROOK, chess.square(5 if kingside else 3, rank))
        return acc + row(us, chess.KING, chess.square(6 if kingside else 2, rank))
    if board.is_en_passant(move) and skip != "en passant":
        acc -= row(not us, chess.PAWN, move.to_square + (-8 if us == chess.WHITE else 8))
    elif board.piece_at(move.to_square):
        acc -= row(not us, board.piece_type_at(move.to_square), move.to_square)
    promoted = piece if skip == "promotion" else (move.promotion or piece)
    return acc + row(us, promoted, move.to_square)


def test_the_cases_hold_every_kind_of_move():
    pairs = nnue_move_cases(300, 11)
    kinds = [(b.is_castling(m), b.is_en_passant(m), bool(m.promotion), b.is_capture(m))
             for b, m in pairs]
    assert len(pairs) == 300
    for k in range(4):
        assert sum(kind[k] for kind in kinds) >= 2


@pytest.mark.parametrize("seed", [11, 111])
def test_every_case_move_is_legal_in_its_position(seed):
    """The cases keep positions without their move history (a cheaper copy): castling
    rights and the en passant square must come along, or these moves turn illegal."""
    pairs = nnue_move_cases(300, seed)
    assert all(board.is_legal(move) for board, move in pairs)
    assert any(board.is_en_passant(move) for board, move in pairs)
    assert any(board.is_castling(move) for board, move in pairs)


@pytest.mark.parametrize("mistake", ["castling", "en passant", "promotion"])
def test_accumulator_update_right_and_planted_mistakes(mistake):
    assert check_accumulator_update(update, show=False).ok
    wrong = check_accumulator_update(
        lambda e, a, b, m: update(e, a, b, m, skip=mistake), show=False)
    assert not wrong.ok and wrong.attempted and "accumulator" in wrong.first_failure


def test_accumulator_update_a_capture_forgotten_and_a_stub(capsys):
    def no_capture(evaluator, acc, board, move):
        if board.is_capture(move) and not board.is_en_passant(move):
            board.remove_piece_at(move.to_square)      # as if the square were empty
        return update(evaluator, acc, board, move)
    assert not check_accumulator_update(no_capture, show=False).ok
    assert not check_accumulator_update(stub).attempted
    assert "my_update: not attempted yet" in capsys.readouterr().out


def test_the_small_nnue_has_distinct_rows():
    rows = small_nnue(0).rows
    assert len(np.unique(rows.round(9), axis=0)) == len(rows)


def test_the_update_gets_only_the_rows():
    """An answer that asks the evaluator for the accumulator after the move, instead of
    adding rows, fails every case with a line that says what it is given."""
    def from_scratch(evaluator, accumulator, board, move):
        after = board.copy()
        after.push(move)
        return evaluator.accumulator(after)
    result = check_accumulator_update(from_scratch, show=False)
    assert result.passed == 0 and result.attempted
    assert "only `evaluator.rows`" in result.first_failure
    assert "evaluator.accumulator" in result.first_failure

    def writes_rows(evaluator, accumulator, board, move):
        evaluator.rows[0] += 1.0                       # the rows are the checker's
        return update(evaluator, accumulator, board, move)
    assert check_accumulator_update(writes_rows, show=False).passed == 0
