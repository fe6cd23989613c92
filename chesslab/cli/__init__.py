"""The command line, ``python -m chesslab COMMAND ...``: every command in one place.

    data     {games, label, extend, leaves, build, policy-labels, random-positions, info}
                                                     training data (Stockfish games, labels)
    train    {nets, bayes, bootstrap, supervised, recalibrate, selfplay}  models into data/models
    results  {evaluators, depth-cost, tournament, ladder, event-ladder, match, recipe, bayes,
              bayes-matches, mcts-matches, mcts-tuning, mcts-losses, network-steps,
              mcts-head-to-head, rerate-matches, net-comparison}
                                                     data/results/*.json
    match    --white SPEC --black SPEC --games N     a match, with a score and an Elo estimate
    bestmove --fen FEN --player SPEC                 one search, its move and its line
    figures  [--out DIR] [--only NAME ...]           every figure of figures/
    tournament PLAYERS_DIR --format F --games N --move-time S [--workers N | --scheduler A]
             --out standings.json                    the class event, each player isolated
    course   release OUTDIR | grade SUBMISSIONS_DIR --out grades.csv
                                                     student notebooks (nbgrader), grading
    uci      [SPEC]                                  a player as a UCI engine (chess GUIs)

(``subcommands()`` reads the same lists from the parser; a test keeps this one equal.)

Each command parses its options, checks what it can before any work (numbers that make
no sense, files that cannot be written) and calls plain functions of the modules that
do the work. Errors are one line on stderr and exit status 2. Each command or group has
a module (``cli.data``, ``cli.train``, ``cli.results``, ``cli.match`` for match and
bestmove, ``cli.figures``, ``cli.tournament``, ``cli.course``, ``cli.uci``), with what
they share in ``cli.common``; this module builds the parser.

Older spellings still work and are not shown in the help: ``train NAME`` is
``train nets NAME``, ``selfplay`` is ``train selfplay``, ``bootstrap`` is
``train bootstrap`` and ``evaluate-models`` is ``results evaluators`` (the README, the
notebooks and the results files that record the command that made them may name them).
"""
from __future__ import annotations

import argparse
import functools
import sys

from chesslab.base.parallel import executor_for
from chesslab.base.text import keep_printing
from chesslab.cli.common import Parser, path_problem
from chesslab.cli.course import add_course
from chesslab.cli.data import add_data
from chesslab.cli.figures import add_figures
from chesslab.cli.match import add_match
from chesslab.cli.results import add_results
from chesslab.cli.tournament import add_tournament
from chesslab.cli.train import add_train
from chesslab.cli.uci import add_uci
from chesslab.matches.players import EngineStopped

#: Old spellings -> new ones (``train NAME`` -> ``train nets NAME`` is handled apart).
ALIASES = {"selfplay": ("train", "selfplay"), "bootstrap": ("train", "bootstrap"),
           "evaluate-models": ("results", "evaluators")}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m chesslab",
                     description="chesslab: build, train and play chess AIs.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in (add_data, add_train, add_results, add_match, add_figures, add_tournament,
                add_course, add_uci):
        add(sub)
    return parser


@functools.cache
def subcommands() -> dict:
    """``{command: its subcommands}`` as the parser has them (() for a command without)."""
    def choices(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices
        return {}
    return {name: tuple(choices(p)) for name, p in choices(build_parser()).items()}


def new_spelling(argv) -> list:
    """``argv`` with an old spelling of a command replaced by the new one."""
    argv = list(argv)
    if argv and argv[0] in ALIASES:
        return [*ALIASES[argv[0]], *argv[1:]]
    if argv[:1] == ["train"] and len(argv) > 1 and argv[1] not in subcommands()["train"] \
            and not argv[1].startswith("-"):
        return ["train", "nets", *argv[1:]]                # train NAME ... (before: nets)
    return argv


def main(argv=None) -> int:
    keep_printing()         # a name or path the console's encoding lacks prints escaped
    argv = new_spelling(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 1
        args.command_line = " ".join(["python -m chesslab", *argv])
        if getattr(args, "scheduler", None) is None:
            if getattr(args, "workers", 0) is None:
                args.workers = args.default_workers
            return int(args.func(args) or 0)
        with executor_for(None, args.scheduler) as args.workers:   # a Dask cluster
            return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, TypeError, EngineStopped) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:                 # a path the system refuses, from any option
        print(f"error: {path_problem(exc)}", file=sys.stderr)
        return 2
