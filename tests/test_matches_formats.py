"""matches.formats: gauntlet, round robin and Swiss pairings, the games of a pairing."""
from chesslab.matches import formats


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
