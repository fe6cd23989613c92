"""``python -m chesslab tournament PLAYERS_DIR``: the class event (``matches.event``)."""
from __future__ import annotations

from chesslab.cli.common import COUNT, check_outputs, defaults_from, positive, workers_args
from chesslab.matches.event import format_faults, format_standings, run_tournament
from chesslab.matches.formats import FORMATS

#: Options passed on to ``run_tournament`` when given (its signature has the defaults).
_OPTIONS = ("format", "games", "move_time", "seed", "rounds", "max_plies", "grace", "ladder")


def _tournament(args):
    check_outputs(args, out="standings file", figure="figure file")
    given = {k: getattr(args, k) for k in _OPTIONS if getattr(args, k) is not None}
    record = run_tournament(args.players_dir, workers=args.workers, out=args.out,
                            progress=not args.quiet, command=args.command_line, **given)
    print(format_standings(record))
    print(format_faults(record))
    if args.figure:
        from pathlib import Path

        from chesslab.figures import save_figure, standings_figure
        figure = Path(args.figure)
        [path] = save_figure(standings_figure(record), figure.parent, figure.stem,
                             formats=("png",))
        print(f"figure written to {path}")
    if args.out:
        print(f"written to {args.out} (its games in {args.out}.games.jsonl: a rerun with "
              f"the same --out plays only what is missing)")


def add_tournament(sub):
    p = sub.add_parser("tournament", help="the class tournament of a folder of players, each "
                                          "in its own process")
    p.add_argument("players_dir", metavar="PLAYERS_DIR",
                   help="folder of submissions (*.py; files starting with _ are skipped)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="gauntlet (default: each player against the course's ladder), swiss "
                        "or round-robin")
    p.add_argument("--games", type=COUNT, default=None, help="games per pairing")
    p.add_argument("--move-time", type=positive, default=None,
                   help="seconds a move; a later answer (beyond a small grace) loses")
    p.add_argument("--grace", type=positive, default=None, help="seconds allowed beyond it")
    p.add_argument("--rounds", type=COUNT, default=None, help="Swiss rounds")
    p.add_argument("--max-plies", type=COUNT, default=None,
                   help="stop a game after this many half-moves (3 pawns ahead wins)")
    p.add_argument("--ladder", nargs="+", default=None, metavar="SPEC",
                   help="the course's players the class meets (player specs)")
    p.add_argument("--seed", type=int, default=None)
    workers_args(p, None)
    p.add_argument("--out", default=None, help="standings JSON (and, beside it, the games "
                                               "played so far: rerun to resume)")
    p.add_argument("--figure", default=None, help="also draw the standings into this .png file")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    defaults_from(p, run_tournament)        # shown by --help; the signature keeps them
    p.set_defaults(func=_tournament)
