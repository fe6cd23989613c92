"""A trained network as an evaluator: the shipped networks (data/models/*.json) and
NetworkEvaluator's contract."""
import json

import chess
import numpy as np
import pytest

from chesslab.evaluators.registry import EVALUATORS, load_evaluator
from chesslab.base.files import MODELS_DIR
from chesslab.evaluators import neural
from chesslab.evaluators.neural import (PERSPECTIVES, TARGET_KINDS, NetworkEvaluator, cp_to_target,
                               encode_boards, target_to_cp)
from chesslab.nn import ANN, Sigmoid, thesis_ann

START = chess.Board()
# Both sides' queen removed in turn, White to move and Black to move.
WHITE_QUEEN_UP = [chess.Board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
                  chess.Board("rnb1kbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2")]
BLACK_QUEEN_UP = [chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1"),
                  chess.Board("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 2 2")]
MIDDLEGAME = [chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"),
              chess.Board("8/5pk1/6p1/3R4/8/6P1/5PK1/r7 b - - 0 40")]


#: The shipped networks read by NetworkEvaluator itself (nnue and linear: test_evaluators_nnue.py).
NETWORKS = [name for name, entry in EVALUATORS.items() if entry.evaluator is NetworkEvaluator]


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


def test_a_network_with_nan_weights_cannot_become_an_evaluator(tmp_path):
    from chesslab.training.pipeline import save
    path = tmp_path / "ann.json"
    save(ANN.from_topology([896, 4, 1], seed=0), path, "planes14_flat", "tanh")
    doc = json.loads(path.read_text())
    doc["bias1"][0] = "HERE"
    path.write_text(json.dumps(doc).replace('"HERE"', "NaN"))
    with pytest.raises(ValueError, match="ann.json: bias1 holds a non-finite number"):
        NetworkEvaluator.from_file(path)


def test_encode_boards_wants_a_list():
    with pytest.raises(TypeError, match="takes a list of boards; for one board pass"):
        encode_boards(chess.Board(), "planes14")
    with pytest.raises(TypeError, match=r"encode_boards\(\) takes a list of chess.Board, got "
                                        r"NoneType None; pass e.g. \[chess.Board\(\)\]"):
        encode_boards(None, "planes14")
    with pytest.raises(TypeError, match="got str 'rnbqkbnr"):
        encode_boards(chess.STARTING_FEN, "planes14")
    with pytest.raises(TypeError, match="item 0 is NoneType None"):
        encode_boards([None], "thesis64")


@pytest.mark.parametrize("kind", ["tanh", "unit"])
def test_target_scaling_round_trip(kind):
    cp = np.array([-1500, -400, -50, 0, 30, 400, 1500])
    y = cp_to_target(cp, kind)
    low, high = (-1, 1) if kind == "tanh" else (0, 1)
    assert np.all((y > low) & (y < high))
    assert np.all(np.diff(y) > 0)
    np.testing.assert_allclose(target_to_cp(y, kind), cp, atol=1e-6)
    # mates are squashed to the edge and come back as a large but finite score
    assert 1500 < target_to_cp(cp_to_target(10_000, kind), kind) < 2500
    with pytest.raises(ValueError, match="target scaling"):
        cp_to_target(cp, "linear")


def test_logit_and_prob_targets_live_in_win_probability_space():
    cp = np.array([-1500, -400, -50, 0, 30, 400, 1500])
    np.testing.assert_allclose(target_to_cp(cp_to_target(cp, "logit"), "logit"), cp)
    np.testing.assert_allclose(target_to_cp(cp_to_target(cp, "prob"), "prob"), cp, atol=1e-6)
    p = neural.training_target(cp, "logit")          # what sigmoid_mse compares with
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-cp / 400)))
    assert p[3] == 0.5 and neural.loss_for("logit").__name__ == "sigmoid_mse"
    assert neural.loss_for("tanh").__name__ == "mse"


def test_target_kind_follows_the_output_layer_and_the_training_target():
    linear, squashed = ANN.from_topology([64, 4, 1]), ANN.from_topology([64, 4, 1])
    squashed.layers.append(Sigmoid())
    assert [neural.target_kind(m, "tanh") for m in (linear, squashed)] == ["tanh", "unit"]
    assert [neural.target_kind(m, "wdl") for m in (linear, squashed)] == ["logit", "prob"]
    with pytest.raises(ValueError, match="unknown target"):
        neural.target_kind(linear, "mse")


def test_a_wider_wdl_scale_is_the_same_loss_with_its_gradient_scaled():
    """loss_for("logit", 800) compares sigmoid(400 z / 800) with sigmoid(cp / 800): its
    gradient matches finite differences, and at scale 400 it is sigmoid_mse itself."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=(6, 1))
    cp = rng.normal(scale=600, size=6)
    loss = neural.loss_for("logit", 800.0)
    target = neural.training_target(cp, "logit", 800.0).reshape(-1, 1)
    np.testing.assert_allclose(target[:, 0], 1 / (1 + np.exp(-cp / 800)))
    value, grad = loss(z, target)
    eps = 1e-6
    for i in range(len(z)):
        up, down = z.copy(), z.copy()
        up[i] += eps
        down[i] -= eps
        numeric = (loss(up, target)[0] - loss(down, target)[0]) / (2 * eps)
        assert abs(numeric - grad[i, 0]) < 1e-6 * max(1.0, abs(numeric))
    assert value > 0 and neural.loss_for("logit", 400.0).__name__ == "sigmoid_mse"
