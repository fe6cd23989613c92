"""A student's player in a process of its own, spoken to over a pipe.

The teacher's process never imports a submission: ``IsolatedPlayer`` starts
``python -m chesslab.matches.isolation`` (the same Python, so the same chesslab), which
imports the file and then answers one JSON line per move: the game so far in (the start
FEN and the UCI moves since, so repetitions are seen), the chosen move out, as UCI.

Everything a submission can do wrong becomes a ``PlayerFault`` with a reason, never an
exception in the tournament: no answer within the move time and its grace (the process is
killed: an endless loop and a slow search look the same from outside), an exception, an
answer that is not a legal move, a process that exits or dies, a file that does not import.
Waiting uses a reader thread and a queue, not ``select`` or ``signal.alarm``, and the
child is started with ``subprocess`` (no fork), so the same code runs on Linux, macOS and
Windows.

The child keeps the pipe to itself: ``print`` in a submission goes to stderr (discarded)
and ``sys.stdin`` is empty, so a chatty or curious player cannot corrupt the protocol.
Isolation guards the event, not the machine: the child runs with the teacher's rights.
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import chess

from chesslab.base.text import no_window
from chesslab.board.game import Player

__all__ = ["IsolatedPlayer", "PlayerFault", "probe_submission", "FAULTS", "LOAD_TIMEOUT"]

#: The kinds of fault, as recorded in the standings.
FAULTS = ("late move", "exception", "illegal move", "malformed answer", "process exited",
          "did not load")
#: Seconds a submission may take to import (numpy, a model file) before it is withdrawn.
LOAD_TIMEOUT = 30.0


class PlayerFault(Exception):
    """A submission broke a rule: ``kind`` (one of ``FAULTS``), ``detail`` (what it did),
    and where: ``fen`` and ``ply`` (half-moves played when it was to move)."""

    def __init__(self, kind: str, detail: str, fen: str | None = None, ply: int | None = None):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail, self.fen, self.ply = kind, detail, fen, ply


class IsolatedPlayer(Player):
    """A submission's ``choose_move`` in its own process, with a time limit per move.

    ``source`` is the file's text (it travels to another machine as text); ``move_time``
    and ``grace`` make the deadline. ``start()`` waits for the child to import the file;
    a player that faulted is dead: ``close()`` kills what is left, and the next game
    starts a fresh one.
    """

    def __init__(self, name: str, source: str, move_time: float, grace: float,
                 seed: int = 0, filename: str = "submission.py",
                 load_timeout: float = LOAD_TIMEOUT):
        super().__init__(name, seed)
        self.source, self.filename = source, filename
        self.move_time, self.grace, self.load_timeout = move_time, grace, load_timeout
        self.process = None
        self._lines = None
        self._folder = None
        self._start_fen = None

    # -------------------------------------------------------------- the child
    def start(self) -> dict:
        """Start the child and wait until the file is imported: its hello message
        (``{"name": NAME}``), or ``PlayerFault("did not load", ...)``."""
        self._folder = tempfile.TemporaryDirectory(prefix="chesslab-player-",
                                                   ignore_cleanup_errors=True)   # Windows: a file still held
        path = Path(self._folder.name) / self.filename
        path.write_text(self.source, encoding="utf-8")
        env = dict(os.environ, CHESSLAB_MOVE_TIME=f"{self.move_time:g}",
                   PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1")
        # the parent's import path, so the child finds the very chesslab running here
        package_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(
            [package_root, *filter(None, [os.environ.get("PYTHONPATH")])])
        self.process = subprocess.Popen(
            [sys.executable, "-m", "chesslab.matches.isolation", str(path), str(self.seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd=self._folder.name, env=env, text=True, encoding="utf-8", bufsize=1,
            **no_window())
        self._lines = queue.Queue()
        threading.Thread(target=_pump, args=(self.process.stdout, self._lines),
                         daemon=True).start()
        hello = self._answer(self.load_timeout, "did not load", None, None)
        if "error" in hello:
            self.close()
            raise PlayerFault("did not load", hello["error"])
        return hello

    def choose_move(self, board: chess.Board) -> chess.Move:
        fen, ply = board.fen(), len(board.move_stack)
        if self.process is None:
            try:
                self.start()
            except PlayerFault as fault:     # say where: the game needs the side
                raise PlayerFault(fault.kind, fault.detail, fen, ply) from None
        root = board.root()
        message = {"fen": root.fen(), "moves": [m.uci() for m in board.move_stack]}
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except OSError:
            self._fault("process exited", f"the process had stopped ({self._exit()})", fen, ply)
        answer = self._answer(self.move_time + self.grace, "late move", fen, ply)
        if "error" in answer:
            self._fault("exception", answer["error"], fen, ply)
        if "bad" in answer:
            self._fault("malformed answer", f"returned {answer['bad']}, not a chess.Move",
                        fen, ply)
        try:
            move = chess.Move.from_uci(answer["move"])
        except (KeyError, TypeError, ValueError):
            self._fault("malformed answer", f"wrote {str(answer)[:60]}", fen, ply)
        if not board.is_legal(move):
            self._fault("illegal move", f"played {move.uci()}, illegal here", fen, ply)
        return move

    def _answer(self, timeout: float, late: str, fen, ply) -> dict:
        """The child's next message, or a fault: nothing in ``timeout`` s, or its end."""
        start = time.monotonic()
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self._fault(late, f"no answer within {timeout:.2g} s (the process was stopped)",
                        fen, ply)
        if line is None:
            self._fault("process exited" if late != "did not load" else late,
                        f"the process ended ({self._exit()}) after "
                        f"{time.monotonic() - start:.2g} s", fen, ply)
        try:
            return json.loads(line)
        except ValueError:
            self._fault("malformed answer", f"wrote {line[:60]!r}", fen, ply)

    def _exit(self) -> str:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"exit code {code}"

    def _fault(self, kind, detail, fen, ply):
        self.close(kill=True)
        raise PlayerFault(kind, detail, fen, ply)

    def close(self, kill: bool = False):
        """Stop the child: asked to leave (its stdin closes), killed if it does not
        at once or if ``kill`` (it broke a rule: no more waiting on it); safe twice."""
        process, self.process = self.process, None
        if process is not None:
            try:
                process.stdin.close()
            except OSError:
                pass
            try:
                if kill:
                    raise subprocess.TimeoutExpired(process.args, 0)
                process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


