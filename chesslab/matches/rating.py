"""How strong is a player, from its score: Wilson's interval and the Elo difference.

Every results file, table and figure of chesslab names a score's 95% interval the same
way: ``INTERVAL_KEY`` (``[low, high]``).
"""
from __future__ import annotations

import math

__all__ = ["wilson_interval", "elo_difference", "bradley_terry", "INTERVAL_KEY"]

#: The key of a score's 95% Wilson interval in every stored record.
INTERVAL_KEY = "interval95"


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


def bradley_terry(players, results, anchors=None, prior_draws: float = 1.0) -> dict:
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
