"""course.exercises.minimax: the checkers of notebook 06: a right answer passes, a
typical mistake is caught, an untouched stub is "not attempted"."""
import chess
import pytest

from chesslab.course.exercises.minimax import check_minimax, check_perft, perft
from chesslab.evaluators.handwritten import MaterialEvaluator
from chesslab.search import search, teaching
from chesslab.search.tree import GameTree
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


class _Counting:
    """An evaluator that counts its calls (one per leaf of a plain search)."""

    def __init__(self, evaluate=None):
        self.calls, self.function = 0, evaluate

    def evaluate(self, board):
        self.calls += 1
        return self.function(board) if self.function else 0.0


def _perft_by_tree(board, depth):
    tree = GameTree(board, MaterialEvaluator(), depth)
    return sum(1 for node in tree.nodes() if node.ply == depth)


def _perft_by_tree_size(board, depth):
    sizes = [GameTree(board, MaterialEvaluator(), d).size() for d in (depth - 1, depth)
             if d > 0]
    return sizes[-1] - (sizes[0] if len(sizes) == 2 else 1)


def _perft_by_negamax(board, depth):
    counting = _Counting()
    teaching.negamax(board, counting, depth)
    return counting.calls


def _perft_by_search(board, depth):
    nodes = [search(board, MaterialEvaluator(), depth=d, algorithm="minimax").nodes
             if d else 1 for d in (depth - 1, depth)]
    return nodes[1] - nodes[0]


def _minimax_by_tree_alphabeta(board, depth, evaluate):
    tree = GameTree(board, _Counting(evaluate), depth)
    tree.alphabeta()
    return tree.root.value


def _minimax_by_teaching_alphabeta(board, depth, evaluate):
    value = teaching.alphabeta(board, _Counting(evaluate), depth)
    return value if board.turn == chess.WHITE else -value


def _minimax_by_tree_backup(board, depth, evaluate):
    def back_up(node):              # the student's own max/min, over chesslab's tree
        if not node.children:
            return node.evaluation
        values = [back_up(child) for child in node.children]
        return max(values) if node.board.turn == chess.WHITE else min(values)
    return back_up(GameTree(board, _Counting(evaluate), depth).root)


def _minimax_by_search(board, depth, evaluate):
    return search(board, _Counting(evaluate), depth=depth, algorithm="minimax").score


@pytest.mark.parametrize("checker, cheat", [
    (check_perft, _perft_by_tree), (check_perft, _perft_by_tree_size),
    (check_perft, _perft_by_negamax), (check_perft, _perft_by_search),
    (check_minimax, _minimax_by_tree_alphabeta), (check_minimax, _minimax_by_teaching_alphabeta),
    (check_minimax, _minimax_by_search), (check_minimax, _minimax_by_tree_backup)],
    ids=["GameTree.nodes", "GameTree.size", "teaching.negamax", "search nodes",
         "GameTree.alphabeta", "teaching.alphabeta", "search minimax", "GameTree built"])
def test_chesslabs_other_trees_and_searches_are_switched_off_too(checker, cheat):
    """Notebook 06 asks for a recursion of the student's own: counting or backing up
    with chesslab's game tree, its teaching searches or its searcher is the reference
    by another name. Each case fails with "uses the reference"; they work again after."""
    result = checker(cheat, cases=6, show=False)
    assert result.passed == 0 and result.first_failure.startswith("uses the reference"), result
    assert GameTree(chess.Board(), MaterialEvaluator(), 1).size() == 21
    assert search(chess.Board(), MaterialEvaluator(), depth=1, algorithm="minimax").nodes > 20