def _pump(stream, lines: queue.Queue):
    """Reader thread: every line the child writes, then None at its end."""
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(None)


def probe_submission(entrant: dict) -> dict:
    """Can this submission load? ``{"name": NAME}`` or ``{"error": why}``; a worker job
    (module-level, plain data), so the check too runs away from the teacher's process."""
    player = IsolatedPlayer(entrant["name"], entrant["source"], 1.0, 0.0,
                            filename=entrant["file"],
                            load_timeout=entrant.get("load_timeout", LOAD_TIMEOUT))
    try:
        return player.start()
    except PlayerFault as fault:
        return {"error": fault.detail}
    finally:
        player.close()


# ------------------------------------------------------------------ the child side
def _child(path: str, seed: int) -> None:
    """Import the submission, say hello, then answer each position with a move."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)                # the submission's prints (even from C) go to stderr
    sys.stdout = sys.stderr
    games = os.fdopen(os.dup(0), "r", encoding="utf-8")
    sys.stdin = open(os.devnull, encoding="utf-8")    # nor can it read our messages
    import random
    random.seed(seed)
    say = lambda message: out.write(json.dumps(message) + "\n")  # noqa: E731
    try:
        import importlib.util
        sys.path.insert(0, str(Path(path).parent))
        spec = importlib.util.spec_from_file_location("submission", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        choose = getattr(module, "choose_move", None)
        if not callable(choose):
            raise ValueError("it has no function choose_move(board)")
    except Exception as exc:     # noqa: BLE001  (a student's file may raise anything)
        say({"error": f"{type(exc).__name__}: {exc}"})
        return
    say({"name": str(getattr(module, "NAME", Path(path).stem))})
    for line in games:
        game = json.loads(line)
        board = chess.Board(game["fen"])
        for uci in game["moves"]:
            board.push_uci(uci)
        try:
            move = choose(board)
        except Exception as exc:      # noqa: BLE001
            say({"error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        if isinstance(move, chess.Move):
            say({"move": move.uci()})
        else:
            say({"bad": repr(move)[:80]})


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]))
