"""Grading a folder of returned notebooks without a hub: ``python -m chesslab course grade``.

What nbgrader's ``autograde`` does, for a teacher who collected files by mail or on a
USB stick: each notebook is matched with its source notebook (by name), its test cells
are put back from the source (the hidden tests with them, and a student's edits to a
test cell undone), and it runs in a fresh kernel of this Python, in a process of its
own, with a time limit per cell and per notebook. A test cell scores as nbgrader scores
it (an error or anything on stderr: 0; else its points), so both routes agree.

Whatever goes wrong in a student's notebook costs only what depends on it: a cell that
raises is recorded and the run goes on; a cell that runs past the time limit is
interrupted; when the kernel dies, it is started again and the notebook re-run without
the cells that killed it. Each row of the CSV says, besides the points, the checker's
one line and what failed in that notebook. A student who returned no copy of a graded
notebook gets its exercises at 0, "not submitted", so a total is out of the whole course.

A file whose name is no course notebook's but starts with one (``11_mcts-Copy1.ipynb``,
``07_alpha_beta (2).ipynb``) is graded as that notebook when it is the student's only
copy of it, with a warning; other files are skipped with a warning. The notebooks run
through ``base.parallel``: ``workers`` at a time on this machine, or on a Dask cluster
(``--scheduler``, as the tournament), each in a kernel of its own.
"""
from __future__ import annotations

import atexit
import contextlib
import csv
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from chesslab.base.files import atomic_path, read_json, write_json_atomic
from chesslab.base.parallel import parallel_map
from chesslab.base.text import run_text
from chesslab.course.release import NOTEBOOKS_DIR, source_notebooks

#: The CSV's columns, one row per student, notebook and exercise.
COLUMNS = ("student", "notebook", "exercise", "points", "max_points", "feedback", "problems")


@dataclass
class Row:
    student: str
    notebook: str
    exercise: str
    points: float
    max_points: float
    feedback: str
    problems: str = ""


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_test(cell) -> bool:
    """An autograded test cell (nbgrader: a grade cell that is no solution)."""
    meta = _nbgrader(cell)
    return bool(meta.get("grade")) and not meta.get("solution") and cell["cell_type"] == "code"


def cell_points(cell) -> float:
    """nbgrader's score of an executed test cell: 0 after an error or any stderr
    output, a number it shows as its result (partial credit, at most the points), else
    all its points."""
    points = float(_nbgrader(cell)["points"])
    for output in cell.get("outputs", []):
        if output["output_type"] == "error" or (output["output_type"] == "stream"
                                                and output.get("name") == "stderr"):
            return 0.0
        if output["output_type"] == "execute_result":
            try:
                return max(0.0, min(points, float(output["data"]["text/plain"])))
            except (KeyError, ValueError):
                return points
    return points


def feedback(cell) -> str:
    """One line for the student: the checker's verdict, or what stopped the test."""
    lines, error, stderr = [], None, False
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream" and output.get("name") == "stderr":
            stderr = True
        elif output["output_type"] == "stream":
            lines += [line for line in output["text"].splitlines() if line.strip()]
        elif output["output_type"] == "error":
            error = output
    shown = lines[0] if lines else ""
    if error is None and stderr:
        return f"{shown}; 0 points: the test wrote to stderr (a failure for nbgrader)".lstrip("; ")
    if error is None:
        return shown or "passed"
    message = str(error.get("evalue", "")).splitlines()
    message = message[0] if message else ""
    if error.get("ename") == "AssertionError":
        if message and message != shown:          # the hidden cases found a difference
            return f"{shown}; hidden tests: {message}" if shown else f"hidden tests: {message}"
        return shown or "the test failed"
    if error.get("ename") == "KeyboardInterrupt":
        stopped = "stopped: it ran over the time limit of a cell"
    else:
        stopped = f"the test raised {error.get('ename')}" + (f": {message}" if message else "")
    return f"{shown}; {stopped}" if shown else stopped


