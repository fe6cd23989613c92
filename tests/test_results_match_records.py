"""Every stored match record agrees with its counts: its score, Wilson interval, Elo and
summary are what the current rule (``MatchResult.record``) gives from its wins, draws and
losses, so no results file keeps a derivation from an older rule (a normal interval)."""
import json

import pytest

from chesslab.base.files import RESULTS_DIR, read_json
from chesslab.experiments.store import (match_records, match_results_files, record_match,
                                        rerate_results_file)
from chesslab.matches.match import MatchResult, rerated_record, stale_fields
from chesslab.matches.rating import wilson_interval

STORED = match_results_files()


def test_the_results_hold_match_records():
    names = {f.name for f in STORED}
    assert {"matches.json", "mcts_matches.json", "bayes_matches.json"} <= names


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.name)
def test_every_stored_match_record_agrees_with_its_counts(path):
    stale = rerate_results_file(path, write=False)
    assert not stale, (f"{path.name}: derived fields disagree with the counts at {stale}; "
                       f"run python -m chesslab results rerate-matches")


def _normal(wins, draws, losses):
    """The old normal interval: score +- 1.96 standard deviations of the per-game scores
    over the square root of the games."""
    n = wins + draws + losses
    p = (wins + draws / 2) / n
    se = ((wins + draws / 4) / n - p * p) ** 0.5 / n ** 0.5
    return [p - 1.96 * se, p + 1.96 * se]


def _planted(tmp_path):
    """A copy of matches.json (every record as the current rule gives it) with one record
    given the old normal interval."""
    doc = read_json(RESULTS_DIR / "matches.json")
    doc["matches"] = [rerated_record(m) for m in doc["matches"]]
    record = doc["matches"][1]
    record["interval95"] = _normal(record["wins"], record["draws"], record["losses"])
    path = tmp_path / "matches.json"
    path.write_text(json.dumps(doc, indent=1))
    return path, doc


def test_a_planted_normal_interval_is_found_and_rerated_in_place(tmp_path):
    path, doc = _planted(tmp_path)
    with pytest.raises(AssertionError, match="interval95"):     # the check above fails
        test_every_stored_match_record_agrees_with_its_counts(path)
    assert rerate_results_file(path, write=False) == [("/matches[1]", ["interval95"])]
    assert path.read_text(encoding="utf-8") == json.dumps(doc, indent=1)        # --check writes nothing
    assert rerate_results_file(path) == [("/matches[1]", ["interval95"])]
    after = read_json(path)
    assert rerate_results_file(path, write=False) == []
    counts = [after["matches"][1][k] for k in ("wins", "draws", "losses")]
    low, high = wilson_interval(counts[0] + counts[1] / 2, sum(counts))
    assert after["matches"][1]["interval95"] == [round(low, 4), round(high, 4)]
    # everything else is the file as it was, key order included
    doc["matches"][1]["interval95"] = after["matches"][1]["interval95"]
    assert path.read_text(encoding="utf-8") == json.dumps(doc, indent=1)


def test_appending_a_match_writes_no_stale_record_back(tmp_path):
    path, _ = _planted(tmp_path)
    entry = {**MatchResult("x", "y", 3, 1, 0).record(), "seed": 7}
    record_match(entry, path)
    stored = read_json(path)["matches"]
    assert stored[-1] == entry
    assert all(not stale_fields(m) for _, m in match_records(stored))


def test_a_legacy_record_keeps_its_names_and_other_fields():
    old = {"a": "net.json", "b": "boot.json", "games": 64, "wins": 23, "draws": 28,
           "losses": 13, "score": 0.5781, "ci95": [0.488, 0.668],
           "summary": "net.json mcts:300 vs boot.json mcts:300: +23 =28 -13  score 0.578 "
                      "(95% CI 0.49-0.67)  Elo +55 +- 65", "seconds": 12.5}
    assert stale_fields(old) == ["summary", "ci95"]
    new = rerated_record(old)
    assert list(new) == ["a", "b", "games", "wins", "draws", "losses", "score", "interval95",
                         "summary", "seconds"]
    current = MatchResult("net.json mcts:300", "boot.json mcts:300", 23, 28, 13)
    assert new["interval95"] == current.record()["interval95"]
    assert new["summary"] == current.summary() and "0.46-0.69" in new["summary"]
    assert old["ci95"] == [0.488, 0.668] and "interval95" not in old   # input untouched


def test_unrounded_current_values_agree_and_counts_that_disagree_are_refused():
    result = MatchResult("a", "b", 34, 2, 24)
    low, high = result.score_interval()
    unrounded = {**result.record(), "score": result.score, "interval95": [low, high],
                 "elo": result.elo, "elo_error": result.elo_error}
    assert stale_fields(unrounded) == [] and rerated_record(unrounded) is unrounded
    assert stale_fields({**unrounded, "elo_error": result.elo_error + 2}) == ["elo_error"]
    with pytest.raises(ValueError, match="games=61 but"):
        stale_fields({**unrounded, "games": 61})
