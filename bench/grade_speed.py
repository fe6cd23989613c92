"""How long ``course grade`` takes for a class: one notebook, and the whole course.

    python bench/grade_speed.py                        # 4 copies of each, extrapolated
    python bench/grade_speed.py --students 30          # the class itself (slow)
    python bench/grade_speed.py --only 07_alpha_beta   # one notebook

The student course is released into a temporary folder and ``--students`` model
submissions (the source's solutions filled into the student copy, so every cell and
test runs as for a real student who solved everything) are graded per notebook with
``--workers`` kernels at once. Grading time grows linearly with the class (each
notebook is an independent run of the same cells), so the time for ``--class-size``
students is the measured time scaled by class size / students; the script says when it
extrapolated. Prints seconds per notebook and the totals. Time it on an idle machine:
grading is CPU work, and anything else running slows it in proportion. The CPU seconds
the grading processes used are printed too: on a busy machine, CPU / workers is what the
wall clock would be with the cores to itself (a lower bound: kernels start and wait too).
"""
from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import nbformat

from chesslab.course.grade import grade, is_test
from chesslab.course.release import NOTEBOOKS_DIR, release, source_notebooks, with_solutions


def graded_notebooks(only=None) -> list[Path]:
    """The course's notebooks that have exercises (the others are not graded)."""
    paths = [p for p in source_notebooks()
             if any(is_test(c) for c in nbformat.read(p, as_version=4).cells)]
    return [p for p in paths if not only or p.stem in only]


def _children_cpu() -> float:
    """CPU seconds used so far by the finished processes this one started (the grading
    processes and their kernels); nan where the system does not count them (Windows)."""
    try:
        import resource                    # POSIX only
    except ImportError:
        return math.nan
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def time_notebook(path: Path, released: Path, students: int, workers: int, folder: Path):
    """Seconds (wall clock and CPU) to grade ``students`` model submissions of one
    notebook, and the points."""
    source = nbformat.read(path, as_version=4)
    model = with_solutions(nbformat.read(released / "notebooks" / path.name, as_version=4),
                           source)
    where = folder / path.stem
    for i in range(students):
        (where / f"student{i:02d}").mkdir(parents=True)
        nbformat.write(model, where / f"student{i:02d}" / path.name)
    start, cpu = time.perf_counter(), _children_cpu()
    rows = [r for r in grade(where, workers=workers, progress=False, warn=lambda _: None)
            if r.notebook == path.stem]             # not the rest of the course (not submitted)
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    return seconds, cpu, sum(r.points for r in rows), sum(r.max_points for r in rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=4, help="submissions graded per notebook")
    parser.add_argument("--class-size", type=int, default=30, help="the class to extrapolate to")
    parser.add_argument("--workers", type=int, default=2, help="notebooks graded at once")
    parser.add_argument("--only", nargs="+", help="notebook names (e.g. 07_alpha_beta)")
    args = parser.parse_args(argv)
    scale = args.class_size / args.students
    with tempfile.TemporaryDirectory(prefix="grade-speed-") as tmp:
        tmp = Path(tmp)
        release(tmp / "class")
        print(f"{args.students} model submissions per notebook, {args.workers} workers; "
              f"times for {args.class_size} students "
              f"{'measured' if scale == 1 else f'extrapolated linearly (x {scale:g})'}")
        total = total_cpu = 0.0
        for path in graded_notebooks(args.only):
            seconds, cpu, points, most = time_notebook(path, tmp / "class", args.students,
                                                       args.workers, tmp / "submissions")
            ok = "" if points == most else f"   <-- {points:g} of {most:g} points"
            total += seconds * scale
            total_cpu += cpu * scale / args.workers
            print(f"{path.stem:28s} {seconds:6.1f} s for {args.students}  ->  "
                  f"{seconds * scale / 60:5.1f} min for {args.class_size}   (CPU {cpu:6.1f} s: "
                  f"{cpu * scale / args.workers / 60:5.1f} min on {args.workers} free cores)"
                  f"{ok}", flush=True)
        print(f"{'the whole course':28s} {total / 60:5.1f} min for {args.class_size} students "
              f"({total_cpu / 60:.1f} min of CPU / {args.workers}; source notebooks in "
              f"{NOTEBOOKS_DIR.name}/)")


if __name__ == "__main__":
    main()
