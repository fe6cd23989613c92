"""course.grade: grading scores what students wrote, from a release to the grades, and
nbgrader's own autograde agrees with it.

The execute and grade parts use notebook 01 (two exercises, a few seconds a run) and
notebook 04 (one exercise). What a release holds is tests/test_course_release.py's.
"""
import codecs
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path, PureWindowsPath

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbgrader", reason="the course commands need nbgrader: "
                                       "python -m pip install -r requirements-teacher.txt")

from chesslab.course.grade import (Row, cell_points, feedback, grade,  # noqa: E402
                                   grade_job, prepare, returned_notebooks, write_csv)
from chesslab.base.text import run_text  # noqa: E402
from chesslab.course.release import (NBGRADER_CONFIG_PY,  # noqa: E402
                                     NOTEBOOKS_DIR, release, source_notebooks,
                                     with_solutions)

ROOT = NOTEBOOKS_DIR.parent
FIRST, SAMPLING = "01_board_encoding", "04_training_data"


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    release(out)
    return out


def test_an_unreadable_notebook_scores_zero_and_says_why(tmp_path):
    (tmp_path / "zoe").mkdir()
    (tmp_path / "zoe" / "04_training_data.ipynb").write_text("{not json")
    [row] = [r for r in grade(tmp_path, progress=False) if r.notebook == SAMPLING]
    assert (row.student, row.exercise, row.points, row.max_points) == (
        "zoe", "my_sample_plies", 0, 1)
    assert row.feedback == "not run" and row.problems.startswith("not a readable notebook")


def test_what_stopped_the_grading_process_comes_back_as_it_was_written(monkeypatch):
    # the grading child's pipes in cp1252, as on Windows: its message used to come back
    # as escapes (or fail to decode); here the child stops at once, on its time limit
    monkeypatch.setenv("PYTHONIOENCODING", "cp1252")
    text = (NOTEBOOKS_DIR / f"{SAMPLING}.ipynb").read_text(encoding="utf-8")
    source = nbformat.reads(text, as_version=4)
    rows = grade_job(("zoë", SAMPLING, text, source, "Ω→", 60))
    assert rows and all(r.problems == "grading stopped: ValueError: could not convert "
                                      "string to float: 'Ω→'" for r in rows)


def test_the_grades_csv_opens_in_a_spreadsheet_with_its_names_and_arrows(tmp_path):
    rows = [Row("Zoë", FIRST, "my_planes14", 1.0, 2.0, "a → b"),
            Row("anna", FIRST, "my_planes14", 2.0, 2.0, "passed, 1,2\nnext line")]
    write_csv(rows, tmp_path / "grades.csv")
    raw = (tmp_path / "grades.csv").read_bytes()
    assert raw.startswith(codecs.BOM_UTF8)      # how Excel tells UTF-8 from cp1252
    assert raw.count(b"\r\n") == 3             # the csv module's line ends, no \r\r\n
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8-sig") as handle:
        back = [Row(**{**r, "points": float(r["points"]), "max_points": float(r["max_points"])})
                for r in csv.DictReader(handle)]
    assert back == rows


def test_students_come_in_the_same_order_on_every_system(tmp_path):
    for student in ("anna", "Zoe", "bob"):
        (tmp_path / student).mkdir()
        (tmp_path / student / f"{FIRST}.ipynb").write_text("{}", encoding="utf-8")
    found = returned_notebooks(tmp_path, {FIRST: None})
    assert [student for student, *_ in found] == ["Zoe", "anna", "bob"]
    windows = sorted(PureWindowsPath(tmp_path / s) for s in ("anna", "Zoe", "bob"))
    assert [p.name for p in windows] == ["anna", "bob", "Zoe"]   # what sorting paths gave there


