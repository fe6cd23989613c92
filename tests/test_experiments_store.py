"""experiments.store: the results commands write into the results folder; a rerun of a match
replaces its entry and keeps the others, also when two processes record at once."""
import os
import subprocess
import sys
import time
from pathlib import Path

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


_RECORDER = """
import sys, time
from pathlib import Path
from chesslab.experiments import store
path, first, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
(path.parent / f"ready_{first}").touch()
while not (path.parent / "go").exists():
    time.sleep(0.001)
for seed in range(first, first + count):
    store.record_match({"a": "pst:1", "b": "random", "a_model": None, "b_model": None,
                        "games": 2, "seed": seed, "score": 0.5}, path)
"""


def test_two_processes_recording_matches_in_one_file_keep_every_match(tmp_path):
    path = tmp_path / "matches.json"
    store.record_match({**_entry(-1, 1.0), "command": "kept"}, path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(store.__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-c", _RECORDER, str(path), str(first), "40"],
                              env=env) for first in (0, 1000)]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready_{first}").exists() for first in (0, 1000)):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.01)
    (tmp_path / "go").touch()
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    seeds = [m["seed"] for m in read_json(path)["matches"]]
    assert sorted(seeds) == [-1, *range(40), *range(1000, 1040)]
    assert read_json(path)["matches"][0]["command"] == "kept"
    assert sorted(os.listdir(tmp_path)) == ["go", "matches.json", "ready_0", "ready_1000"]
