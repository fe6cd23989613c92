"""experiments.move_quality: a player's moves scored against Stockfish's labels."""
import chess
import numpy as np
import pytest

from chesslab.base.files import file_tag, read_json
from chesslab.datasets.policy_labels import POLICY_LABELS, load_policy_labels
from chesslab.evaluators.neural import expected_score
from chesslab.evaluators.policy_value import PolicyValueNet, save_policy_value
from chesslab.experiments import move_quality
from chesslab.training.supervised import held_out_mask
from tests.needs_stockfish import needs_stockfish

START = chess.STARTING_FEN


def positions(*rows):
    """rows of (fen, [uci moves best first], [their cp])."""
    return {"fen": np.array([r[0] for r in rows]),
            "moves": np.array([r[1] + [""] * (3 - len(r[1])) for r in rows]),
            "scores": np.array([r[2] + [0] * (3 - len(r[2])) for r in rows])}


def test_the_best_move_loses_nothing_and_a_worse_one_its_expected_score():
    data = positions((START, ["e2e4", "d2d4", "g1f3"], [40, 30, -200]))
    best = move_quality.move_quality(lambda b: chess.Move.from_uci("e2e4"), data)
    assert best == {"positions": 1, "best_move_share": 1.0, "expected_score_lost": 0.0,
                    "outside_listed_share": 0.0, "lost_per_position": [0.0]}
    third = move_quality.move_quality(lambda b: chess.Move.from_uci("g1f3"), data)
    assert third["best_move_share"] == 0.0
    assert third["expected_score_lost"] == pytest.approx(expected_score(40) - expected_score(-200))


def test_a_move_outside_the_list_counts_at_least_as_the_worst_listed():
    data = positions((START, ["e2e4", "d2d4"], [40, 10]),
                     (START, ["e2e4", "d2d4"], [40, 10]))
    moves = iter(["a2a3", "d2d4"])
    got = move_quality.move_quality(lambda b: chess.Move.from_uci(next(moves)), data)
    assert got["outside_listed_share"] == 0.5 and got["best_move_share"] == 0.0
    assert got["expected_score_lost"] == pytest.approx(expected_score(40) - expected_score(10))
    assert got["lost_per_position"][1] == pytest.approx(expected_score(40) - expected_score(10),
                                                        abs=1e-5)


def test_a_paired_difference_cancels_what_both_settings_share():
    a = {"lost_per_position": [0.30, 0.01, 0.11, 0.02]}
    b = {"lost_per_position": [0.29, 0.00, 0.10, 0.01]}
    mean, error = move_quality.paired_difference(a, b)
    assert mean == pytest.approx(0.01) and error == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError, match="different positions"):
        move_quality.paired_difference({**a, "positions_digest": "x"},
                                       {**b, "positions_digest": "y"})


@needs_stockfish
def test_stockfish_scores_a_move_it_did_not_list():
    from chesslab.base.stockfish import open_engine, quit_engine
    # White to move can take a free queen; giving it away instead is far worse than listed
    fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"
    data = positions((fen, ["d2d5"], [900]))
    engine = open_engine()
    try:
        blunder = move_quality.move_quality(lambda b: chess.Move.from_uci("d2d1"), data,
                                            engine=engine, depth=6)
    finally:
        quit_engine(engine)
    bound = move_quality.move_quality(lambda b: chess.Move.from_uci("d2d1"), data)
    assert bound["expected_score_lost"] == 0.0          # no engine: as bad as the worst listed
    assert blunder["expected_score_lost"] > 0.5          # searched: the queen is gone


@pytest.mark.skipif(not any(POLICY_LABELS.glob("*.npz")), reason="no policy labels shipped")
def test_held_out_positions_come_from_held_out_games_only():
    data = move_quality.held_out_positions(30)
    assert len(data["fen"]) == 30 and held_out_mask(data["game_id"]).all()
    assert (data["moves"][:, 0] != "").all()
    assert len(set(data["game_id"].tolist())) > 10          # spread over many games
    # only the first shards: labelling more later asks the same positions
    first = load_policy_labels(POLICY_LABELS, shards=move_quality.POSITION_SHARDS)
    assert set(data["fen"].tolist()) <= set(first["fen"].tolist())
    assert move_quality.positions_digest(data) == move_quality.positions_digest(
        move_quality.held_out_positions(30))
    with pytest.raises(FileNotFoundError, match="label more"):
        load_policy_labels(POLICY_LABELS, shards=10**6)


