"""``python -m chesslab course {release, grade}``: the student course and its grading
(``course.release``, ``course.grade``)."""
from __future__ import annotations

from chesslab.cli.common import check_outputs, defaults_from, positive, workers_args


def _release(args):
    from chesslab.course.release import release
    written = release(args.outdir)
    notebooks = [p for p in written if p.suffix == ".ipynb"]
    print(f"{len(notebooks)} student notebooks and {len(written) - len(notebooks)} other files "
          f"written to {args.outdir} (no solutions, no hidden tests, no outputs)")


def _grade(args):
    from chesslab.course.grade import grade, totals
    check_outputs(args, out="grades file")
    rows = grade(args.submissions, out=args.out, workers=args.workers,
                 cell_timeout=args.cell_timeout, timeout=args.timeout,
                 progress=not args.quiet)
    for student, (points, most, returned, notebooks) in sorted(totals(rows).items()):
        missing = notebooks - returned
        print(f"{student:24s} {points:g} of {most:g} points for the course ({returned} of "
              f"{notebooks} graded notebooks returned"
              + (f"; {missing} not submitted, 0 points" if missing else "") + ")")
    if args.out:
        print(f"one row per student and exercise written to {args.out}")


def add_course(sub):
    from chesslab.course.grade import grade
    p = sub.add_parser("course", help="the student course (release) and its grading (grade)")
    course = p.add_subparsers(dest="course_command", metavar="{release,grade}", required=True)
    r = course.add_parser("release", help="write the student notebooks (no answers) to OUTDIR")
    r.add_argument("outdir", metavar="OUTDIR", help="folder for the student course")
    r.set_defaults(func=_release)
    g = course.add_parser("grade", help="grade a folder of returned notebooks")
    g.add_argument("submissions", metavar="SUBMISSIONS_DIR",
                   help="one subfolder per student, or STUDENT_NOTEBOOK.ipynb files")
    g.add_argument("--out", help="CSV: one row per student and exercise")
    workers_args(g, 2, "notebooks graded at once (one kernel each)")
    g.add_argument("--cell-timeout", type=positive, help="seconds a cell may run")
    g.add_argument("--timeout", type=positive, help="seconds a whole notebook may run")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.set_defaults(func=_grade)
    defaults_from(g, grade)
