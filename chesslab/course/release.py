"""The student's course: the notebooks without their answers, made by nbgrader itself.

The notebooks in ``notebooks/`` are nbgrader *source* notebooks: each "your turn" cell
holds a solution between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` and each checker
cell is an autograded test cell whose verdict sits between ``### BEGIN HIDDEN TESTS`` /
``### END HIDDEN TESTS``. ``release`` runs nbgrader's own preprocessors on them, the
same ones ``nbgrader generate_assignment`` runs with ``nbgrader_config()`` (a hub's course
folder loads it from its nbgrader_config.py, ``NBGRADER_CONFIG_PY``), so a class on a
JupyterHub with nbgrader and a class that gets a folder from ``python -m chesslab course
release`` get the same notebooks: solutions replaced by a stub, hidden tests removed, every output
cleared (a stored output could show an answer: a reference's source printed after an
exercise, or a solution's result). The stub is a comment only: the line after each
solution region, ``raise NotImplementedError("hint")``, is what a student's copy raises.

Cells tagged ``teacher`` (cell metadata ``tags``) are the teacher's alone (a cell that
prints or imports a graded exercise's reference) and are dropped first, by nbconvert's
TagRemovePreprocessor: nbgrader itself knows no tags, so its generate_assignment drops
them only when its configuration puts that preprocessor first (``nbgrader_config()``).

Beside the notebooks it copies what they open by a relative path (the players folder of
the capstone, the screenshots their markdown shows), and it makes the folder stand alone:
a wheel of chesslab built by pip from pyproject.toml, carrying in ``chesslab/data`` the
models, results and datasets the notebooks read (``chesslab.base.files.DATA_DIR`` finds
them there), and a requirements.txt that installs that wheel and the course's pinned
dependencies (pytest and nbval among them, for a student's own check). In that folder,
``python -m pip install -r requirements.txt``, then ``jupyter lab``, opens the course; nothing
refers back to the repository. The teacher's notebooks, the answer key
(TEACHING_ANSWERS.md) and the policy labels stay out, and ``answer_leaks`` looks through
everything written (the wheel's files included) for a solution region's text or a marker
before the release is declared done.
"""
from __future__ import annotations

import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from chesslab.base.files import DATA_DIR, atomic_path
from chesslab.base.text import run_text

#: The repository the course is released from (a clone: notebooks/, data/, pyproject.toml).
REPO_DIR = Path(__file__).resolve().parents[2]
#: The course's source notebooks (nbgrader source notebooks).
NOTEBOOKS_DIR = REPO_DIR / "notebooks"
#: The data the notebooks read, by glob under data/, put in the wheel's chesslab/data:
#: the dataset (04, 05, 10), the stored random positions (02, 03), the shipped games
#: (04, 10), every model (the play lab's menus offer every evaluator; 05, 11, 12 load
#: networks; 12's exercise ideas name the endgame ones) and the results the figures and
#: tables read. Not the policy labels, the results' checkpoints (partial/) or
#: data/README.md.
SHIPPED_DATA = ("positions.npz", "random_positions.npz", "games/*.pgn.gz", "models/*.json",
                "results/*.json")
#: What a student installs beside the wheel, pinned as the repository's requirements.txt
#: pins them: the package's dependencies (pyproject.toml), JupyterLab, and pytest with
#: nbval, because students check a notebook from a terminal with
#: ``python -m pytest --nbval-lax NOTEBOOK`` (TEACHING.md, section 3).
STUDENT_TOOLS = ("jupyterlab", "nbval", "pytest")
#: Cells with this tag in their metadata ``tags`` are dropped from the student copy.
TEACHER_TAG = "teacher"
#: What replaces a solution region: the cell's own ``raise NotImplementedError(hint)``
#: follows it, so the stub only marks the place.
CODE_STUB = {"python": "# YOUR CODE HERE"}
#: The nbgrader_config.py of a course folder on a hub: nbgrader then makes the same
#: student notebooks as ``release`` (chesslab must import where nbgrader runs).
NBGRADER_CONFIG_PY = """c = get_config()
c.CourseDirectory.course_id = "chesslab"
from chesslab.course.release import nbgrader_config
c.merge(nbgrader_config())   # drop cells tagged teacher; keep each exercise's hint
"""
#: Text that must never reach a student.
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
#: How to get nbgrader, for every error that needs it.
INSTALL = "install the teacher's tools: python -m pip install -r requirements-teacher.txt"


def nbgrader_modules():
    """nbgrader's preprocessors, or a ValueError that says how to install it."""
    try:
        from nbgrader import preprocessors
    except ImportError as exc:
        raise ValueError(f"the course commands need nbgrader ({exc}); {INSTALL}") from None
    return preprocessors


def source_notebooks(folder=None) -> list[Path]:
    """The course's notebooks, in order."""
    folder = Path(folder or NOTEBOOKS_DIR)
    paths = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no course notebooks (NN_name.ipynb) in {folder}")
    return paths


