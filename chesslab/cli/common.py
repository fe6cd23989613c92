"""What every command shares: one-line errors, argument types, checks made before
any work, and how results are written."""
from __future__ import annotations

import argparse
import errno
import inspect
from pathlib import Path

from chesslab.base.files import MODELS_DIR, check_writable, write_json_atomic
from chesslab.training.naive_bayes import game_sample


class Parser(argparse.ArgumentParser):
    """A bad command line is one error line like any other, not a usage dump."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", ShowDefaults)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise ValueError(f"{message} (see {self.prog} --help)")


class ShowDefaults(argparse.HelpFormatter):
    """``--help`` shows each option's default, wherever it was set (``defaults_from``)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (action.option_strings and "default" not in text
                and not any(action.default is x for x in (None, False, argparse.SUPPRESS))):
            text += " (default: %(default)s)"
        return text


def defaults_from(parser, function, **parameters):
    """Give every option of ``parser`` that is a parameter of ``function`` (the option's
    dest, or ``dest="parameter"`` in ``parameters``) that parameter's default.

    A default is written once, in the signature of the function that does the work: the
    command line, a notebook and a teacher's script then agree without a second copy."""
    signature = inspect.signature(function).parameters
    found = {}
    for action in parser._actions:
        parameter = signature.get(parameters.get(action.dest, action.dest))
        if parameter is not None and parameter.default is not inspect.Parameter.empty:
            found[action.dest] = parameter.default
    parser.set_defaults(**found)


#: What to do when the system refuses a path, by its error number.
_PATH_ADVICE = {
    errno.ENAMETOOLONG: "give a shorter path",
    errno.EACCES: "check its permissions or choose another folder",
    errno.EPERM: "check its permissions or choose another folder",
    errno.EISDIR: "give a file name inside it",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EROFS: "the disk is read-only; choose another folder",
    errno.ENOSPC: "the disk is full; free some space and run again",
}


def path_problem(exc: OSError) -> str:
    """One line for a path the system refused, whichever option or file it came from:
    every command reads and writes files, and a traceback (or a file name thousands of
    characters long repeated in full) hides what to change."""
    if exc.errno is None:
        return str(exc)                     # chesslab's own message already says it
    name = exc.filename2 if exc.filename is None else exc.filename
    advice = _PATH_ADVICE.get(exc.errno, "check the path")
    if name is not None and exc.errno == errno.EACCES and Path(name).is_dir():
        advice = _PATH_ADVICE[errno.EISDIR]   # Windows says "Permission denied" for a folder
    if name is None:
        return f"{exc.strerror or exc}; {advice}"
    shown = str(name)
    if len(shown) > 200:                   # a usable path, or else its start
        shown = f"{shown[:60]}... ({len(shown):,} characters)"
    return f"cannot use the path {shown}: {exc.strerror}; {advice}"


def at_least(least: int):
    """argparse type: a whole number of at least ``least``."""
    def whole_number(text):
        value = int(text)
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value
    return whole_number


def positive(text):
    """argparse type: a number above 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value:g}")
    return value


def fraction(text):
    """argparse type: a number strictly between 0 and 1."""
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value:g}")
    return value


def on_off(text):
    """argparse type: ``on`` (True) or ``off`` (False)."""
    if text.lower() not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"expected on or off, got {text!r}")
    return text.lower() == "on"


COUNT = at_least(1)


def model_path(text):
    """argparse type: a network file, as a path or by its name in the shipped models
    folder (``policy_value_selfplay.json``), so that a command copied from a notebook
    runs from any folder, where the course's files are inside the installed package."""
    path = Path(text)
    if path.exists() or path.parent != Path("."):
        return str(path)
    shipped = MODELS_DIR / path.name
    return str(shipped) if shipped.exists() else str(path)


def check_outputs(args, **what):
    """Fail before any work if an output file cannot be written: ``flag="what"``."""
    for flag, name in what.items():
        if getattr(args, flag, None):
            check_writable(getattr(args, flag), name)


def endings(terminations) -> str:
    counts = {}
    for ending in terminations:
        counts[ending] = counts.get(ending, 0) + 1
    return "endings: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def write_result(path, data) -> int:
    path = write_json_atomic(path, data, indent=1)
    print(f"written to {path}")
    return 0


def game_sample_args(p):
    """The options of ``training.naive_bayes.game_sample``: which games, and how they are
    split (its defaults)."""
    p.add_argument("--pgn", help="game records")
    p.add_argument("--seed", type=int, help="of the split by game")
    p.add_argument("--test-fraction", type=fraction, help="games held out (not trained on)")
    defaults_from(p, game_sample)


def workers_args(p, default: int | None, what: str = "games played at once"):
    """``--workers N`` (local processes) or ``--scheduler ADDRESS`` (a Dask cluster):
    where a command's jobs run. ``main`` turns them into ``args.workers``, a count or an
    executor (``parallel.executor_for``), before the command runs."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=COUNT, default=None,
                       help=f"local processes, {what}" + (f" (default {default})"
                                                          if default else ""))
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="run the jobs on a Dask cluster instead, e.g. tcp://HOST:8786 "
                            "(`dask scheduler`, then `dask worker ADDRESS --nthreads 1` on "
                            "each machine)")
    p.set_defaults(default_workers=default)
