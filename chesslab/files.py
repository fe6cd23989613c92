"""Files and external programs: atomic JSON writes, shipped data paths, Stockfish.

Everything that writes a model or a dataset goes through ``write_json_atomic`` /
``atomic_path``: the data goes to a temporary file beside the target, which is then
renamed over it, so an interrupted save never leaves a half-written model behind.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path

#: The repository's data/ folder (shipped datasets, trained weights, results).
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
#: Shipped trained models.
MODELS_DIR = DATA_DIR / "models"


@contextlib.contextmanager
def atomic_path(path, suffix: str = ""):
    """Yield a temporary path next to ``path``; on success rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or ".tmp",
                               dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)      # mkstemp makes 0600; give the usual file mode
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _probe_folder(folder: Path, name: str) -> str | None:
    """Why ``folder`` cannot take a new file (None if it can): really creates and
    removes a scratch file, since permission bits alone do not tell (root ignores
    them; a read-only disk does not show in them)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".check", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def check_writable(path, what: str = "output file") -> Path:
    """Fail now, with one line, if ``path`` cannot be written: called before long work
    (a match, a training run) so that the work is not done and then lost at the save."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"the {what} {path} is a folder; give a file name inside it")
    problem = _probe_folder(path.parent, path.name)
    if problem:
        raise ValueError(f"cannot write the {what} {path} ({problem}); choose a folder "
                         f"you can write to")
    return path


def check_writable_dir(folder, what: str = "output folder") -> Path:
    """Like ``check_writable``, for a folder that files will be written into."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"the {what} {folder} is a file, not a folder")
    problem = _probe_folder(folder, "chesslab")
    if problem:
        raise ValueError(f"cannot write into the {what} {folder} ({problem}); choose a "
                         f"folder you can write to")
    return folder


def write_json_atomic(path, obj, indent=None) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically (temp file + rename)."""
    path = Path(path)
    with atomic_path(path, suffix=".json.tmp") as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, indent=indent, allow_nan=False)
            fh.flush()
            os.fsync(fh.fileno())
    return path


def read_json(path, what: str = "file"):
    """Read a JSON file with errors that say which file and what is wrong."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{what} {path} does not exist")
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} {path} is not valid JSON (line {exc.lineno}, column "
                         f"{exc.colno}: {exc.msg}); it may be truncated or not a "
                         f"chesslab file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{what} {path} is not a text file; chesslab files are JSON "
                         f"(never pickle)") from None


STOCKFISH_HELP = (
    "Stockfish was not found. Install it with `sudo apt-get install stockfish` (Debian/"
    "Ubuntu; the binary is /usr/games/stockfish) or `brew install stockfish` (macOS), "
    "or point the CHESSLAB_STOCKFISH environment variable at a Stockfish binary.")


def find_stockfish(required: bool = True) -> str | None:
    """Path of a Stockfish binary: $CHESSLAB_STOCKFISH, then PATH, then /usr/games."""
    env = os.environ.get("CHESSLAB_STOCKFISH")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        if required:
            raise FileNotFoundError(f"CHESSLAB_STOCKFISH={env!r} is not an executable "
                                    f"file. " + STOCKFISH_HELP)
        return None
    for candidate in (shutil.which("stockfish"), "/usr/games/stockfish",
                      "/usr/local/bin/stockfish", "/opt/homebrew/bin/stockfish"):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    if required:
        raise FileNotFoundError(STOCKFISH_HELP)
    return None


#: Seconds a program gets to answer the UCI handshake before it is called "not an engine".
ENGINE_START_TIMEOUT = 10.0


def start_engine(path: str | None = None):
    """Start a UCI engine (Stockfish by default) as a ``chess.engine.SimpleEngine``,
    with one clear line when the program is not an engine or never answers."""
    import chess.engine

    path = path or find_stockfish()
    try:
        return chess.engine.SimpleEngine.popen_uci(path, timeout=ENGINE_START_TIMEOUT)
    except TimeoutError:
        raise ValueError(f"{path} did not answer the UCI handshake within "
                         f"{ENGINE_START_TIMEOUT:g} s, so it is not a working chess "
                         f"engine; point CHESSLAB_STOCKFISH at a Stockfish binary") from None
    except (chess.engine.EngineError, OSError) as exc:
        raise ValueError(f"{path} is not a working UCI chess engine ({exc or type(exc).__name__}); "
                         f"point CHESSLAB_STOCKFISH at a Stockfish binary") from None


def quit_engine(engine) -> None:
    """Stop an engine, quietly if it has already died: closing must never hide the
    error that killed it."""
    import chess.engine

    try:
        engine.quit()
    except (chess.engine.EngineError, TimeoutError, OSError):
        try:
            engine.close()
        except Exception:  # noqa: BLE001 - nothing more to release
            pass