@pytest.fixture
def tiny_net(tmp_path, monkeypatch):
    """A tiny network file, and no Stockfish (moves outside the list: a lower bound)."""
    net_file = tmp_path / "net.json"
    save_policy_value(PolicyValueNet(4, 1, policy_k=4, seed=0, planes="mover"), net_file)
    monkeypatch.setattr(move_quality, "find_stockfish", lambda required=False: None)
    return net_file


@pytest.mark.skipif(not any(POLICY_LABELS.glob("*.npz")), reason="no policy labels shipped")
def test_tuning_measures_each_setting_once_and_resumes(tmp_path, tiny_net):
    net_file, out = tiny_net, tmp_path / "tuning.json"
    move_quality.mcts_tuning(8, (1.0,), (0.0, 0.3), 6, net_file, out, progress=False)
    rows = read_json(out)["rows"]
    assert [(r["c_puct"], r["fpu_reduction"]) for r in rows] == [(1.0, 0.0), (1.0, 0.3)]
    assert all(r["positions"] == 6 and 0 <= r["best_move_share"] <= 1 for r in rows)
    assert len({r["positions_digest"] for r in rows}) == 1
    move_quality.mcts_tuning(8, (1.0, 2.0), (0.0, 0.3), 6, net_file, out, progress=False)
    again = read_json(out)["rows"]
    assert again[:2] == rows and len(again) == 4                 # only the new settings ran
    other = tmp_path / "other.json"
    save_policy_value(PolicyValueNet(4, 1, policy_k=4, seed=1, planes="mover"), other)
    move_quality.mcts_tuning(8, (1.0,), (0.0,), 6, other, out, progress=False,
                             describe="another seed")
    doc = read_json(out)
    assert len(doc["rows"]) == 5 and doc["networks"][doc["rows"][-1]["network"]] == "another seed"
    assert len({r["network"] for r in doc["rows"]}) == 2
    # describing a measured network again (it was shipped since) stores the new words alone
    move_quality.mcts_tuning(8, (1.0,), (0.0,), 6, other, out, progress=False,
                             describe="another seed, shipped")
    again = read_json(out)
    assert again["networks"][doc["rows"][-1]["network"]] == "another seed, shipped"
    assert again["rows"] == doc["rows"]
    # settling leaf values is a setting of its own; rows from before it count as off
    move_quality.mcts_tuning(8, (1.0,), (0.0,), 6, net_file, out, progress=False,
                             settle=(False, True))
    rows = read_json(out)["rows"]
    assert len(rows) == 6 and rows[-1]["settle"] is True and rows[-1]["mean_nodes"] == 8
    assert all(r.get("settle", False) is False for r in rows[:5])


