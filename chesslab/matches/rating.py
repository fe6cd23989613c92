"""How strong is a player, from its score: Wilson's interval and the Elo difference.

Every results file, table and figure of chesslab names a score's 95% interval the same
way: ``INTERVAL_KEY`` (``[low, high]``).
"""
from __future__ import annotations

import math

__all__ = ["wilson_interval", "elo_difference", "INTERVAL_KEY"]

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
