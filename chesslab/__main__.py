"""Command line: ``python -m chesslab COMMAND ...``.

Each module that offers commands defines ``register_cli(subparsers)``, adding its
subcommands with ``set_defaults(func=...)``; list it in ``_COMMAND_MODULES``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from chesslab.players import EngineStopped

# Modules that contribute subcommands (in help order).
_COMMAND_MODULES = (
    "chesslab.data",
    "chesslab.selfplay",
    "chesslab.bootstrap",
    "chesslab.figures",
    "chesslab.results",
    "chesslab.arena",
    "chesslab.training",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m chesslab",
                                     description="chesslab: build, train and play chess AIs.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register_cli(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 1
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, TypeError, EngineStopped) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
