"""chesslab.evaluators.nnue: the incremental accumulator equals a full recompute and the network."""
import math
import random

import chess
import numpy as np
import pytest

from chesslab.board.encoding import piece_square_indices
from chesslab.nn import linear_pst_net, nnue_net
from chesslab.evaluators.nnue import LinearPSTEvaluator, NNUEEvaluator, move_changes
from chesslab.search.searcher import search

# Positions where the special moves are legal: castling both ways for both sides,
# en passant, promotions with and without capture (and under-promotion).
SPECIAL = [
    "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1",
    "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R b KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pp1ppppp/8/8/2pPP3/8/PPP2PPP/RNBQKBNR b KQkq d3 0 3",
    "1r2k3/P1P5/8/8/8/8/1p4p1/R3K2R w KQ - 0 1",
    "1r2k3/P1P5/8/8/8/8/1p4p1/R3K2R b K - 0 1",
]


def net(seed=0):
    model = nnue_net(hidden=16, head=8, seed=seed)
    # Random but not tiny weights everywhere, so every row matters.
    rng = np.random.default_rng(seed)
    for _, p, _ in model.parameters():
        p[...] = rng.normal(0, 0.3, p.shape)
    return NNUEEvaluator(model)


def random_walk(board, rng, plies):
    """Yield (board before, move) along a random game that prefers captures and
    special moves, so the test meets every kind of change."""
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            return
        special = [m for m in moves if board.is_capture(m) or m.promotion
                   or board.is_castling(m)]
        move = rng.choice(special if special and rng.random() < 0.6 else moves)
        yield board, move
        board.push(move)


@pytest.mark.parametrize("seed", range(6))
def test_incremental_accumulator_equals_full_recompute(seed):
    ev = net(seed)
    rng = random.Random(seed)
    board = chess.Board(SPECIAL[seed % len(SPECIAL)])
    ev.reset(board)
    kinds = set()
    depth = 0
    for before, move in random_walk(board, rng, 120):
        if before.is_castling(move):
            kinds.add("castling")
        elif before.is_en_passant(move):
            kinds.add("en passant")
        elif move.promotion:
            kinds.add("promotion")
        elif before.is_capture(move):
            kinds.add("capture")
        ev.push(before, move)
        depth += 1
    # random_walk pushed every move after its yield; the stack followed it
    np.testing.assert_allclose(ev.current_accumulator(), ev.accumulator(board), atol=1e-9)
    assert ev._top == depth
    # and popping walks back through the same accumulators
    for _ in range(depth):
        board.pop()
        ev.pop()
        np.testing.assert_allclose(ev.current_accumulator(), ev.accumulator(board), atol=1e-9)
    assert kinds, "the walk made no special move"


def test_lazy_update_never_reads_a_stale_accumulator():
    """A level computed for one move, popped, then pushed with another move: the old
    numbers at that level must not be reused (push only notes the change)."""
    ev = net(2)
    board = chess.Board()
    ev.reset(board)
    for move in list(board.legal_moves)[:6]:
        ev.push(board, move)
        board.push(move)
        reply = next(iter(board.legal_moves))
        ev.push(board, reply)
        board.push(reply)
        np.testing.assert_allclose(ev.current_accumulator(), ev.accumulator(board), atol=1e-9)
        for _ in range(2):
            board.pop()
            ev.pop()
    ev.push(board, chess.Move.from_uci("g1f3"))      # never evaluated, then popped
    ev.pop()
    np.testing.assert_allclose(ev.current_accumulator(), ev.accumulator(board), atol=1e-9)


def test_every_kind_of_move_is_followed_exactly():
    ev = net(1)
    seen = set()
    for fen in SPECIAL:
        board = chess.Board(fen)
        for move in board.legal_moves:
            ev.reset(board)
            ev.push(board, move)
            after = board.copy()
            after.push(move)
            np.testing.assert_allclose(ev.current_accumulator(), ev.accumulator(after), atol=1e-9,
                                       err_msg=f"{fen} {move.uci()}")
            if board.is_castling(move):
                seen.add("castling")
            if board.is_en_passant(move):
                seen.add("en passant")
            if move.promotion:
                seen.add("promotion" if move.promotion == chess.QUEEN else "underpromotion")
    assert seen == {"castling", "en passant", "promotion", "underpromotion"}


def test_null_move_changes_nothing():
    board = chess.Board(SPECIAL[0])
    assert move_changes(board, chess.Move.null()) == ((), ())


def test_fast_path_equals_the_network_forward_pass():
    ev = net(2)
    rng = random.Random(3)
    boards = []
    for fen in SPECIAL:
        board = chess.Board(fen)
        for before, move in random_walk(board, rng, 20):
            pass
        boards.append(board.copy())
    forward = ev.evaluate_batch(boards)            # NetworkEvaluator's one-hot forward pass
    fast = np.array([ev.evaluate(b) for b in boards if not b.is_checkmate()])
    np.testing.assert_allclose(fast, forward[[not b.is_checkmate() for b in boards]],
                               rtol=1e-4, atol=1e-2)
    # the score is the side to move's: a colour-mirrored position scores the negation
    for b in boards:
        if not b.is_checkmate():
            assert ev.evaluate(b.mirror()) == pytest.approx(-ev.evaluate(b), abs=1e-6)


class Scratch:
    """The same network without the accumulator: every leaf from scratch."""
    name = "scratch"

    def __init__(self, ev):
        self.ev = ev

    def evaluate(self, board):
        return self.ev.evaluate(board)


@pytest.mark.parametrize("fen", SPECIAL[:4])
def test_search_with_the_accumulator_finds_what_a_full_recompute_finds(fen):
    ev = net(4)
    board = chess.Board(fen)
    fast = search(board, ev, depth=2)
    slow = search(board, Scratch(ev), depth=2)
    assert fast.move == slow.move and fast.nodes == slow.nodes
    assert fast.score == pytest.approx(slow.score, abs=1e-6)
    assert board.fen() == fen


def test_linear_tables_equal_the_linear_model():
    model = linear_pst_net()
    model.layers[0].params["W"][:] = np.random.default_rng(0).normal(0, 0.2, (768, 1))
    model.layers[0].params["b"][:] = 0.05
    ev = LinearPSTEvaluator(model)
    boards = [chess.Board(f) for f in SPECIAL]
    np.testing.assert_allclose([ev.evaluate(b) for b in boards], ev.evaluate_batch(boards),
                               rtol=1e-4, atol=1e-2)
    # its table of the side to move's knight is the knight row of the weights
    assert ev.table(chess.KNIGHT)[7, 1] == pytest.approx(
        400 * model.layers[0].params["W"][64 + chess.B1, 0], rel=1e-6)


def test_mate_is_infinite_and_wrong_networks_are_named():
    ev = net()
    mated = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert ev.evaluate(mated) == -math.inf
    with pytest.raises(ValueError, match="not an NNUE network"):
        NNUEEvaluator(linear_pst_net())
    with pytest.raises(ValueError, match="not a linear model"):
        LinearPSTEvaluator(nnue_net(hidden=4, head=2))


def test_features_of_a_mirrored_position_are_the_same_set():
    board = chess.Board(SPECIAL[2])
    a, b = piece_square_indices(board), piece_square_indices(board.mirror())
    assert all(sorted(x) == sorted(y) for x, y in zip(a, b))
