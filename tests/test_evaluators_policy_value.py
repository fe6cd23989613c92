"""The policy-value network: shapes, masked priors, gradients of the combined loss,
symmetries, JSON round trip."""
import json

import chess
import numpy as np
import pytest

from chesslab.board.encoding import POLICY_SIZE, legal_indices, legal_mask, move_to_index, planes9_batch
from chesslab.nn import Adam, relative_error
from chesslab.evaluators.policy_value import (PLANE_ENCODINGS, SYMMETRIES, PolicyValueNet,
                                              allowed_symmetries, augmented, load_policy_value,
                                              policy_value_loss, save_policy_value, train_epochs)

FENS = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/4P3/8/8/8/k7/6p1/K7 w - - 0 1",          # promotions for White
        "8/4P3/8/8/8/k7/6p1/1K6 b - - 0 1"]         # and for Black


def _batch(dtype=np.float64):
    boards = [chess.Board(f) for f in FENS]
    mask = np.stack([legal_mask(b) for b in boards])
    rng = np.random.default_rng(0)
    pi = np.where(mask, rng.random(mask.shape), 0.0)
    pi /= pi.sum(axis=1, keepdims=True)
    return planes9_batch(boards).astype(dtype), pi, np.array([1.0, -1.0, 0.0]), mask


def test_shapes_and_value_range():
    net = PolicyValueNet(8, 1, policy_k=4)
    x, *_ = _batch(np.float32)
    logits, v = net.predict(x)
    assert logits.shape == (3, POLICY_SIZE) and v.shape == (3,)
    assert np.all(np.abs(v) < 1)
    with pytest.raises(ValueError, match="9, 8, 8"):
        net.forward(np.zeros((2, 14, 8, 8)))


def test_combined_loss_gradients_match_finite_differences():
    """(z - v)^2 - pi.log p + c||W||^2: every parameter, promotions included."""
    net = PolicyValueNet(4, 1, policy_k=3, seed=1).astype(np.float64)
    x, pi, z, mask = _batch()
    net.train()
    c = 1e-2
    policy_value_loss(net, x, pi, z, mask, c)
    analytic = {k: np.array(g) for k, g in net.grads.items()}

    def loss():
        return policy_value_loss(net, x, pi, z, mask, c, backward=False)[0]

    rng = np.random.default_rng(1)
    for name, param in net.params.items():
        # every entry of small arrays, 40 sampled entries of the big dense weights
        flat = param.reshape(-1)
        pick = np.arange(flat.size) if flat.size <= 200 else rng.choice(flat.size, 40, False)
        numeric = np.empty(len(pick))
        for j, i in enumerate(pick):
            old = flat[i]
            flat[i] = old + 1e-6
            up = loss()
            flat[i] = old - 1e-6
            numeric[j] = (up - loss()) / 2e-6
            flat[i] = old
        err = relative_error(analytic[name].reshape(-1)[pick], numeric)
        assert err < 1e-6, (name, err)


def test_priors_only_on_legal_moves_and_sum_to_one():
    net = PolicyValueNet(8, 1)
    board = chess.Board(FENS[1])
    moves, priors, value = net.policy(board)
    assert set(moves) == set(board.legal_moves)
    assert priors.shape == (len(moves),) and np.isclose(priors.sum(), 1) and np.all(priors > 0)
    assert -1 < value < 1
    # the masked loss puts zero gradient on illegal moves
    x, pi, z, mask = _batch(np.float32)
    net.train()
    logits, _ = net.forward(x)
    from chesslab.nn import softmax_cross_entropy
    _, grad = softmax_cross_entropy(logits, pi.astype(np.float32), mask)
    assert np.all(grad[~mask] == 0)


def test_symmetries_map_legal_moves_to_legal_moves():
    board = chess.Board("8/8/8/3k4/8/8/1Q6/K7 w - - 0 1")
    assert allowed_symmetries(board) == tuple(range(8))
    assert allowed_symmetries(chess.Board()) == (0,)
    assert allowed_symmetries(chess.Board("8/4P3/8/8/8/k7/8/K7 w - - 0 1")) == (0, 1)
    images = set()
    rng = np.random.default_rng(0)
    row = {"fen": board.fen(), "legal": legal_indices(board).tolist(), "pi": [1.0] * 20, "z": 1}
    for _ in range(60):
        new_board, new_row = augmented(row, rng)
        assert sorted(new_row["legal"]) == sorted(legal_indices(new_board).tolist())
        images.add(new_board.board_fen())
    assert len(images) == len(SYMMETRIES) == 8


