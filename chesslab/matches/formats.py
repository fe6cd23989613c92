"""Who plays whom: the round robin, the gauntlet and the Swiss, as lists of games.

A format only names pairings; ``games_of`` turns a pairing into its games (colours
alternating, each opening of ``OPENINGS`` played from both sides) and gives each game
a seed made from the pairing itself (event seed, round, players, game number), never
from the order games finish in, so any number of workers or machines plays the same
games.

* round robin: every pair once (a cost that grows with the square of the class);
* gauntlet: every submission against each player of a fixed ladder (linear in the
  class; the ladder's players do not play each other: their ratings are known);
* Swiss: N rounds, each pairing players of similar score who have not met yet, so a
  big class gets a ranking in few rounds. Its pairings depend on the results so far, so
  rounds are played one after another (the games of a round in parallel).
"""
from __future__ import annotations

import hashlib
import itertools

from chesslab.matches.match import OPENINGS

__all__ = ["FORMATS", "game_seed", "games_of", "round_robin_pairings", "gauntlet_pairings",
           "swiss_pairings"]

FORMATS = ("gauntlet", "swiss", "round-robin")


def game_seed(seed: int, round_: int, white: str, black: str, index: int) -> int:
    """A game's seed from what the game is, the same on every machine."""
    text = f"{seed}|{round_}|{white}|{black}|{index}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def games_of(pairing, games: int, round_: int = 1, seed: int = 0, openings=OPENINGS) -> list:
    """The ``games`` games of one pairing ``(a, b)``: ``a`` is White in the first, colours
    alternate, each opening is played from both sides. Plain dicts (a worker's job)."""
    a, b = pairing
    out = []
    for i in range(games):
        white, black = (a, b) if i % 2 == 0 else (b, a)
        out.append({"round": round_, "white": white, "black": black, "index": i,
                    "opening": openings[(i // 2) % len(openings)] if openings else "",
                    "seed": game_seed(seed, round_, white, black, i)})
    return out


def round_robin_pairings(names, fixed=()) -> list:
    """Every pair of ``names`` except those of two ``fixed`` players (the ladder, whose
    ratings are already known)."""
    fixed = set(fixed)
    return [(a, b) for a, b in itertools.combinations(names, 2)
            if not (a in fixed and b in fixed)]


def gauntlet_pairings(submissions, ladder) -> list:
    """Each submission against each ladder player."""
    return [(s, rung) for s in submissions for rung in ladder]


def swiss_pairings(names, points: dict, met: set, byes: dict, round_: int):
    """One Swiss round: ``(pairings, bye)``.

    Players are ranked by points (then by their order in ``names``, a fixed seeding);
    with an odd count the lowest-ranked player without a bye sits out. Pairs are
    formed top down, each player with the nearest one below it that it has not met
    (``met`` holds ``frozenset({a, b})``); a backtracking search finds such pairs when
    greedy choice gets stuck, and repeats are allowed only when no such pairing exists.
    The higher-ranked player has White in odd rounds.
    """
    order = sorted(names, key=lambda n: (-points.get(n, 0.0), names.index(n)))
    bye = None
    if len(order) % 2:
        bye = min(reversed(order), key=lambda n: byes.get(n, 0))
        order.remove(bye)
    pairs = _pair(order, met, [20_000]) or _pair(order, set(), [len(order) + 1])
    if round_ % 2 == 0:
        pairs = [(b, a) for a, b in pairs]
    return pairs, bye


def _pair(order, met, budget):
    """Pairs of ``order`` (top down) none of which has met, or None."""
    if not order:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, rest = order[0], order[1:]
    for k, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        tail = _pair(rest[:k] + rest[k + 1:], met, budget)
        if tail is not None:
            return [(first, other), *tail]
    return None
