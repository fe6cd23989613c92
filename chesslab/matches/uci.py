"""Any chesslab player as a UCI engine: the protocol chess GUIs and match runners speak.

``python -m chesslab uci SPEC`` (or ``chesslab-uci SPEC``) reads UCI commands on stdin
and answers on stdout; SPEC is a player spec (``nnue``, ``pst@1s``, ``mcts``, ``cnn:3``,
``random``) or a student's player file (``players/anna.py``, a ``choose_move``
function). ``UciEngine`` keeps the position and the options; each ``go`` thinks in a
thread of its own (``matches.thinking``) so that ``stop``, ``isready`` and ``quit`` are
answered while it thinks. The clock is turned into the move's limits as in a game on
a clock (``matches.clock.ClockPlayer``): ``matches.timecontrol.time_budget`` gives the
share, optimum and maximum, and the thinker's ``clock_limits`` picks what its search
uses. A ``movetime`` or the spec's own seconds (``nnue@1s``) cap the time, and a depth
or a number of nodes still ends the search, as without a clock.

Commands: ``uci``, ``debug``, ``isready``, ``setoption name N [value V]``,
``ucinewgame``, ``position startpos|fen FEN [moves M ...]``, ``go`` (``wtime btime winc
binc movestogo movetime depth nodes infinite``), ``stop``, ``ponderhit``, ``quit``.
Options: ``Player`` (another spec), ``MultiPV`` (alpha-beta players), ``Move Overhead``.
Bad input never ends the engine: an unknown command or a position, move or option it
cannot read gets an ``info string`` naming the problem, and nothing else changes. It
plays standard chess (no ``UCI_Chess960`` option): a FEN whose castling rights need
Chess960 is refused, saying so; castling may be sent as e1g1 or as king takes rook.
"""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import chess

from chesslab.board.rules import position_problems
from chesslab.matches.players import make_player
from chesslab.matches.thinking import Limits, spec_caps, thinker_for
from chesslab.matches.timecontrol import DEFAULT_OVERHEAD, time_budget
from chesslab.matches.tournament import load_player

__all__ = ["UciEngine", "load_spec", "FALLBACK_SPECS", "MAX_MULTIPV", "COMMANDS"]

AUTHOR = "the chesslab course"
#: Played instead when the given spec cannot be made, in this order.
FALLBACK_SPECS = ("pst", "random")
MAX_MULTIPV = 8
COMMANDS = ("uci", "debug", "isready", "setoption", "register", "ucinewgame", "position",
            "go", "stop", "ponderhit", "quit")
_GO_NUMBERS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes",
               "mate")
_GO_WORDS = (*_GO_NUMBERS, "infinite", "ponder", "searchmoves")


def load_spec(spec: str):
    """(player, its thinker) for a spec or a player file (a path ending in .py)."""
    text = str(spec).strip()
    if text.endswith(".py") or Path(text).is_file():
        return thinker_for(load_player(Path(text).expanduser()))
    return thinker_for(make_player(text), spec_caps(text))


