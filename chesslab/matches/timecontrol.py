"""Time management: how long to think about one move when a game is played on a clock.

A clock gives each side ``base`` seconds for the game and adds ``increment`` seconds
after each of its moves (``60+0.6``); a GUI may also say how many moves remain before
the clock is topped up again (``movestogo``). ``time_budget`` turns what is left into
three times for this move, as engine authors do:

* the *share*: plan as if ``HORIZON`` moves were still to come (or ``movestogo`` if
  fewer), an equal share of the clock for each plus most of the increment (it comes
  back after the move), never more than ``MAX_FRACTION`` of what is left. It is what a
  move may spend on average; a search that can stop at any moment (MCTS) stops there;
* the *optimum*: iterative deepening starts no new iteration after it
  (``search.clock``). An iteration costs a few times the one before, so one begun just
  before the optimum usually ends well after it: the optimum is ``OPTIMUM_SCALE`` of the
  share, so that what a move really takes is near the share on average;
* the *maximum*: a started iteration is abandoned then. It is ``MAXIMUM_SCALE`` shares,
  so that an iteration begun before the optimum is rarely cut short (its work would be
  mostly lost), and never more than ``MAX_FRACTION`` of what is left. The optimum is
  at most half of it (an iteration begun just before the optimum needs room to finish),
  which near the end of the clock is the one-number rule below.

The search's one-number rule (a time limit: no new iteration after half of it,
abandoned at it), given the share, left much of the clock unused and often abandoned
the iteration it had started.

``overhead`` is taken off every move's share, for what the clock sees but the search
does not: the pipe to the GUI, starting the search, a busy machine. Taken off the clock
once only, it would let a long game on a small increment slide towards zero: each move
would plan to spend almost all of its increment, and the delay comes on top. The UCI
engine (``matches.uci``) and games on a clock (``matches.clock``) share these functions.
"""
from __future__ import annotations

import math
import re
from typing import NamedTuple

__all__ = ["time_budget", "TimeBudget", "parse_time_control", "HORIZON",
           "MAX_FRACTION", "INCREMENT_SHARE", "OPTIMUM_SCALE", "MAXIMUM_SCALE",
           "DEFAULT_OVERHEAD", "MIN_MOVE_TIME"]

#: Moves the clock is planned to last when the GUI does not say (``movestogo``).
HORIZON = 30
#: The most of the remaining clock one move may take.
MAX_FRACTION = 0.5
#: The share of the increment spent on the move it is added after.
INCREMENT_SHARE = 0.8
#: The optimum (no new iteration after it) as a fraction of the share. Chosen by
#: replaying the nnue player's iteration times on a simulated 60+0.6 clock (a match on
#: the clock is what measures it): lower leaves the clock unused, higher plays long games
#: on the increment alone.
OPTIMUM_SCALE = 0.6
#: The maximum (a started iteration is abandoned) in shares.
MAXIMUM_SCALE = 3.0
#: Seconds kept aside per move for the pipe, the process and a busy machine.
DEFAULT_OVERHEAD = 0.1
#: The least budget given (a search's first iteration is not cut short before
#: ``search.clock.FIRST_ITERATION_SECONDS`` anyway).
MIN_MOVE_TIME = 0.01

_TC = re.compile(r"^\s*(?P<base>\d+(?:\.\d*)?)\s*(?:\+\s*(?P<inc>\d+(?:\.\d*)?))?\s*$")


class TimeBudget(NamedTuple):
    """One move's times in seconds (see the module docstring): ``share`` (what a move
    may spend on average), ``optimum`` (no new iteration after it), ``maximum`` (a
    started iteration is abandoned)."""

    share: float
    optimum: float
    maximum: float


def time_budget(remaining: float, increment: float = 0.0, movestogo: int | None = None,
                overhead: float = DEFAULT_OVERHEAD) -> TimeBudget:
    """This move's share, optimum and maximum with ``remaining`` seconds on the clock.

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
    even = remaining / moves + INCREMENT_SHARE * increment - overhead   # on every move
    share = max(MIN_MOVE_TIME, min(even, MAX_FRACTION * usable))
    maximum = max(MIN_MOVE_TIME, min(MAXIMUM_SCALE * even, MAX_FRACTION * usable))
    optimum = min(OPTIMUM_SCALE * share, maximum / 2)
    return TimeBudget(share, optimum, maximum)


def parse_time_control(text: str) -> tuple[float, float]:
    """``"60+0.6"`` -> (60.0, 0.6): seconds per game and the increment per move (a plain
    ``"60"`` has no increment)."""
    match = _TC.match(str(text))
    if not match or float(match["base"]) <= 0:
        raise ValueError(f"cannot read the time control {text!r}: write seconds per game "
                         f"and the increment per move, e.g. 60+0.6 or 10+0.1 (or 300)")
    return float(match["base"]), float(match["inc"] or 0.0)
