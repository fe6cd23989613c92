"""The recorded searches are the searches: same counts, values, moves; and the explorers."""
import math

import chess
import numpy as np
import pytest

from chesslab.evaluators.registry import load_evaluator
from chesslab.search import search
from chesslab.search.mcts import MCTS, uniform_evaluate
from chesslab.search.mcts_recording import RecordingMCTS, root_table
from chesslab.search.recording import record_search
from chesslab.search.teaching import negamax

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
CAPTURES = "r1b1k2r/ppp2ppp/2n5/3qp3/1b1P4/2N2N2/PP3PPP/R1BQKB1R w KQkq - 0 8"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"


@pytest.mark.parametrize("fen, algorithm, depth, switches", [
    (ITALIAN, "minimax", 2, {}),
    (ITALIAN, "alphabeta", 3, {}),
    (CAPTURES, "full", 3, {}),
    (CAPTURES, "full", 3, {"ordering": False}),
    (MATE_IN_ONE, "alphabeta", 2, {}),
])
def test_recording_agrees_with_the_search(fen, algorithm, depth, switches):
    board = chess.Board(fen)
    evaluator = load_evaluator("pst")
    plain = search(board, evaluator, depth=depth, algorithm=algorithm, **switches)
    record = record_search(board, evaluator, depth=depth, algorithm=algorithm, **switches)
    assert len(record.nodes) == plain.nodes == record.result.nodes
    assert record.result.move == plain.move and record.result.score == plain.score
    sign = 1 if board.turn else -1
    assert record.root.value == sign * plain.score
    assert board.fen() == fen                                  # the board is not touched
    for node in record.nodes:                                  # every node entered and left
        assert node.enter_step < node.exit_step and node.reason is not None
    assert [kind for kind, _ in record.steps].count("enter") == len(record.nodes)


def test_minimax_recording_has_every_value_of_the_teaching_negamax():
    board = chess.Board(ITALIAN)
    evaluator = load_evaluator("material")
    record = record_search(board, evaluator, depth=2, algorithm="minimax")
    assert not record.cutoffs()
    for index in record.root.children:
        node = record.nodes[index]
        child = record.board_at(index)
        assert node.value == negamax(child, evaluator, 1, 1)
        assert node.reason == "all moves" and node.bound == "exact"
    plain = dict(search(board, evaluator, depth=2, algorithm="minimax").root_moves)
    for index in record.root.children:
        node = record.nodes[index]
        assert plain[node.move] == -node.value * (1 if board.turn else -1)


def test_alphabeta_cutoffs_are_real_and_prune():
    board = chess.Board(ITALIAN)
    evaluator = load_evaluator("material")
    record = record_search(board, evaluator, depth=3, algorithm="alphabeta")
    minimax = record_search(board, evaluator, depth=3, algorithm="minimax")
    assert record.root.value == minimax.root.value
    cutoffs = record.cutoffs()
    assert cutoffs and len(record.nodes) < len(minimax.nodes)
    for node in cutoffs:
        # a cut-off: the refuting move was the last one searched and reached beta
        last = record.nodes[node.children[-1]]
        assert node.refutation == last.move and -last.value >= node.beta
        assert node.value >= node.beta and node.bound == "lower"
        child = record.board_at(node.index)
        true = negamax(child, evaluator, node.depth, node.ply)
        assert true >= node.beta                               # the bound holds
    pruned = [n for n in cutoffs if record.pruned_moves(n.index)]
    assert pruned
    saved, exact = record.saved(pruned[0].index)
    assert exact and saved >= len(record.pruned_moves(pruned[0].index))


def test_ordering_switch_changes_the_count_not_the_value():
    board = chess.Board(CAPTURES)
    with_order = record_search(board, "pst", depth=3, algorithm="full")
    without = record_search(board, "pst", depth=3, algorithm="full", ordering=False)
    assert len(with_order.nodes) != len(without.nodes)
    reasons = {n.reason for n in without.nodes}
    assert {"horizon", "stand pat", "cutoff"} <= reasons


def test_recording_errors_are_named():
    with pytest.raises(ValueError, match="unknown algorithm 'negascout'"):
        record_search(chess.Board(), "material", depth=2, algorithm="negascout")
    with pytest.raises(ValueError, match="unknown switch orderin"):
        record_search(chess.Board(), "material", depth=2, algorithm="full", orderin=False)
    with pytest.raises(TypeError, match="chess.Board"):
        record_search("8/8/8/8/8/8/8/8 w - - 0 1", "material")


def test_mcts_recording_visits_are_the_searchs():
    board = chess.Board(ITALIAN)
    plain = MCTS(uniform_evaluate, simulations=50, batch_size=1).search(board)
    recorder = RecordingMCTS(uniform_evaluate)
    recorder.start(board)
    simulations = recorder.run(50)
    assert np.array_equal(recorder.root.N, plain.N)
    assert np.allclose(recorder.root.W, plain.W)
    assert recorder.root.N.sum() == 50 == len(simulations)
    per_move = {}
    for simulation in simulations:                  # each simulation visits one root move
        per_move[simulation.moves[0]] = per_move.get(simulation.moves[0], 0) + 1
    assert {m: n for m, n, _, _ in root_table(recorder) if n} == per_move
    last = simulations[-1]
    backed = [edge.backed for edge in last.path]
    assert all(math.isclose(a, -b) for a, b in zip(backed, backed[1:]))   # sign flips
    assert math.isclose(backed[-1], -last.value)


def test_mcts_undo_takes_a_simulation_back():
    recorder = RecordingMCTS(uniform_evaluate)
    recorder.start(chess.Board(ITALIAN))
    recorder.run(10)
    visits, values = recorder.root.N.copy(), recorder.root.W.copy()
    recorder.step()
    recorder.undo()
    assert np.array_equal(recorder.root.N, visits) and np.allclose(recorder.root.W, values)


def test_mcts_recording_scores_a_mate_exactly():
    recorder = RecordingMCTS(uniform_evaluate)
    recorder.start(chess.Board(MATE_IN_ONE))
    terminal = [s for s in recorder.run(40) if s.leaf == "terminal"]
    assert terminal and terminal[0].moves[-1] == chess.Move.from_uci("a1a8")
    assert terminal[0].value == -1.0 and terminal[0].path[-1].backed == 1.0