def nbgrader_config():
    """The configuration ``release`` gives nbgrader's steps, and the one a hub's course
    folder merges in its nbgrader_config.py (``NBGRADER_CONFIG_PY``) so that
    ``nbgrader generate_assignment`` makes the same student notebooks: the stub that
    keeps each exercise's hint, and nbconvert's TagRemovePreprocessor put before
    nbgrader's own steps to drop the cells tagged ``teacher``."""
    from nbconvert.preprocessors import TagRemovePreprocessor
    from traitlets.config import Config
    nbgrader_modules()
    from nbgrader.converters import GenerateAssignment
    steps = GenerateAssignment.class_traits()["preprocessors"].default()
    config = Config()
    config.ClearSolutions.code_stub = dict(CODE_STUB)
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = {TEACHER_TAG}
    config.GenerateAssignment.preprocessors = [TagRemovePreprocessor, *steps]
    return config


def student_version(nb):
    """A copy of the source notebook ``nb`` as a student receives it (nbgrader's
    generate_assignment steps that change a notebook, in its order)."""
    import copy
    pre = nbgrader_modules()
    config = nbgrader_config()
    from nbconvert.preprocessors import TagRemovePreprocessor
    nb = copy.deepcopy(nb)
    resources = {}
    for step in (TagRemovePreprocessor, pre.LockCells, pre.ClearSolutions, pre.ClearOutput, pre.CheckCellMetadata,
                 pre.ComputeChecksums, pre.ClearHiddenTests, pre.ComputeChecksums,
                 pre.CheckCellMetadata):
        nb, resources = step(config=config).preprocess(nb, resources)
    leaks = [m for m in MARKERS for cell in nb.cells if m in cell.source]
    if leaks:                                   # never hand out a half-cleared notebook
        raise ValueError(f"a solution or hidden-test marker is left in the student copy: "
                         f"{leaks[0]!r} (is every marker in a cell with nbgrader metadata?)")
    return nb


def _linked_files(paths) -> list[str]:
    """Files the notebooks' markdown shows by a relative path (e.g. ``../figures/x.png``)."""
    import nbformat
    found = set()
    for path in paths:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "markdown":
                found |= {link for link in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", cell.source)
                          if "://" not in link}
    return sorted(found)


def build_wheel(outdir, repo=None, data=None) -> Path:
    """Build chesslab's wheel into ``outdir`` with the shipped data inside the package.

    pip builds it (setuptools, from pyproject.toml) from a copy of the package with
    ``SHIPPED_DATA`` put in ``chesslab/data``: the clone itself is not changed."""
    repo = Path(repo or REPO_DIR)
    data = Path(data or DATA_DIR)
    outdir = Path(outdir)
    with tempfile.TemporaryDirectory(prefix="chesslab-wheel-") as tmp:
        tree = Path(tmp) / "chesslab-src"
        shutil.copytree(repo / "chesslab", tree / "chesslab",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copyfile(repo / name, tree / name)
        for pattern in SHIPPED_DATA:
            files = sorted(f for f in data.glob(pattern) if f.is_file())
            if not files:
                raise FileNotFoundError(f"no {pattern} in {data}: the notebooks read it; "
                                        f"restore the repository's data/ folder")
            for file in files:
                target = tree / "chesslab" / "data" / file.relative_to(data)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(file, target)
        built = Path(tmp) / "wheels"
        run = run_text([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                        "--wheel-dir", str(built), str(tree)])
        wheels = sorted(built.glob("chesslab-*.whl"))
        if run.returncode != 0 or len(wheels) != 1:
            tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-8:])
            raise ValueError(f"pip could not build chesslab's wheel (pip wheel needs "
                             f"setuptools from a package index or --find-links):\n{tail}")
        outdir.mkdir(parents=True, exist_ok=True)
        target = outdir / wheels[0].name
        shutil.copyfile(wheels[0], target)
    return target


def _pins(requirements: Path) -> dict:
    """``{name: "name==version"}`` of a requirements file's pinned lines."""
    pins = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name = re.split(r"[\[=<>! ]", line, maxsplit=1)[0]
            pins[name.lower()] = line
    return pins


def student_requirements(wheel_name: str, repo=None) -> str:
    """The text of the student's requirements.txt: the wheel (a path relative to the
    folder it is run in) and the course's dependencies with the repository's pins."""
    import tomllib
    repo = Path(repo or REPO_DIR)
    project = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.split(r"[\[=<>!~; ]", dep, maxsplit=1)[0].lower()
             for dep in project["dependencies"]] + list(STUDENT_TOOLS)
    pins = _pins(repo / "requirements.txt")
    missing = [name for name in names if name not in pins]
    if missing:
        raise ValueError(f"requirements.txt pins no version of {', '.join(missing)}; pin "
                         f"it there (name==version) so the release installs what was tested")
    lines = ["# The chesslab course. In this folder:",
             "#   python -m pip install -r requirements.txt",
             "#   jupyter lab",       # two commands: Windows PowerShell 5 has no &&
             f"./{wheel_name}", *(pins[name] for name in names)]
    return "\n".join(lines) + "\n"