def test_the_grading_process_leaves_no_working_folder_behind(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os; print(os.getcwd())")])
    nbformat.write(nb, tmp_path / "in.ipynb")
    run = run_text([sys.executable, "-m", "chesslab.course.grade", str(tmp_path / "in.ipynb"),
                    str(tmp_path / "out.ipynb"), "60"], timeout=300)
    assert run.returncode == 0, run.stderr
    folder = nbformat.read(tmp_path / "out.ipynb", as_version=4).cells[0].outputs[0].text
    assert "chesslab-grade-" in folder and not os.path.exists(folder.strip())


def _run(nb, cwd):
    from nbclient import NotebookClient
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def test_a_student_copy_runs_top_to_bottom_and_says_not_attempted(released):
    nb = _run(nbformat.read(released / "notebooks" / f"{FIRST}.ipynb", as_version=4),
              released / "notebooks")
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert errors == []
    said = [o.text for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
            for o in c.outputs if o.output_type == "stream"]
    assert said == ["my_thesis_vector: not attempted yet (your code here: one number per "
                    "square, rank 8 first)\n",
                    "my_planes14: not attempted yet (your code here: start from "
                    "np.zeros((14, 8, 8)))\n"]


MISTAKES = {"my_thesis_vector": ("sign = 1 if piece.color == chess.WHITE else -1",
                                 "sign = -1 if piece.color == chess.WHITE else 1"),
            "my_planes14": ("7 - chess.square_rank(square)", "chess.square_rank(square)"),
            "my_sample_plies": ("p % 2 == 0)]", "p % 3 == 0)]")}
#: Right on the visible cases (games up to 300 plies), wrong on the hidden ones.
HIDDEN_ONLY = ("plies = [p for p", "if n_plies > 300:\n        return []\n    plies = [p for p")


def _plant(grade_id, source):
    old, new = MISTAKES[grade_id]
    assert old in source
    return source.replace(old, new)


@pytest.fixture(scope="module")
def graded(released, tmp_path_factory):
    """Five students: solutions (one notebook renamed by Jupyter's "duplicate"), nothing,
    a mistake per exercise (and a stray copy), a mistake only the hidden tests see, and a
    notebook that raises, hangs and kills its kernel."""
    folder = tmp_path_factory.mktemp("submissions")
    read = lambda name, where: nbformat.read(where / f"{name}.ipynb", as_version=4)  # noqa: E731
    student = {n: read(n, released / "notebooks") for n in (FIRST, SAMPLING)}
    source = {n: read(n, NOTEBOOKS_DIR) for n in (FIRST, SAMPLING)}
    (folder / "anna").mkdir()
    nbformat.write(with_solutions(student[FIRST], source[FIRST]),
                   folder / "anna" / f"{FIRST}.ipynb")
    nbformat.write(with_solutions(student[SAMPLING], source[SAMPLING]),     # her only copy
                   folder / "anna" / f"{SAMPLING}-Copy1.ipynb")
    nbformat.write(student[FIRST], folder / f"bob_{FIRST}.ipynb")        # the flat layout
    (folder / "carl").mkdir()
    for name in (FIRST, SAMPLING):
        nbformat.write(with_solutions(student[name], source[name], _plant),
                       folder / "carl" / f"{name}.ipynb")
    nbformat.write(with_solutions(student[FIRST], source[FIRST]),           # not graded
                   folder / "carl" / f"{FIRST} (1).ipynb")
    (folder / "dora").mkdir()
    nbformat.write(with_solutions(student[SAMPLING], source[SAMPLING],
                                  lambda _, s: s.replace(*HIDDEN_ONLY)),
                   folder / "dora" / f"{SAMPLING}.ipynb")
    eve = with_solutions(student[FIRST], source[FIRST],
                         lambda g, s: s if g == "my_thesis_vector" else
                         s.replace("planes = np.zeros((14, 8, 8))", "while True:\n        pass"))
    first_test = next(i for i, c in enumerate(eve.cells)
                      if c.metadata.get("nbgrader", {}).get("grade"))
    eve.cells[first_test].source += "\nraise ValueError('edited the test')"   # put back
    eve.cells.insert(first_test + 1, nbformat.v4.new_code_cell("import os\nos._exit(1)"))
    eve.cells.insert(3, nbformat.v4.new_code_cell("1 / 0"))
    (folder / "eve").mkdir()
    nbformat.write(eve, folder / "eve" / f"{FIRST}.ipynb")
    (folder / "eve" / "notes.ipynb").write_text("not a course notebook")   # ignored
    out = folder / "grades.csv"
    said = []
    rows = grade(folder, out=out, workers=2, cell_timeout=10, progress=False, warn=said.append)
    return rows, out, said


def _points(rows):
    return {(r.student, r.exercise): r.points for r in rows}


def _returned(rows):
    """The rows of notebooks 01 and 04, the ones returned."""
    return [r for r in rows if r.notebook in (FIRST, SAMPLING)]


def test_grading_three_submissions_full_marks_zero_and_planted_mistakes(graded):
    rows, out, _ = graded
    points = _points(_returned(rows))
    assert points[("anna", "my_thesis_vector")] == 1 and points[("anna", "my_planes14")] == 2
    assert points[("anna", "my_sample_plies")] == 1
    assert points[("bob", "my_thesis_vector")] == 0 and points[("bob", "my_planes14")] == 0
    assert {k: v for k, v in points.items() if k[0] == "carl"} == {
        ("carl", "my_thesis_vector"): 0, ("carl", "my_planes14"): 0, ("carl", "my_sample_plies"): 0}
    by = {(r.student, r.exercise): r for r in rows}
    assert by[("anna", "my_planes14")].feedback == "my_planes14: all 100 cases agree with chesslab's"
    assert by[("bob", "my_thesis_vector")].feedback.startswith("my_thesis_vector: not attempted yet")
    assert "0 of 200 cases agree" in by[("carl", "my_thesis_vector")].feedback
    assert "cases agree; first difference" in by[("carl", "my_sample_plies")].feedback
    with open(out, newline="", encoding="utf-8-sig") as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == len(rows)
    assert table[0].keys() >= {"student", "exercise", "points", "max_points", "feedback"}
    mine = [r for r in _returned(rows) if r.feedback != "not submitted"]
    assert len(mine) == 3 + 2 + 3 + 1 + 2                     # anna, bob, carl, dora, eve


def test_the_summary_counts_the_whole_course_and_a_renamed_copy_is_graded_with_a_warning(
        graded):
    """A notebook not returned is 0 and "not submitted", so every student's total is out
    of the whole course; anna's renamed 04 (her only copy) is graded, carl's stray copy
    of 01 is not, and both are named in a warning."""
    from chesslab.course.grade import totals
    rows, _, said = graded
    sources = [nbformat.read(p, as_version=4) for p in source_notebooks()]
    course_points = sum(c.metadata["nbgrader"]["points"] for nb in sources for c in nb.cells
                        if c.metadata.get("nbgrader", {}).get("grade")
                        and not c.metadata["nbgrader"].get("solution"))
    graded_notebooks = sum(any(c.metadata.get("nbgrader", {}).get("grade") for c in nb.cells)
                           for nb in sources)
    course = totals(rows)
    assert course["anna"] == (4, course_points, 2, graded_notebooks)
    assert course["dora"] == (0, course_points, 1, graded_notebooks)
    absent = [r for r in rows if r.student == "dora" and r.notebook != SAMPLING]
    assert absent and all(r.points == 0 and r.feedback == "not submitted" for r in absent)
    assert any("anna/04_training_data-Copy1.ipynb is not named 04_training_data.ipynb: "
               "graded" in line for line in said)
    assert any("carl/01_board_encoding (1).ipynb looks like a copy" in line
               and "skipped" in line for line in said)
    assert any("eve/notes.ipynb is not named after a course notebook" in line for line in said)


def test_hidden_tests_are_put_back_from_the_source(graded):
    rows, _, _ = graded
    [dora] = [r for r in _returned(rows) if r.student == "dora" and r.notebook == SAMPLING]
    assert dora.points == 0
    assert dora.feedback.startswith("my_sample_plies: all 300 cases agree")
    assert "hidden tests: my_sample_plies: 0 of 700 cases agree" in dora.feedback


def test_a_notebook_that_raises_hangs_and_crashes_is_graded_for_what_works(graded):
    rows, _, _ = graded
    eve = {r.exercise: r for r in rows if r.student == "eve"}
    assert eve["my_thesis_vector"].points == 1       # its test had been edited: put back
    assert eve["my_planes14"].points == 0
    assert eve["my_planes14"].feedback == "stopped: it ran over the time limit of a cell"
    problems = eve["my_planes14"].problems
    assert "stopped the kernel" in problems and "ZeroDivisionError" in problems


def test_prepare_puts_a_deleted_test_back_and_cell_points_follow_nbgrader():
    source = nbformat.read(NOTEBOOKS_DIR / f"{SAMPLING}.ipynb", as_version=4)
    test = next(c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade"))
    student = nbformat.from_dict(dict(source, cells=[c for c in source.cells if c is not test]))
    nb, notes = prepare(student, source)
    assert notes == ["test cell test_my_sample_plies was missing: put back"]
    assert nb["cells"][-1]["source"] == test.source          # cut after the last test
    cell = dict(test, outputs=[{"output_type": "stream", "name": "stdout", "text": "x: ok\n"}])
    assert cell_points(cell) == 1 and feedback(cell) == "x: ok"
    cell["outputs"].append({"output_type": "stream", "name": "stderr", "text": "warning\n"})
    assert cell_points(cell) == 0                # nbgrader: anything on stderr fails a test
    assert feedback(cell) == "x: ok; 0 points: the test wrote to stderr (a failure for nbgrader)"


def _nbgrader(*args, cwd):
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")]))
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=ERROR"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.mark.slow
def test_nbgrader_generate_assignment_and_autograde_agree_with_course_grade(graded, tmp_path,
                                                                          released):
    rows, _, _ = graded
    course = tmp_path / "course"
    (course / "source" / "ps1").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(NBGRADER_CONFIG_PY)   # as TEACHING.md says
    shutil.copy(NOTEBOOKS_DIR / f"{FIRST}.ipynb", course / "source" / "ps1")
    _nbgrader("generate_assignment", "ps1", cwd=course)
    theirs = nbformat.read(course / "release" / "ps1" / f"{FIRST}.ipynb", as_version=4)
    ours = nbformat.read(released / "notebooks" / f"{FIRST}.ipynb", as_version=4)
    assert [c.source for c in theirs.cells] == [c.source for c in ours.cells]
    source = nbformat.read(NOTEBOOKS_DIR / f"{FIRST}.ipynb", as_version=4)
    teacher = [c.source for c in source.cells if "teacher" in c.metadata.get("tags", [])]
    assert teacher and not any(c.source in teacher for c in theirs.cells)
    for student, nb in (("anna", with_solutions(theirs, source)), ("bob", theirs),
                        ("carl", with_solutions(theirs, source, _plant))):
        (course / "submitted" / student / "ps1").mkdir(parents=True)
        nbformat.write(nb, course / "submitted" / student / "ps1" / f"{FIRST}.ipynb")
        _nbgrader("db", "student", "add", student, cwd=course)
    _nbgrader("autograde", "ps1", cwd=course)
    _nbgrader("export", cwd=course)
    with open(course / "grades.csv", newline="", encoding="utf-8") as handle:
        exported = {r["student_id"]: float(r["raw_score"]) for r in csv.DictReader(handle)}
    ours = {}
    for row in rows:
        if row.notebook == FIRST and row.student in exported:
            ours[row.student] = ours.get(row.student, 0) + row.points
    assert exported == ours == {"anna": 3, "bob": 0, "carl": 0}


def test_teaching_gives_the_hub_the_nbgrader_config_the_test_above_uses():
    teaching = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
    assert NBGRADER_CONFIG_PY in teaching
