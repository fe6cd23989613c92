"""experiments.ladder: one ladder for every player holds each Stockfish anchor at its Elo; a
stored ladder is rated again by its command without playing."""
import json
from pathlib import Path

from chesslab.matches.rating import INTERVAL_KEY
from needs_stockfish import needs_stockfish
from chesslab.__main__ import main
from chesslab.base.files import read_json


@needs_stockfish
def test_one_ladder_for_every_player_holds_each_stockfish_anchor_at_its_elo(tmp_path):
    from chesslab.experiments.ladder import rate_every_player
    path = tmp_path / "ladder.json"
    data = rate_every_player(seconds=0.02, games=2, anchor_elos=(1350, 1600),
                             evaluators=("material",), max_plies=12, path=path,
                             progress=False)
    players = {r["player"]: r for r in data["standings"]}
    assert set(players) == {"random", "policy", "material@0.02s", "mcts@0.02s",
                            "stockfish:1350@0.02s", "stockfish:1600@0.02s"}
    assert players["stockfish:1350@0.02s"]["elo"] == 1350.0
    assert players["stockfish:1600@0.02s"]["elo"] == 1600.0
    # anchors never meet: each plays the 4 others twice
    assert players["stockfish:1350@0.02s"]["games"] == 8 and players["random"]["games"] == 10
    low, high = players["random"][INTERVAL_KEY]
    assert 0.0 <= low <= players["random"]["score"] <= high <= 1.0
    assert data["seconds_per_move"] == 0.02 and path.exists()
    assert sum(sum(wdl) for wdl in data["pairs"].values()) == (15 - 1) * 2   # 6 players
    assert players["stockfish:1600@0.02s"]["elo95"] == [1600.0, 1600.0]
    e_low, e_high = players["material@0.02s"]["elo95"]
    assert e_low < players["material@0.02s"]["elo"] < e_high
    assert not Path(f"{path}.games.jsonl").exists()
    from chesslab.base.files import file_tag
    from chesslab.search.mcts import DEFAULT_MODEL
    network = file_tag(DEFAULT_MODEL)                 # which network the ratings are of
    assert data["models"] == {"policy": network, "mcts@0.02s": network}


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
