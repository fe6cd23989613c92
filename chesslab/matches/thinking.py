"""A player thinking under a GUI's limits: it reports as it goes and stops when told.

A chess GUI asks for a move with limits (seconds, a depth, a number of positions, or
"until I say stop") and wants to see the search's progress. ``thinker_for(player)``
wraps any player so that ``think(board, limits, stop, say)`` answers within the limits
with a legal move, prints ``info`` lines through ``say`` and returns soon after the
``stop`` event is set. Three kinds:

* ``SearchThinker``, the alpha-beta players (``SearchPlayer``): the same search, with a
  line per finished iteration of iterative deepening and a stop button
  (``ReportingSearcher`` overrides three of ``Searcher``'s private steps, ``_start``,
  ``_iteration`` and ``_count``; its moves and node counts are the searcher's, which
  ``tests/test_matches_uci.py`` checks, so a change to those steps shows there);
* ``MCTSThinker``, the MCTS players: simulations in small chunks on one growing tree
  (the tree is kept between calls), the visits and the chosen move's value as a score;
* ``WorkerThinker``, every other player (random, the policy, a student's
  ``choose_move`` file): its ``choose_move`` runs in a worker thread; if it has not
  answered by the deadline (or by ``stop``), a legal move is played instead and an
  ``info string`` says so.

The limits of a spec (``pst:3``, ``nnue@1s``; ``spec_caps`` reads them) cap what a GUI
allows (a GUI's clock never makes ``nnue@1s`` think longer than a second); ``go
infinite`` ignores them, and a bare ``go`` plays as the spec says. ``matches.uci``
speaks the protocol around this module.
"""
from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field

import chess

from chesslab.board.scores import is_mate_score, mate_in
from chesslab.matches.players import SearchPlayer
from chesslab.matches.specs import parse_spec
from chesslab.search.clock import FIRST_ITERATION_SECONDS, Clock, OutOfTime
from chesslab.search.mcts import MCTSPlayer, MCTSResult, best_index
from chesslab.search.searcher import Searcher

__all__ = ["Limits", "ReportingSearcher", "StopClock", "SearchThinker", "MCTSThinker",
           "WorkerThinker", "thinker_for", "spec_caps", "score_text", "DEEPEST"]

#: The deepest iteration started without a depth limit (the searcher stops at its
#: own maximum ply anyway).
DEEPEST = 60
#: A time limit so long it never ends a search: it only makes the search iterative.
_FOREVER = 10.0 ** 7
#: The search looks at the clock (and the stop button) every this many positions.
_CHECK_MASK = 63
#: MCTS prints a line at least this often (seconds).
REPORT_SECONDS = 0.5


@dataclass
class Limits:
    """A ``go`` command's limits: ``seconds`` from ``started`` (the hard budget of this
    move), ``depth`` (plies), ``nodes`` (positions, MCTS: simulations), ``infinite``.
    None everywhere and not infinite: play as the spec says. ``optimum``: seconds from
    ``started`` after which an alpha-beta search starts no new iteration (None: half of
    ``seconds``); a clock's ``timecontrol.time_budget`` gives it
    (``Thinker.clock_limits``)."""

    seconds: float | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    started: float = field(default_factory=time.perf_counter)
    optimum: float | None = None

    def given(self) -> bool:
        return self.infinite or any(v is not None for v in (self.seconds, self.depth,
                                                            self.nodes))

    def left(self) -> float | None:
        """Seconds of the budget still left (None: no time limit)."""
        if self.seconds is None:
            return None
        return self.seconds - (time.perf_counter() - self.started)


def score_text(score: float) -> str:
    """A negamax score (for the side to move) as UCI writes it: ``cp 35`` or ``mate -2``."""
    if is_mate_score(score):
        moves = mate_in(score)
        if moves is None:                    # an evaluator's +-inf: distance unknown
            moves = 1 if score > 0 else -1
        return f"mate {moves}"
    return f"cp {int(round(score))}"


def legal_prefix(board: chess.Board, moves) -> list:
    """The longest start of ``moves`` that can be played from ``board``."""
    board, line = board.copy(stack=False), []
    for move in moves:
        if not board.is_legal(move):
            break
        board.push(move)
        line.append(move)
    return line


def info_line(depth, score, nodes, seconds, pv, board, multipv=None) -> str:
    parts = [] if depth is None else [f"depth {depth}"]
    if multipv is not None:
        parts.append(f"multipv {multipv}")
    parts += [f"score {score_text(score)}", f"nodes {nodes}",
              f"nps {int(nodes / seconds) if seconds > 0 else 0}",
              f"time {int(seconds * 1000)}"]
    line = legal_prefix(board, pv)
    if line:
        parts.append("pv " + " ".join(m.uci() for m in line))
    return "info " + " ".join(parts)


