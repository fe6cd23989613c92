"""The learning checkers (notebooks 01-06): a right answer passes, a typical mistake is
caught, an untouched stub says "not attempted"."""
import random

import chess
import numpy as np
import pytest

from chesslab.course.exercises.design import MATERIAL_BAR, check_material_design, design_inputs
from chesslab.course.exercises.networks import check_residual_forward
from chesslab.course.exercises.nnue import check_accumulator_update, nnue_move_cases, small_nnue
from chesslab.course.exercises.training import check_win_probability
from chesslab.board.scores import material_balance
from chesslab.course.checking import seeded_boards


def stub(*args):
    raise NotImplementedError("your code here")


# ------------------------------------------------------------ win probability
def to_score(cp):
    return 1 / (1 + np.exp(-np.asarray(cp, dtype=float) / 400))


def to_cp(p):
    p = np.asarray(p, dtype=float)
    return 400 * np.log(p / (1 - p))


def test_win_probability_right_wrong_and_stub(capsys):
    assert check_win_probability(to_score, to_cp).ok
    assert "all 200 cases agree" in capsys.readouterr().out
    tanh_target = lambda cp: np.tanh(np.asarray(cp, dtype=float) / 400)   # noqa: E731
    assert not check_win_probability(tanh_target, to_cp, show=False).ok
    no_scale = lambda p: np.log(p / (1 - p))                              # noqa: E731
    wrong = check_win_probability(to_score, no_scale, show=False)
    assert not wrong.ok and "back from p" in wrong.first_failure
    per_pawn = lambda cp: 1 / (1 + np.exp(-np.asarray(cp, dtype=float) / 100))  # noqa: E731
    assert not check_win_probability(per_pawn, to_cp, show=False).ok
    result = check_win_probability(stub, stub)
    assert not result.attempted and "not attempted yet" in capsys.readouterr().out


# ------------------------------------------------------------ accumulator update
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
    assert "accumulator update: not attempted yet" in capsys.readouterr().out


def test_the_small_nnue_has_distinct_rows():
    rows = small_nnue(0).rows
    assert len(np.unique(rows.round(9), axis=0)) == len(rows)


# ------------------------------------------------------------ residual block
def residual(x, block, relu_before_add=False, no_eps=False):
    conv1, bn1, _, conv2, bn2 = block.layers

    def norm(bn, h):
        shape = (1, -1, 1, 1)
        eps = 0.0 if no_eps else bn.eps
        scale = bn.params["gamma"] / np.sqrt(bn.running_var + eps)
        return (h - bn.running_mean.reshape(shape)) * scale.reshape(shape) \
            + bn.params["beta"].reshape(shape)
    h = np.maximum(norm(bn1, conv1.forward(x)), 0)
    h = norm(bn2, conv2.forward(h))
    return np.maximum(h, 0) + x if relu_before_add else np.maximum(h + x, 0)


def test_residual_forward_right_wrong_and_stub(capsys):
    assert check_residual_forward(residual, show=False).ok
    wrong = check_residual_forward(
        lambda x, b: residual(x, b, relu_before_add=True), show=False)
    assert not wrong.ok and "output" in wrong.first_failure
    no_skip = lambda x, b: residual(x, b) - x                           # noqa: E731
    assert not check_residual_forward(no_skip, show=False).ok
    assert not check_residual_forward(stub).attempted
    assert "residual block: not attempted yet" in capsys.readouterr().out


# ------------------------------------------------------------ the design
@pytest.fixture(scope="module")
def material_task():
    boards = seeded_boards(2000, 21)
    return boards, np.array([material_balance(b) / 1000 for b in boards])


def test_a_good_design_passes_and_the_thesis_design_is_far_from_the_bar(material_task, capsys):
    boards, y = material_task
    good = {"inputs": "pieces", "topology": [768, 1], "activation": "sigmoid", "lr": 0.01,
            "epochs": 30, "batch": 32}
    result = check_material_design(lambda: good, boards, y)
    said = capsys.readouterr().out
    assert result.ok and "passed" in said
    assert "1,600 training and 400 validation positions" in said    # 80% of 2000 boards
    thesis = {"inputs": "thesis", "topology": [64, 64, 64, 1], "activation": "sigmoid",
              "lr": 0.001, "epochs": 20, "batch": 32}
    result = check_material_design(lambda: thesis, boards, y)
    assert not result.ok and min(result.errors) > MATERIAL_BAR
    assert "times it" in capsys.readouterr().out


def test_an_undertrained_design_is_told_so(material_task):
    """The right idea at too small a learning rate: the line shows the training error,
    and that it is above the bar (undertrained), not only that validation failed."""
    boards, y = material_task
    slow = {"inputs": "pieces", "topology": [768, 1], "activation": "sigmoid", "lr": 0.001,
            "epochs": 30, "batch": 32}
    result = check_material_design(lambda: slow, boards, y, seeds=(0,), show=False)
    assert not result.ok and min(result.training_errors) > MATERIAL_BAR
    assert "undertrained (training error " in str(result) and "above the bar" in str(result)


def test_a_design_that_breaks_the_rules_or_is_not_written(material_task, capsys):
    boards, y = material_task
    base = {"inputs": "pieces", "topology": [768, 1], "lr": 0.01, "epochs": 30}
    for change, said in (({"epochs": 200}, "at most 30 epochs"),
                         ({"inputs": "material"}, "inputs must be one of"),
                         ({"topology": [64, 1]}, "must start with 768"),
                         ({"topology": [768, 200, 1]}, "the budget is"),
                         ({"batch": 4}, "a batch of at least 16")):
        result = check_material_design(lambda: {**base, **change}, boards, y,
                                                 show=False)
        assert not result.ok and said in result.first_failure, said
    assert not check_material_design(stub, boards, y).attempted
    assert "material design: not attempted yet" in capsys.readouterr().out


def test_design_inputs_have_the_sizes_the_rules_name():
    boards = [chess.Board()]
    assert [design_inputs(boards, k).shape[1] for k in ("thesis", "planes14", "pieces")] == \
        [64, 896, 768]
    assert random.Random(0)          # the module seeds nothing globally


def test_close_arrays_names_the_entry_that_differs_and_a_scalar_without_an_index():
    from chesslab.course.checking import close_arrays
    assert close_arrays([1.0, 2.0], [1.0, 2.0], "z") is None
    assert close_arrays([1.0, 2.5], [1.0, 2.0], "z") == "z[1] is 2.5, expected 2"
    assert close_arrays(0.25, 0.5, "expected score") == "expected score is 0.25, expected 0.5"
    assert close_arrays([1.0], [[1.0]], "z") == "z has shape (1,), expected (1, 1)"
