"""search.recording: the recorded search is the search (same counts, values, moves), its
cut-offs are real and each node's end is the reason the searcher names."""
import chess
import pytest

from chesslab.board.scores import MATE_THRESHOLD
from chesslab.evaluators.registry import load_evaluator
from chesslab.search import search
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
