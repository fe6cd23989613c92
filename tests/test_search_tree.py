"""The thesis game tree: building, minimax, reuse after a reply."""
import chess
import pytest

from chesslab.evaluators.handwritten import MaterialEvaluator
from chesslab.board.scores import MATE
from chesslab.search.searcher import search
from chesslab.search.tree import GameTree

MATERIAL = MaterialEvaluator()
POSITIONS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "2r3k1/pp3ppp/2n1b3/3p4/3P4/2PB1N2/P4PPP/R5K1 w - - 0 20",
    "8/5pk1/6p1/3R4/5P2/6PK/r6P/8 b - - 0 40",
]


def test_tree_counts_match_perft():
    tree = GameTree(chess.Board(), MATERIAL, depth=2)
    assert tree.size() == 1 + 20 + 400
    assert all(len(child.children) == 20 for child in tree.root.children)


@pytest.mark.parametrize("fen", POSITIONS)
def test_minimax_search_equals_the_tree(fen):
    board = chess.Board(fen)
    tree = GameTree(board, MATERIAL, depth=2)
    move, path = tree.minimax()
    result = search(board, MATERIAL, depth=2, algorithm="minimax")
    assert (move, tree.root.value) == (result.move, result.score)
    assert result.nodes == tree.size()  # the same positions, without keeping them
    assert [node.move for node in path[1:]] == result.pv
    # A leaf's value is the evaluator's number; a parent's is the best for its side.
    child = path[1] if path[1].children else tree.root
    values = [c.value for c in child.children]
    assert child.value == (max(values) if child.board.turn == chess.WHITE else min(values))


def test_tree_scores_mate_by_distance():
    tree = GameTree(chess.Board(POSITIONS[0]), MATERIAL, depth=3)
    move, path = tree.minimax()
    assert move == chess.Move.from_uci("h5f7")
    assert tree.root.value == MATE - 1
    assert path[-1].board.is_checkmate()


def test_reuse_after_reply_and_regeneration():
    board = chess.Board()
    tree = GameTree(board, MATERIAL, depth=3)
    e4, e5 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5")
    kept = tree.root.children[[c.move for c in tree.root.children].index(e4)]
    expected_reuse = next(c for c in kept.children if c.move == e5).size()
    assert tree.advance(e4, e5) is True
    assert tree.reused == expected_reuse == 1 + 29  # e5 node + White's 29 replies
    board.push(e4)
    board.push(e5)
    assert tree.root.board.board_fen() == board.board_fen()
    assert tree.size() == GameTree(board, MATERIAL, depth=3).size()
    move, _ = tree.minimax()
    assert move == search(board, MATERIAL, depth=3, algorithm="minimax").move
    # A position the tree never built (a 2-ply tree has no 4th ply): regenerate.
    small = GameTree(chess.Board(), MATERIAL, depth=1)
    assert small.advance(e4, e5) is False
    assert small.regenerations == 1 and small.reused == 0


def test_illegal_move_is_refused():
    tree = GameTree(chess.Board(), MATERIAL, depth=1)
    with pytest.raises(ValueError, match="illegal move"):
        tree.advance(chess.Move.from_uci("e2e5"))


@pytest.mark.parametrize("fen", POSITIONS[1:])
def test_alphabeta_over_the_tree_equals_minimax_and_skips_nodes(fen):
    tree = GameTree(chess.Board(fen), MATERIAL, depth=3)
    move, _ = tree.minimax()
    value = tree.root.value
    ab_move, visited = tree.alphabeta()
    assert (ab_move, tree.root.value) == (move, value)
    assert visited < tree.size() / 2
    assert any(not c.visited for c in tree.root.children[0].children) or visited < tree.size()


def test_nodes_walks_every_node_root_first():
    tree = GameTree(chess.Board("4k3/8/8/3q4/8/2N5/8/4K3 w - - 0 1"), MaterialEvaluator(), 2)
    nodes = list(tree.nodes())
    assert nodes[0] is tree.root and len(nodes) == tree.size()
    child = tree.root.children[0]
    assert list(tree.nodes(child)) == [child, *child.children]
