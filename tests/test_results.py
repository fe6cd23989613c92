"""results: measurements written where asked, a rerun replacing its entry, and a long
match resuming from its checkpoint."""
import json

import pytest

from chesslab.experiments import matches
from chesslab.experiments import search_cost
from chesslab.experiments import store
from chesslab.experiments import tournament
from chesslab.__main__ import main
from chesslab.figures import depth_cost_figure, read_results, tournament_figure
from chesslab.base.files import read_json

ENDGAME = "8/8/8/4k3/8/8/3QK3/8 w - - 0 1"


def test_depth_cost_alphabeta_equals_minimax_with_fewer_nodes():
    data = search_cost.measure_depth_cost(depths=(1, 2), algorithms=("minimax", "alphabeta"),
                                      positions={"endgame": ENDGAME}, progress=False)
    rows = {(r["algorithm"], r["depth"]): r for r in data["rows"]}
    assert sorted(rows) == [("alphabeta", 1), ("alphabeta", 2), ("minimax", 1), ("minimax", 2)]
    for depth in (1, 2):
        assert rows["alphabeta", depth]["scores"] == rows["minimax", depth]["scores"]
    assert rows["alphabeta", 2]["nodes"] < rows["minimax", 2]["nodes"]
    assert rows["minimax", 1]["nodes"] < rows["minimax", 2]["nodes"]
    assert data["positions"] == {"endgame": ENDGAME} and data["evaluator"] == "material"


def test_results_commands_write_into_the_results_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store, "RESULTS_DIR", tmp_path)
    assert main(["results", "depth-cost", "--max-depth", "1", "--quiet"]) == 0
    assert main(["results", "tournament", "--players", "random", "material:1", "--games",
                 "2", "--max-plies", "30", "--quiet"]) == 0
    assert "tournament.json" in capsys.readouterr().out.splitlines()[-1]
    cost = read_results("depth_cost", "unused", folder=tmp_path)
    assert {r["algorithm"] for r in cost["rows"]} == {"minimax", "alphabeta", "full"}
    assert depth_cost_figure(cost).axes
    tournament = read_json(tmp_path / "tournament.json")
    pair = tournament["pairs"]["random vs material:1"]
    assert sum(pair.values()) == 2 and tournament["players"] == ["random", "material:1"]
    assert tournament_figure(tournament).axes


def test_score_matrix_is_each_sides_score_and_skips_empty_pairs():
    players, matrix = tournament.score_matrix({
        "players": ["a", "b", "c"],
        "pairs": {"a vs b": {"wins": 1, "draws": 2, "losses": 1},
                  "b vs c": {"wins": 0, "draws": 0, "losses": 0}}})
    assert players == ["a", "b", "c"]
    assert matrix[0][1] == 0.5 and matrix[1][0] == 0.5
    assert matrix[1][2] is None and matrix[0][2] is None and matrix[0][0] is None



def _entry(seed, score):
    return {"a": "pst:1", "b": "random", "a_model": None, "b_model": None, "games": 2,
            "seed": seed, "score": score}


def test_record_match_replaces_a_rerun_and_keeps_other_matches(tmp_path):
    path = tmp_path / "matches.json"
    store.record_match(_entry(0, 0.5), path)
    store.record_match(_entry(1, 1.0), path)           # another seed: a second result
    store.record_match(_entry(0, 0.75), path)          # the same match again: replaces
    matches = read_json(path)["matches"]
    assert [(m["seed"], m["score"]) for m in matches] == [(1, 1.0), (0, 0.75)]
    retrained = {**_entry(0, 0.25), "a_model": "abc123"}  # another model file: kept apart
    store.record_match(retrained, path)
    assert len(read_json(path)["matches"]) == 3


def test_a_stopped_match_resumes_from_its_checkpoint(tmp_path):
    path = tmp_path / "match.jsonl"
    full = matches.run_match("material:1", "random", games=4, workers=1, max_plies=40,
                             progress=False, checkpoint=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 2                                # one line per opening (2 games)
    # keep the first pair and a torn last line, as a run killed mid-write leaves it
    path.write_text(lines[0] + "\n" + lines[1][:25])
    played = []
    original = matches._play_pair
    try:
        matches._play_pair = lambda job: played.append(job) or original(job)
        resumed = matches.run_match("material:1", "random", games=4, workers=1,
                                    max_plies=40, progress=False, checkpoint=path)
    finally:
        matches._play_pair = original
    assert len(played) == 1                               # only the missing pair
    assert resumed["pgn"] == full["pgn"]
    assert (resumed["wins"], resumed["draws"], resumed["losses"]) == \
        (full["wins"], full["draws"], full["losses"])


def test_a_checkpoint_of_another_match_is_refused(tmp_path):
    path = tmp_path / "match.jsonl"
    path.write_text(json.dumps({"job": ["pst:1", "random", "e2e4", 0, 40, 1000],
                                "pair": []}) + "\n" + "{}\n")
    with pytest.raises(ValueError, match="not a job of this run"):
        matches.run_match("material:1", "random", games=2, workers=1, max_plies=40,
                          progress=False, checkpoint=path)


def test_a_stored_ladder_is_rated_again_by_its_command_without_playing(tmp_path, capsys):
    from chesslab.base.files import RESULTS_DIR
    stored = read_json(RESULTS_DIR / "ladder.json")
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps({**stored, "what": "old"}))
    assert main(["results", "ladder", "--rerate", "--out", str(path)]) == 0
    again = read_json(path)
    assert again["ratings"] == stored["ratings"] and again["pairs"] == stored["pairs"]
    assert "nominal" in again["what"] and again["prior"] in capsys.readouterr().out
    del stored["pairs"]
    path.write_text(json.dumps(stored))
    assert main(["results", "event-ladder", "--rerate", "--out", str(path)]) == 2
    assert "results event-ladder" in capsys.readouterr().err
