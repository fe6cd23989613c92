"""A long match saves each finished pair of games and a rerun resumes from them."""
import json

import pytest

from chesslab import results


def test_a_stopped_match_resumes_from_its_checkpoint(tmp_path):
    path = tmp_path / "match.jsonl"
    full = results.run_match("material:1", "random", games=4, workers=1, max_plies=40,
                             progress=False, checkpoint=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 2                                # one line per opening (2 games)
    # keep the first pair and a torn last line, as a run killed mid-write leaves it
    path.write_text(lines[0] + "\n" + lines[1][:25])
    played = []
    original = results._play_pair
    try:
        results._play_pair = lambda job: played.append(job) or original(job)
        resumed = results.run_match("material:1", "random", games=4, workers=1,
                                    max_plies=40, progress=False, checkpoint=path)
    finally:
        results._play_pair = original
    assert len(played) == 1                               # only the missing pair
    assert resumed["pgn"] == full["pgn"]
    assert (resumed["wins"], resumed["draws"], resumed["losses"]) == \
        (full["wins"], full["draws"], full["losses"])


def test_a_checkpoint_of_another_match_is_refused(tmp_path):
    path = tmp_path / "match.jsonl"
    path.write_text(json.dumps({"job": ["pst:1", "random", "e2e4", 0, 40, 1000],
                                "pair": []}) + "\n" + "{}\n")
    with pytest.raises(ValueError, match="not a pair of this match"):
        results.run_match("material:1", "random", games=2, workers=1, max_plies=40,
                          progress=False, checkpoint=path)
