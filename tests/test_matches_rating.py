"""matches.rating: maximum-likelihood Elo anchored on a ladder, one-sided bounds for a zero or
full score."""
import math

import pytest

from chesslab.matches import rating
from chesslab.matches.rating import bradley_terry


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


def test_a_bound_is_one_rule_for_printing_storing_and_holding():
    results = [("x", "y", 1.0)] * 8 + [("x", "z", 0.5)] * 2
    rows = {r["player"]: r for r in rating.standings(["x", "y", "z"], results, {"x": 1500.0})}
    assert rating.is_bound(rows["y"]) and rating.point_rating(rows["y"]) is None
    assert rows["y"]["elo"] is None                 # a bound's row stores no point
    assert [r["player"] for r in rating.standings(["y", "z", "x"], results, {"x": 1500.0})
            ] == ["x", "z", "y"]                    # the prior's fit still orders the table
    assert not rating.is_bound(rows["z"]) and rating.point_rating(rows["z"]) == rows["z"]["elo"]
    assert not rating.is_bound(rows["x"]) and rating.point_rating(rows["x"]) == 1500.0
    # a player with a stored bound is not held at a point: rated from these games (here
    # 1 of 2, so a rating), its stored bound kept beside
    games = [("me", "y", 0.0), ("me", "x", 0.5), ("y", "x", 0.0)]
    shown = {r["player"]: r for r in rating.standings(
        ["x", "y", "me"], games, {"x": 1500.0}, bounds={"y": [None, 760.0]})}
    free = {r["player"]: r for r in rating.standings(["x", "y", "me"], games, {"x": 1500.0})}
    assert shown["y"]["stored_elo95"] == [None, 760.0] and shown["y"]["points"] == 1.0
    assert not rating.is_bound(shown["y"]) and shown["y"]["elo"] == free["y"]["elo"]
    assert shown["y"]["elo95"] == free["y"]["elo95"] and "stored_elo95" not in free["y"]
    held = {r["player"]: r for r in rating.standings(
        ["x", "y", "me"], games, {"x": 1500.0, "y": 810.0})}
    assert held["y"]["elo"] == 810.0 and shown["y"]["elo"] != 810.0
    # the same player losing every game here keeps a bound, now from these games
    lost = {r["player"]: r for r in rating.standings(
        ["x", "y", "me"], [("me", "y", 1.0), ("x", "y", 1.0)], {"x": 1500.0},
        bounds={"y": [None, 760.0]})}
    assert rating.is_bound(lost["y"]) and lost["y"]["elo"] is None
    assert lost["y"]["elo95"] != [None, 760.0]


def test_ratings_anchored_on_the_ladder_put_a_player_on_its_scale():
    results = [("me", "x", 1.0)] * 3 + [("me", "x", 0.0)]
    elo = bradley_terry(["me", "x"], results, anchors={"x": 1000.0}, prior_draws=0)
    assert elo["x"] == 1000.0
    assert elo["me"] == pytest.approx(1000 + 400 * math.log10(3), abs=0.01)
    free = bradley_terry(["me", "x"], results, prior_draws=0)
    assert free["me"] + free["x"] == pytest.approx(0, abs=1e-6)