def test_colour_mirror_keeps_value_and_maps_moves_for_any_position():
    # castling rights, en passant and a promotion: the colour mirror is always allowed
    board = chess.Board("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 2")
    legal = legal_indices(board).tolist()
    pi = [0.0] * len(legal)
    pi[legal.index(move_to_index(chess.Move.from_uci("e5d6")))] = 1.0
    row = {"fen": board.fen(), "legal": legal, "pi": pi, "z": 0.5}
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(20):
        new_board, new_row = augmented(row, rng, mirror_colours=True)
        assert sorted(new_row["legal"]) == sorted(legal_indices(new_board).tolist())
        assert new_row["z"] == 0.5 and new_row["pi"] == pi
        played = new_row["legal"][pi.index(1.0)]
        seen.add((new_board.turn, played))
    # the en passant capture e5xd6 becomes e4xd3 for Black after the mirror
    assert seen == {(chess.WHITE, move_to_index(chess.Move.from_uci("e5d6"))),
                    (chess.BLACK, move_to_index(chess.Move.from_uci("e4d3")))}


def test_training_lowers_the_loss_and_file_round_trip(tmp_path):
    net = PolicyValueNet(8, 1, policy_k=8, seed=3)
    board = chess.Board(FENS[0])
    legal = legal_indices(board).tolist()
    rows = [{"fen": FENS[0], "legal": legal, "pi": [1.0 if i == 5 else 0.0 for i in range(20)],
             "z": 1.0}] * 32
    first = train_epochs(net, rows, Adam(1e-2), epochs=1, batch_size=16)[0]["total"]
    last = train_epochs(net, rows, Adam(1e-2), epochs=5, batch_size=16)[-1]["total"]
    assert last < first
    path = tmp_path / "pv.json"
    save_policy_value(net, path, note="test")
    loaded = load_policy_value(path)
    x = planes9_batch([board])
    for a, b in zip(net.predict(x), loaded.predict(x)):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert loaded.training_notes == {"note": "test"}
    path.write_text('{"architecture": {"class": "CNN"}}')
    with pytest.raises(ValueError, match="not a policy-value network"):
        load_policy_value(path)


@pytest.mark.parametrize("planes", PLANE_ENCODINGS)
def test_each_plane_encoding_builds_a_network_that_its_file_brings_back(planes, tmp_path):
    net = PolicyValueNet(8, 1, policy_k=8, seed=4, planes=planes)
    boards = [chess.Board(f) for f in FENS]
    x = net.encode(boards)
    assert x.shape == (len(boards), *net.input_shape)
    save_policy_value(net, tmp_path / "pv.json")
    loaded = load_policy_value(tmp_path / "pv.json")
    assert loaded.planes == planes and loaded.input_shape == net.input_shape
    for a, b in zip(net.predict(x), loaded.predict(loaded.encode(boards))):
        np.testing.assert_array_equal(a, b)


def test_an_encoding_that_is_not_planes_is_refused_by_name():
    with pytest.raises(ValueError, match="'thesis64' for a policy-value network; choose "
                                         "one of .*planes9.*mover"):
        PolicyValueNet(8, 1, planes="thesis64")


def test_a_policy_value_file_is_an_ordinary_model_file(tmp_path):
    from chesslab.nn import load_model
    net = PolicyValueNet(8, 1, 8, seed=3)
    save_policy_value(net, tmp_path / "pv.json", note="x")
    again = load_model(tmp_path / "pv.json")             # the one reader of network files
    assert isinstance(again, PolicyValueNet) and net.params.keys() == again.params.keys()
    assert all(np.array_equal(net.params[k], again.params[k]) for k in net.params)
    moves, p, v = net.policy(chess.Board())
    assert np.allclose(again.policy(chess.Board())[1], p) and again.policy(chess.Board())[2] == v
    assert load_policy_value(tmp_path / "pv.json").training_notes == {"note": "x"}
    doc = json.loads((tmp_path / "pv.json").read_text())
    doc["format_version"] = 999
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="format_version 999"):
        load_policy_value(tmp_path / "bad.json")


def test_a_value_is_read_back_in_centipawns_on_the_scale_its_head_learned():
    from chesslab.evaluators.neural import target_to_cp
    from chesslab.evaluators.policy_value import value_to_cp
    from chesslab.training.supervised import value_target
    cp = np.array([-900.0, -150.0, 0.0, 300.0, 1200.0])
    np.testing.assert_allclose(value_to_cp(value_target(None, cp, "cp"), "cp"), cp, rtol=1e-4)
    v = np.array([-0.5, 0.0, 0.9])
    np.testing.assert_allclose(value_to_cp(v, "wdl"), target_to_cp((v + 1) / 2, "prob"))
    net = PolicyValueNet(4, 1, policy_k=4, seed=0, planes="mover")
    assert net.value_target == "wdl"                     # a file without the note: wdl
    net.training_notes = {"value_target": "cp"}
    assert net.value_to_cp(0.5) == pytest.approx(np.arctanh(0.5) / (0.00368208 / 2))
    # older networks' notes name other targets: read as an expected score, as before
    assert value_to_cp(0.5, "stockfish cp") == value_to_cp(0.5, "wdl")
