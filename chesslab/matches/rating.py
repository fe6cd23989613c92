"""How strong is a player, from its score: Wilson's interval, the Elo difference, and the
standings of a set of games (Bradley-Terry ratings with their intervals).

Every results file, table and figure of chesslab names a score's 95% interval the same
way: ``INTERVAL_KEY`` (``[low, high]``), and every rating of the course is fitted with
the same prior (``PRIOR_DRAWS``, named in print by ``PRIOR``). A player who lost or won
every game has no finite best rating: its standings row gives a one-sided bound
(``format_elo`` prints "< 871") and stores no point (``elo`` None), never the point the
prior alone would make. That rule is ``is_bound``, here only: ``standings`` stores by it,
``format_elo`` prints by it, ``point_rating`` (the one number a results file's "ratings"
keeps) reads by it, and a stored ladder player rated by a bound is not held at a point:
it is rated from the new games like any other, its stored bound kept beside
(``standings``' ``bounds``).
"""
from __future__ import annotations

import math

__all__ = ["wilson_interval", "elo_difference", "bradley_terry", "standings", "elo_interval",
           "format_elo", "is_bound", "point_rating", "results_of_pairs", "INTERVAL_KEY",
           "PRIOR_DRAWS", "PRIOR"]

#: The key of a score's 95% Wilson interval in every stored record.
INTERVAL_KEY = "interval95"
#: Virtual draws each pair that met gets in every rating of the course (``bradley_terry``).
PRIOR_DRAWS = 1.0
#: The prior, named wherever ratings print.
PRIOR = "prior: one virtual draw per pair that met"


