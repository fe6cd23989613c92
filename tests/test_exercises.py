"""The checkers of notebooks 01-11 (chesslab.course.exercises): each passes the reference
and catches a planted mistake."""
import math
import types

import chess
import numpy as np
import pytest

from chesslab.matches import match as arena
from chesslab.board import encoding
from chesslab.course.exercises.alphabeta import check_alphabeta, check_quiesce
from chesslab.course.exercises.bayes import check_gaussian_nb_fit, check_material
from chesslab.course.exercises.encoding import (check_move_to_index, check_planes14,
                                                check_thesis_vector)
from chesslab.course.exercises.matches import check_wilson_interval
from chesslab.course.exercises.mcts import check_puct_select
from chesslab.course.exercises.minimax import check_minimax, check_perft, perft
from chesslab.course.exercises.networks import check_conv2d, check_dense_backward, check_max_pool
from chesslab.course.exercises.training import check_sample_plies
from chesslab.datasets import records as games
from chesslab import nn
from chesslab.search import mcts


def twin(function):
    """A copy of ``function`` (its code in a function object of its own): a checker
    switches the reference itself off while the student's function runs, so a planted
    mistake built on the reference calls its twin."""
    return types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)


thesis_vector, conv2d_naive = twin(encoding.thesis_vector), twin(nn.conv2d_naive)
planes14, sample_plies = twin(encoding.planes14), twin(games.sample_plies)
wilson_interval = twin(arena.wilson_interval)


def dense_backward(x, W, grad_out):
    return grad_out @ W.T, x.T @ grad_out, grad_out.sum(axis=0)


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


def test_dense_backward_checker():
    assert check_dense_backward(dense_backward, show=False).ok

    def forgot_the_transpose(x, W, grad_out):    # wrong numbers, or raises if W is not square
        _, gw, gb = dense_backward(x, W, grad_out)
        return grad_out @ W, gw, gb
    bad = check_dense_backward(forgot_the_transpose, show=False)
    assert not bad.ok and "grad_x[" in bad.first_failure
    assert bad.passed < bad.cases // 2

    def mean_not_sum(x, W, grad_out):
        gx, gw, _ = dense_backward(x, W, grad_out)
        return gx, gw, grad_out.mean(axis=0)
    bad = check_dense_backward(mean_not_sum, show=False)
    assert not bad.ok and "grad_b" in bad.first_failure


def test_conv2d_checker_and_a_student_who_has_not_started(capsys):
    def reference(x, weight, bias, padding):
        return conv2d_naive(x, weight, bias, padding=padding)
    assert check_conv2d(reference, show=False).ok

    def flipped_kernel(x, weight, bias, padding):
        return conv2d_naive(x, weight[:, :, ::-1, ::-1], bias, padding=padding)
    bad = check_conv2d(flipped_kernel, show=False)
    assert not bad.ok and 0 < bad.passed < bad.cases      # a 1x1 kernel is the same flipped

    def stub(x, weight, bias, padding):
        raise NotImplementedError("slide the kernel over the padded board")
    stub_result = check_conv2d(stub, cases=5)
    assert not stub_result.ok and not stub_result.attempted
    assert capsys.readouterr().out == ("conv2d: not attempted yet (slide the kernel over the "
                                       "padded board)\n")

    calls = []

    def half_written(x, weight, bias, padding):       # started: the first difference shows
        calls.append(1)
        if len(calls) % 2:
            raise NotImplementedError("the padding")
        return conv2d_naive(x, weight, bias, padding=padding)
    started = check_conv2d(half_written, cases=4, show=False)
    assert started.attempted and started.passed == 2
    assert started.first_failure == "not written yet (the padding)"

    def warns(x, weight, bias, padding):       # a warning stays off stderr (nbgrader: 0)
        np.log(np.zeros(1))
        return conv2d_naive(x, weight, bias, padding=padding)
    assert check_conv2d(warns, cases=3).ok
    assert capsys.readouterr().err == ""

    def index_error(x, weight, bias, padding):      # a crash is reported, never raised
        return x[:, :, 99]
    bad = check_conv2d(index_error, show=False)
    assert bad.passed == 0 and bad.first_failure.startswith("raised IndexError: index 99")


