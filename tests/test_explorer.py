"""The recorded searches are the searches: same counts, values, moves; and the explorers."""
import math

import chess
import numpy as np
import pytest

from chesslab.board.scores import MATE_THRESHOLD
from chesslab.evaluators.registry import load_evaluator
from chesslab.search import search
from chesslab.search.mcts import MCTS, uniform_evaluate
from chesslab.search.mcts_recording import RecordingMCTS, root_table
from chesslab.search.recording import REASONS, RecordingSearcher, record_search
from chesslab.search.searcher import Searcher
from chesslab.search.teaching import negamax

ITALIAN = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
CAPTURES = "r1b1k2r/ppp2ppp/2n5/3qp3/1b1P4/2N2N2/PP3PPP/R1BQKB1R w KQkq - 0 8"
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"


@pytest.mark.parametrize("fen, algorithm, depth, switches", [
    (ITALIAN, "minimax", 2, {}),
    (ITALIAN, "alphabeta", 3, {}),
    (CAPTURES, "full", 3, {}),
    (ITALIAN, "full", 3, {"ordering": False}),
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
    with_order = record_search(board, "pst", depth=2, algorithm="full")
    without = record_search(board, "pst", depth=2, algorithm="full", ordering=False)
    assert len(with_order.nodes) != len(without.nodes)
    reasons = {n.reason for n in without.nodes}
    assert {"stand pat", "captures", "cutoff"} <= reasons
    assert any(n.quiescence for n in without.nodes)           # leaves handed to quiescence


def test_the_recorder_listens_to_the_reasons_the_searcher_names():
    # It overrides nothing of the search but the one hook (and wraps the public search).
    assert set(vars(RecordingSearcher)) & set(vars(Searcher)) == {
        "__init__", "__doc__", "__module__", "search", "_note"}
    # Qc7 stalemates, Qc8 mates: named by the searcher, not guessed from a value of 0.
    board = chess.Board("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1")
    record = record_search(board, "material", depth=2, algorithm="minimax")
    ended = {record.nodes[i].move.uci(): record.nodes[i] for i in record.root.children}
    assert ended["c1c7"].reason == "stalemate" and ended["c1c7"].value == 0
    assert ended["c1c8"].reason == "mate" and ended["c1c8"].value < -MATE_THRESHOLD
    full = record_search(chess.Board(CAPTURES), "pst", depth=3, algorithm="full")
    assert {n.reason for n in full.nodes} <= set(REASONS)
    played = chess.Board()
    for uci in ("e2e4", "e7e5"):
        played.push_uci(uci)
    record = record_search(played, "material", depth=2)
    assert record.root.ply == 0                  # plies count from the searched position
    assert {record.nodes[i].ply for i in record.root.children} == {1}


def test_recording_errors_are_named():
    with pytest.raises(ValueError, match="unknown algorithm 'negascout'"):
        record_search(chess.Board(), "material", depth=2, algorithm="negascout")
    with pytest.raises(ValueError, match="unknown switch orderin"):
        record_search(chess.Board(), "material", depth=2, algorithm="full", orderin=False)
    with pytest.raises(ValueError, match="depth must be at least 1"):
        record_search(chess.Board(), "material", depth=0)
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


# ---------------------------------------------------------------- the widgets, headless

@pytest.fixture
def explorer_modules():
    pytest.importorskip("ipywidgets")
    from chesslab.widgets import explorer, mcts_explorer
    return explorer, mcts_explorer


def test_search_explorer_steps_and_goes_back(explorer_modules):
    explorer, _ = explorer_modules
    shown = explorer.explore_search(ITALIAN, "material", depth=2, algorithm="alphabeta")
    record = shown.record
    assert shown.position == 1 and shown.visited == 1 and shown.current == 0
    assert shown.tree.value.count("<rect") == 1                   # the root alone
    shown.step()
    assert shown.visited == 2 and shown.current == record.root.children[0]
    assert shown.tree.value.count("<rect") == 2                   # the tree grew
    assert "positions visited 2/" in shown.status.value
    shown.step_over()                                             # the first move's subtree
    first = record.nodes[record.root.children[0]]
    assert shown.position == first.exit_step + 1 and "cut-off" not in shown.info.value
    assert "value on exit" in shown.info.value
    shown.back()
    assert shown.position == first.exit_step and shown.current == first.children[-1]
    shown.select(first.index)
    assert "being searched" in shown.info.value
    shown.run_to_end()
    assert shown.visited == len(record.nodes) and "why it ended" in shown.info.value
    cut = record.cutoffs()[0]
    shown.select(cut.index)
    assert "cut-off by" in shown.info.value and "pruned" in shown.info.value
    assert 'class="node-pruned"' in shown.tree.value and "<svg" in shown.board_view.value
    up = next(b for b in shown.node_buttons if b.layout.display != "none")
    up.click()                                                     # a node button selects
    assert shown.selected != cut.index
    assert shown.selected in [n.index for n in record.path(cut.index)]
    shown.restart()
    assert shown.position == 1


def test_search_explorer_takes_the_full_search_switches(explorer_modules):
    explorer, _ = explorer_modules
    plain = explorer.explore_search(CAPTURES, "pst", depth=2, algorithm="full")
    unordered = explorer.explore_search(CAPTURES, "pst", depth=2, algorithm="full",
                                        ordering=False)
    assert "ordering=False" in unordered.describe()
    assert len(plain.record.nodes) != len(unordered.record.nodes)
    assert plain.record.root.value == unordered.record.root.value
    deeper = explorer.explore_search(CAPTURES, "pst", depth=3, algorithm="full")
    deeper.run_to_end()
    for reason, shown in (("futility", "not searched"), ("stand pat", "stand pat"),
                          ("tt", "transposition table"), ("reverse futility", "far above")):
        node = next(n for n in deeper.record.nodes if n.reason == reason)
        deeper.select(node.index)
        assert shown in deeper.info.value
    with pytest.raises(ValueError, match="not a valid FEN"):
        explorer.explore_search("not a fen")


def test_mcts_explorer_steps_runs_and_goes_back(explorer_modules):
    _, mcts_explorer = explorer_modules
    shown = mcts_explorer.explore_mcts(ITALIAN, simulations=30, net="uniform")
    assert shown.done == 0 and "press Step" in shown.path_view.value
    shown.step()
    assert shown.done == 1 and "simulation 1" in shown.path_view.value
    assert "expanded:" in shown.path_view.value and "the network" in shown.path_view.value
    boxes = shown.tree.value.count("<rect")
    shown.run(9)
    assert shown.done == 10 and shown.recorder.root.N.sum() == 10
    assert shown.tree.value.count("<rect") > boxes                # the tree grew
    shown.back()
    assert shown.done == 9 and shown.recorder.root.N.sum() == 9
    shown.run_to_end()
    assert shown.done == 30 and "N=" in shown.bars.value
    shown.depth.value = 1
    assert shown.tree.value.count("<rect") <= 2 + mcts_explorer.LEVEL_WIDTH   # + the last path
    with pytest.raises(ValueError, match="'uniform'"):
        mcts_explorer.explore_mcts(ITALIAN, net="random")
