"""The student's course: the notebooks without their answers, made by nbgrader itself.

The notebooks in ``notebooks/`` are nbgrader *source* notebooks: each "your turn" cell
holds a solution between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` and each checker
cell is an autograded test cell whose verdict sits between ``### BEGIN HIDDEN TESTS`` /
``### END HIDDEN TESTS``. ``release`` runs nbgrader's own preprocessors on them, the
same ones ``nbgrader generate_assignment`` runs, so a class on a JupyterHub with
nbgrader and a class that gets a folder from ``python -m chesslab course release`` get
the same notebooks: solutions replaced by a stub, hidden tests removed, every output
cleared (a stored output could show an answer: a reference's source printed after an
exercise, or a solution's result). The stub is a comment only: the line after each
solution region, ``raise NotImplementedError("hint")``, is what a student's copy raises.

Beside the notebooks it copies what they open by a relative path (the players folder of
the capstone, the screenshots their markdown shows). The data the notebooks read ships
with the package (``chesslab.base.files.DATA_DIR``), and the teacher's answer key
(TEACHING_ANSWERS.md) stays out.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from chesslab.base.files import DATA_DIR, atomic_path

#: The course's source notebooks (nbgrader source notebooks).
NOTEBOOKS_DIR = DATA_DIR.parent / "notebooks"
#: What replaces a solution region: the cell's own ``raise NotImplementedError(hint)``
#: follows it, so the stub only marks the place.
CODE_STUB = {"python": "# YOUR CODE HERE"}
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
    """The configuration ``release`` gives nbgrader (and the one an nbgrader course
    folder needs in its nbgrader_config.py to make the same student notebooks)."""
    from traitlets.config import Config
    config = Config()
    config.ClearSolutions.code_stub = dict(CODE_STUB)
    return config


def student_version(nb):
    """A copy of the source notebook ``nb`` as a student receives it (nbgrader's
    generate_assignment steps that change a notebook, in its order)."""
    import copy
    pre = nbgrader_modules()
    config = nbgrader_config()
    nb = copy.deepcopy(nb)
    resources = {}
    for step in (pre.LockCells, pre.ClearSolutions, pre.ClearOutput, pre.CheckCellMetadata,
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


def release(outdir, source=None) -> list[Path]:
    """Write the student course into ``outdir``: ``notebooks/`` (student versions, with
    the players folder) and the files their markdown links to. Returns the files
    written. Existing files of the same name are replaced; nothing else is touched."""
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
