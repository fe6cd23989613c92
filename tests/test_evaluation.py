"""Material and piece-square evaluation, and the evaluator registry."""
import math
import random

import chess
import numpy as np
import pytest

from chesslab.evaluation import (Evaluator, MaterialEvaluator, PSTEvaluator,
                                 available_evaluators, load_evaluator, material_balance)


def test_material_uses_the_chapter_values():
    # White: Q, R, 2 pawns (900+500+200); Black: R, B, N, 3 pawns (500+300+300+300).
    board = chess.Board("4k3/ppp5/2bn4/8/8/8/PP5r/QR2K3 w - - 0 1")
    assert material_balance(board) == 1600 - 1400
    assert MaterialEvaluator().evaluate(board) == 200


def test_check_adds_ten_for_the_checking_side():
    board = chess.Board("4k3/8/8/8/8/8/8/K4R2 w - - 0 1")
    board.push_san("Re1+")  # Black to move, in check: White gets the bonus
    assert MaterialEvaluator().evaluate(board) == 500 + 10
    board = chess.Board("4k3/8/8/8/8/8/8/r3K3 w - - 0 1")  # White in check from a1
    assert MaterialEvaluator().evaluate(board) == -500 - 10


@pytest.mark.parametrize("evaluator", [MaterialEvaluator(), PSTEvaluator()])
def test_checkmate_is_infinite_from_whites_view(evaluator):
    fools_mate = chess.Board()
    for san in ("f3", "e5", "g4", "Qh4#"):
        fools_mate.push_san(san)
    assert evaluator.evaluate(fools_mate) == -math.inf
    scholars = chess.Board("r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4")
    assert evaluator.evaluate(scholars) == math.inf


def test_pst_is_symmetric_and_prefers_central_knights():
    pst = PSTEvaluator()
    assert pst.evaluate(chess.Board()) == 0
    board = chess.Board("r1bqkbnr/pppppppp/2n5/8/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 2")
    assert pst.evaluate(board) == -pst.evaluate(board.mirror())
    rim = chess.Board("4k3/8/8/8/8/8/8/N3K3 w - - 0 1")
    centre = chess.Board("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1")
    assert pst.evaluate(centre) > pst.evaluate(rim) > 0


def test_king_table_changes_for_the_endgame():
    pst = PSTEvaluator()
    # Bare kings plus a pawn each: the endgame table wants the king in the centre.
    corner = chess.Board("4k3/4p3/8/8/8/8/4P3/7K w - - 0 1")
    central = chess.Board("4k3/4p3/8/8/3K4/8/4P3/8 w - - 0 1")
    assert pst.evaluate(central) > pst.evaluate(corner)


#: Positions with both sides to move, castling rights, en passant, few and many pieces.
BATCH_BOARDS = [chess.Board(f) for f in (
    chess.STARTING_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r3k2r/pp1n1ppp/2p1pn2/q7/1bPP4/2N1PN2/PP1B1PPP/R2QKB1R b KQkq - 3 9",
    "8/5pk1/6p1/8/3K4/8/5PPP/8 b - - 0 40",
    "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1")]


@pytest.mark.parametrize("name", available_evaluators())
def test_batch_equals_one_by_one(name):
    """Evaluators with a batch path of their own (one forward pass, vectorised features,
    a cache) must score each position as their single-board path does. The batch runs
    on a fresh evaluator, so no score comes from a cache the singles filled."""
    try:
        singles_ev, batch_ev = load_evaluator(name), load_evaluator(name)
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    if type(batch_ev).evaluate_batch is Evaluator.evaluate_batch:
        pytest.skip(f"{name}: evaluate_batch is the base class's loop over evaluate")
    singles = [singles_ev.evaluate(b) for b in BATCH_BOARDS]
    batch = batch_ev.evaluate_batch(BATCH_BOARDS)
    assert batch.shape == (len(BATCH_BOARDS),)
    np.testing.assert_allclose(batch, singles, rtol=1e-4, atol=0.05)
    assert batch_ev.evaluate_batch([]).shape == (0,)


def test_registry_errors_are_clear(monkeypatch, tmp_path):
    assert load_evaluator("pst").name == "pst"
    assert {"material", "pst", "cnn"} <= set(available_evaluators())
    with pytest.raises(ValueError, match="unknown evaluator 'nope'"):
        load_evaluator("nope")
    import chesslab.evaluation as ev
    monkeypatch.setattr(ev, "MODELS_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="data/models/cnn.json"):
        load_evaluator("cnn")


def test_wrong_inputs_are_named_errors():
    with pytest.raises(TypeError, match="pst.evaluate\\(\\) needs a chess.Board, got NoneType"):
        PSTEvaluator().evaluate(None)
    with pytest.raises(TypeError, match="material.evaluate\\(\\) needs a chess.Board"):
        MaterialEvaluator().evaluate("startpos")
    with pytest.raises(TypeError, match="an evaluator is a name such as 'pst'.*not list"):
        load_evaluator(["pst"])
    from chesslab.evaluation import encode_boards
    with pytest.raises(TypeError, match="takes a list of boards; for one board pass"):
        encode_boards(chess.Board(), "planes14")


def test_a_network_with_nan_weights_cannot_become_an_evaluator(tmp_path):
    import json

    from chesslab.evaluation import NetworkEvaluator
    from chesslab.nn import ANN
    from chesslab.training import save
    path = tmp_path / "ann.json"
    save(ANN.from_topology([896, 4, 1], seed=0), path, "planes14_flat", "tanh")
    doc = json.loads(path.read_text())
    doc["bias1"][0] = "HERE"
    path.write_text(json.dumps(doc).replace('"HERE"', "NaN"))
    with pytest.raises(ValueError, match="ann.json: bias1 holds a non-finite number"):
        NetworkEvaluator.from_file(path)


def test_pst_updated_move_by_move_equals_a_full_recount():
    # Random games from positions with castling, en passant and promotions; the null
    # move (the search's null-move pruning) too; moves taken back now and then.
    ev, rng, checked = PSTEvaluator(), random.Random(3), 0
    for start in (chess.STARTING_FEN, "r3k2r/1P6/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1"):
        for _ in range(20):
            board = chess.Board(start)
            ev.reset(board)
            for _ in range(120):
                moves = list(board.legal_moves)
                if not moves:
                    break
                move = rng.choice(moves + [chess.Move.null()] if not board.is_check()
                                  else moves)
                ev.push(board, move)
                board.push(move)
                assert ev.evaluate_incremental(board) == ev.evaluate(board)
                checked += 1
                if rng.random() < 0.2:
                    board.pop()
                    ev.pop()
    assert checked > 2000


def test_a_search_with_the_running_sum_finds_what_a_full_recount_finds():
    from chesslab.search import search

    class Recount:
        name = "recount"

        def evaluate(self, board):
            return PSTEvaluator().evaluate(board)

    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    fast, slow = search(board, PSTEvaluator(), depth=3), search(board, Recount(), depth=3)
    assert (fast.move, fast.score, fast.nodes) == (slow.move, slow.score, slow.nodes)
