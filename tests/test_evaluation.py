"""Material and piece-square evaluation, the evaluator registry, and the learned
evaluators: the shipped networks (data/models/*.json) and NetworkEvaluator's contract."""
import json
import math
import random

import chess
import numpy as np
import pytest

from chesslab.evaluation import (NETWORKS, PERSPECTIVES, TARGET_KINDS, Evaluator,
                                 MaterialEvaluator, NetworkEvaluator, PSTEvaluator,
                                 available_evaluators, encode_boards, load_evaluator,
                                 material_balance)
from chesslab.files import MODELS_DIR
from chesslab.nn import ANN, thesis_ann
from chesslab.search import search
from chesslab.training import save


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
    with pytest.raises(TypeError, match="takes a list of boards; for one board pass"):
        encode_boards(chess.Board(), "planes14")


def test_a_network_with_nan_weights_cannot_become_an_evaluator(tmp_path):
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
    class Recount:
        name = "recount"

        def evaluate(self, board):
            return PSTEvaluator().evaluate(board)

    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    fast, slow = search(board, PSTEvaluator(), depth=3), search(board, Recount(), depth=3)
    assert (fast.move, fast.score, fast.nodes) == (slow.move, slow.score, slow.nodes)


# ---------------------------------------------------------------- the learned evaluators

START = chess.Board()
# Both sides' queen removed in turn, White to move and Black to move.
WHITE_QUEEN_UP = [chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
                  chess.Board("rnb1kbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2")]
BLACK_QUEEN_UP = [chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1"),
                  chess.Board("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 2 2")]
MIDDLEGAME = [chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"),
              chess.Board("8/5pk1/6p1/3R4/8/6P1/5PK1/r7 b - - 0 40")]


@pytest.fixture(scope="module", params=NETWORKS)
def shipped(request):
    return load_evaluator(request.param)


def test_shipped_models_record_how_to_use_them():
    for name in NETWORKS:
        doc = json.loads((MODELS_DIR / f"{name}.json").read_text())
        meta = doc["chesslab"]
        assert meta["evaluator"] == name
        assert meta["encoding"] in ("thesis64", "thesis64_board", "planes14", "planes14_flat")
        assert meta["target"] in TARGET_KINDS
        assert meta.get("perspective", "white") in PERSPECTIVES
        assert len(meta["history"]["epoch"]) >= 1


def test_start_position_is_about_equal(shipped):
    assert abs(shipped.evaluate(START)) < 100


def test_a_queen_up_is_strongly_good_for_the_right_side(shipped):
    # Stockfish says about +-900; "strongly" here: more than two pawns. (Opening
    # positions without a queen never occur in the training games, so the nets
    # extrapolate; the shipped conv net gives about +-230..320.)
    for board in WHITE_QUEEN_UP:
        assert shipped.evaluate(board) > 200, board.fen()
    for board in BLACK_QUEEN_UP:
        assert shipped.evaluate(board) < -200, board.fen()


def test_batch_equals_one_by_one_in_one_forward_pass(shipped, monkeypatch):
    boards = [START, *WHITE_QUEEN_UP, *BLACK_QUEEN_UP, *MIDDLEGAME]
    singles = [shipped.evaluate(b) for b in boards]
    calls = []
    forward = shipped.model.forward
    monkeypatch.setattr(shipped.model, "forward", lambda x: calls.append(len(x)) or forward(x))
    batch = shipped.evaluate_batch(boards)
    assert calls == [len(boards)]
    assert shipped.prefers_batches
    np.testing.assert_allclose(batch, singles, rtol=1e-4, atol=0.05)
    assert shipped.evaluate_batch([]).shape == (0,)


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path


def test_malformed_model_files_say_what_is_wrong(tmp_path):
    good = json.loads((MODELS_DIR / "ann.json").read_text())
    no_meta = {k: v for k, v in good.items() if k != "chesslab"}
    with pytest.raises(ValueError, match="no 'chesslab' entry"):
        NetworkEvaluator.from_file(_write(tmp_path / "a.json", no_meta))
    wrong_encoding = dict(good, chesslab=dict(good["chesslab"], encoding="planes14"))
    with pytest.raises(ValueError, match="encoding 'planes14' gives"):
        NetworkEvaluator.from_file(_write(tmp_path / "b.json", wrong_encoding))
    unknown = dict(good, chesslab=dict(good["chesslab"], encoding="fen"))
    with pytest.raises(ValueError, match="unknown encoding 'fen'"):
        NetworkEvaluator.from_file(_write(tmp_path / "c.json", unknown))
    bad_shape = dict(good, layer2={"inputWeights": [[0.0] * 3] * 64})
    with pytest.raises(ValueError, match="layer2.inputWeights has shape"):
        NetworkEvaluator.from_file(_write(tmp_path / "d.json", bad_shape))
    (tmp_path / "e.json").write_text(json.dumps(good)[:500])
    with pytest.raises(ValueError, match="not valid JSON"):
        NetworkEvaluator.from_file(tmp_path / "e.json")


def test_mismatched_network_and_encoding_is_refused():
    with pytest.raises(ValueError, match=r"shape \(64,\)"):
        NetworkEvaluator(thesis_ann(), "planes14")
