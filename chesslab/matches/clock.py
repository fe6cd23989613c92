"""Games on a clock: the clock text read once, and each seat's player made ready for it.

Every runner that plays on a clock (a ``match``, the long matches of ``results match``,
the class event and the ladders) does the same two steps, written here once:

* ``clock_text(time_control, specs)`` reads ``"60+0.6"`` (``timecontrol.parse_time_control``:
  one clear error for a text it cannot read), writes it back as stored and as PGN's
  ``TimeControl`` says it (``"60+0.60"`` -> ``"60+0.6"``), and refuses a player spec
  with its own time per move beside it (``check_clock_spec``), before any game;
* ``seat_on_clock(players, time_control)`` gives each player its way of spending the
  clock (``on_clock``) and the ``(seconds, increment)`` that ``play_game(clock=...)``
  keeps for each side.

``on_clock`` decides how a player spends its clock: Stockfish gets both clocks itself;
the searching players and MCTS think through ``matches.thinking`` for the times
``matches.timecontrol.time_budget`` gives them on their remaining clock (the
alpha-beta search: no new iteration after the optimum, a started one abandoned at the
maximum; MCTS: the share), capped by the spec's own depth or simulations
(``thinking.spec_caps``); any other player simply moves, its time counted.
"""
from __future__ import annotations

import threading

from chesslab.board.game import Player, format_time_control
from chesslab.matches.specs import format_spec, parse_spec
from chesslab.matches.thinking import WorkerThinker, spec_caps, thinker_for
from chesslab.matches.timecontrol import DEFAULT_OVERHEAD, parse_time_control, time_budget

__all__ = ["clock_text", "seat_on_clock", "on_clock", "check_clock_spec", "ClockPlayer"]


def check_clock_spec(spec, time_control: str) -> None:
    """Refuse a player with its own time per move (``nnue@1s``) in games on a clock."""
    name = spec if isinstance(spec, str) else getattr(spec, "name", None)
    try:
        parsed = parse_spec(name)
    except (TypeError, ValueError):
        return                     # a student's player, a test's: no spec, no time of its own
    if parsed.seconds is not None:
        bare = format_spec(parsed.name, parsed.arg)
        raise ValueError(f"{name} has its own time per move (@{parsed.seconds:g}s) but the "
                         f"games are on a clock ({time_control}): a player on a clock "
                         f"spends the time its clock gives; write {bare} with the clock, "
                         f"or {name} without one")


def clock_text(time_control: str | None, specs=()) -> str | None:
    """The time control as stored (``"60+0.6"``), None for none; each of ``specs`` (player
    specs or players) with its own time per move is refused beside it, before any game."""
    if time_control is None:
        return None
    text = format_time_control(*parse_time_control(time_control))
    for spec in specs:
        check_clock_spec(spec, text)
    return text


class ClockPlayer(Player):
    """A searching or MCTS player on a clock: each move thinks (``thinker_for``) within
    the ``time_budget`` of its own remaining clock (``Thinker.clock_limits``), keeping
    ``overhead`` seconds aside; a depth or a number of simulations in its spec caps the
    search as in the UCI engine."""

    def __init__(self, player, thinker, overhead: float = DEFAULT_OVERHEAD):
        self.name, self.seed, self.rng = player.name, player.seed, player.rng
        self.player, self.thinker, self.overhead = player, thinker, overhead
        self.stop = threading.Event()          # never set: the budget ends each move

    @property
    def last_result(self):
        return getattr(self.player, "last_result", None)

    def choose_move(self, board):
        return self.player.choose_move(board)

    def choose_move_on_clock(self, board, clock):
        budget = time_budget(clock.remaining(board.turn), clock.increment,
                             overhead=self.overhead)
        limits = self.thinker.clock_limits(budget)
        return self.thinker.think(board, limits, self.stop, lambda line: None)

    def close(self):
        self.player.close()


def on_clock(player, time_control: str = "a clock"):
    """``player`` ready for a game on a clock (``play_game(clock=...)``): Stockfish as it
    is (it takes the clocks itself), a searching or MCTS player as a ``ClockPlayer``,
    any other as it is (it moves when it moves and its time is counted). A player with
    its own time per move is refused (``check_clock_spec``)."""
    check_clock_spec(player, time_control)
    if callable(getattr(player, "choose_move_on_clock", None)):
        return player
    try:
        caps = spec_caps(player.name)
    except (AttributeError, TypeError, ValueError):
        caps = (None, None)                    # a student's player, a test's: no spec
    thinker = thinker_for(player, caps)
    return player if isinstance(thinker, WorkerThinker) else ClockPlayer(player, thinker)


def seat_on_clock(players, time_control: str | None) -> tuple[list, tuple | None]:
    """``(players, clock)`` for ``play_game``: each player as ``on_clock`` makes it and
    ``(seconds, increment)``, or the players as they are and None without a clock."""
    if time_control is None:
        return list(players), None
    clock = parse_time_control(time_control)
    text = format_time_control(*clock)
    return [on_clock(player, text) for player in players], clock
