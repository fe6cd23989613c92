"""The class event: isolated submissions, faults that lose a game, formats, resuming, CLI."""
import json
from pathlib import Path
import math

import chess
import pytest

from chesslab.board.game import play_game
from chesslab.board.rules import adjudicate_material
from chesslab.cli import main
from chesslab.matches import event, formats, tournament
from chesslab.matches.isolation import IsolatedPlayer, PlayerFault
from chesslab.matches.rating import INTERVAL_KEY, bradley_terry
from needs_stockfish import needs_stockfish
from tournament_players import FAULTY, GOOD, REASONS, write_class

MOVE_TIME = 0.2


@pytest.fixture(scope="module")
def faulty_event(tmp_path_factory):
    """Two good players and one of each fault, in a round robin (no ladder)."""
    folder = write_class(tmp_path_factory.mktemp("class"), [*GOOD, *FAULTY])
    record = event.run_tournament(folder, "round-robin", games=2, move_time=MOVE_TIME,
                                  ladder=[], workers=2, max_plies=40, progress=False)
    return folder, record


def test_the_event_finishes_and_withdraws_the_file_that_does_not_import(faulty_event):
    _, record = faulty_event
    assert [w["file"] for w in record["withdrawn"]] == ["broken.py"]
    assert "ModuleNotFoundError" in record["withdrawn"][0]["reason"]
    players = {r["player"] for r in record["standings"]}
    assert players == {"first", "chatty", *REASONS}
    assert len(record["games"]) == 2 * math.comb(7, 2)        # every game was played


def test_every_fault_has_the_right_reason_and_where_it_happened(faulty_event):
    _, record = faulty_event
    charged = {f["player"] for f in record["faults"]}
    assert charged == set(REASONS)                    # each faulty player, no good one
    for fault in record["faults"]:
        assert fault["what"] == REASONS[fault["player"]], fault
        board = chess.Board(fault["fen"])
        assert board.turn == (chess.WHITE if fault["ply"] % 2 == 0 else chess.BLACK)
        assert fault["player"] in fault["game"]
    details = {f["player"]: f["detail"] for f in record["faults"]}
    assert "KeyError" in details["raises"] and "exit code 3" in details["exits"]
    assert "a1a8" in details["illegal"]
    rows = {r["player"]: r for r in record["standings"]}
    assert rows["first"]["faults"] == rows["chatty"]["faults"] == 0
    # the faulty side lost each game it faulted in
    for game in record["games"]:
        if game["fault"]:
            loser = game["fault"]["player"]
            assert game["result"] == ("0-1" if loser == game["white"] else "1-0")
            assert game["termination"] == f"forfeit: {game['fault']['what']}"


