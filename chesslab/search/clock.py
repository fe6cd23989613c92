"""When a search must stop: a clock in seconds, or a budget of positions.

Iterative deepening searches depth 1, 2, 3, ... and answers with the deepest result it
finished. With a limit, two rules decide when to stop:

* do not start an iteration once the *optimum* is spent: by default half the budget
  (each iteration costs several times the one before, so a later one would most likely
  be cut short); a game on a clock gives its own (``matches.timecontrol``);
* abandon a started iteration when the budget (the *maximum*) runs out
  (``OutOfTime``): the search asks ``Clock.check`` every 1024 positions. What the
  abandoned iteration had already settled is kept: the searcher answers with the best
  root move it had searched fully, the first one (the last iteration's best) or a later
  one that beat it.

The first iteration completes, so there is always a searched move to play: a budget of
positions never cuts it short, and seconds (or a GUI's stop) only after
``FIRST_ITERATION_SECONDS`` or the whole time limit, whichever is longer. In a normal
position depth 1 ends long before; in one so full of captures that it never ends (nine
queens a side) the search must still answer, with the best root move it had searched
fully or else the first in its move order. A budget of positions gives the same answer
on a busy machine as on a quiet one; seconds do not.
"""
from __future__ import annotations

import math
import numbers
import time


#: Seconds before which nothing but its end stops a search's first iteration.
FIRST_ITERATION_SECONDS = 1.0


class OutOfTime(Exception):
    """The budget ran out mid-iteration; ``args[0]`` carries what the search had finished."""


class Clock:
    """Started when created; ``time_limit`` seconds and ``node_limit`` positions (or None).

    ``optimum``: seconds after which no iteration starts (None: half of ``time_limit``).
    """

    def __init__(self, time_limit: float | None = None, node_limit: int | None = None,
                 optimum: float | None = None):
        self.start = time.perf_counter()
        self.time_limit, self.node_limit = time_limit, node_limit
        self.optimum = (None if time_limit is None else
                        0.5 * time_limit if optimum is None else min(optimum, time_limit))
        # the first iteration: no budget of positions stops it, seconds only after a while
        self.deadline = (math.inf if time_limit is None else
                         self.start + max(time_limit, FIRST_ITERATION_SECONDS))
        self.max_nodes = math.inf

    def seconds(self) -> float:
        return time.perf_counter() - self.start

    def start_iteration(self, depth: int, nodes: int) -> bool:
        """Is iteration ``depth`` worth starting, ``nodes`` positions into the search?"""
        if depth == 1:
            return True
        if self.time_limit is not None:
            if self.seconds() > self.optimum:
                return False
            self.deadline = self.start + self.time_limit
        if self.node_limit is not None:
            if nodes > 0.5 * self.node_limit:
                return False
            self.max_nodes = self.node_limit
        return True

    def check(self, nodes: int):
        """Raise ``OutOfTime`` once the budget is spent."""
        if time.perf_counter() > self.deadline or nodes >= self.max_nodes:
            raise OutOfTime(None)


def check_limits(depth=None, time_limit=None, node_limit=None) -> None:
    """A clear error for a senseless depth, time or node budget."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, numbers.Integral)):
        raise TypeError(f"depth must be a whole number of plies such as 3, got {depth!r}")
    if time_limit is not None and (isinstance(time_limit, bool)
                                   or not isinstance(time_limit, numbers.Real)):
        raise TypeError(f"time_limit must be seconds such as 1.5, got {time_limit!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
    if node_limit is not None and (isinstance(node_limit, bool)
                                   or not isinstance(node_limit, numbers.Integral)
                                   or node_limit < 1):
        raise ValueError(f"node_limit must be a positive whole number, got {node_limit!r}")
