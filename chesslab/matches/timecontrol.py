"""Time management: how long to think about one move when a game is played on a clock.

A clock gives each side ``base`` seconds for the game and adds ``increment`` seconds
after each of its moves (``60+0.6``); a GUI may also say how many moves remain before
the clock is topped up again (``movestogo``). ``move_time`` turns what is left into a
budget for this move; the search treats that budget as a hard limit (``search.clock``:
no new iteration after half of it, an iteration abandoned when it runs out), so a move
usually takes well under it.

The rule: plan as if ``HORIZON`` moves were still to come (or ``movestogo`` if fewer),
spend an equal share of the clock on each, plus most of the increment (it comes back
after the move), and never more than ``MAX_FRACTION`` of what is left. ``overhead`` is
kept aside on every move for what the clock sees but the search does not: the pipe
to the GUI, starting the search, a busy machine. The UCI engine (``matches.uci``) and
games on a clock share this one function.
"""
from __future__ import annotations

import math
import re

__all__ = ["move_time", "parse_time_control", "HORIZON", "MAX_FRACTION", "INCREMENT_SHARE",
           "DEFAULT_OVERHEAD", "MIN_MOVE_TIME"]

#: Moves the clock is planned to last when the GUI does not say (``movestogo``).
HORIZON = 30
#: The most of the remaining clock one move may take.
MAX_FRACTION = 0.5
#: The share of the increment spent on the move it is added after.
INCREMENT_SHARE = 0.8
#: Seconds kept aside per move for the pipe, the process and a busy machine.
DEFAULT_OVERHEAD = 0.1
#: The least budget given (the search's first iteration always completes anyway).
MIN_MOVE_TIME = 0.01

_TC = re.compile(r"^\s*(?P<base>\d+(?:\.\d*)?)\s*(?:\+\s*(?P<inc>\d+(?:\.\d*)?))?\s*$")


def move_time(remaining: float, increment: float = 0.0, movestogo: int | None = None,
              overhead: float = DEFAULT_OVERHEAD) -> float:
    """Seconds to spend on this move with ``remaining`` seconds on the clock.

    ``increment``: seconds added after the move; ``movestogo``: moves until the clock is
    topped up (None: a sudden-death clock, planned as ``HORIZON`` moves); ``overhead``:
    seconds kept aside per move.
    """
    for label, value in (("remaining", remaining), ("increment", increment),
                         ("overhead", overhead)):
        if not isinstance(value, (int, float)) or isinstance(value, bool) \
                or not math.isfinite(value):
            raise TypeError(f"{label} must be a number of seconds, not {value!r}")
    if increment < 0 or overhead < 0:
        raise ValueError(f"increment and overhead cannot be negative (got {increment}, "
                         f"{overhead})")
    if movestogo is not None and (isinstance(movestogo, bool) or not isinstance(movestogo, int)
                                  or movestogo < 1):
        raise ValueError(f"movestogo must be a positive whole number, not {movestogo!r}")
    usable = max(remaining - overhead, 0.0)
    moves = HORIZON if movestogo is None else min(movestogo, HORIZON)
    share = usable / moves + INCREMENT_SHARE * increment
    return max(MIN_MOVE_TIME, min(share, MAX_FRACTION * usable))


def parse_time_control(text: str) -> tuple[float, float]:
    """``"60+0.6"`` -> (60.0, 0.6): seconds per game and the increment per move (a plain
    ``"60"`` has no increment)."""
    match = _TC.match(str(text))
    if not match or float(match["base"]) <= 0:
        raise ValueError(f"cannot read the time control {text!r}: write seconds per game "
                         f"and the increment per move, e.g. 60+0.6 or 10+0.1 (or 300)")
    return float(match["base"]), float(match["inc"] or 0.0)
