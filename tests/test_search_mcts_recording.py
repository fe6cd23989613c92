"""search.mcts_recording: the recorded simulations are the search's (same visits and
values), one can be taken back, a mate is scored exactly."""
import math

import chess
import numpy as np

from chesslab.search.mcts import MCTS, uniform_evaluate
from chesslab.search.mcts_recording import RecordingMCTS, root_table

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"


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
