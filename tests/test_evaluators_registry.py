"""The one registry of evaluators: names, kinds, model files, one cached loader."""
import chess
import numpy as np
import pytest

from chesslab.evaluators import registry
from chesslab.base import files
from chesslab.evaluators.registry import EVALUATORS, KINDS, available_evaluators, is_available, load_evaluator, register_evaluator
from chesslab.evaluators.base import Evaluator
from chesslab.evaluators.handwritten import MaterialEvaluator
from chesslab.board.encoding import ENCODINGS


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
    with pytest.raises(TypeError, match="an evaluator is a name such as 'pst'.*not list"):
        load_evaluator(["pst"])
    with pytest.raises(ValueError, match="reads no model file"):
        load_evaluator("pst", model=tmp_path / "pst.json")
    monkeypatch.setattr(registry, "MODELS_DIR", tmp_path)
    assert not is_available("cnn") and is_available("pst") and not is_available("nope")
    with pytest.raises(FileNotFoundError, match="data/models/cnn.json.*train nets cnn"):
        load_evaluator("cnn")


def test_every_entry_says_what_it_is_and_how_to_make_it():
    assert list(EVALUATORS)[:2] == ["material", "pst"]          # hand-written first
    for name, entry in EVALUATORS.items():
        assert entry.name == name and entry.kind in KINDS and entry.title
        assert (entry.model is None) == (entry.kind == "hand-written")
        if entry.model:
            assert entry.model == f"{name}.json" and "python -m chesslab train" in entry.made_by
        if entry.trainable:                       # a network: its builder reads its encoding
            net = entry.network(0)
            assert tuple(net.input_shape) == ENCODINGS[entry.encoding].shape, name
            assert entry.kind == "learned" and entry.in_table
    assert EVALUATORS["bayes"].kind == "bayes" and not EVALUATORS["bayes"].in_table
    nnue = load_evaluator("nnue")     # the side to move's view: a colour-mirrored position
    assert nnue.perspective == "side_to_move"   # is the same one, seen by the other side
    for board in BATCH_BOARDS:
        assert nnue.evaluate(board.mirror()) == pytest.approx(-nnue.evaluate(board), abs=1e-6)


def test_a_model_file_is_read_once_and_every_load_is_a_fresh_copy(monkeypatch):
    reads = []
    original = registry.NetworkEvaluator.from_file.__func__

    def counted(cls, path, name=None):
        reads.append(path)
        return original(cls, path, name)

    monkeypatch.setattr(registry.NetworkEvaluator, "from_file", classmethod(counted))
    monkeypatch.setattr(files, "_CACHE", {})          # forget what other tests loaded
    a, b = load_evaluator("cnn"), load_evaluator("cnn")
    assert len(reads) == 1 and a is not b and a.model is not b.model
    board = chess.Board()
    assert a.evaluate(board) == b.evaluate(board)


def test_another_model_file_and_your_own_evaluator(tmp_path, monkeypatch):
    from chesslab.nn import thesis_cnn
    from chesslab.training.pipeline import save
    path = save(thesis_cnn(seed=5, in_channels=14), tmp_path / "mine.json", "planes14", "tanh",
                evaluator="cnn")
    mine = load_evaluator("cnn", model=path)
    assert mine.evaluate(chess.Board()) != load_evaluator("cnn").evaluate(chess.Board())

    class Zero(Evaluator):
        name = "zero"

        def evaluate(self, board):
            return 0.0

    monkeypatch.setitem(EVALUATORS, "zero", None)            # removed again after the test
    register_evaluator("zero", Zero, title="always zero")
    assert isinstance(load_evaluator("zero"), Zero) and is_available("zero")
    assert load_evaluator(MaterialEvaluator()).name == "material"
