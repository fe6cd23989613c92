"""Text that leaves Python: printed to a console or a file, or read from a child process.

chesslab's own files are UTF-8 (every ``open`` names the encoding). Two places do not
depend on chesslab alone:

* what a command prints goes to the system's console or to wherever its output was
  redirected, in the encoding the system chose. On Windows a redirected output
  (``python -m chesslab ... > log.txt``, a pipe) is cp1252, which has no "→" or "Ω":
  printing a student's name or a path with one of them raised UnicodeEncodeError after
  the work was done. ``keep_printing`` makes such a character print as an escape
  (``\\u2192``) instead;
* a child process writes its pipes in its own locale's encoding unless told otherwise;
  ``run_text`` tells a child Python to write UTF-8 and reads it as UTF-8.

``no_window()`` is what starts a console program (Stockfish, a child Python) from a
Jupyter started without a terminal on Windows (Anaconda Navigator, VS Code) without a
console window popping up for it.
"""
from __future__ import annotations

import codecs
import os
import subprocess
import sys

__all__ = ["keep_printing", "run_text", "no_window"]


def keep_printing(*streams) -> None:
    """Let ``streams`` (default: stdout and stderr) print any character: one their
    encoding lacks is written as a backslash escape instead of raising. A stream that
    can write every character (UTF-8) or cannot be reconfigured is left as it is."""
    for stream in streams or (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            universal = codecs.lookup(encoding).name.startswith("utf")
        except LookupError:
            universal = False
        if not universal and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def no_window() -> dict:
    """``subprocess`` options that start a console program without a window of its own:
    ``creationflags=CREATE_NO_WINDOW`` on Windows, none elsewhere."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NO_WINDOW}
    return {}


def run_text(command, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(command, capture_output=True)`` with its output as text: the child
    (a Python program) is told to write UTF-8, which is read as UTF-8, so what it prints
    comes back as printed whatever the system's encoding (a byte that is no UTF-8, from a
    non-Python child, becomes U+FFFD instead of raising)."""
    env = dict(kwargs.pop("env", None) or os.environ)
    env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.run(command, capture_output=True, encoding="utf-8", errors="replace",
                          env=env, **{**no_window(), **kwargs})
