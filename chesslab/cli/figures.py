"""``python -m chesslab figures``: every figure of figures/, drawn again."""
from __future__ import annotations

import time

from chesslab.base.files import check_writable_dir
from chesslab.cli.common import defaults_from
from chesslab.figures import make_figures


def _figures(args):
    check_writable_dir(args.out, "--out folder")
    start = time.perf_counter()
    report = make_figures(args.out, args.only, progress=not args.quiet)
    for name, status in report:
        print(f"{name:22s} {status}")
    made = sum(status == "ok" for _, status in report)
    print(f"{made} figure(s) written to {args.out}/ (PNG + SVG) in "
          f"{time.perf_counter() - start:.1f} s")
    return 0 if made == len(report) else 1


def add_figures(sub):
    p = sub.add_parser("figures", help="draw the thesis figures into figures/")
    p.add_argument("--out", help="output folder")
    p.add_argument("--only", nargs="+", metavar="NAME", help="only these figures")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    defaults_from(p, make_figures, out="out_dir")
    p.set_defaults(func=_figures)
