"""Files: atomic JSON writes, shipped data paths, clear errors for unreadable files, and
models read once.

Everything that writes a model or a dataset goes through ``write_json_atomic`` /
``atomic_path``: the data goes to a temporary file beside the target, which is then
renamed over it, so an interrupted save never leaves a half-written model behind.
``load_cached`` reads a model file once and keeps what was built from it until the file
changes. A file that several commands update (results files) is read, changed and
written under its lock (``updating_json``, ``file_lock``), so none loses another's update.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import socket
import tempfile
import threading
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np

#: The package's folder (chesslab/).
_PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: The shipped datasets, trained weights and results. One rule for both installs: the
#: course's wheel carries them inside the package (chesslab/data, written by ``course
#: release``); a clone keeps them in data/ beside the package (an editable install).
DATA_DIR = (_PACKAGE_DIR / "data" if (_PACKAGE_DIR / "data").is_dir()
            else _PACKAGE_DIR.parent / "data")
#: Shipped trained models.
MODELS_DIR = DATA_DIR / "models"
#: Measured results (``python -m chesslab results ...`` writes them, figures read them).
RESULTS_DIR = DATA_DIR / "results"


#: Tries at replacing a file, a tenth of a second apart: on Windows a file another
#: program holds open (a virus scanner for a moment, Excel while it shows it) cannot be
#: replaced; elsewhere a refusal does not pass by waiting.
REPLACE_TRIES = 10 if os.name == "nt" else 1


@contextlib.contextmanager
def atomic_path(path, suffix: str = ""):
    """Yield a temporary path next to ``path``; on success rename it over ``path``.

    When ``path`` cannot be replaced (open in another program on Windows), the new
    content is kept under its temporary name and the error says where."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix or ".tmp",
                               dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)      # mkstemp makes 0600; give the usual file mode
    kept = False
    try:
        yield Path(tmp)
        for attempt in range(REPLACE_TRIES):
            try:
                os.replace(tmp, path)
                break
            except PermissionError as exc:
                if attempt + 1 < REPLACE_TRIES:
                    time.sleep(0.1)
                    continue
                kept = True
                why = ("it is open in another program; close it" if os.name == "nt"
                       else "check its permissions")
                raise PermissionError(f"cannot replace {path} ({exc.strerror}): {why}. "
                                      f"What was to be written is in {tmp}") from None
    finally:
        if not kept and os.path.exists(tmp):
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
        # "\n" on every system: the same bytes (digests, diffs) from Windows as from Linux
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            json.dump(obj, fh, indent=indent, allow_nan=False)
            fh.flush()
            os.fsync(fh.fileno())
    return path


#: Seconds a writer waits for another's lock on the same file before it says so: an
#: update holds it only while it reads, changes and writes the file, so a longer wait
#: means a lock left behind by a command that was killed.
LOCK_TIMEOUT = 30.0
#: Seconds between tries at taking a lock.
LOCK_POLL = 0.02

_HELD: dict = {}                  # lock file -> [threading.RLock, depth] of this process
_HELD_GUARD = threading.Lock()


def lock_path(path) -> Path:
    """The lock file of ``path``: hidden, beside it (.NAME.lock)."""
    path = Path(path)
    return path.parent / f".{path.name}.lock"


@contextlib.contextmanager
def file_lock(path, timeout: float | None = None):
    """Hold the one exclusive lock of ``path`` (the file ``lock_path(path)``, made with
    O_CREAT | O_EXCL, which every system creates for one process only) until the block
    ends: two commands that read, change and write the same file take turns instead of
    one losing the other's update. Only writers lock; a reader sees the old or the new
    file whole (``write_json_atomic``). The same thread may nest locks of one file.

    After ``timeout`` seconds (default ``LOCK_TIMEOUT``) of another holder, a clear error
    names the lock file: a command killed while writing leaves it behind."""
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    key = os.path.abspath(lock)
    with _HELD_GUARD:
        held = _HELD.setdefault(key, [threading.RLock(), 0])
    with held[0]:                 # threads of one process queue here
        if held[1] == 0:
            _take(lock, Path(path), LOCK_TIMEOUT if timeout is None else timeout)
        held[1] += 1
        try:
            yield lock
        finally:
            held[1] -= 1
            if held[1] == 0:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(lock)