class UciEngine:
    """The protocol: ``handle(line)`` for each line read (False after ``quit``), answers
    through ``write``. ``spec``: the player; if it cannot be made, the first of
    ``FALLBACK_SPECS`` that can plays and ``problems`` says why (shown after ``uci``)."""

    def __init__(self, spec: str, write=None):
        self.write_lock = threading.Lock()
        self._write = write or (lambda line: (sys.stdout.write(line + "\n"), sys.stdout.flush()))
        self.problems = []
        self.spec, self.thinker = None, None
        for candidate in (spec, *FALLBACK_SPECS):
            try:
                self.thinker = load_spec(candidate)
                self.spec = str(candidate)
                break
            except Exception as exc:      # noqa: BLE001  (a player file may raise anything)
                self.problems.append(f"cannot make player {candidate!r}: {exc}")
        if self.thinker is not None and self.spec != str(spec):
            self.problems.append(f"playing {self.spec} instead; setoption name Player "
                                 f"value SPEC picks another")
        self.requested = str(spec)
        self.board = chess.Board()
        self.overhead = DEFAULT_OVERHEAD
        self.multipv = 1
        self.stop_event = threading.Event()
        self.thread = None

    # ---------------------------------------------------------------- output
    def say(self, line: str):
        with self.write_lock:
            self._write(line)

    def info(self, text: str):
        self.say("info string " + " ".join(str(text).split()))

    # ---------------------------------------------------------------- input
    def handle(self, line: str) -> bool:
        """Act on one line; False once it was ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command not in COMMANDS:
            self.info(f"unknown command {command!r}; the commands are {', '.join(COMMANDS)}")
            return True
        if command == "quit":
            self.halt()
            return False
        try:
            getattr(self, "_" + command)(args)
        except Exception as exc:          # noqa: BLE001  (nothing a GUI sends may kill it)
            self.info(f"{command}: {type(exc).__name__}: {exc}")
        return True

    def run(self, stream=None) -> int:
        """Read commands until ``quit`` or the end of input; 0, or 1 without a player."""
        stream = stream or sys.stdin
        if self.thinker is None:
            return 1
        while True:
            line = stream.readline()
            if not line or not self.handle(line):
                break
        self.halt()
        return 0

    # ---------------------------------------------------------------- commands
    def _uci(self, args):
        self.say(f"id name chesslab {self.thinker.player.name}")
        self.say(f"id author {AUTHOR}")
        self.say(f"option name Player type string default {self.spec}")
        self.say(f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}")
        self.say(f"option name Move Overhead type spin default {int(self.overhead * 1000)} "
                 f"min 0 max 5000")
        for problem in self.problems:
            self.info(problem)
        self.say("uciok")

    def _debug(self, args):
        pass

    def _register(self, args):
        pass

    def _isready(self, args):
        self.say("readyok")

    def _setoption(self, args):
        text = " ".join(args)
        if not text.lower().startswith("name "):
            raise ValueError(f"expected 'setoption name NAME [value VALUE]', got "
                             f"'setoption {text}'")
        name, _, value = text[5:].partition(" value ")
        name, value = name.strip().lower(), value.strip()
        self.halt()                          # options change between searches only
        if name == "player":
            thinker = load_spec(value)       # a bad spec raises: the old player stays
            self.thinker, self.spec = thinker, value
            self.thinker.set_multipv(self.multipv)
            self.info(f"playing {value}")
        elif name == "multipv":
            k = int(value)
            if not 1 <= k <= MAX_MULTIPV:
                raise ValueError(f"MultiPV is 1-{MAX_MULTIPV}, not {k}")
            self.multipv = k
            if not self.thinker.set_multipv(k):
                self.info(f"{self.spec} reports one line (MultiPV applies to the "
                          f"alpha-beta players)")
        elif name == "move overhead":
            ms = int(value)
            if not 0 <= ms <= 5000:
                raise ValueError(f"Move Overhead is 0-5000 ms, not {ms}")
            self.overhead = ms / 1000
        else:
            self.info(f"no option {name!r}; the options are Player, MultiPV, Move Overhead")

    def _ucinewgame(self, args):
        self.halt()
        self.thinker.new_game()
        self.board = chess.Board()

    def _position(self, args):
        self.halt()
        if not args or args[0] not in ("startpos", "fen"):
            raise ValueError("expected 'position startpos [moves ...]' or "
                             "'position fen FEN [moves ...]'")
        rest = args[1:]
        moves = []
        if "moves" in rest:
            at = rest.index("moves")
            rest, moves = rest[:at], rest[at + 1:]
        if args[0] == "startpos":
            board = chess.Board()
        else:
            board = chess.Board(" ".join(rest))         # a bad FEN raises ValueError
            problems = position_problems(board)
            if problems:
                raise ValueError(f"FEN {' '.join(rest)!r} is not a legal position "
                                 f"({'; '.join(problems)}); the position is unchanged")
        for text in moves:
            try:
                move = chess.Move.from_uci(text)
            except ValueError:
                move = None
            if move is None or not board.is_legal(move):
                self.board = board
                raise ValueError(f"move {text!r} is not legal in {board.fen()}; the position "
                                 f"is the one before it")
            board.push(move)
        self.board = board

    def _go(self, args):
        self.halt()
        limits, problems = self.limits(args)
        for problem in problems:
            self.info(problem)
        board = self.board.copy()
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._think, name="chesslab-go", daemon=True,
                                       args=(board, limits, self.stop_event))
        self.thread.start()

    def limits(self, args) -> tuple[Limits, list]:
        """A ``go`` command's words -> (Limits, problems to report)."""
        started = time.perf_counter()
        given, problems, infinite = {}, [], False
        i = 0
        while i < len(args):
            word = args[i]
            if word in ("infinite", "ponder"):
                infinite = True
                if word == "ponder":
                    problems.append("pondering is not supported: searching until stop")
            elif word in _GO_NUMBERS:
                value = args[i + 1] if i + 1 < len(args) else None
                if value is not None and value not in _GO_WORDS:
                    i += 1                          # the value, read or not
                try:
                    given[word] = int(value)
                except (TypeError, ValueError):
                    problems.append(f"go: {word} needs a whole number, not {value!r}; ignored")
            elif word == "searchmoves":
                problems.append("go: searchmoves is not supported; every move is searched")
                while i + 1 < len(args) and args[i + 1] not in _GO_WORDS:
                    i += 1
            else:
                problems.append(f"go: unknown word {word!r}; ignored")
            i += 1
        limits = Limits(depth=given.get("depth"), nodes=given.get("nodes"), infinite=infinite,
                        started=started)
        if "mate" in given and limits.depth is None:
            limits.depth = 2 * given["mate"] - 1
        clock, inc = (("wtime", "winc") if self.board.turn == chess.WHITE
                      else ("btime", "binc"))
        if clock in given and not infinite:       # as a game on a clock (ClockPlayer)
            togo = given.get("movestogo")
            budget = time_budget(given[clock] / 1000, max(given.get(inc, 0), 0) / 1000,
                                 togo if togo and togo > 0 else None, self.overhead)
            on_clock = self.thinker.clock_limits(budget, started)
            limits.seconds, limits.optimum = on_clock.seconds, on_clock.optimum
        if "movetime" in given:     # the overhead kept aside, but never half of the time
            asked = max(given["movetime"] / 1000, 0.001)
            movetime = asked - min(self.overhead, asked / 2)
            limits.seconds = movetime if limits.seconds is None else min(limits.seconds,
                                                                         movetime)
        if infinite:
            limits.seconds = limits.depth = limits.nodes = None
        return limits, problems

    def _think(self, board, limits, stop):
        move = None
        if not any(board.legal_moves):
            self.info(f"the game is over in {board.fen()}: there is no legal move")
        else:
            try:
                move = self.thinker.think(board, limits, stop, self.say)
            except Exception as exc:      # noqa: BLE001  (a player may raise anything)
                self.info(f"{self.spec} failed: {type(exc).__name__}: {exc}")
            if move is None or not board.is_legal(move):
                fallback = next(iter(board.legal_moves))
                self.info(f"{self.spec} gave no legal move; playing {fallback.uci()} instead")
                move = fallback
        if limits.infinite:
            stop.wait()                       # the GUI ends an infinite search
        self.say(f"bestmove {move.uci() if move else '(none)'}")

    def _stop(self, args):
        self.stop_event.set()

    def _ponderhit(self, args):
        self.stop_event.set()

    def halt(self):
        """Stop any search and wait for its ``bestmove`` (UCI wants one per ``go``)."""
        self.stop_event.set()
        if self.thread is not None:
            self.thread.join(5.0)
            if self.thread.is_alive():
                self.info("the search did not stop within 5 s")
            self.thread = None