def wilson_interval(points: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a score of ``points`` out of ``games``.

    The plain "p +- z * standard error" interval collapses to 0.00-0.00 after 0 of 4 and
    can leave [0, 1]; Wilson's asks which true scores would make the observed one
    unsurprising, so 0 of 4 gives 0.00-0.49. A draw counts as half a point.
    """
    if games <= 0:
        return (float("nan"), float("nan"))
    p, z2 = points / games, z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z / (1 + z2 / games) * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_difference(score: float) -> float:
    """The Elo gap at which the stronger side is expected to score ``score``."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def bradley_terry(players, results, anchors=None, prior_draws: float = PRIOR_DRAWS) -> dict:
    """Maximum-likelihood Elo ratings ``{player: elo}`` from game results.

    ``results``: ``(a, b, points of a)`` per game (a draw is half a win). Each pair that
    met also gets ``prior_draws`` virtual draws, so a clean sweep has a finite rating (as
    BayesElo does). ``anchors`` (``{player: elo}``) are held fixed and put the others on
    their scale; without anchors the ratings have mean 0.
    """
    anchors = dict(anchors or {})
    players = list(players)
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    won = [[0.0] * n for _ in players]
    played = [[0.0] * n for _ in players]
    for a, b, got in results:
        i, j = index[a], index[b]
        won[i][j] += got
        won[j][i] += 1 - got
        played[i][j] += 1
        played[j][i] += 1
    gamma = [10 ** (anchors[p] / 400) if p in anchors else 1.0 for p in players]
    for _ in range(5000):    # minorisation-maximisation: converges for any table
        new = []
        for i, p in enumerate(players):
            met = [j for j in range(n) if j != i and played[i][j]]
            wins = sum(won[i][j] + prior_draws / 2 for j in met)
            rate = sum((played[i][j] + prior_draws) / (gamma[i] + gamma[j]) for j in met)
            new.append(gamma[i] if p in anchors or not rate else wins / rate)
        if not anchors and n:
            mean_log = sum(math.log(g) for g in new) / n
            new = [g / math.exp(mean_log) for g in new]
        done = max((abs(math.log(x / y)) for x, y in zip(new, gamma)), default=0) < 1e-10
        gamma = new
        if done:
            break
    return {p: 400 * math.log10(g) for p, g in zip(players, gamma)}


def _expected(elo: float, other: float) -> float:
    return 1 / (1 + 10 ** ((other - elo) / 400))


def elo_interval(elo: float, opponents: list, points: float, games: int,
                 z: float = 1.96, level: float = 0.05) -> list:
    """A 95% interval ``[low, high]`` of one rating ``elo``, its ``opponents``' ratings
    held (one entry per game played against them).

    Inside the scores: the rating's standard error is the inverse square root of the
    information its games carry, ``sum p (1 - p)`` over its games (p: its expected score),
    in Elo units. A score of 0 has no lower end (``[None, high]``): ``high`` is the
    rating at which losing every game still had a ``level`` chance, the best it could
    be; a full score mirrors it (``[low, None]``).
    """
    if games == 0:
        return [None, None]
    if points in (0, games):
        won = points == games

        def chance(r):         # of the observed sweep at rating r
            return math.prod(_expected(r, o) if won else 1 - _expected(r, o)
                             for o in opponents)
        low, high = min(opponents) - 2000.0, max(opponents) + 2000.0
        for _ in range(100):   # bisection: the chance rises with r for a won sweep
            mid = (low + high) / 2
            if (chance(mid) < level) == won:
                low = mid
            else:
                high = mid
        bound = round((low + high) / 2, 1)
        return [bound, None] if won else [None, bound]
    information = sum(p * (1 - p) for p in (_expected(elo, o) for o in opponents))
    se = 400 / math.log(10) / math.sqrt(information)
    return [round(elo - z * se, 1), round(elo + z * se, 1)]


def is_bound(row: dict) -> bool:
    """Whether a standings row's rating is a one-sided bound: a player who lost (or won)
    every game it played has only the upper (or lower) end of ``elo95`` (and no ``elo``:
    the fit with the prior only orders the table)."""
    low, high = row.get("elo95") or [None, None]
    return (low is None) != (high is None)


def point_rating(row: dict) -> float | None:
    """A standings row's Elo as one number, None when it is a bound (``is_bound``)."""
    return None if is_bound(row) else row["elo"]


def format_elo(row: dict, signed: bool = False) -> str:
    """A standings row's rating as printed: the bound for a zero or full score
    ("< 871", "> 1506"), else the rating."""
    low, high = row.get("elo95") or [None, None]
    number = "{:+.0f}" if signed else "{:.0f}"
    if is_bound(row):
        return "< " + number.format(high) if low is None else "> " + number.format(low)
    return number.format(row["elo"])


def results_of_pairs(pairs: dict) -> list:
    """``(a, b, points of a)`` per game from ``{"a vs b": [wins, draws, losses]}`` (or
    ``{"wins": .., "draws": .., "losses": ..}``), the per-pair counts results files keep."""
    results = []
    for key, wdl in pairs.items():
        a, b = key.split(" vs ")
        w, d, l = (wdl["wins"], wdl["draws"], wdl["losses"]) if isinstance(wdl, dict) else wdl
        results += [(a, b, 1.0)] * w + [(a, b, 0.5)] * d + [(a, b, 0.0)] * l
    return results


def standings(players, results, anchors=None, ladder=(), faults=None,
              prior_draws: float = PRIOR_DRAWS, bounds=None) -> list[dict]:
    """One row per player, best first: points, games, score (None without games) and its
    Wilson interval, the Bradley-Terry Elo (``anchors`` held; else mean 0) with its 95%
    interval or one-sided bound (``elo95``), faults; ``kind`` says who is on the ``ladder``.

    ``results``: ``(a, b, points of a)`` per game. An anchor's interval is its rating.
    A zero or full score's row has a one-sided ``elo95`` and ``elo`` None (``is_bound``).
    ``bounds`` (``{player: elo95}``): ladder players whose stored rating is a one-sided
    bound; each is not held but rated from these games like any other, its stored bound
    kept beside (``stored_elo95``). Rows are ordered by the fit with the prior.
    """
    players, anchors, faults = list(players), dict(anchors or {}), dict(faults or {})
    bounds = dict(bounds or {})
    elo = bradley_terry(players, results, anchors=anchors, prior_draws=prior_draws)
    rows = []
    for name in players:
        got = sum(p if a == name else 1 - p for a, b, p in results if name in (a, b))
        opponents = [elo[b if a == name else a] for a, b, _ in results if name in (a, b)]
        played = len(opponents)
        low, high = wilson_interval(got, played) if played else (None, None)
        rows.append({"player": name, "kind": "ladder" if name in ladder else "player",
                     "points": got, "games": played,
                     "score": got / played if played else None, INTERVAL_KEY: [low, high],
                     "elo": round(elo[name], 1),
                     "elo95": ([round(elo[name], 1)] * 2 if name in anchors else
                               elo_interval(elo[name], opponents, got, played)),
                     "faults": faults.get(name, 0)})
        if name in bounds:
            rows[-1]["stored_elo95"] = list(bounds[name])
    rows.sort(key=lambda r: (-r["elo"], r["player"]))
    for row in rows:
        row["elo"] = point_rating(row)
    return rows
