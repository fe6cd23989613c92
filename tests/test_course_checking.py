"""course.checking: what every checker shares: a submission that calls the reference gets
no credit, an exception names the input that raised it, arrays that differ are named by
entry."""

import chess
import numpy as np

from chesslab.board import encoding
from chesslab.course.exercises.encoding import check_move_to_index, check_thesis_vector
from chesslab.course.exercises.mcts import check_puct_select
from chesslab.course.exercises.networks import check_dense_backward, check_max_pool
from chesslab import nn
from chesslab.search import mcts
from tests.checker_helpers import twin


def thesis_vector(board):
    """The thesis's 64 numbers by hand (chesslab's would call ``thesis_vectors``, which
    the checker switches off with it)."""
    codes = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 4, chess.ROOK: 2, chess.QUEEN: 5,
             chess.KING: 7}
    out = np.zeros(64)
    for square, piece in board.piece_map().items():
        out[8 * (7 - chess.square_rank(square)) + chess.square_file(square)] = (
            codes[piece.piece_type] * (1 if piece.color else -1))
    return out


def test_a_submission_that_calls_the_reference_gets_no_credit():
    """``my_puct_select = puct_select``, a call through a module, a method of the class
    under test: each case fails with "uses the reference", and the reference works again
    afterwards."""
    my_puct_select = mcts.puct_select
    result = check_puct_select(my_puct_select, cases=20, show=False)
    assert result.passed == 0 and result.first_failure.startswith("uses the reference")
    assert "puct_select" in result.first_failure

    def through_the_module(board):
        return encoding.thesis_vector(board) + 0
    result = check_thesis_vector(through_the_module, cases=5, show=False)
    assert result.passed == 0 and "thesis_vector" in result.first_failure

    def by_the_layer(x, size):
        return nn.MaxPool2D(size).forward(x)
    result = check_max_pool(by_the_layer, cases=5, show=False)
    assert result.passed == 0 and "MaxPool2D.forward" in result.first_failure
    def by_a_dense_layer(x, W, grad_out):        # the layer does the work, not the student
        layer = nn.Dense(*W.shape, dtype=np.float64)
        layer.params["W"][...] = W
        layer.forward(x)
        return layer.backward(grad_out), layer.grads["W"], layer.grads["b"]
    result = check_dense_backward(by_a_dense_layer, cases=5, show=False)
    assert result.passed == 0 and "Dense.backward" in result.first_failure
    q, n, p = np.zeros(3), np.array([1.0, 0.0, 0.0]), np.array([0.2, 0.5, 0.3])
    assert mcts.puct_select(q, n, p, 1.5) == 1               # switched back on
    assert check_puct_select(twin(mcts.puct_select), cases=20, show=False).ok


def test_an_exception_names_the_input_that_raised_it():
    def breaks_on_black(board):
        if board.turn == chess.BLACK:
            return {}[None]
        return thesis_vector(board)
    result = check_thesis_vector(breaks_on_black, cases=10, show=False)
    assert result.first_failure.startswith("raised KeyError: None (called with board '")
    assert " b " in result.first_failure                     # the FEN of Black's position

    def breaks_on_promotions(move):
        if move.promotion:
            raise ValueError("no promotions")
        return move.from_square * 64 + move.to_square
    result = check_move_to_index(breaks_on_promotions, cases=5, show=False)
    assert "raised ValueError: no promotions (called with move " in result.first_failure


def test_close_arrays_names_the_entry_that_differs_and_a_scalar_without_an_index():
    from chesslab.course.checking import close_arrays
    assert close_arrays([1.0, 2.0], [1.0, 2.0], "z") is None
    assert close_arrays([1.0, 2.5], [1.0, 2.0], "z") == "z[1] is 2.5, expected 2"
    assert close_arrays(0.25, 0.5, "expected score") == "expected score is 0.25, expected 0.5"
    assert close_arrays([1.0], [[1.0]], "z") == "z has shape (1,), expected (1, 1)"