def _normalised(text: str) -> list[str]:
    """A text's lines, stripped, without the blank ones (indentation and blank lines
    differ between a notebook cell and a module)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def answer_regions(source=None) -> list[tuple[str, list[str]]]:
    """``(where, lines)`` of every solution and hidden-test region of the source notebooks."""
    import nbformat
    regions = []
    for path in source_notebooks(source):
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            for kind, body in re.findall(r"### BEGIN (SOLUTION|HIDDEN TESTS)\n(.*?)### END \1",
                                         cell.source, flags=re.S):
                lines = _normalised(body)
                if lines:
                    regions.append((f"{path.name} cell {i} ({kind.lower()})", lines))
    return regions


def _texts(paths):
    """``(name, text)`` of every text file among ``paths`` and inside every wheel."""
    for path in paths:
        path = Path(path)
        if path.suffix == ".whl":
            with zipfile.ZipFile(path) as wheel:
                for member in wheel.namelist():
                    if member.endswith((".py", ".md", ".txt", ".ipynb", ".cfg", "METADATA")):
                        yield (f"{path.name}:{member}",
                               wheel.read(member).decode("utf-8", errors="replace"))
        elif path.suffix in (".py", ".md", ".txt", ".ipynb", ".cfg", ".toml", ".json"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".ipynb":
                import nbformat
                text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
            yield path.name, text


def answer_leaks(paths, source=None) -> list[str]:
    """What among ``paths`` (files; a wheel is looked into) would give a student an
    answer: an nbgrader marker, the text of a solution or hidden-test region of a source
    notebook (its lines in a row, whatever their indentation), a teacher-only file."""
    regions = answer_regions(source)
    leaks = []
    for path in paths:
        if Path(path).name.startswith("TEACHING"):
            leaks.append(f"{Path(path).name} is the teacher's")
    for name, text in _texts(paths):
        lines = _normalised(text)
        if name.endswith(".ipynb"):             # a student notebook: no marker at all
            leaks += [f"{name} holds the marker {marker!r}" for marker in MARKERS
                      if marker in text]
        else:                                   # a module may name the markers, not use one
            leaks += [f"{name} holds a marker line {line!r}" for line in lines
                      if re.match(r"#+ *(BEGIN|END) (SOLUTION|HIDDEN TESTS)", line)]
        joined = "\n" + "\n".join(lines) + "\n"
        leaks += [f"{name} holds the text of {where}" for where, lines in regions
                  if "\n" + "\n".join(lines) + "\n" in joined]
    return leaks


def release(outdir, source=None, wheel=True) -> list[Path]:
    """Write the student course into ``outdir``: ``notebooks/`` (student versions, with
    the players folder), the files their markdown links to and, with ``wheel``,
    chesslab's wheel and the requirements.txt that installs it. Returns the files
    written. Existing files of the same name are replaced; nothing else is touched.
    Refuses (ValueError) when anything written holds an answer (``answer_leaks``)."""
    import nbformat
    outdir = Path(outdir)
    source = Path(source or NOTEBOOKS_DIR)
    paths = source_notebooks(source)
    nbgrader_modules()                          # fail before writing anything
    written = []
    for path in paths:
        target = outdir / "notebooks" / path.name
        nb = student_version(nbformat.read(path, as_version=4))
        with atomic_path(target, suffix=".ipynb") as tmp:
            nbformat.write(nb, tmp)
        written.append(target)
    players = source / "players"
    if players.is_dir():
        for file in sorted(players.iterdir()):
            if file.is_file() and not file.name.startswith("."):
                target = outdir / "notebooks" / "players" / file.name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(file, target)
                written.append(target)
    for link in _linked_files(paths):
        file = (source / link).resolve()
        target = (outdir / "notebooks" / link).resolve()
        if file.is_file() and outdir.resolve() in target.parents:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target)
            written.append(target)
    if wheel:
        built = build_wheel(outdir)
        requirements = outdir / "requirements.txt"
        requirements.write_text(student_requirements(built.name), encoding="utf-8")
        written += [built, requirements]
    leaks = answer_leaks(written, source)
    if leaks:
        raise ValueError(f"the release in {outdir} would give away answers: "
                         f"{'; '.join(leaks[:5])}; do not hand it out")
    return written


def with_solutions(student_nb, source_nb, change=None):
    """A student copy with every solution cell taken from the source (a model
    submission, to check that grading gives full marks), each passed through
    ``change(grade_id, source) -> source`` if given (to plant mistakes)."""
    import copy
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source_nb.cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    nb = copy.deepcopy(student_nb)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in solutions:
            cell.source = solutions[grade_id]
            if change is not None:
                cell.source = change(grade_id, cell.source)
    return nb
