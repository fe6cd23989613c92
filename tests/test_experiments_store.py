"""experiments.store: the results commands write into the results folder; a rerun of a match
replaces its entry and keeps the others."""
from chesslab.experiments import store
from chesslab.__main__ import main
from chesslab.figures import depth_cost_figure, read_results, tournament_figure
from chesslab.base.files import read_json


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