def test_the_good_players_games_are_the_games_they_play_in_process(faulty_event):
    folder, record = faulty_event
    first, chatty = (tournament.load_player(folder / f) for f in ("first.py", "chatty.py"))
    for game in record["games"]:
        if {game["white"], game["black"]} != {"first", "chatty"}:
            continue
        opening = formats.OPENINGS[game["index"] // 2]
        white, black = (first, chatty) if game["white"] == "first" else (chatty, first)
        alone = play_game(white, black, opening=opening, max_plies=40,
                          adjudicate=adjudicate_material)
        assert game["moves"] == " ".join(m.uci() for m in alone.mainline_moves())
        assert game["result"] == alone.headers["Result"] and game["fault"] is None


def test_a_hanging_player_is_killed_and_the_next_game_gets_a_fresh_one():
    player = IsolatedPlayer("hangs", FAULTY["hangs.py"], move_time=0.1, grace=0.1)
    player.start()
    process = player.process
    with pytest.raises(PlayerFault, match="late move") as fault:
        player.choose_move(chess.Board())
    assert process.poll() is not None and player.process is None     # killed
    assert fault.value.fen == chess.STARTING_FEN and fault.value.ply == 0
    good = IsolatedPlayer("first", GOOD["first.py"], move_time=0.5, grace=0.5)
    try:
        assert good.choose_move(chess.Board()) == chess.Move.from_uci("a2a3")
        assert good.process.poll() is None                   # alive for the next move
    finally:
        good.close()


def test_a_file_that_stops_while_loading_in_a_game_loses_that_game_where_it_stood():
    board = chess.Board()
    board.push_uci("e2e4")
    player = IsolatedPlayer("quits", "import sys\nsys.exit(1)\n", move_time=0.5, grace=0.5)
    with pytest.raises(PlayerFault, match="did not load") as fault:
        player.choose_move(board)
    assert "exit code 1" in fault.value.detail
    assert (fault.value.fen, fault.value.ply) == (board.fen(), 1)       # Black's turn
    assert player.process is None


def test_gauntlet_is_linear_and_round_robin_skips_ladder_pairs():
    subs, ladder = ["a", "b", "c"], ["x", "y"]
    assert formats.gauntlet_pairings(subs, ladder) == [
        ("a", "x"), ("a", "y"), ("b", "x"), ("b", "y"), ("c", "x"), ("c", "y")]
    pairs = formats.round_robin_pairings(subs + ladder, ladder)
    assert len(pairs) == 10 - 1 and ("x", "y") not in pairs
    games = formats.games_of(("a", "x"), 3, round_=2, seed=7)
    assert [(g["white"], g["black"]) for g in games] == [("a", "x"), ("x", "a"), ("a", "x")]
    assert games[0]["opening"] == games[1]["opening"] != games[2]["opening"]
    # a game's seed is its pairing's: the same whatever else is played, or in which order
    assert games[1]["seed"] == formats.games_of(("a", "x"), 2, 2, 7)[1]["seed"]
    assert len({g["seed"] for g in games}) == 3


def test_swiss_pairs_equal_scores_without_repeats_and_gives_byes_in_turn():
    names = [f"p{i}" for i in range(7)]
    met, byes, points = set(), {}, {n: 0.0 for n in names}
    for round_ in range(1, 6):
        pairs, bye = formats.swiss_pairings(names, points, met, byes, round_)
        assert formats.swiss_pairings(names, points, met, byes, round_) == (pairs, bye)
        assert bye is not None and byes.get(bye, 0) == 0       # never twice
        byes[bye] = 1
        assert sorted(p for pair in pairs for p in pair) == sorted(set(names) - {bye})
        assert not any(frozenset(p) in met for p in pairs)
        met |= {frozenset(p) for p in pairs}
        for a, b in pairs:               # the lower index wins, a fixed result
            points[min(a, b)] += 1
    # round 2 pairs the winners of round 1 together
    names4 = ["a", "b", "c", "d"]
    pairs, _ = formats.swiss_pairings(names4, {"a": 1, "c": 1}, {frozenset("ab"),
                                                                  frozenset("cd")}, {}, 2)
    assert {frozenset(p) for p in pairs} == {frozenset("ac"), frozenset("bd")}


def test_ratings_anchored_on_the_ladder_put_a_player_on_its_scale():
    results = [("me", "x", 1.0)] * 3 + [("me", "x", 0.0)]
    elo = bradley_terry(["me", "x"], results, anchors={"x": 1000.0}, prior_draws=0)
    assert elo["x"] == 1000.0
    assert elo["me"] == pytest.approx(1000 + 400 * math.log10(3), abs=0.01)
    free = bradley_terry(["me", "x"], results, prior_draws=0)
    assert free["me"] + free["x"] == pytest.approx(0, abs=1e-6)


def test_a_stopped_event_resumes_with_only_the_missing_games(tmp_path, monkeypatch):
    folder = write_class(tmp_path / "class", ["first.py", "raises.py"])
    out = tmp_path / "standings.json"
    anchors = tmp_path / "anchors.json"
    anchors.write_text(json.dumps({"ratings": {"random": 0.0, "material:1": 400.0}}))
    kwargs = dict(folder=folder, format="gauntlet", games=2, move_time=0.5,
                  ladder=["random", "material:1"], max_plies=30, progress=False,
                  anchors_path=anchors)
    first = event.run_tournament(out=out, **kwargs)
    assert first["elo_anchored"] and first["elo_scale"].startswith("anchored")
    rows = {r["player"]: r for r in first["standings"]}
    assert rows["random"]["elo"] == 0.0 and rows["material:1"]["elo"] == 400.0
    assert rows["random"]["kind"] == "ladder" and rows["first"][INTERVAL_KEY][0] is not None
    checkpoint = tmp_path / "standings.json.games.jsonl"
    lines = checkpoint.read_text().splitlines()
    assert len(lines) == 8
    checkpoint.write_text("\n".join(lines[:5]) + "\n")            # stopped after 5 games
    played = []
    real = event.play_tournament_game
    monkeypatch.setattr(event, "play_tournament_game",
                        lambda job: played.append(job) or real(job))
    again = event.run_tournament(out=out, **kwargs)
    assert len(played) == 3
    assert again["standings"] == first["standings"] and again["games"] == first["games"]
    assert json.loads(out.read_text())["standings"] == first["standings"]


def test_swiss_event_plays_its_rounds(tmp_path):
    folder = write_class(tmp_path / "class", ["first.py", "chatty.py", "illegal.py"])
    record = event.run_tournament(folder, "swiss", games=1, move_time=0.5, rounds=2,
                                  ladder=["random", "material:1"], max_plies=20,
                                  progress=False)
    assert record["rounds"] == 2
    assert sorted({g["round"] for g in record["games"]}) == [1, 2]
    assert len(record["games"]) == 4                          # 5 players: 2 games + a bye
    pairs = [frozenset((g["white"], g["black"])) for g in record["games"]]
    assert len(set(pairs)) == len(pairs)


def test_the_command_writes_standings_faults_and_a_figure(tmp_path, capsys):
    folder = write_class(tmp_path / "class", ["first.py", "exits.py", "broken.py"])
    out, png = tmp_path / "standings.json", tmp_path / "standings.png"
    assert main(["tournament", str(folder), "--format", "gauntlet", "--games", "2",
                 "--move-time", "0.5", "--ladder", "random", "--max-plies", "20",
                 "--workers", "1", "--out", str(out), "--figure", str(png), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "withdrawn: did not load" in text and "exits: process exited" in text
    record = json.loads(out.read_text())
    assert record["format"] == "gauntlet" and record["move_time"] == 0.5
    assert {f["player"] for f in record["faults"]} == {"exits"}
    assert png.stat().st_size > 1000


def test_bad_input_gets_a_message_that_says_what_to_do(tmp_path, capsys):
    assert main(["tournament", str(tmp_path / "missing")]) == 2
    assert "no folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["tournament", str(tmp_path / "empty")]) == 2
    assert "no submissions" in capsys.readouterr().err
    assert main(["tournament", str(tmp_path), "--format", "knockout"]) == 2
    assert "invalid choice" in capsys.readouterr().err
    assert main(["tournament", str(tmp_path), "--workers", "2", "--scheduler", "tcp://x:1"]) == 2
    assert "not allowed with" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown format"):
        event.run_tournament(tmp_path, "knockout")


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