def _take(lock: Path, target: Path, timeout: float) -> None:
    """Create ``lock`` exclusively, retrying until ``timeout``; it says who holds it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"{target} has been locked for over {timeout:g} s by the lock file "
                    f"{lock} ({_holder(lock)}): another chesslab command is writing it. If no "
                    f"chesslab command is running, one was stopped while writing: delete "
                    f"{lock} and run again") from None
            time.sleep(LOCK_POLL)
            continue
        except PermissionError:
            if os.name == "nt" and lock.exists() and time.monotonic() < deadline:
                time.sleep(LOCK_POLL)     # Windows: the lock is being deleted right now
                continue
            raise
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"process {os.getpid()} on {socket.gethostname()} since "
                     f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        return


def _holder(lock: Path) -> str:
    """Who made ``lock``, as it says."""
    try:
        return lock.read_text(encoding="utf-8").strip() or "holder unknown"
    except OSError:
        return "holder unknown"


@contextlib.contextmanager
def updating_json(path, what: str = "file", new=dict, indent=None,
                  timeout: float | None = None):
    """Read, change and write back the JSON file ``path`` under its lock (``file_lock``):
    yields the document (``new()`` when the file does not exist yet), which the block
    changes in place; on leaving the block without an error it is written atomically
    (``write_json_atomic``), else the file is left as it was. Every writer that updates a
    file others may update too (results files) goes through here, or holds ``file_lock``
    while it reads and writes, so no update is lost."""
    path = Path(path)
    with file_lock(path, timeout):
        doc = read_json(path, what) if path.exists() else new()
        yield doc
        write_json_atomic(path, doc, indent=indent)


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


#: Characters Windows refuses in a file name ("/" is refused everywhere).
_NOT_IN_NAMES = re.compile(r'[<>:"/\\|?*\x00-\x1f]')


def file_name(text: str) -> str:
    """``text`` (player specs, settings) made a file name that every system takes: each
    character Windows refuses in one (``<>:"/\\|?*`` and control characters) becomes
    "-". A spec such as ``players\\anna.py`` or ``pst:2`` names a checkpoint file, not
    a folder or, on Windows, an NTFS stream."""
    return _NOT_IN_NAMES.sub("-", text)


_CACHE = {}


def load_cached(path, load, what: str):
    """``load(path)``, built once and kept until the file changes (its size or time).

    ``what`` names the kind of object built (the same file may be read as different
    things). Callers that hand out something mutable copy what they get."""
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), what)
    signature = (stat.st_mtime_ns, stat.st_size)
    if key not in _CACHE or _CACHE[key][0] != signature:
        _CACHE[key] = (signature, load(path))
    return _CACHE[key][1]


def file_tag(path, length: int = 12) -> str:
    """The first ``length`` hex digits of a file's SHA-256: which model played, which
    model searched."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:length]


def read_npz(path, what: str = "dataset") -> dict:
    """Every array of an ``.npz`` file (no pickles), with one line naming the file when
    it is not an .npz at all, or is cut off or damaged (instead of BadZipFile, zlib.error
    or numpy's "pickled data")."""
    path = Path(path)
    with open(path, "rb") as fh:
        head = fh.read(4)
    if head not in (b"PK\x03\x04", b"PK\x05\x06"):   # how every zip (.npz) file starts
        raise ValueError(f"{what} {path} is not an .npz file (it does not start like one); "
                         f"give the .npz that chesslab wrote")
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error) as exc:
        raise ValueError(f"{what} {path} is cut off or damaged ({exc}); restore it or "
                         f"build it again") from None
