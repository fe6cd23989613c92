"""course.exercises.minimax: the checkers of notebook 06: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import chess

from chesslab.course.exercises.minimax import check_minimax, check_perft, perft
from tests.checker_helpers import minimax_by_hand


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


def test_minimax_checker(capsys):
    assert check_minimax(minimax_by_hand, show=False).ok
    assert check_minimax(minimax_by_hand, cases=4).ok          # the depths it tried, printed
    assert "2 positions at depth 1, 2 positions at depth 2" in capsys.readouterr().out

    def everyone_maximises(board, depth, evaluate):
        if depth == 0:
            return evaluate(board)
        return max(everyone_maximises(_after(board, m), depth - 1, evaluate)
                   for m in list(board.legal_moves))
    bad = check_minimax(everyone_maximises, show=False)
    assert not bad.ok and "minimax gives" in bad.first_failure