class StopClock(Clock):
    """The search's clock with a stop button: once ``stop`` (a ``threading.Event``) is
    set, no iteration after the first starts and a started one is abandoned (the first
    only after ``search.clock.FIRST_ITERATION_SECONDS``, as by its time limit)."""

    def __init__(self, time_limit=None, node_limit=None, stop=None, optimum=None):
        super().__init__(time_limit, node_limit, optimum)
        self.stop, self.live = stop, False

    def start_iteration(self, depth, nodes):
        if depth > 1 and self.stop is not None and self.stop.is_set():
            return False
        going = super().start_iteration(depth, nodes)
        self.live = going and depth > 1       # the first iteration: see check
        return going

    def check(self, nodes):
        if self.stop is not None and self.stop.is_set() and (
                self.live or self.seconds() > FIRST_ITERATION_SECONDS):
            raise OutOfTime(None)
        super().check(nodes)


class ReportingSearcher(Searcher):
    """``Searcher`` with a stop button (``stop``, an Event read by ``StopClock``), the
    clock read more often than the searcher reads it (``_CHECK_MASK``: a stop is
    answered in milliseconds), an ``optimum`` (seconds; no new iteration after it,
    None: half the time limit) and ``on_iteration(board, depth, exact, nodes,
    seconds)`` called after each finished iteration. What it searches is the
    searcher's own: the same moves and node counts at a fixed depth
    (``tests/test_matches_uci.py`` compares)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.stop = None
        self.on_iteration = None
        self.optimum = None

    def _start(self, board, clock):
        super()._start(board, StopClock(clock.time_limit, clock.node_limit, self.stop,
                                        self.optimum))

    def _iteration(self, board, depth, moves, done, ties):
        finished = super()._iteration(board, depth, moves, done, ties)
        if self.on_iteration is not None:
            self.on_iteration(board, finished[0], finished[1], self.nodes,
                              self.clock.seconds())
        return finished

    def _count(self):
        self.nodes += 1
        if self.nodes & _CHECK_MASK == 0:
            self.clock.check(self.nodes)


class Thinker:
    """A player behind a GUI's limits; ``caps`` are the spec's (depth or simulations,
    seconds), each None when the spec sets none."""

    multipv = 1

    def __init__(self, player, caps=(None, None)):
        self.player = player
        self.cap_number, self.cap_seconds = caps

    def _capped(self, number, seconds, limits: Limits):
        """The GUI's number and seconds within the spec's caps (``go infinite``: none)."""
        if limits.infinite:
            return number, seconds
        if self.cap_number is not None:
            number = self.cap_number if number is None else min(number, self.cap_number)
        if self.cap_seconds is not None:
            seconds = self.cap_seconds if seconds is None else min(seconds, self.cap_seconds)
        return number, seconds

    def set_multipv(self, k: int) -> bool:
        """Report ``k`` lines; False if this player has only one."""
        return k == 1

    def clock_limits(self, budget, started: float | None = None) -> Limits:
        """The limits of a move on a clock, from ``timecontrol.time_budget``'s ``budget``:
        here its share (a player that can stop at any moment stops there)."""
        limits = Limits(seconds=budget.share)
        if started is not None:
            limits.started = started
        return limits

    def new_game(self):
        reset = getattr(self.player, "reset", None)
        if callable(reset):
            reset()

    def think(self, board: chess.Board, limits: Limits, stop: threading.Event, say):
        raise NotImplementedError


class SearchThinker(Thinker):
    """An alpha-beta player: iterative deepening, one info line per finished iteration."""

    def __init__(self, player: SearchPlayer, caps=(None, None)):
        super().__init__(player, caps)
        self.new_game()

    def new_game(self):
        """A fresh searcher (an empty table and history), as a new player would have."""
        p = self.player
        p.searcher = ReportingSearcher(p.evaluator, p.algorithm, multipv=self.multipv,
                                       **p.options)

    def set_multipv(self, k):
        self.multipv = k
        self.player.searcher.multipv = k
        return True

    def clock_limits(self, budget, started=None):
        """Iterative deepening on a clock: no new iteration after the budget's optimum,
        a started one abandoned at its maximum."""
        limits = super().clock_limits(budget, started)
        limits.seconds, limits.optimum = budget.maximum, budget.optimum
        return limits

    def think(self, board, limits, stop, say):
        p, searcher = self.player, self.player.searcher
        optimum = None
        if limits.given():
            depth, seconds = self._capped(limits.depth, limits.left(), limits)
            nodes = limits.nodes
            if limits.optimum is not None and not limits.infinite and seconds is not None:
                # never past half of a spec's own seconds (``nnue@1s`` keeps its rule)
                optimum = min(limits.optimum - (time.perf_counter() - limits.started),
                              0.5 * seconds)
        else:
            depth, seconds, nodes = p.depth, p.time_limit, None
        depth = DEEPEST if depth is None else max(1, min(depth, DEEPEST))   # go depth 0: 1
        seconds = _FOREVER if seconds is None else max(seconds, 1e-3)
        reported = {}

        def on_iteration(root, d, exact, count, spent):
            for k, (score, _, pv) in enumerate(exact[:self.multipv], 1):
                say(info_line(d, score, count, spent, pv, root,
                              k if self.multipv > 1 else None))
            reported["last"] = (count, exact[0][1])

        searcher.stop, searcher.on_iteration, searcher.optimum = stop, on_iteration, optimum
        try:
            result = searcher.search(board, depth, seconds, p.rng, nodes)
        finally:
            searcher.stop = searcher.on_iteration = searcher.optimum = None
        p.last_result = result
        last = reported.get("last")
        if result.move is not None and (last is None or last[0] != result.nodes
                                        or (last[1] != result.move and self.multipv == 1)):
            # a cut-short iteration, or a tie broken at random: the line of the move played
            side = result.score if board.turn == chess.WHITE else -result.score
            say(info_line(result.depth, side, result.nodes, result.seconds, result.pv, board,
                          1 if self.multipv > 1 else None))
        return result.move


class MCTSThinker(Thinker):
    """MCTS: simulations in chunks on the kept tree, a line every ``REPORT_SECONDS``."""

    def think(self, board, limits, stop, say):
        p, mcts = self.player, self.player.mcts
        if limits.given():
            sims, seconds = self._capped(limits.nodes, limits.left(), limits)
            if sims is None and seconds is None and not limits.infinite:
                sims = mcts.simulations            # e.g. go depth 5: not an MCTS limit
        else:               # as the spec says: its simulations and seconds, the first to end
            sims, seconds = mcts.simulations, p.time_limit
        start = time.perf_counter()
        deadline = math.inf if seconds is None else start + seconds
        done, next_report = 0, start + REPORT_SECONDS
        while True:
            chunk = mcts.batch_size if sims is None else min(mcts.batch_size, sims - done)
            root = mcts.search(board, simulations=max(chunk, 1))
            done += mcts.last_simulations
            now = time.perf_counter()
            finished = (stop.is_set() or now >= deadline or root.terminal is not None
                        or (sims is not None and done >= sims))
            if finished or now >= next_report:
                move = self._report(board, root, done, now - start, say)
                next_report = now + REPORT_SECONDS
            if finished:
                return move

    def _report(self, board, root, done, seconds, say):
        """The move best_index plays, its line and score, kept as the player's
        ``last_result`` (a game on a clock reads its score for the resign rule)."""
        result = MCTSResult.of(root, root.moves[best_index(root)], board.turn, done, seconds,
                               self.player.mcts.draw_value, self.player.mcts.value_to_cp)
        self.player.last_result = result
        side = result.score if board.turn == chess.WHITE else -result.score
        say(info_line(None, side, done, seconds, result.pv, board))
        return result.move


class WorkerThinker(Thinker):
    """Any player: ``choose_move`` in a worker thread, a legal move if it is late."""

    worker = None

    def think(self, board, limits, stop, say):
        seconds = None if limits.infinite else limits.left()
        if seconds is not None and hasattr(self.player, "faults"):
            os.environ["CHESSLAB_MOVE_TIME"] = f"{max(seconds, 0.0):g}"   # as the event
        if self.worker is not None and self.worker.is_alive():
            say(f"info string {self.player.name} is still thinking about an earlier "
                f"position (its answer will be dropped)")
        faults = len(getattr(self.player, "faults", ()))
        box = {}

        def work():
            try:
                box["move"] = self.player.choose_move(board.copy())
            except Exception as exc:     # noqa: BLE001  (a student's code may raise anything)
                box["error"] = f"{type(exc).__name__}: {exc}"

        self.worker = threading.Thread(target=work, name="chesslab-move", daemon=True)
        self.worker.start()
        deadline = math.inf if seconds is None else time.perf_counter() + seconds
        while self.worker.is_alive() and not stop.is_set() and time.perf_counter() < deadline:
            self.worker.join(min(0.005, max(deadline - time.perf_counter(), 0.0)))
        move = box.get("move")
        for problem in getattr(self.player, "faults", ())[faults:]:
            say(f"info string {self.player.name}: {problem[1]}; its first legal move is "
                f"played instead")
        if isinstance(move, chess.Move) and board.is_legal(move):
            return move
        fallback = next(iter(board.legal_moves))
        why = (box["error"] if "error" in box else
               f"returned {move!r}, not a legal move" if "move" in box else
               "was stopped before it answered" if stop.is_set() else
               f"did not answer within {limits.seconds:.2f} s")
        say(f"info string {self.player.name} {why}; playing {fallback.uci()} instead")
        return fallback


def spec_caps(spec) -> tuple[int | None, float | None]:
    """The caps a player spec puts on its thinker: (depth or simulations, seconds per
    move), each None where it sets none. Stockfish's number is its level, not a cap, and
    random and the policy take none."""
    parsed = parse_spec(spec)
    number = None if parsed.name in ("random", "policy", "stockfish") else parsed.number
    return number, parsed.seconds


def thinker_for(player, caps=(None, None)) -> Thinker:
    """The thinker that fits ``player``; ``caps``: the spec's (depth or simulations,
    seconds per move), None where it sets none."""
    if isinstance(player, SearchPlayer):
        return SearchThinker(player, caps)
    if isinstance(player, MCTSPlayer) and player.temperature == 0 and not player.noise:
        return MCTSThinker(player, caps)
    return WorkerThinker(player, caps)
