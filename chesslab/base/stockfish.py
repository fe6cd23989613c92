"""Stockfish as a program: finding it, starting and stopping it, one engine per worker.

chesslab talks to Stockfish through ``chess.engine`` (UCI). ``find_stockfish`` looks in
$CHESSLAB_STOCKFISH (a program or its folder), PATH and the usual install folders, and
says how to install Stockfish on each system when it is nowhere; ``start_engine`` starts
any UCI engine with one clear line when the program is not one; ``quit_engine`` stops it
quietly if it has already died. ``open_engine`` starts Stockfish with the labelling
settings.

``worker_engine(path)`` is the engine of the calling process (and thread): started on
first use and kept for all later jobs there (starting an engine costs more than a
shallow search), so a labelling job sent through ``chesslab.base.parallel.parallel_map``
needs only the engine's path; ``stop_worker_engines`` stops those of this process.
"""
from __future__ import annotations

import atexit
import multiprocessing.util
import os
import re
import shutil
import threading
import weakref

import chess.engine

from chesslab.base.text import no_window

__all__ = ["find_stockfish", "start_engine", "quit_engine", "open_engine", "engine_name",
           "worker_engine", "stop_worker_engines", "ENGINE_OPTIONS", "STOCKFISH_HELP",
           "INSTALL_HELP"]

#: Stockfish settings for labelling: one thread and a fresh hash per position make a
#: label depend only on the position and the depth (same number on every run).
ENGINE_OPTIONS = {"Threads": 1, "Hash": 4, "UCI_ShowWDL": True}

#: How to install Stockfish on each system and point chesslab at it (``find_stockfish``'s
#: error; the play lab's board without Stockfish shows it too).
INSTALL_HELP = (
    "Install it with `sudo apt-get install stockfish` (Debian/Ubuntu) or `brew install "
    "stockfish` (macOS); on Windows download it from https://stockfishchess.org/download/ "
    "and unzip it. If chesslab does not find it then, set the CHESSLAB_STOCKFISH "
    "environment variable to the program or to the folder it is in (Windows: `setx "
    "CHESSLAB_STOCKFISH \"C:\\chess\\stockfish\"`, then open a new terminal and start "
    "Jupyter from it; in a notebook: `os.environ[\"CHESSLAB_STOCKFISH\"] = "
    "r\"C:\\chess\\stockfish\"`).")

STOCKFISH_HELP = "Stockfish was not found. " + INSTALL_HELP

#: Where package managers put Stockfish when it is not on PATH (Debian's /usr/games,
#: Homebrew on Intel and on Apple silicon Macs).
USUAL_FOLDERS = ("/usr/games", "/usr/local/bin", "/opt/homebrew/bin")


def _runnable(path) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _program_in(folder: str) -> str | None:
    """The Stockfish program in ``folder``: ``stockfish`` (``stockfish.exe``), else the
    one program whose name starts with "stockfish", as an unpacked download has it
    (``stockfish-windows-x86-64-avx2.exe``, ``stockfish-macos-m1-apple-silicon``)."""
    exact = shutil.which("stockfish", path=folder)
    if exact:
        return exact
    windows = os.name == "nt"             # where any file counts as executable
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return None
    found = sorted(entry.path for entry in entries
                   if entry.name.lower().startswith("stockfish") and _runnable(entry.path)
                   and (entry.name.lower().endswith(".exe") or not windows))
    return found[0] if len(found) == 1 else None


def find_stockfish(required: bool = True) -> str | None:
    """Path of a Stockfish binary: $CHESSLAB_STOCKFISH if set (the program, the folder it
    is in, or a program's name on PATH; nothing else is tried), else ``stockfish`` on
    PATH, else in ``USUAL_FOLDERS``."""
    env = os.environ.get("CHESSLAB_STOCKFISH", "").strip().strip('"').strip("'")
    if env:
        env = os.path.expanduser(env)          # a path copied with its quotes, or ~/...
        # which: a program's path (on Windows also without its .exe) or a name on PATH
        found = _program_in(env) if os.path.isdir(env) else shutil.which(env)
        if found:
            return found
        if required:
            what = ("a folder without a Stockfish program in it" if os.path.isdir(env)
                    else "not an executable file")
            raise FileNotFoundError(f"CHESSLAB_STOCKFISH={env!r} is {what}. " + INSTALL_HELP)
        return None
    for candidate in (shutil.which("stockfish"),
                      *(os.path.join(folder, "stockfish") for folder in USUAL_FOLDERS)):
        if candidate and _runnable(candidate):
            return candidate
    if required:
        raise FileNotFoundError(STOCKFISH_HELP)
    return None


#: Seconds a program gets to answer the UCI handshake before it is called "not an engine".
ENGINE_START_TIMEOUT = 10.0


#: Engines started here and not yet quit: stopped when the interpreter exits.
_LIVE_ENGINES = weakref.WeakSet()


def _quit_live_engines() -> None:
    for engine in list(_LIVE_ENGINES):
        quit_engine(engine)


