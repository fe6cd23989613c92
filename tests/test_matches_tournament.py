"""matches.tournament: a submitted player's faults do not stop a game, the round robin plays
every pair, its standings are the maximum-likelihood Elo, the shipped example players play."""
import math

import chess
import pytest

from chesslab.matches import event, tournament


def load_folder(folder):
    """The tournament's players of ``folder``, each imported in this process."""
    return [tournament.load_player(folder / p["file"]) for p in event.find_players(folder)]


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
    x, y = tournament.table_standings(sweep)
    assert x["player"] == "x" and x["elo"] is None and x["elo95"][1] is None   # a bound
    assert math.isfinite(x["elo95"][0]) and y["elo95"][0] is None
    level = {"players": ["x", "y", "z"], "pairs": {
        "x vs y": {"wins": 0, "draws": 2, "losses": 0}, "x vs z": {"wins": 1, "draws": 0, "losses": 1},
        "y vs z": {"wins": 0, "draws": 2, "losses": 0}}}
    assert all(r["elo"] == pytest.approx(0, abs=1e-6)
               for r in tournament.table_standings(level))


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
