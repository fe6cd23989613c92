"""search.teaching: the versions the notebooks print (negamax, alpha-beta, quiescence, the MCTS
backup and one simulation) agree with the real, optimised search."""
import copy
import random

import chess
import numpy as np
import pytest

from chesslab.datasets.positions import random_board
from chesslab.evaluators.policy_value import PolicyValueNet
from chesslab.evaluators.registry import load_evaluator
from chesslab.search import search, teaching
from chesslab.search.mcts import MCTS, MCTSNode
from tests.teaching_positions import FENS


def positions(count=4, seed=0):
    rng, boards = random.Random(seed), [chess.Board(f) for f in FENS]
    while len(boards) < len(FENS) + count:
        board = random_board(rng)
        if board is not None and not board.is_game_over():
            boards.append(board)
    return boards


def side_view(board, result):
    return result.score if board.turn == chess.WHITE else -result.score


@pytest.mark.parametrize("name", ["material", "pst"])
def test_negamax_and_alphabeta_give_minimax_values(name):
    evaluator = load_evaluator(name)
    for i, board in enumerate(positions()):
        for depth in (1, 2) if i < len(FENS) else (1,):     # random positions: wide trees
            want = side_view(board, search(board, evaluator, depth=depth, algorithm="minimax"))
            assert teaching.negamax(board.copy(), evaluator, depth) == want, board.fen()
            assert teaching.alphabeta(board.copy(), evaluator, depth) == want, board.fen()


def test_alphabeta_cuts_and_agrees_inside_a_window():
    evaluator, board = load_evaluator("material"), chess.Board(FENS[0])
    value = teaching.negamax(board.copy(), evaluator, 2)
    assert teaching.alphabeta(board.copy(), evaluator, 2, value - 1, value + 1) == value
    assert teaching.alphabeta(board.copy(), evaluator, 2, value + 1, value + 100) <= value + 1


def test_alphabeta_minmax_bounds_hold_on_random_trees():
    def minimax(tree, maximise):
        if not isinstance(tree, list):
            return tree
        values = [minimax(child, not maximise) for child in tree]
        return max(values) if maximise else min(values)

    def subtree(tree, path):
        for i in path:
            tree = tree[i]
        return tree

    rng = random.Random(4)

    def grow(depth):
        if depth == 0 or rng.random() < 0.2:
            return rng.randint(-9, 9)
        return [grow(depth - 1) for _ in range(rng.randint(1, 4))]

    for _ in range(200):
        tree = grow(4)
        trace = teaching.alphabeta_trace(tree)
        assert trace[0]["value"] == minimax(tree, True) and trace[0]["bound"] == "exact"
        for entry in trace:
            true = minimax(subtree(tree, entry["path"]), entry["max"])
            assert {"exact": true == entry["value"], "upper": true <= entry["value"],
                    "lower": true >= entry["value"]}[entry["bound"]]


def test_quiescence_agrees_with_the_searcher_on_material():
    # The real quiescence skips captures that lose material or cannot reach alpha:
    # with material scores that never changes the value.
    # (The teaching version tries captures unordered: busy random positions take seconds.)
    evaluator = load_evaluator("material")
    boards = positions(count=12, seed=2)
    boards = boards[:len(FENS)] + [b for b in boards[len(FENS):]
                                   if sum(1 for _ in b.generate_legal_captures()) <= 3]
    assert len(boards) >= len(FENS) + 4
    for i, board in enumerate(boards):
        for depth in (1, 2) if 2 <= i < len(FENS) else (1,):   # small trees only
            real = search(board, evaluator, depth=depth, algorithm="alphabeta", quiescence=True)
            mine = teaching.alphabeta(board.copy(), evaluator, depth, quiescence=True)
            assert mine == side_view(board, real), board.fen()


def test_quiesce_wins_the_hanging_queen_and_stands_pat_when_quiet():
    evaluator = load_evaluator("material")
    hanging = chess.Board(FENS[3])
    assert teaching.static(hanging, evaluator) == -400
    assert teaching.quiesce(hanging.copy(), evaluator) == 500
    quiet = chess.Board()
    assert teaching.quiesce(quiet, evaluator) == teaching.static(quiet, evaluator) == 0


def test_teaching_functions_leave_the_board_as_they_found_it():
    evaluator, board = load_evaluator("material"), chess.Board(FENS[1])
    fen = board.fen()
    teaching.negamax(board, evaluator, 2)
    teaching.alphabeta(board, evaluator, 2)
    teaching.quiesce(board, evaluator)
    assert board.fen() == fen and not board.move_stack


def test_backup_is_mcts_backup_without_the_virtual_loss():
    rng = np.random.default_rng(0)
    nodes = []
    for _ in range(4):
        node = MCTSNode()
        node.expand([chess.Move.null()] * 5, np.full(5, 0.2))
        node.N[:] = rng.integers(0, 9, 5)
        node.W[:] = rng.normal(0, 2, 5)
        nodes.append(node)
    path = [(node, int(a)) for node, a in zip(nodes, rng.integers(0, 5, 4))]
    mine = copy.deepcopy(path)
    search_ = MCTS(virtual_loss=1.0)
    for node, a in path:                # what the selection step adds on the way down
        node.N[a] += search_.virtual_loss
        node.W[a] -= search_.virtual_loss
    search_._backup(path, 0.6)
    teaching.backup(mine, 0.6)
    for (real, _), (taught, _) in zip(path, mine):
        np.testing.assert_allclose(taught.N, real.N)
        np.testing.assert_allclose(taught.W, real.W)


def _same_tree(taught, real, board):
    """Every node of the two trees: the same moves, visits and (up to rounding) values."""
    assert taught.moves == real.moves, board.fen()
    np.testing.assert_array_equal(taught.N, real.N)
    np.testing.assert_allclose(taught.W, real.W, atol=1e-9)
    np.testing.assert_allclose(taught.prior, real.prior)
    for move, mine, theirs in zip(taught.moves, taught.children, real.children):
        assert (mine is None) == (theirs is None)
        if mine is not None and mine.expanded:
            board.push(move)
            _same_tree(mine, theirs, board)
            board.pop()


@pytest.mark.parametrize("planes", ["planes9", "mover"])
def test_simulation_builds_the_tree_of_mcts_with_one_leaf_per_call(planes):
    net = PolicyValueNet(8, 1, policy_k=8, seed=1, planes=planes).eval()
    boards = [b for b in positions(3, seed=4) if not b.is_game_over()]
    boards.append(chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 4"))
    for board in boards:                      # mates, quiet middlegames, an endgame
        real = MCTS(net, simulations=120, batch_size=1, solve=False).search(board)
        work = board.copy()
        root = teaching.expand_root(work, net)
        values = [teaching.simulation(root, work, net) for _ in range(120)]
        assert work == board and work.move_stack == board.move_stack   # board put back
        assert root.N.sum() == 120 and all(-1 <= v <= 1 for v in values)
        _same_tree(root, real, board.copy())