def _match_source(path: Path, sources: dict) -> str | None:
    """The source notebook a returned file is (``07_alpha_beta.ipynb`` or
    ``anna_07_alpha_beta.ipynb``): the longest source name its name ends with."""
    names = [name for name in sources if path.stem == name or path.stem.endswith("_" + name)
             or path.stem.endswith("-" + name)]
    return max(names, key=len) if names else None


def _renamed_source(path: Path, sources: dict) -> str | None:
    """The source notebook a renamed copy starts with (``11_mcts-Copy1``, ``11_mcts (1)``,
    ``anna_11_mcts-Copy1`` in a flat folder), or None."""
    names = [name for name in sources
             if any(part.startswith(name) and part[len(name):len(name) + 1] in " -_.(" for part
                    in (path.stem, *path.stem.split("_", 1)[1:]))]
    return max(names, key=len) if names else None


def returned_notebooks(folder, sources: dict, warn=print) -> list[tuple[str, str, Path]]:
    """(student, notebook, file) for every returned notebook: one subfolder per student
    (any depth, as nbgrader's submitted/STUDENT/ASSIGNMENT/ has), or
    ``student_notebook.ipynb`` files side by side. A renamed copy (``11_mcts-Copy1``) is
    graded when it is the student's only copy of that notebook; ``warn`` is told about
    every renamed or unknown file."""
    folder = Path(folder)
    if folder.is_file():
        raise ValueError(f"{folder} is a file; give the folder of returned notebooks (one "
                         f"subfolder per student, or STUDENT_NOTEBOOK.ipynb files)")
    if not folder.is_dir():
        raise FileNotFoundError(f"no folder of submissions at {folder}")
    found, renamed = [], []
    # by the relative path's text: the same order on every system (Windows sorts paths
    # without case: anna before Zoe there, after it elsewhere)
    for path in sorted(folder.rglob("*.ipynb"), key=lambda p: p.relative_to(folder).as_posix()):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts):
            continue                               # .ipynb_checkpoints and the like
        name = _match_source(path, sources)
        if name is not None:
            student = (relative.parts[0] if len(relative.parts) > 1
                       else path.stem[:-len(name)].rstrip("_-") or path.stem)
            found.append((student, name, path))
        elif (name := _renamed_source(path, sources)) is not None:
            student = (relative.parts[0] if len(relative.parts) > 1
                       else path.stem[:path.stem.index(name)].rstrip("_-") or path.stem)
            renamed.append((student, name, path))
        else:
            warn(f"warning: {relative} is not named after a course notebook: skipped")
    have = {(student, name) for student, name, _ in found}
    for student, name, path in renamed:
        relative = path.relative_to(folder)
        if (student, name) in have:
            warn(f"warning: {relative} looks like a copy of {name}.ipynb, which {student} "
                 f"also returned: skipped (the file named {name}.ipynb is graded)")
        else:
            warn(f"warning: {relative} is not named {name}.ipynb: graded as {name} "
                 f"({student}'s only copy of it)")
            found.append((student, name, path))
            have.add((student, name))
    if not found:
        raise FileNotFoundError(f"no course notebook in {folder} (expected STUDENT/NAME.ipynb "
                                f"or STUDENT_NAME.ipynb, NAME one of {sorted(sources)[0]}...)")
    return found


def prepare(student_nb: dict, source_nb: dict) -> tuple[dict, list[str]]:
    """The notebook to run: the student's cells with every test cell taken from the
    source (hidden tests back in; a deleted one put back after its exercise), cut after
    the last test cell (nothing below it can change a grade). Also what was repaired."""
    tests = {_nbgrader(c)["grade_id"]: c for c in source_nb["cells"] if is_test(c)}
    cells, notes, seen = [], [], set()
    for cell in student_nb["cells"]:
        grade_id = _nbgrader(cell).get("grade_id")
        if grade_id in tests and grade_id not in seen:
            cell = dict(tests[grade_id], outputs=[], execution_count=None)
            seen.add(grade_id)
        elif is_test(cell):
            continue                               # a copy of a test cell, or an unknown one
        cells.append(cell)
    for index, source_cell in enumerate(source_nb["cells"]):
        grade_id = _nbgrader(source_cell).get("grade_id")
        if grade_id in tests and grade_id not in seen:
            notes.append(f"test cell {grade_id} was missing: put back")
            before = _nbgrader(source_nb["cells"][index - 1]).get("grade_id") if index else None
            at = next((i + 1 for i, c in enumerate(cells)
                       if before and _nbgrader(c).get("grade_id") == before), len(cells))
            cells.insert(at, dict(source_cell, outputs=[], execution_count=None))
            seen.add(grade_id)
    last = max((i for i, c in enumerate(cells) if is_test(c)), default=-1)
    nb = dict(student_nb, cells=cells[:last + 1])
    nb.setdefault("metadata", {})["kernelspec"] = source_nb["metadata"].get("kernelspec")
    return nb, notes