# A SimpleEngine talks to its program from a non-daemon thread, and Python waits for
# those threads before it runs ``atexit``: an engine nobody quit (a notebook's
# Stockfish board) kept a script or a Jupyter kernel from exiting. threading's own
# exit hooks run before that wait (the hook concurrent.futures uses).
try:
    threading._register_atexit(_quit_live_engines)
except (AttributeError, RuntimeError):       # not CPython >= 3.9
    atexit.register(_quit_live_engines)


def start_engine(path: str | None = None):
    """Start a UCI engine (Stockfish by default) as a ``chess.engine.SimpleEngine``,
    with one clear line when the program is not an engine or never answers. An engine
    still running when Python exits is quit then."""
    path = path or find_stockfish()
    try:
        engine = chess.engine.SimpleEngine.popen_uci(path, timeout=ENGINE_START_TIMEOUT,
                                                     **no_window())
        _LIVE_ENGINES.add(engine)
        return engine
    except NotImplementedError:
        # Windows: asyncio's selector loops start no programs, and older Jupyter kernels
        # (ipykernel 6) made every new loop one
        raise ValueError(f"{path} cannot be started from this Python: its asyncio event "
                         f"loops cannot start programs (on Windows an older Jupyter kernel "
                         f"sets them so); update it with `python -m pip install -U "
                         f"ipykernel` and restart the kernel") from None
    except TimeoutError:
        raise ValueError(f"{path} did not answer the UCI handshake within "
                         f"{ENGINE_START_TIMEOUT:g} s, so it is not a working chess "
                         f"engine; point CHESSLAB_STOCKFISH at a Stockfish binary") from None
    except (chess.engine.EngineError, OSError) as exc:
        if _illegal_instruction(exc):
            raise ValueError(f"{path} stopped at once on an instruction this processor "
                             f"lacks: it is a Stockfish built for a newer one (avx2, bmi2, "
                             f"...); download the build for older processors (sse41-popcnt "
                             f"or plain x86-64) and point CHESSLAB_STOCKFISH at it") from None
        raise ValueError(f"{path} is not a working UCI chess engine ({exc or type(exc).__name__}); "
                         f"point CHESSLAB_STOCKFISH at a Stockfish binary") from None


#: Exit codes of a program killed by an illegal instruction: SIGILL on POSIX (as Python
#: reports it, and as a shell does), STATUS_ILLEGAL_INSTRUCTION on Windows (unsigned and
#: signed).
ILLEGAL_INSTRUCTION = {-4, 132, 0xC000001D, 0xC000001D - 2 ** 32}


def _illegal_instruction(exc) -> bool:
    """Did the engine die of an instruction the processor lacks (python-chess says only
    "engine process died unexpectedly (exit code: N)")?"""
    found = re.search(r"exit code: (-?\d+)", str(exc))
    return (isinstance(exc, chess.engine.EngineTerminatedError) and found is not None
            and int(found.group(1)) in ILLEGAL_INSTRUCTION)


def quit_engine(engine) -> None:
    """Stop an engine, quietly if it has already died: closing must never hide the
    error that killed it."""
    try:
        engine.quit()
    except (chess.engine.EngineError, TimeoutError, OSError):
        try:
            engine.close()
        except Exception:  # noqa: BLE001 - nothing more to release
            pass


def open_engine(path: str | None = None) -> chess.engine.SimpleEngine:
    """Start Stockfish with :data:`ENGINE_OPTIONS` (clear message when it is missing)."""
    engine = start_engine(path)
    engine.configure({k: v for k, v in ENGINE_OPTIONS.items() if k in engine.options})
    return engine


def engine_name(path: str | None = None) -> str:
    """The engine's own name (e.g. "Stockfish 15.1"), for a dataset's metadata."""
    with open_engine(path) as engine:
        return engine.id.get("name", "unknown engine")


# ---------------------------------------------------------------- one engine per worker

_WORKER_ENGINES = {}                 # (process id, thread id) -> engine
_WORKER_LOCK = threading.Lock()


def worker_engine(path: str):
    """This worker's Stockfish (``open_engine(path)``), started on first use and kept."""
    key = (os.getpid(), threading.get_ident())
    engine = _WORKER_ENGINES.get(key)
    if engine is None:
        engine = open_engine(path)
        with _WORKER_LOCK:
            if not any(k[0] == key[0] for k in _WORKER_ENGINES):
                # quit this process's engines when it ends (a pool's worker processes
                # skip atexit; multiprocessing runs these finalizers in every process)
                multiprocessing.util.Finalize(None, stop_worker_engines, exitpriority=10)
            _WORKER_ENGINES[key] = engine
    return engine


def stop_worker_engines() -> None:
    """Stop the worker engines this process started (also done when it exits)."""
    with _WORKER_LOCK:
        mine = [k for k in _WORKER_ENGINES if k[0] == os.getpid()]
        engines = [_WORKER_ENGINES.pop(k) for k in mine]
    for engine in engines:
        quit_engine(engine)

