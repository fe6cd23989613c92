"""matches.event: the class event: submissions found and loaded, isolated players whose faults
lose a game, every format, resuming, the command, a Dask cluster, the ladder rated again."""
import json
import math

import chess
import pytest

from chesslab.matches import event, formats, rating, tournament
from chesslab.board.game import play_game
from chesslab.board.rules import adjudicate_material
from chesslab.cli import main
from chesslab.matches.rating import INTERVAL_KEY
from tournament_players import FAULTY, GOOD, REASONS, write_class

SUBMISSION = '''import chess
NAME = "{name}"
def choose_move(board):
    return sorted(board.legal_moves, key=lambda m: m.uci())[{pick}]
'''


def write(folder, filename, text):
    path = folder / filename
    path.write_text(text)
    return path


def load_folder(folder):
    """The tournament's players of ``folder``, each imported in this process."""
    return [tournament.load_player(folder / p["file"]) for p in event.find_players(folder)]


def test_find_players_reads_submissions_and_skips_templates(tmp_path):
    write(tmp_path, "ann.py", SUBMISSION.format(name="Ann", pick=0))
    write(tmp_path, "bob.py", SUBMISSION.format(name="Bob", pick=-1))
    write(tmp_path, "_template.py", "def choose_move(board):\n    raise NotImplementedError\n")
    assert [p["file"] for p in event.find_players(tmp_path)] == ["ann.py", "bob.py"]
    players = load_folder(tmp_path)
    assert [p.name for p in players] == ["Ann", "Bob"]
    board = chess.Board()
    assert players[0].choose_move(board) == sorted(board.legal_moves, key=lambda m: m.uci())[0]


def test_bad_submissions_get_a_message_that_says_what_to_do(tmp_path):
    with pytest.raises(ValueError, match="no function choose_move"):
        tournament.load_player(write(tmp_path, "a.py", "NAME = 'x'\n"))
    with pytest.raises(ValueError, match="could not be imported.*python"):
        tournament.load_player(write(tmp_path, "b.py", "import no_such_module_here\n"))
    with pytest.raises(FileNotFoundError, match="no folder"):
        event.find_players(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no submissions"):
        event.find_players(tmp_path / "empty")


def test_a_stored_ladder_rated_again_keeps_its_games_and_names_its_prior(tmp_path):
    pairs = {"a vs b": [3, 1, 0], "a vs sf": [1, 0, 3], "b vs sf": [0, 0, 4]}
    anchors = {"sf": 1350.0}
    data = event.rate_pairs(["a", "b", "sf"], pairs, anchors,
                            {"games_per_pair": 4, "command": "test"})
    assert data["pairs"] == pairs and data["prior"] == rating.PRIOR
    assert "nominal" in data["what"] and rating.PRIOR in data["what"]
    assert data["ratings"]["sf"] == 1350.0
    fitted = rating.bradley_terry(["a", "b", "sf"], rating.results_of_pairs(pairs), anchors)
    assert data["ratings"] == {k: pytest.approx(v, abs=0.05) for k, v in fitted.items()}
    path = tmp_path / "ladder.json"
    stale = {**data, "what": "old", "ratings": {"a": 0.0, "b": 0.0, "sf": 1350.0}}
    del stale["prior"]
    path.write_text(json.dumps(stale))
    again = event.rerate_ladder(path)
    assert again["ratings"] == data["ratings"] and json.loads(path.read_text())["prior"]
    del stale["pairs"]
    path.write_text(json.dumps(stale))
    with pytest.raises(ValueError, match="no per-pair results"):
        event.rerate_ladder(path)


def test_a_ladder_player_with_a_zero_score_is_rated_here_beside_its_bound_not_held(tmp_path):
    pairs = {"a vs sf": [2, 1, 1], "random vs a": [0, 0, 4], "random vs sf": [0, 0, 4]}
    data = event.rate_pairs(["a", "random", "sf"], pairs, {"sf": 1350.0},
                            {"games_per_pair": 4})
    rows = {r["player"]: r for r in data["standings"]}
    assert data["ratings"]["random"] is None and rows["random"]["elo95"][0] is None
    assert rows["random"]["elo"] is None                # the stored row has no point either
    assert [r["player"] for r in data["standings"]] == ["a", "sf", "random"]
    assert data["ratings"]["a"] == rows["a"]["elo"] and data["ratings"]["sf"] == 1350.0
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps(data))
    anchors, bounds, scale = event.ladder_anchors(["random", "a"], path)
    assert anchors == {"a": data["ratings"]["a"]}
    assert bounds == {"random": rows["random"]["elo95"]}
    bound = rating.format_elo(rows["random"])
    assert bound.startswith("< ") and f"not held: random ({bound} there)" in scale
    # every ladder player bounded: nothing to hold, the scale is relative
    assert event.ladder_anchors(["random"], path)[:2] == ({}, {})
    standing = {r["player"]: r for r in event._standings(
        [{"white": "me", "black": "random", "result": "1-0", "fault": None},
         {"white": "a", "black": "me", "result": "1/2-1/2", "fault": None}],
        ["me", "random", "a"], ["random", "a"], anchors, bounds)}
    # random scored 0 of 1 here: a bound from this game; its stored bound kept beside
    assert standing["random"]["stored_elo95"] == rows["random"]["elo95"]
    assert rating.is_bound(standing["random"]) and rating.format_elo(standing["random"]) != bound
    assert standing["a"]["elo"] == anchors["a"]
    record = {"standings": list(standing.values()), "withdrawn": [], "elo_anchored": True,
              "elo_scale": scale}
    assert (f"random: Elo {rating.format_elo(standing['random'])} from its 1 game here; "
            f"{bound} on the stored ladder") in event.format_standings(record)


def test_the_event_ladder_and_every_players_ladder_hold_the_same_anchors():
    from chesslab.experiments.ladder import ladder_specs
    assert list(event.anchor_specs().values()) == [1350.0, 1600.0, 1900.0]
    assert list(event.anchor_specs()) == ["stockfish:1350", "stockfish:1600", "stockfish:1900"]
    _, anchors = ladder_specs(0.1)
    assert anchors == event.anchor_specs(0.1) and list(anchors)[0] == "stockfish:1350@0.1s"


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


def test_a_local_dask_cluster_gives_the_same_standings_as_one_worker(tmp_path):
    distributed = pytest.importorskip(
        "distributed", reason="Dask distributed is not installed (python -m pip install -r "
                              "requirements-teacher.txt)")
    folder = write_class(tmp_path / "class", ["first.py", "chatty.py", "raises.py"])
    settings = dict(format="gauntlet", games=2, move_time=0.5, ladder=["random", "material:1"],
                    max_plies=30, seed=3, progress=False, anchors_path=tmp_path / "none.json")
    alone = event.run_tournament(folder, workers=1, **settings)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as cluster, \
            distributed.Client(cluster) as client:
        spread = event.run_tournament(folder, workers=client.get_executor(), **settings)
    assert spread["standings"] == alone["standings"]
    assert spread["games"] == alone["games"]
    assert {f["player"] for f in spread["faults"]} == {"raises"}