# ------------------------------------------------------------------ one notebook, one process
def run_notebook(nb_path, out_path, cell_timeout: float):
    """Execute a prepared notebook in a fresh kernel (in this process; ``grade`` starts
    one process per notebook) and write the executed notebook with what failed."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    nb = nbformat.read(nb_path, as_version=4)
    skipped, problems = set(), []
    workdir = tempfile.mkdtemp(prefix="chesslab-grade-")
    # removed when this grading process ends (its kernels are shut down by then; a file
    # a student's code left open on Windows only leaves the folder behind)
    atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    while True:
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        client = NotebookClient(nb, timeout=cell_timeout, kernel_name="python3",
                                allow_errors=True, interrupt_on_timeout=True,
                                resources={"metadata": {"path": workdir}})
        died = None
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                if index in skipped or cell.cell_type != "code":
                    continue
                try:
                    client.execute_cell(cell, index)
                except DeadKernelError:
                    died = index
                    break
        if died is None:
            break
        skipped.add(died)
        problems.append(f"cell {died + 1} stopped the kernel (re-run without it)")
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and not is_test(cell):
            for output in cell.outputs:
                if output.output_type == "error" and index not in skipped:
                    what = _nbgrader(cell).get("grade_id") or f"cell {index + 1}"
                    message = str(output.evalue).splitlines()[0] if output.evalue else ""
                    if output.ename == "KeyboardInterrupt":
                        problems.append(f"{what} ran over the time limit")
                    else:
                        problems.append(f"{what} raised {output.ename}: {message}")
    for index in skipped:
        nb.cells[index].outputs = [nbformat.v4.new_output(
            "error", ename="DeadKernelError", evalue="this cell stopped the kernel", traceback=[])]
    with atomic_path(out_path, suffix=".ipynb") as tmp:
        nbformat.write(nb, tmp)
    write_json_atomic(str(out_path) + ".json", {"problems": problems})


def grade_job(job) -> list[Row]:
    """Run one submission (``(student, notebook, its text, the source notebook, cell
    limit, notebook limit)``: plain data, so a Dask worker on another machine can take
    it) in a kernel of its own; its rows (every exercise, even when the notebook could
    not be read or ran out of time)."""
    import nbformat
    student, name, text, source_nb, cell_timeout, timeout = job
    tests = [c for c in source_nb["cells"] if is_test(c)]

    def rows(executed, problems):
        by_id = {_nbgrader(c).get("grade_id"): c for c in executed if is_test(c)}
        out = []
        for test in tests:
            grade_id = _nbgrader(test)["grade_id"]
            cell = by_id.get(grade_id)
            ran = cell is not None and cell.get("execution_count") is not None
            out.append(Row(student, name, grade_id.removeprefix("test_"),
                           cell_points(cell) if ran else 0.0, float(_nbgrader(test)["points"]),
                           feedback(cell) if ran else "not run", "; ".join(problems)))
        return out
    try:
        student_nb = nbformat.reads(text, as_version=4)
    except Exception as exc:                       # noqa: BLE001  (any unreadable file)
        return rows([], [f"not a readable notebook: {type(exc).__name__}: {exc}"])
    nb, notes = prepare(student_nb, source_nb)
    with tempfile.TemporaryDirectory(prefix="chesslab-grade-") as tmp:
        given, done = Path(tmp) / "submitted.ipynb", Path(tmp) / "graded.ipynb"
        nbformat.write(nbformat.from_dict(nb), given)
        command = [sys.executable, "-m", "chesslab.course.grade", str(given), str(done),
                   str(cell_timeout)]
        try:
            finished = run_text(command, timeout=timeout,
                                env=dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1"))
            if finished.returncode != 0:
                last = (finished.stderr.strip().splitlines() or ["no message"])[-1]
                return rows([], notes + [f"grading stopped: {last}"])
        except subprocess.TimeoutExpired:
            return rows([], notes + [f"the notebook ran over {timeout:g} s and was stopped"])
        problems = read_json(str(done) + ".json", "grading notes")["problems"]
        return rows(nbformat.read(done, as_version=4).cells, notes + problems)


def _read_text(path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"unreadable: {exc}"                # nbformat then says it is no notebook


def grade(submissions, out=None, workers=2, cell_timeout: float = 120,
          timeout: float = 900, source=None, progress: bool = True, warn=print) -> list[Row]:
    """Grade every returned notebook in ``submissions``; write the rows to ``out``
    (CSV) if given. ``workers`` notebooks run at once (one kernel each), or ``workers`` is
    an executor (``parallel.executor_for``: a Dask cluster). Every student found gets a
    row for every exercise of the course: a notebook not returned is 0, "not submitted"."""
    import nbformat
    sources = {p.stem: nbformat.read(p, as_version=4)
               for p in source_notebooks(source or NOTEBOOKS_DIR)}
    graded = [name for name in sorted(sources) if any(is_test(c) for c in sources[name]["cells"])]
    found = returned_notebooks(submissions, sources, warn=warn)
    jobs = [(student, name, _read_text(path), sources[name], cell_timeout, timeout)
            for student, name, path in found if name in graded]
    if not jobs:
        raise ValueError(f"none of the notebooks in {submissions} has an exercise to grade")
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(jobs), desc="grading", unit="notebook")
    try:
        # A number of workers: threads suffice (each job runs its own kernel process);
        # otherwise an executor, e.g. a Dask cluster's, used as it is.
        pool = (ThreadPoolExecutor(max_workers=max(1, workers)) if isinstance(workers, int)
                else contextlib.nullcontext(workers))
        with pool as executor:
            results = parallel_map(grade_job, jobs, executor,
                                   on_result=(lambda i, r: bar.update()) if bar else None)
    finally:
        if bar:
            bar.close()
    rows = [row for found_rows in results for row in found_rows]
    returned = {(student, name) for student, name, *_ in jobs}
    for student in sorted({student for student, *_ in jobs}):
        for name in graded:
            if (student, name) not in returned:
                rows += [Row(student, name, _nbgrader(c)["grade_id"].removeprefix("test_"), 0.0,
                             float(_nbgrader(c)["points"]), "not submitted")
                         for c in sources[name]["cells"] if is_test(c)]
    if out:
        write_csv(rows, out)
    return rows


def write_csv(rows, path):
    """The rows as a CSV file, written atomically, in UTF-8 with a byte-order mark: Excel
    reads a CSV without one in the system's encoding (cp1252 on Windows), which garbles
    a name such as Zoë and every → in the feedback."""
    with atomic_path(path, suffix=".csv") as tmp:
        with open(tmp, "w", newline="", encoding="utf-8-sig") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            writer.writeheader()
            for row in rows:
                writer.writerow(asdict(row))


def totals(rows) -> dict:
    """{student: (points, max points, notebooks returned, graded notebooks)} over every
    exercise of the course (the rows of notebooks not returned count 0)."""
    found, returned, notebooks = {}, {}, {}
    for row in rows:
        points, most = found.get(row.student, (0.0, 0.0))
        found[row.student] = (points + row.points, most + row.max_points)
        notebooks.setdefault(row.student, set()).add(row.notebook)
        if row.feedback != "not submitted":
            returned.setdefault(row.student, set()).add(row.notebook)
    return {student: (*found[student], len(returned.get(student, ())), len(notebooks[student]))
            for student in found}


if __name__ == "__main__":                        # one notebook, run by ``grade``
    run_notebook(sys.argv[1], sys.argv[2], float(sys.argv[3]))
