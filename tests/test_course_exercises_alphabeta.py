"""course.exercises.alphabeta: the checkers of notebook 07: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import math

import chess
import pytest

from chesslab.board.scores import is_mate_score
from chesslab.course.exercises.alphabeta import (check_alphabeta, check_mvv_lva, check_quiesce,
                                                 mvv_lva_rule_boards)
from tests.checker_helpers import not_attempted, minimax_by_hand


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


VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
          chess.QUEEN: 900, chess.KING: 2000}


def _mvv_lva(board, attacker_first=False):
    def key(move):
        victim = VALUES[board.piece_type_at(move.to_square) or chess.PAWN]
        attacker = VALUES[board.piece_type_at(move.from_square)]
        extra = VALUES[move.promotion] if move.promotion else 0
        return -(10 * attacker - victim) if attacker_first else 10 * victim - attacker + extra
    return sorted(board.generate_legal_captures(), key=lambda m: -key(m))


def test_mvv_lva_checker():
    assert check_mvv_lva(_mvv_lva, show=False).ok
    planted = check_mvv_lva(lambda b: _mvv_lva(b, attacker_first=True), show=False)
    assert not planted.ok and "instead of" in planted.first_failure
    not_attempted(check_mvv_lva)


def _mvv_lva_breaking(rule):
    """``_mvv_lva`` with one rule of the exercise broken."""
    def mine(board):
        def key(move):
            victim = board.piece_type_at(move.to_square)
            if rule != "en passant":
                victim = victim or chess.PAWN
            attacker = VALUES[board.piece_type_at(move.from_square)]
            if rule == "king" and board.piece_type_at(move.from_square) == chess.KING:
                attacker = 0
            extra = VALUES[move.promotion] if move.promotion and rule != "promotion" else 0
            return 10 * VALUES[victim] - attacker + extra
        captures = list(board.generate_legal_captures())
        if rule == "ties":
            captures.reverse()
        return sorted(captures, key=lambda m: -key(m))
    return mine


@pytest.mark.parametrize("seed", [0, 120])             # the visible and the hidden cases
def test_every_rule_of_mvv_lva_is_tried_in_visible_and_hidden_cases(seed):
    """A version that crashes on en passant, ignores the promotion, treats the king as
    worth nothing or breaks ties its own way gets no point, with a line naming the case."""
    crash = check_mvv_lva(_mvv_lva_breaking("en passant"), seed=seed, show=False)
    assert not crash.ok and crash.first_failure.startswith("raised KeyError: None (called "
                                                           "with board '")
    for rule in ("promotion", "king", "ties"):
        assert not check_mvv_lva(_mvv_lva_breaking(rule), seed=seed, show=False).ok, rule
    boards = mvv_lva_rule_boards(seed)
    assert any(b.has_legal_en_passant() for b in boards)
    assert any(m.promotion for b in boards for m in b.generate_legal_captures())


class _Evaluator:
    def __init__(self, evaluate):
        self.evaluate = evaluate


def _alphabeta_by_minmax(board, depth, alpha, beta, evaluate):
    """The teaching alpha-beta on any tree (the one behind ``GameTree.alphabeta``), given
    the student's own tree of (board, plies left)."""
    from chesslab.search.teaching import alphabeta_minmax

    def children(node):
        position, left = node
        if left == 0:
            return []
        below = []
        for move in position.legal_moves:
            child = position.copy(stack=False)
            child.push(move)
            below.append((child, left - 1))
        return below
    return alphabeta_minmax((board, depth), children, lambda node: evaluate(node[0]),
                            lambda node: node[0].turn == chess.WHITE, alpha, beta)


def _quiesce_by_searcher(board, alpha, beta, evaluate):
    """The real searcher's quiescence (the one the teaching version stands for)."""
    from chesslab.search.searcher import Searcher
    searcher = Searcher(_Evaluator(evaluate), algorithm="alphabeta")
    searcher.search(board, depth=1)              # sets the searcher's state up
    value = searcher._quiesce(board, alpha, beta, 0)
    return math.copysign(math.inf, value) if is_mate_score(value) else value


@pytest.mark.parametrize("checker, cheat", [
    (check_alphabeta, _alphabeta_by_minmax), (check_quiesce, _quiesce_by_searcher)],
    ids=["teaching.alphabeta_minmax", "Searcher._quiesce"])
def test_the_versions_the_reference_delegates_to_are_switched_off_too(checker, cheat):
    """``GameTree.alphabeta`` delegates to ``teaching.alphabeta_minmax``, and the teaching
    quiescence stands for ``Searcher._quiesce``: calling one is calling the reference."""
    result = checker(cheat, cases=6, show=False)
    assert result.passed == 0 and result.first_failure.startswith("uses the reference"), result
