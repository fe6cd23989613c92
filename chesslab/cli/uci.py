"""``python -m chesslab uci SPEC`` and ``chesslab-uci SPEC``: a player as a UCI engine.

Enter either command in a chess GUI (Cute Chess, Arena, En Croissant) or give it to
cutechess-cli, fastchess or lichess-bot. The protocol is ``chesslab.matches.uci``; this
module only keeps stdout for the protocol (anything a player prints goes to stderr) and
says on stderr when the spec cannot be made.
"""
from __future__ import annotations

import argparse
import os
import sys

from chesslab.matches.uci import UciEngine

#: The player when no spec is given (a GUI that runs ``chesslab-uci`` alone).
DEFAULT_SPEC = "nnue"
_SPEC_HELP = ("player spec (nnue, pst@1s, mcts, cnn:3, random, ...) or a player file "
              "with choose_move(board)")


def serve(spec: str) -> int:
    """Speak UCI on this process's stdin and stdout until ``quit``; 1 if no player."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)                  # a player's prints (even from C) go to stderr
    sys.stdout = sys.stderr
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")   # bytes that are not UTF-8: a bad line

    def write(line):
        protocol.write(line + "\n")
        protocol.flush()

    engine = UciEngine(spec, write=write)
    for problem in engine.problems:
        print(f"chesslab uci: {problem}", file=sys.stderr, flush=True)
    if engine.thinker is None:
        print("chesslab uci: no player could be made", file=sys.stderr)
        return 1
    return engine.run(sys.stdin)


def _arguments(parser):
    parser.add_argument("spec", nargs="?", default=DEFAULT_SPEC, metavar="SPEC",
                        help=_SPEC_HELP)
    # lichess-bot passes its engine_options as --NAME=VALUE: --player=players/anna.py
    parser.add_argument("--player", help="the same as SPEC (wins over it)")


def _uci(args):
    return serve(args.player or args.spec)


def add_uci(sub):
    p = sub.add_parser("uci", help="a player as a UCI engine on stdin/stdout (chess GUIs)")
    _arguments(p)
    p.set_defaults(func=_uci)


def main(argv=None) -> int:
    """The ``chesslab-uci`` console script: ``chesslab-uci [SPEC]``."""
    parser = argparse.ArgumentParser(prog="chesslab-uci",
                                     description="a chesslab player as a UCI engine")
    _arguments(parser)
    return _uci(parser.parse_args(argv))
