"""experiments.matches: a long match resumes from its checkpoint and refuses another match's."""
import json

import pytest

from chesslab.base.files import file_tag
from chesslab.experiments import matches


def test_a_stopped_match_resumes_from_its_checkpoint(tmp_path):
    path = tmp_path / "match.jsonl"
    full = matches.run_match("material:1", "random", games=4, workers=1, max_plies=40,
                             progress=False, checkpoint=path)
    lines = path.read_text(encoding="utf-8").splitlines()
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
    assert (full["games_resumed"], resumed["games_resumed"]) == (0, 2)
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


def test_a_retrained_bayes_model_gets_its_own_bayes_matches_checkpoint(tmp_path, monkeypatch):
    from chesslab.evaluators import registry
    monkeypatch.setattr(registry, "MODELS_DIR", tmp_path)
    settings = ("bayes:3", ("random", "material:3"), 40, 4, 400)
    names = []
    for model in ('{"model": "before"}', '{"model": "after train bayes"}'):
        (tmp_path / "bayes.json").write_text(model)
        names.append(matches.bayes_matches_name(*settings))
    assert names[0] != names[1]
    for name in names:
        assert name.startswith("bayes_matches_bayes-3_40g_4_400_") and "/" not in name
    assert names[1].endswith(file_tag(tmp_path / "bayes.json"))
    # hand-written players read no model: their name does not change
    assert matches.bayes_matches_name("material:1", ("random",), 4, 2, 16) == \
        "bayes_matches_material-1_4g_2_16_hand"


def test_a_candidate_network_plays_a_match_under_its_own_digest(tmp_path):
    from chesslab.evaluators.policy_value import PolicyValueNet, save_policy_value
    candidate = tmp_path / "candidate.json"
    save_policy_value(PolicyValueNet(4, 1, policy_k=4, seed=3, planes="mover"), candidate)
    entry = matches.run_match("mcts:4", "random", games=2, workers=1, max_plies=6,
                              progress=False, a_model=candidate)
    assert entry["a_model"] == file_tag(candidate) and entry["b_model"] is None
    assert matches.match_name("mcts:4", "random", 2, 0, a_model=candidate) != \
        matches.match_name("mcts:4", "random", 2, 0)      # never resumes the shipped one's
    with pytest.raises(ValueError, match="'random' reads no model file"):
        matches.run_match("mcts:4", "random", games=2, workers=1, progress=False,
                          b_model=candidate)


def test_a_player_file_given_with_a_windows_path_names_one_checkpoint_file():
    from chesslab.experiments.store import checkpoint_path
    path = checkpoint_path("players\\anna.py_vs_pst:2_2g_seed0_hand")
    assert path.parent == checkpoint_path("x").parent
    assert path.name == "players-anna.py_vs_pst-2_2g_seed0_hand.jsonl"


def test_describing_the_network_keeps_the_matches_stored(tmp_path):
    path = tmp_path / "mcts_matches.json"
    path.write_text(json.dumps({"matches": [], "other": 1}, indent=1))
    assert matches.mcts_matches(opponents=(), path=path, progress=False,
                                describe="the shipped one") == []
    tag = file_tag(matches.DEFAULT_MODEL, 16)
    assert path.read_text() == json.dumps(
        {"matches": [], "other": 1, "networks": {tag: "the shipped one"}}, indent=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mcts_matches.json"]   # no lock left


def test_a_result_with_stockfish_records_which_stockfish_played():
    from chesslab.base.stockfish import find_stockfish
    from chesslab.experiments.store import engine_stamp
    assert engine_stamp(("material:1", "mcts@1s")) == {}
    if find_stockfish(required=False) is None:
        pytest.skip("Stockfish is not installed")
    assert engine_stamp(("nnue", "stockfish:1350@0.1s"))["stockfish"].startswith("Stockfish")
