"""A player spec: the short text that names a player, read and written in one place.

    NAME[:ARG][@SECONDSs]

``NAME`` is ``random``, ``minimax``, ``alphabeta``, an evaluator of the registry
(``material``, ``pst``, ``nnue``, ...: the full search with that evaluation), ``mcts``,
``policy`` (the policy-value network's most likely move, no search) or ``stockfish``.
``ARG`` is the search depth in plies, MCTS's simulations per move, or Stockfish's Elo
(``stockfish:1500``) or skill level (``stockfish:skill=3``). ``@1s`` or ``@0.5s`` limits
the time per move. Examples: ``random``, ``material:3``, ``pst@1s``, ``cnn:3@1s``,
``mcts:300``, ``policy``, ``stockfish:1350``.

``parse_spec`` reads one (with one clear line for anything it cannot read), ``str()`` of
the result writes it back; ``matches.players.make_player`` builds the player.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from chesslab.search.searcher import ALGORITHMS

__all__ = ["PlayerSpec", "parse_spec", "format_spec", "stockfish_spec", "max_depth",
           "MAX_DEPTH", "SEARCH_ALGORITHMS", "STOCKFISH_SKILL", "STOCKFISH_SECONDS",
           "EXAMPLES"]

_GRAMMAR = re.compile(r"^(?P<name>[a-z_][a-z0-9_]*)(?::(?P<arg>[^@]+))?"
                      r"(?:@(?P<secs>[^s@]+)s)?$")
EXAMPLES = ("examples: random, material:3, pst@1s, minimax:3, alphabeta:4, stockfish:1350, "
            "mcts:300, policy")

#: Names that search with plain material and a named algorithm (an evaluator's name
#: searches with "full").
SEARCH_ALGORITHMS = tuple(a for a in ALGORITHMS if a != "full")
#: The deepest fixed depth a spec may ask for, per algorithm: deeper searches do not
#: answer in a lesson's time (a time limit, e.g. pst@10s, searches as deep as it allows).
MAX_DEPTH = dict(zip(ALGORITHMS, (5, 7, 10)))

#: Stockfish on the board without a level (``stockfish_spec()``): its skill level (0 is
#: the weakest, 20 full strength); and its thinking time per move in any spec without
#: ``@Ns``. The bare spec ``stockfish`` is ``stockfish:1350`` (an Elo, ``make_player``).
STOCKFISH_SKILL = 3
STOCKFISH_SECONDS = 0.1


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed spec: ``name``, ``arg`` (text, or None) and ``seconds`` (or None)."""

    name: str
    arg: str | None = None
    seconds: float | None = None

    @property
    def algorithm(self) -> str | None:
        """The search algorithm of a searching player ("full" for an evaluator name),
        None for random, policy, mcts and stockfish."""
        if self.name in ("random", "policy", "mcts", "stockfish"):
            return None
        return self.name if self.name in SEARCH_ALGORITHMS else "full"

    @property
    def number(self) -> int | None:
        """``arg`` as a whole number (depth, simulations or Elo), None if absent."""
        if self.arg is None:
            return None
        try:
            return int(self.arg)
        except ValueError:
            raise ValueError(f"expected a whole number in player spec {str(self)!r}, "
                             f"got {self.arg!r}") from None

    def __str__(self) -> str:
        return format_spec(self.name, self.arg, self.seconds)


def format_spec(name: str, arg=None, seconds: float | None = None) -> str:
    """The text of a spec: format_spec("pst", 3, 1.0) == "pst:3@1s"."""
    text = name if arg is None else f"{name}:{arg}"
    return text if not seconds else f"{text}@{seconds:g}s"


def parse_spec(spec) -> PlayerSpec:
    """Read a spec (case and surrounding spaces do not matter); a clear error otherwise."""
    if isinstance(spec, PlayerSpec):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"a player spec is a text such as 'pst:3' (or a Player), not "
                        f"{type(spec).__name__} {spec!r:.40}; {EXAMPLES}")
    match = _GRAMMAR.match(spec.strip().lower())
    if not match:
        raise ValueError(f"cannot read player spec {spec!r}; {EXAMPLES}")
    seconds = None
    if match["secs"] is not None:
        try:
            seconds = float(match["secs"])
        except ValueError:
            raise ValueError(f"expected seconds like @1s or @0.5s in player spec {spec!r}, "
                             f"got @{match['secs']}s") from None
        if not (seconds > 0 and math.isfinite(seconds)):
            raise ValueError(f"the time per move must be a positive number of seconds in "
                             f"player spec {spec!r}")
    return PlayerSpec(match["name"], match["arg"], seconds)


def max_depth(name: str) -> int:
    """The deepest fixed depth ``make_player`` accepts for a searching player ``name``."""
    return MAX_DEPTH[name if name in SEARCH_ALGORITHMS else "full"]


def stockfish_spec(skill=None, elo=None, seconds: float = STOCKFISH_SECONDS) -> str:
    """The spec of Stockfish at a chosen level.

    ``skill`` sets its ``Skill Level`` option (0-20); ``elo`` sets ``UCI_LimitStrength``
    and ``UCI_Elo`` (within the range its binary announces); give one of them (neither:
    skill ``STOCKFISH_SKILL``). ``seconds`` per move. stockfish_spec(skill=3) ==
    'stockfish:skill=3'; stockfish_spec(elo=1500, seconds=1) == 'stockfish:1500@1s'.
    Stockfish itself checks the range when the player starts.
    """
    if skill is not None and elo is not None:
        raise ValueError(f"choose Stockfish's level by skill (0-20) or by elo, not both "
                         f"(got skill={skill!r}, elo={elo!r})")
    for label, value in (("skill", skill), ("elo", elo)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"{label} is a whole number, not {value!r}")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"Stockfish needs a positive time per move, not {seconds!r}")
    if skill is None and elo is None:
        skill = STOCKFISH_SKILL
    level = f"skill={skill}" if skill is not None else str(elo)
    return format_spec("stockfish", level, None if seconds == STOCKFISH_SECONDS else seconds)