def test_gaussian_nb_checker():
    def reference(X, y):
        classes = np.unique(y)
        rows = [X[y == c] for c in classes]
        return (np.array([len(r) / len(X) for r in rows]),
                np.stack([r.mean(axis=0) for r in rows]), np.stack([r.var(axis=0) for r in rows]))
    assert check_gaussian_nb_fit(reference, show=False).ok

    def sample_variance(X, y):                 # ddof=1: not what Gaussian NB fits
        priors, means, _ = reference(X, y)
        return priors, means, np.stack([X[y == c].var(axis=0, ddof=1) for c in np.unique(y)])
    bad = check_gaussian_nb_fit(sample_variance, show=False)
    assert not bad.ok and "variances" in bad.first_failure

    def equal_priors(X, y):
        _, means, variances = reference(X, y)
        return np.full(len(means), 1 / len(means)), means, variances
    assert "priors" in check_gaussian_nb_fit(equal_priors, show=False).first_failure


# ---------------------------------------------------------------- written as a student would
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


def test_max_pool_checker():
    def by_hand(x, size):
        n, c, h, w = x.shape
        out_h, out_w = -(-h // size), -(-w // size)
        out = np.empty((n, c, out_h, out_w))
        for i in range(out_h):
            for j in range(out_w):
                window = x[:, :, i * size:(i + 1) * size, j * size:(j + 1) * size]
                out[:, :, i, j] = window.max(axis=(2, 3))
        return out
    assert check_max_pool(by_hand, show=False).ok

    def floor_mode(x, size):                   # drops the last partial window
        h = x.shape[2] // size * size
        windows = x[:, :, :h, :h].reshape(len(x), x.shape[1], h // size, size, h // size, size)
        return windows.max(axis=(3, 5))
    bad = check_max_pool(floor_mode, show=False)
    assert not bad.ok and "has shape" in bad.first_failure


def test_sample_plies_checker():
    def by_hand(n):
        keep = [p for p in range(1, n + 1) if (p % 6 == 0 if p <= 0.75 * n else p % 2 == 0)]
        return keep if keep and keep[-1] == n else keep + [n]
    assert check_sample_plies(by_hand, show=False).ok

    def forgets_the_last(n):
        return [p for p in sample_plies(n) if p != n] or [n]
    bad = check_sample_plies(forgets_the_last, show=False)
    assert not bad.ok and "missing" in bad.first_failure


def minimax_by_hand(board, depth, evaluate):
    if depth == 0:
        return evaluate(board)
    values = []
    for move in list(board.legal_moves):
        board.push(move)
        values.append(minimax_by_hand(board, depth - 1, evaluate))
        board.pop()
    return max(values) if board.turn == chess.WHITE else min(values)


def alphabeta_by_hand(board, depth, alpha, beta, evaluate, cut=lambda a, b: a >= b):
    if depth == 0:
        return evaluate(board)
    white = board.turn == chess.WHITE
    best = -math.inf if white else math.inf
    for move in list(board.legal_moves):
        board.push(move)
        value = alphabeta_by_hand(board, depth - 1, alpha, beta, evaluate, cut)
        board.pop()
        if white:
            best, alpha = max(best, value), max(alpha, value)
        else:
            best, beta = min(best, value), min(beta, value)
        if cut(alpha, beta):
            break
    return best


def test_perft_checker():
    def by_hand(board, depth):
        if depth == 0:
            return 1
        return sum(by_hand(_after(board, m), depth - 1) for m in list(board.legal_moves))
    assert check_perft(by_hand, show=False).ok
    assert perft(chess.Board(), 3) == 8902          # the published perft numbers
    assert perft(chess.Board(), 2) == 400

    def counts_nodes_not_leaves(board, depth):
        return sum(perft(board, d) for d in range(depth + 1))
    assert not check_perft(counts_nodes_not_leaves, show=False).ok


def _after(board, move):
    child = board.copy(stack=False)
    child.push(move)
    return child


def test_minimax_checker():
    assert check_minimax(minimax_by_hand, show=False).ok

    def everyone_maximises(board, depth, evaluate):
        if depth == 0:
            return evaluate(board)
        return max(everyone_maximises(_after(board, m), depth - 1, evaluate)
                   for m in list(board.legal_moves))
    bad = check_minimax(everyone_maximises, show=False)
    assert not bad.ok and "minimax gives" in bad.first_failure


def test_alphabeta_checker():
    assert check_alphabeta(alphabeta_by_hand, show=False).ok

    def no_pruning(board, depth, alpha, beta, evaluate):  # right value, too much work
        return minimax_by_hand(board, depth, evaluate)
    bad = check_alphabeta(no_pruning, show=False)
    assert not bad.ok and "leaves" in bad.first_failure

    def strict_cut(board, depth, alpha, beta, evaluate):   # '>' instead of '>=': more leaves
        return alphabeta_by_hand(board, depth, alpha, beta, evaluate, cut=lambda a, b: a > b)
    assert "leaves" in check_alphabeta(strict_cut, show=False).first_failure

    def ignores_the_window(board, depth, alpha, beta, evaluate):
        return alphabeta_by_hand(board, depth, -math.inf, math.inf, evaluate) + \
            (0 if alpha == -math.inf else 1000)
    assert "window" in check_alphabeta(ignores_the_window, show=False).first_failure


def test_quiesce_checker():
    def fail_hard(board, alpha, beta, evaluate):
        stand = evaluate(board) if board.turn == chess.WHITE else -evaluate(board)
        if stand >= beta:
            return beta
        alpha = max(alpha, stand)
        for move in list(board.generate_legal_captures()):
            board.push(move)
            score = -fail_hard(board, -beta, -alpha, evaluate)
            board.pop()
            if score >= beta:
                return beta
            alpha = max(alpha, score)
        return alpha
    assert check_quiesce(fail_hard, cases=15, show=False).ok   # bounds are enough

    def white_view_stand_pat(board, alpha, beta, evaluate):  # forgets to negate for Black
        best = stand = evaluate(board)
        if stand >= beta:
            return stand
        alpha = max(alpha, stand)
        for move in list(board.generate_legal_captures()):
            board.push(move)
            best = max(best, -white_view_stand_pat(board, -beta, -alpha, evaluate))
            board.pop()
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best
    bad = check_quiesce(white_view_stand_pat, cases=15, show=False)
    assert not bad.ok and "/" in bad.first_failure


def test_a_quiescence_with_a_wrong_window_stops_at_the_node_budget():
    """The window passed down not negated and swapped: the search runs on (minutes);
    the checker stops it and says what it searched against what the reference needs."""
    def window_not_swapped(board, alpha, beta, evaluate):
        stand = evaluate(board) if board.turn == chess.WHITE else -evaluate(board)
        if stand >= beta:
            return stand
        best, alpha = stand, max(alpha, stand)
        for move in list(board.generate_legal_captures()):
            board.push(move)
            value = -window_not_swapped(board, alpha, beta, evaluate)
            board.pop()
            best, alpha = max(best, value), max(alpha, value)
            if alpha >= beta:
                break
        return best
    bad = check_quiesce(window_not_swapped, cases=10, show=False)
    assert not bad.ok and bad.first_failure.startswith("searched ")
    assert "nodes where the reference needs" in bad.first_failure and "/" in bad.first_failure


def test_wilson_interval_checker_and_the_interval():
    low, high = arena.wilson_interval(0, 4)
    assert low == 0 and high == pytest.approx(1.96 ** 2 / (4 + 1.96 ** 2))
    assert arena.wilson_interval(3, 10) == pytest.approx(
        tuple(1 - b for b in arena.wilson_interval(7, 10)[::-1]))
    assert check_wilson_interval(wilson_interval, show=False).ok

    def normal_approximation(points, games, z=1.96):
        p = points / games
        half = z * math.sqrt(p * (1 - p) / games)
        return max(0, p - half), min(1, p + half)
    bad = check_wilson_interval(normal_approximation, show=False)
    assert not bad.ok and "(0.0 of 4)" in bad.first_failure


def test_material_checker():
    values = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
              chess.QUEEN: 900, chess.KING: 0}

    def by_hand(board):
        if board.is_checkmate():
            return -math.inf if board.turn == chess.WHITE else math.inf
        score = sum(values[p.piece_type] * (1 if p.color else -1)
                    for p in board.piece_map().values())
        if board.is_check():
            score += 10 if board.turn == chess.BLACK else -10
        return score
    assert check_material(by_hand, show=False).ok

    def no_check_bonus(board):
        return by_hand(board) if not board.is_check() or board.is_checkmate() else \
            by_hand(board) - (10 if board.turn == chess.BLACK else -10)
    assert not check_material(no_check_bonus, show=False).ok


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


def test_puct_select_checker():
    def by_hand(Q, N, P, c_puct):
        total = max(N.sum(), 1)
        return int(np.argmax(Q + c_puct * P * math.sqrt(total) / (1 + N)))
    assert check_puct_select(by_hand, show=False).ok

    def zero_before_visits(Q, N, P, c_puct):     # sqrt(0): every U is 0 at a fresh node
        return int(np.argmax(Q + c_puct * P * math.sqrt(N.sum()) / (1 + N)))
    bad = check_puct_select(zero_before_visits, show=False)
    assert not bad.ok and "0 visits so far" in bad.first_failure


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
