"""tournament: loading submissions, faults that do not stop a game, round robin, Elo
(``rating.standings``, the standings of every table and event), the ladder rated again."""
import json
import math

import chess
import pytest

from chesslab.matches import event, rating, tournament

GOOD = '''import chess
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
    write(tmp_path, "ann.py", GOOD.format(name="Ann", pick=0))
    write(tmp_path, "bob.py", GOOD.format(name="Bob", pick=-1))
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


def test_a_fault_is_replaced_by_a_legal_move_and_counted():
    def illegal(board):
        return chess.Move.from_uci("e2e5")

    def crashes(board):
        raise KeyError("oops")
    board = chess.Board()
    for fn, words in ((illegal, "not a legal"), (crashes, "raised KeyError")):
        player = tournament.SubmittedPlayer("p", fn)
        assert player.choose_move(board) in board.legal_moves
        assert len(player.faults) == 1 and words in player.faults[0][1]
        assert player.faults[0][0] == board.fen()


def test_round_robin_plays_every_pair_and_reports_faults():
    players = [tournament.SubmittedPlayer(name, lambda b, k=k: sorted(
        b.legal_moves, key=lambda m: m.uci())[k]) for k, name in enumerate(("a", "b", "c"))]
    players.append(tournament.SubmittedPlayer("bad", lambda b: None))
    table = tournament.round_robin(players, games=2, max_plies=20)
    assert len(table["pairs"]) == 6
    assert all(sum(r.values()) == 2 for r in table["pairs"].values())
    assert table["faults"]["bad"] > 0 and table["faults"]["a"] == 0
    rows = tournament.table_standings(table)
    assert sorted(r["player"] for r in rows) == ["a", "b", "bad", "c"]
    assert {r["player"]: r["faults"] for r in rows}["bad"] == table["faults"]["bad"]
    assert all(r["games"] == 6 for r in rows)
    assert abs(sum(r["elo"] for r in rows)) < 1e-6            # ratings are centred


def test_standings_are_the_maximum_likelihood_elo():
    # two players, 3 of 4 points: the ML Elo gap is 400 log10(3) (no prior; stored to 0.1)
    table = {"players": ["x", "y"], "pairs": {"x vs y": {"wins": 3, "draws": 0, "losses": 1}}}
    x, y = tournament.table_standings(table, prior_draws=0)
    assert x["player"] == "x" and x["elo"] - y["elo"] == pytest.approx(400 * math.log10(3),
                                                                       abs=0.1)
    assert x["interval95"][0] < 0.75 < x["interval95"][1]
    # a clean sweep stays finite with the prior, and all draws rate everyone equal
    sweep = {"players": ["x", "y"], "pairs": {"x vs y": {"wins": 4, "draws": 0, "losses": 0}}}
    assert math.isfinite(tournament.table_standings(sweep)[0]["elo"])
    level = {"players": ["x", "y", "z"], "pairs": {
        "x vs y": {"wins": 0, "draws": 2, "losses": 0}, "x vs z": {"wins": 1, "draws": 0, "losses": 1},
        "y vs z": {"wins": 0, "draws": 2, "losses": 0}}}
    assert all(r["elo"] == pytest.approx(0, abs=1e-6)
               for r in tournament.table_standings(level))


def test_a_zero_or_full_score_gets_a_one_sided_bound_not_a_point():
    # y lost all 8 games to x (held at 1500): y's best rating is where losing 8 of 8
    # still had a 5% chance, P(lose) = 0.05 ** (1 / 8) = 1 / (1 + 10 ** ((y - 1500) / 400))
    results = [("x", "y", 1.0)] * 8
    rows = {r["player"]: r for r in rating.standings(["x", "y"], results, {"x": 1500.0})}
    low, high = rows["y"]["elo95"]
    lose = 0.05 ** (1 / 8)
    assert low is None and high == pytest.approx(1500 - 400 * math.log10(lose / (1 - lose)),
                                                 abs=0.1)
    assert rating.format_elo(rows["y"]) == f"< {high:.0f}"
    assert rows["x"]["elo95"] == [1500.0, 1500.0]          # an anchor's is its rating
    # the mirror image: a full score has a lower bound, printed with ">"
    rows = {r["player"]: r for r in rating.standings(["x", "y"], results, {"y": 1000.0})}
    assert rows["x"]["elo95"][1] is None and rating.format_elo(rows["x"]).startswith("> ")
    # scores inside (0, 1) keep a two-sided interval around the rating
    mixed = rating.standings(["x", "y"], [("x", "y", 1.0)] * 3 + [("x", "y", 0.0)])
    assert all(r["elo95"][0] < r["elo"] < r["elo95"][1] for r in mixed)
    assert rating.format_elo(mixed[0], signed=True) == f"{mixed[0]['elo']:+.0f}"


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


def test_the_shipped_example_players_load_and_play():
    from pathlib import Path
    folder = Path(__file__).resolve().parents[1] / "notebooks" / "players"
    players = load_folder(folder)
    assert len(players) >= 3
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")   # back-rank mate in one
    for p in players:
        assert p.choose_move(board) in board.legal_moves and not p.faults
    greedy = next(p for p in players if p.name == "greedy")
    assert greedy.choose_move(board) == chess.Move.from_uci("a1a8")


def test_the_event_ladder_and_every_players_ladder_hold_the_same_anchors():
    from chesslab.experiments.ladder import ladder_specs
    assert list(event.anchor_specs().values()) == [1350.0, 1600.0, 1900.0]
    assert list(event.anchor_specs()) == ["stockfish:1350", "stockfish:1600", "stockfish:1900"]
    _, anchors = ladder_specs(0.1)
    assert anchors == event.anchor_specs(0.1) and list(anchors)[0] == "stockfish:1350@0.1s"