@pytest.mark.skipif(not any(POLICY_LABELS.glob("*.npz")), reason="no policy labels shipped")
def test_tuning_keeps_what_another_command_stored_while_it_measured(tmp_path, tiny_net,
                                                                     monkeypatch):
    net_file, out = tiny_net, tmp_path / "tuning.json"
    move_quality.mcts_tuning(8, (1.0,), (0.0,), 6, net_file, out, progress=False)
    real = move_quality.player_quality

    def meanwhile(*args):            # a second command describes the network, adds a row
        monkeypatch.setattr(move_quality, "player_quality", real)
        move_quality.mcts_tuning(8, (1.0,), (0.0, 0.5), 6, net_file, out, progress=False,
                                 describe="shipped")
        return real(*args)
    monkeypatch.setattr(move_quality, "player_quality", meanwhile)
    move_quality.mcts_tuning(8, (2.0,), (0.0,), 6, net_file, out, progress=False)
    doc = read_json(out)
    assert doc["networks"] == {file_tag(net_file, 16): "shipped"}
    assert [(r["c_puct"], r["fpu_reduction"]) for r in doc["rows"]] == \
        [(1.0, 0.0), (1.0, 0.5), (2.0, 0.0)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.json", "tuning.json"]


@pytest.mark.skipif(not any(POLICY_LABELS.glob("*.npz")), reason="no policy labels shipped")
def test_tuning_at_equal_time_gives_each_move_its_seconds(tmp_path, tiny_net):
    net_file, out = tiny_net, tmp_path / "tuning.json"
    move_quality.mcts_tuning(8, (1.0,), (0.0,), 3, net_file, out, progress=False, seconds=0.05)
    (row,) = read_json(out)["rows"]
    assert row["seconds_per_move"] == 0.05 and row["simulations"] > 10**5
    assert row["mean_nodes"] > 8          # the time, not the simulations, ended each search
    assert row["seconds"] >= 3 * 0.05


def test_a_step_is_a_name_and_an_existing_network_file(tmp_path):
    from chesslab.experiments.network_steps import parse_step
    net_file = tmp_path / "e1.json"
    net_file.write_text("{}")
    assert parse_step(f"policy only={net_file}") == ("policy only", net_file)
    with pytest.raises(ValueError, match="NAME=NETWORK_FILE"):
        parse_step(str(net_file))
    with pytest.raises(FileNotFoundError, match="'later'.*does not exist"):
        parse_step(f"later={tmp_path / 'missing.json'}")


def test_a_run_naming_some_steps_renames_them_in_place_and_adds_new_ones_at_the_end():
    from chesslab.experiments.network_steps import step_order
    stored = ["self-play", "labels", "more labels (shipped)"]
    assert step_order(stored, {"more labels (shipped)": "more labels"},
                      ["more labels", "all labels (shipped)"],
                      ["self-play", "labels", "more labels", "all labels (shipped)"]) == \
        ["self-play", "labels", "more labels", "all labels (shipped)"]
    # a run that names every measured step sets the order itself
    assert step_order(stored, {}, ["labels", "self-play", "more labels (shipped)"], stored) == \
        ["labels", "self-play", "more labels (shipped)"]


@pytest.mark.skipif(not any(POLICY_LABELS.glob("*.npz")), reason="no policy labels shipped")
def test_network_steps_measure_each_network_once(tmp_path, monkeypatch):
    from chesslab.experiments import network_steps
    monkeypatch.setattr(move_quality, "find_stockfish", lambda required=False: None)
    files = []
    for seed in (0, 1):
        files.append(tmp_path / f"net{seed}.json")
        save_policy_value(PolicyValueNet(4, 1, policy_k=4, seed=seed, planes="mover"), files[-1])
    out = tmp_path / "steps.json"
    settings = dict(simulations=4, opponent="random", games=2, positions=4, max_plies=20,
                    path=out, progress=False)
    network_steps.network_steps([("first", files[0]), ("second", files[1])], **settings)
    rows = read_json(out)["rows"]
    assert [r["step"] for r in rows] == ["first", "second"] and read_json(out)["order"] == ["first", "second"]
    for r in rows:
        assert r["wins"] + r["draws"] + r["losses"] == 2 and len(r["endings"]) == 2
        low, high = r["interval95"]
        assert 0 <= low <= r["score"] <= high <= 1 and r["positions"] == 4
    network_steps.network_steps([("renamed", files[0])], **settings)
    again = read_json(out)
    assert len(again["rows"]) == 2 and again["rows"][0]["step"] == "renamed"   # not re-measured
    assert again["order"] == ["renamed", "second"]     # a partial run keeps the others' places
    assert again["rows"][0]["seconds"] == rows[0]["seconds"]
    # the command line rerun (nothing left to measure) stores itself with the rows
    from chesslab.cli import main
    argv = ["results", "network-steps", "--step", f"first={files[0]}", "--step",
            f"second={files[1]}", "--simulations", "4", "--opponent", "random", "--games", "2",
            "--positions", "4", "--max-plies", "20", "--out", str(out)]
    assert again["command"] is None and main(argv) == 0
    stored = read_json(out)
    assert stored["command"] == " ".join(["python -m chesslab", *argv])
    assert [r["seconds"] for r in stored["rows"]] == [r["seconds"] for r in rows]
    assert [r["step"] for r in stored["rows"]] == ["first", "second"]


def test_network_steps_keep_the_rows_another_command_stored_while_they_measured(
        tmp_path, monkeypatch):
    from chesslab.experiments import network_steps
    first, other, out = tmp_path / "first.json", tmp_path / "other.json", tmp_path / "steps.json"
    first.write_text("first network")
    other.write_text("other network")

    def measure(job):                # no games: what is stored, and when, is the point
        name, _network, tag, settings = job
        if name == "first":          # meanwhile a second command measures another network
            network_steps.network_steps([("other", other)], path=out, progress=False)
        return {"step": name, "network": tag, **settings, "summary": name}
    monkeypatch.setattr(network_steps, "_measure_step", measure)
    returned = network_steps.network_steps([("first", first)], path=out, progress=False,
                                           command="second")
    doc = read_json(out)
    assert [r["step"] for r in doc["rows"]] == ["other", "first"]
    assert doc["order"] == ["other", "first"] and doc["command"] == "second"
    assert returned["rows"] == doc["rows"] and "date" in doc
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.json", "other.json",
                                                          "steps.json"]
