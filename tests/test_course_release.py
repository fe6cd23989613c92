"""The student's release stands alone: its own wheel (code and the data the notebooks
read), a requirements.txt, no answer anywhere, and a new virtual environment built from
a copy of the folder runs a notebook; the package imports the same from any folder.

The two venv tests (marked slow) let the new environment see the packages of the one
running the tests (a .pth line), so that pip finds the pinned dependencies installed
instead of downloading JupyterLab: chesslab itself is installed into the new
environment and imported from there. Set CHESSLAB_FRESH_VENV=1 for an environment that
sees nothing but what ``pip install -r requirements.txt`` puts in it (slower: every
dependency is installed).
"""
import ast
import functools
import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbgrader", reason="the course commands need nbgrader: "
                                       "python -m pip install -r requirements-teacher.txt")

from chesslab.base.files import DATA_DIR  # noqa: E402
from chesslab.course.exercises import alphabeta  # noqa: E402
from chesslab.course.release import (MARKERS, REPO_DIR, SHIPPED_DATA, TEACHER_TAG,  # noqa: E402
                                     _pins, answer_leaks, answer_regions, release,
                                     source_notebooks, student_requirements,
                                     student_version)

FIRST = "01_board_encoding"


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    out = tmp_path_factory.mktemp("class")
    return out, release(out)


def _wheel(folder) -> Path:
    [wheel] = folder.glob("chesslab-*.whl")
    return wheel


@pytest.mark.slow
def test_the_release_is_notebooks_a_wheel_and_requirements_and_nothing_more(released):
    out, written = released
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert sorted(p.relative_to(out).as_posix() for p in written) == files
    wheel = _wheel(out)
    tops = {f.split("/")[0] for f in files}
    assert tops == {"notebooks", "figures", "requirements.txt", wheel.name}
    assert [f for f in files if f.endswith(".ipynb")] == [
        f"notebooks/{p.name}" for p in source_notebooks()]
    assert not [f for f in files if "TEACHING" in f or "policy_labels" in f]
    lines = [line for line in (out / "requirements.txt").read_text(encoding="utf-8").splitlines()
             if not line.startswith("#")]
    pins = _pins(REPO_DIR / "requirements.txt")
    assert lines[0] == f"./{wheel.name}"
    assert lines[1:] == [pins[name] for name in ("numpy", "chess", "matplotlib", "ipywidgets",
                                                  "tqdm", "jupyterlab", "nbval", "pytest")]
    assert str(REPO_DIR) not in (out / "requirements.txt").read_text(encoding="utf-8")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    shipped = {f"chesslab/data/{p.relative_to(DATA_DIR).as_posix()}" for pattern in SHIPPED_DATA
               for p in DATA_DIR.glob(pattern)}
    assert {n for n in names if n.startswith("chesslab/data/")} == shipped
    assert "chesslab/data/models/policy_value.json" in shipped
    modules = {p.relative_to(REPO_DIR).as_posix() for p in (REPO_DIR / "chesslab").rglob("*.py")}
    assert modules <= names                              # the whole package
    assert not [n for n in names if n.startswith(("notebooks/", "tests/", "data/"))
                or "TEACHING" in n or n.endswith(".ipynb")]


@pytest.mark.slow
def test_no_marker_and_no_solution_text_in_the_release_or_its_wheel(released, tmp_path):
    out, written = released
    regions = answer_regions()
    assert len(regions) > 50 and sum(w.endswith("(solution)") for w, _ in regions) > 25
    assert answer_leaks(written) == []
    # a planted answer is seen: a solution region's text put into a module of the wheel
    where, lines = next(r for r in regions if len(r[1]) >= 4 and r[0].endswith("(solution)"))
    planted = tmp_path / _wheel(out).name
    shutil.copyfile(_wheel(out), planted)
    with zipfile.ZipFile(planted, "a") as z:
        z.writestr("chesslab/leak.py", "def f():\n    " + "\n    ".join(lines) + "\n")
    assert answer_leaks([planted]) == [f"{planted.name}:chesslab/leak.py holds the text of "
                                       f"{where}"]


def test_the_student_requirements_pin_what_the_guide_tells_students_to_run(tmp_path):
    """TEACHING.md tells students to check a notebook with `python -m pytest --nbval-lax`:
    their requirements.txt installs pytest and nbval at the repository's pins, and a
    requirements.txt that pins neither is refused with a message naming them."""
    text = student_requirements("chesslab-0-py3-none-any.whl")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    pins = _pins(REPO_DIR / "requirements.txt")
    assert lines[0] == "./chesslab-0-py3-none-any.whl"
    assert pins["pytest"] in lines and pins["nbval"] in lines and pins["jupyterlab"] in lines
    assert "--nbval-lax" in (REPO_DIR / "TEACHING.md").read_text(encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copyfile(REPO_DIR / "pyproject.toml", repo / "pyproject.toml")
    (repo / "requirements.txt").write_text("\n".join(
        line for line in (REPO_DIR / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if not line.startswith(("pytest", "nbval"))) + "\n")
    with pytest.raises(ValueError, match="pins no version of nbval, pytest"):
        student_requirements("chesslab-0-py3-none-any.whl", repo=repo)


def test_a_planted_marker_or_answer_key_is_seen(tmp_path):
    module = tmp_path / "x.py"
    module.write_text('MARKER = "BEGIN SOLUTION"   # naming it is fine\n')
    assert answer_leaks([module]) == []
    module.write_text("def f():\n    ### BEGIN SOLUTION\n    return 1\n")
    assert answer_leaks([module]) == ["x.py holds a marker line '### BEGIN SOLUTION'"]
    key = tmp_path / "TEACHING_ANSWERS.md"
    key.write_text("answers")
    assert answer_leaks([key]) == ["TEACHING_ANSWERS.md is the teacher's"]


def test_cells_tagged_teacher_are_dropped_from_the_student_copy():
    nb = nbformat.read(source_notebooks()[0], as_version=4)
    shown = nbformat.v4.new_code_cell("import inspect\nprint(inspect.getsource(len))",
                                      metadata={"tags": [TEACHER_TAG]})
    kept = nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["other"]})
    nb.cells[1:1] = [shown, kept]
    student = student_version(nb)
    sources = [c.source for c in student.cells]
    assert shown.source not in sources and kept.source in sources
    teacher = [c for c in nb.cells if TEACHER_TAG in c.metadata.get("tags", [])]
    assert len(student.cells) == len(nb.cells) - len(teacher)
    assert not any(TEACHER_TAG in c.metadata.get("tags", []) for c in student.cells)


def _venv(folder: Path) -> Path:
    """A new virtual environment; it also sees this environment's packages unless
    CHESSLAB_FRESH_VENV is set (see the module docstring). Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    if not os.environ.get("CHESSLAB_FRESH_VENV"):
        purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig."
                                  "get_paths()['purelib'])"], capture_output=True, text=True,
                                 check=True).stdout.strip()
        # plain path lines: the .pth files of those folders (this checkout's editable
        # install among them) are not read, so the repository is not on the new path
        Path(purelib, "outer_packages.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return python


def _clean_env(venv: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV",
                                                                   "JUPYTER"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


@pytest.mark.slow
def test_a_new_venv_installs_the_copied_release_and_runs_a_notebook(released, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(released[0], course)
    venv = tmp_path / "venv"
    python = _venv(venv)
    env = _clean_env(venv)
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "-r", "requirements.txt"],
                         cwd=course, env=env, capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-2000:]
    where = subprocess.run([python, "-c", "import chesslab, chesslab.base.files as f; "
                            "print(chesslab.__file__); print(f.MODELS_DIR)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    package, models = map(Path, where.stdout.split())
    assert venv in package.parents and package.parent.parent.name == "site-packages"
    assert models == package.parent / "data" / "models"
    # notebook 01 top to bottom in the course folder, on the venv's kernel (nbconvert as
    # a module of the venv's python: `jupyter nbconvert` would run the script of the
    # environment it sees); a last cell says which python and which chesslab the kernel used
    notebook = course / "notebooks" / f"{FIRST}.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import sys, chesslab\nprint(sys.executable)\nprint(chesslab.__file__)"))
    nbformat.write(nb, notebook)
    run = subprocess.run([python, "-m", "nbconvert", "--to", "notebook", "--execute",
                          "--inplace", "--ExecutePreprocessor.timeout=120", notebook.name],
                         cwd=notebook.parent, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    done = nbformat.read(notebook, as_version=4)
    outputs = [o for c in done.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    said = [o.text for c in done.cells if c.metadata.get("nbgrader", {}).get("grade")
            for o in c.outputs if o.output_type == "stream"]
    assert len(said) == 2 and all("not attempted yet" in text for text in said)
    kernel_python, kernel_package = done.cells[-1].outputs[0].text.split()
    assert Path(kernel_python).parent == venv / "bin" and Path(kernel_package) == package
    # the student's own check from a terminal (TEACHING.md, section 3), on the untouched
    # student copy: pytest and nbval come from the release's requirements.txt
    shutil.copyfile(released[0] / "notebooks" / notebook.name, notebook)
    check = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "--nbval-lax", f"notebooks/{notebook.name}"],
                           cwd=course, env=env, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
    assert " passed" in check.stdout and " failed" not in check.stdout


@pytest.mark.slow
def test_the_package_imports_from_the_folder_that_holds_the_clone(tmp_path):
    """A clone named chesslab, installed editable, and ``python -m chesslab`` run from
    the folder that holds it: the package is found, not the clone as a namespace."""
    clone = tmp_path / "chesslab"
    shutil.copytree(REPO_DIR / "chesslab", clone / "chesslab",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(REPO_DIR / name, clone / name)
    venv = tmp_path / "venv"
    python = _venv(venv)
    env = _clean_env(venv)
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "-e", str(clone)],
                         cwd=tmp_path, env=env, capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-2000:]
    for folder in (tmp_path, clone, tmp_path.parent):
        run = subprocess.run([python, "-m", "chesslab", "--help"], cwd=folder, env=env,
                             capture_output=True, text=True)
        assert run.returncode == 0 and "usage: python -m chesslab" in run.stdout, run.stderr
        where = subprocess.run([python, "-c", "import chesslab.figures as f; "
                                "print(f.__file__); print(f.make_figures.__name__)"],
                               cwd=folder, env=env, capture_output=True, text=True)
        assert where.stdout.split() == [str(clone / "chesslab" / "figures" / "__init__.py"),
                                        "make_figures"], where.stderr


def _names(source: str):
    """(bound, loaded) names of a code cell; IPython magics are skipped."""
    import ast
    code = "\n".join(line for line in source.splitlines()
                     if not line.lstrip().startswith(("%", "!")))
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(), set()
    bound, loaded = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound, loaded


def teacher_only_names(nb) -> dict:
    """Names a student's cell uses that only a dropped (teacher) cell binds: in the
    student's copy they raise NameError. {name: index of the first student cell using it}."""
    teacher, student, uses = set(), set(), {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        bound, loaded = _names(cell.source)
        if TEACHER_TAG in cell.metadata.get("tags", []):
            teacher |= bound
        else:
            student |= bound
            for name in loaded:
                uses.setdefault(name, index)
    return {name: uses[name] for name in sorted(teacher - student) if name in uses}


@pytest.mark.parametrize("path", source_notebooks(), ids=lambda p: p.stem)
def test_no_student_cell_needs_a_name_only_a_teacher_cell_defines(path):
    assert teacher_only_names(nbformat.read(path, as_version=4)) == {}


def test_a_name_defined_only_in_a_teacher_cell_is_seen():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from chesslab.search.teaching import backup",
                                          metadata={"tags": [TEACHER_TAG]}),
                nbformat.v4.new_code_cell("x = 1\nprint(x)"),
                nbformat.v4.new_code_cell("backup([], x)")]
    assert teacher_only_names(nb) == {"backup": 2}


def _own_work_references(module) -> dict:
    """{checker name: [reference functions]} read from ``module``'s source: every
    ``own_work(fn, ref1, ref2, ...)`` call inside a top-level function (its checker), the
    arguments after the first resolved as dotted names in the module's namespace, with the
    imports made inside that function, and a ``*refs`` expanded from the function's own
    ``refs = (...)``. The checkers switch these off at grading, so they are the one list
    of what a graded exercise's reference is."""
    found = {}
    for top in ast.parse(inspect.getsource(module)).body:
        names = dict(vars(module))
        for node in ast.walk(top):
            if isinstance(node, ast.ImportFrom):
                names.update((a.asname or a.name,
                              getattr(importlib.import_module(node.module), a.name))
                             for a in node.names)
            elif isinstance(node, ast.Import):
                names.update((a.asname or a.name.split(".")[0],
                              importlib.import_module(a.name if a.asname else
                                                      a.name.split(".")[0]))
                             for a in node.names)
        tuples = {t.id: node.value.elts for node in ast.walk(top) if isinstance(node, ast.Assign)
                  and isinstance(node.value, (ast.Tuple, ast.List))
                  for t in node.targets if isinstance(t, ast.Name)}
        for call in ast.walk(top):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == "own_work"):
                continue
            where = f"{module.__name__}.{getattr(top, 'name', '<module>')}"
            for arg in call.args[1:]:
                starred = isinstance(arg, ast.Starred)
                assert not starred or arg.value.id in tuples, (
                    f"{where}: own_work(..., *{ast.unparse(arg.value)}) is not a tuple the "
                    "checker assigns; name the references so this test can find them")
                for ref in tuples[arg.value.id] if starred else [arg]:
                    dotted = ast.unparse(ref)
                    assert re.fullmatch(r"\w+(\.\w+)*", dotted), (
                        f"{where}: own_work(..., {dotted}) is not a dotted name; give the "
                        "reference by name so this test can find it")
                    first, *rest = dotted.split(".")
                    function = functools.reduce(getattr, rest, names[first])
                    found.setdefault(getattr(top, "name", "<module>"), []).append(
                        inspect.unwrap(function))
    return found


@functools.lru_cache(maxsize=None)
def _checker_notebooks() -> dict:
    """{checker name: notebooks (stems) whose graded cells call it}."""
    where = {}
    for path in source_notebooks():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade"):
                for name in re.findall(r"\b(check_\w+)\s*\(", cell.source):
                    where.setdefault(name, set()).add(path.stem)
    return where


@functools.lru_cache(maxsize=None)
def _references() -> dict:
    """{reference function: (the checkers that switch it off, the notebooks that grade
    them)}, from the ``own_work`` calls of every checker module (no hand-kept list)."""
    from chesslab.course import exercises
    found = {}
    for info in pkgutil.iter_modules(exercises.__path__):
        module = importlib.import_module(f"{exercises.__name__}.{info.name}")
        for checker, functions in _own_work_references(module).items():
            for function in functions:
                checkers, notebooks = found.setdefault(function, (set(), set()))
                checkers.add(f"{info.name}.{checker}")
                notebooks.update(_checker_notebooks().get(checker, ()))
    return found


def _reference_functions():
    """Every exercise's reference, the code a release must not contain."""
    return list(_references())


def _body_lines(function):
    """The lines of a function's body worth searching for (no docstring, no short or
    generic lines such as ``return x``)."""
    source = inspect.getsource(function)
    source = re.sub(r'"""(.|\n)*?"""', "", source, count=1)
    lines = [line.strip() for line in source.splitlines()[1:]]
    return [line for line in lines if len(line) >= 30 and not line.startswith("#")]


def _solution_lines(source_nb):
    """The non-trivial lines of every solution region and hidden-test region."""
    found = []
    for cell in source_nb.cells:
        inside = False
        for line in cell.source.splitlines():
            if "### BEGIN" in line:
                inside = True
            elif "### END" in line:
                inside = False
            elif inside and len(line.strip()) >= 20:
                found.append(line.strip())
    return found


def test_every_exercise_is_an_nbgrader_pair_of_cells():
    for path in source_notebooks():
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution"):
                assert "### BEGIN SOLUTION" in cell.source and "raise NotImplementedError(" in \
                    cell.source.split("### END SOLUTION")[1], (path.name, meta)
                assert "chesslab" not in cell.source.split("### END SOLUTION")[0], (
                    f"{path.name}: {meta['grade_id']} calls the package instead of solving")
                test = nb.cells[i + 1].metadata.get("nbgrader", {})
                assert test.get("grade") and test.get("points", 0) > 0 and \
                    test["grade_id"] == "test_" + meta["grade_id"], path.name
                assert "### BEGIN HIDDEN TESTS" in nb.cells[i + 1].source


def test_the_release_holds_no_solution_no_hidden_test_no_output_no_answer_key(released):
    released, _ = released
    notebooks = sorted((released / "notebooks").glob("*.ipynb"))
    assert [p.name for p in notebooks] == [p.name for p in source_notebooks()]
    texts = {p.name: p.read_text(encoding="utf-8") for p in released.rglob("*") if p.is_file()
             and p.suffix in (".ipynb", ".py", ".md", ".txt")}
    everything = "\n".join(texts.values())
    for marker in MARKERS:
        assert marker not in everything
    for function in _reference_functions():
        for line in _body_lines(function):
            assert line not in everything, f"{function.__qualname__}'s code is in the release"
    solutions = 0
    for path in source_notebooks():
        for line in _solution_lines(nbformat.read(path, as_version=4)):
            solutions += 1
            assert json_escaped(line) not in texts[path.name], (path.name, line)
    assert solutions > 50                       # the check above looked at real solutions
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert not list(released.rglob("TEACHING*"))
    assert (released / "notebooks" / "players" / "_template.py").is_file()
    assert (released / "figures" / "play_vs_ai.png").is_file()       # 09 shows it


def json_escaped(line):
    import json
    return json.dumps(line)[1:-1]


def test_a_planted_leak_would_be_seen():
    line = _body_lines(alphabeta.check_quiesce)[0]
    assert line in inspect.getsource(alphabeta)


_GETSOURCE = re.compile(r"getsource(?:lines)?\(\s*((?:[\w.]|\([^()]*\))+)\s*\)")


def _names_the_reference(expression: str, function) -> bool:
    """Whether ``getsource(expression)`` prints ``function``: the last name is the
    function's, and a class named before it (``nn.Conv2D.backward``) is its class.
    A module or an object before it (``teaching.alphabeta``, ``tree.alphabeta``) is
    matched by the name alone: the package holds a reference under that name."""
    parts = [p for p in re.search(r"[\w.]*$", expression).group().split(".") if p]
    if not parts or parts[-1] != function.__name__:
        return False
    owner = function.__qualname__.split(".")[:-1]
    if len(parts) > 1 and parts[-2][:1].isupper():
        return owner[-1:] == [parts[-2]]
    return True


def getsource_of_a_reference(nb, notebook: str) -> list:
    """(cell index, expression, the last notebook whose exercise it grades) of each
    ``getsource(...)`` of a graded exercise's reference whose exercise is not over, in a
    cell of ``notebook`` (a source notebook's name without .ipynb) that the student sees
    (code or markdown: not tagged for the teacher). Printing it, or telling the student
    how to, is the answer one cell away; the rule is in
    ``test_no_student_cell_shows_the_source_of_a_graded_reference``."""
    order = [p.stem for p in source_notebooks()]
    here = order.index(notebook)
    found = []
    for index, cell in enumerate(nb.cells):
        if TEACHER_TAG in cell.metadata.get("tags", []):
            continue
        for match in _GETSOURCE.finditer(cell.source):
            named = [notebooks for function, (_, notebooks) in _references().items()
                     if _names_the_reference(match.group(1), function)]
            # over after the last notebook that grades it (any of them, when the name is
            # several references'); one whose checker no graded cell calls is never over
            last = max((max(map(order.index, notebooks), default=len(order))
                        for notebooks in named), default=-1)
            if last >= here:
                found.append((index, match.group(1),
                              order[last] if last < len(order) else "no notebook"))
    return found


@pytest.mark.parametrize("path", source_notebooks(), ids=lambda p: p.stem)
def test_no_student_cell_shows_the_source_of_a_graded_reference(path):
    """A graded exercise's reference (a function its checker switches off with
    ``own_work``) may be shown by ``getsource`` in a cell the student sees only in a
    notebook that comes after every notebook whose exercise it grades: the exercise is
    over by then (07 prints ``teaching.negamax``, the reference of 06's minimax, as the
    base of alpha-beta). Never in the exercise's own notebook, where it is the answer one
    cell away, nor in an earlier one, which the student holds while doing the exercise.
    The teacher's copy shows it in cells tagged for the teacher, which the release drops."""
    assert getsource_of_a_reference(nbformat.read(path, as_version=4), path.stem) == []


def test_a_planted_getsource_of_a_reference_is_seen():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("print it with `inspect.getsource(teaching.alphabeta)`"),
        nbformat.v4.new_code_cell("print(inspect.getsource(GameTree._back_up))"),
        nbformat.v4.new_code_cell("print(inspect.getsource(type(material).evaluate))"),
        nbformat.v4.new_code_cell("print(inspect.getsource(nn.Conv2D.backward))"),  # not graded
        nbformat.v4.new_code_cell("print(inspect.getsource(teaching.quiesce))",
                                  metadata={"tags": [TEACHER_TAG]}),
        nbformat.v4.new_code_cell("print(inspect.getsource(teaching.negamax))"),
        nbformat.v4.new_code_cell("print(inspect.getsource(rating.wilson_interval))")]
    minimax, alpha_beta = "06_game_tree_and_minimax", "07_alpha_beta"
    bayes, matches, alphazero = "10_naive_bayes", "08_matches", "12_alphazero_loop"
    # in 06: 06's own references, and those of 07, 08, 10 and 12, still to be done
    assert getsource_of_a_reference(nb, minimax) == [
        (0, "teaching.alphabeta", alpha_beta), (1, "GameTree._back_up", minimax),
        (2, "type(material).evaluate", bayes), (5, "teaching.negamax", minimax),
        (6, "rating.wilson_interval", alphazero)]
    # in 07: 06's minimax is over (its _back_up and negamax may be shown), 07's is not
    assert getsource_of_a_reference(nb, alpha_beta) == [
        (0, "teaching.alphabeta", alpha_beta), (2, "type(material).evaluate", bayes),
        (6, "rating.wilson_interval", alphazero)]
    # wilson_interval grades 08's interval and 12's gate: after 08 it is not over yet
    assert (6, "rating.wilson_interval", alphazero) in getsource_of_a_reference(nb, matches)
    assert getsource_of_a_reference(nb, alphazero) == [(6, "rating.wilson_interval",
                                                        alphazero)]
    assert getsource_of_a_reference(nb, "13_capstone") == []


def test_the_references_are_read_from_the_checkers_own_work_calls(tmp_path):
    """Every reference a checker switches off is listed, with the notebook whose graded
    cell calls that checker; a checker module's forms (a dotted name, a name imported
    inside the checker, ``*refs``) are read."""
    from chesslab.search import teaching
    from chesslab.matches.rating import wilson_interval
    from chesslab.nn import Conv2D
    references = _references()
    assert all(notebooks for _, notebooks in references.values()), [
        (f.__qualname__, checkers) for f, (checkers, notebooks) in references.items()
        if not notebooks]
    assert references[teaching.negamax] == ({"minimax.check_minimax"},
                                            {"06_game_tree_and_minimax"})
    assert references[wilson_interval][1] == {"08_matches", "12_alphazero_loop"}
    assert references[Conv2D.forward][1] == {"03_cnn_from_scratch"}
    module = tmp_path / "planted_checkers.py"
    module.write_text(
        "from chesslab import nn\n"
        "from chesslab.course.checking import own_work\n"
        "from chesslab.search import teaching\n\n"
        "def check_a(fn):\n"
        "    from chesslab.matches.rating import elo_difference as elo\n"
        "    refs = (teaching.backup, elo)\n"
        "    return own_work(fn, *refs), own_work(fn, nn.Dense.backward)\n\n"
        "def check_b(fn):\n"
        "    return own_work(fn)\n")
    spec = importlib.util.spec_from_file_location("planted_checkers", module)
    planted = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(planted)
    from chesslab import nn
    from chesslab.matches.rating import elo_difference
    assert _own_work_references(planted) == {
        "check_a": [teaching.backup, elo_difference, nn.Dense.backward]}


def test_the_command_line_releases_and_says_so(tmp_path, capsys):
    from chesslab.cli import main
    assert main(["course", "release", str(tmp_path / "class")]) == 0
    assert "13 student notebooks" in capsys.readouterr().out
    assert len(list((tmp_path / "class" / "notebooks").glob("*.ipynb"))) == 13
    assert main(["course", "grade", str(tmp_path / "missing")]) == 2
    assert "no folder of submissions" in capsys.readouterr().err
    assert main(["course", "grade", str(tmp_path / "class" / "notebooks" / "players")]) == 2
    assert "no course notebook in" in capsys.readouterr().err
    one_file = tmp_path / "class" / "notebooks" / "01_board_encoding.ipynb"
    assert main(["course", "grade", str(one_file)]) == 2
    assert "is a file; give the folder" in capsys.readouterr().err


#: Paths of the repository that the student's release does not hold (it ships the
#: notebooks, a wheel and a requirements file): a student cell that names one points to
#: nothing on a student's disk.
_NOT_SHIPPED = re.compile(r"(?<![\w.])(tests/|bench/|tools/|\.ci/|data/README\.md|"
                          r"TEACHING(?:_ANSWERS)?\.md|requirements-teacher\.txt)")


def repository_paths(nb) -> list[tuple[int, str]]:
    """(cell, path) for every repository-only path a student cell's source or stored
    output names (cells tagged for the teacher are dropped by the release)."""
    found = []
    for index, cell in enumerate(nb.cells):
        if TEACHER_TAG in cell.metadata.get("tags", []):
            continue
        texts = [cell.source]
        for output in cell.get("outputs", []):
            texts.append(str(output.get("text", "")))
            texts += [str(v) for k, v in output.get("data", {}).items() if k.startswith("text/")]
        found += [(index, m.group(1)) for text in texts for m in _NOT_SHIPPED.finditer(text)]
    return found


@pytest.mark.parametrize("path", source_notebooks(), ids=lambda p: p.stem)
def test_no_student_cell_names_a_file_the_release_does_not_ship(path):
    assert repository_paths(nbformat.read(path, as_version=4)) == []


def test_a_planted_repository_path_is_seen():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("as `bench/README.md` records"),
        nbformat.v4.new_code_cell("x = 1", outputs=[nbformat.v4.new_output(
            "stream", text="checked by tests/test_search.py\n")]),
        nbformat.v4.new_markdown_cell("see TEACHING_ANSWERS.md", metadata={"tags": [TEACHER_TAG]}),
        nbformat.v4.new_markdown_cell("the model in data/models/nnue.json, my_tests/ folder")]
    assert repository_paths(nb) == [(0, "bench/"), (1, "tests/")]


_FROM_IMPORT = re.compile(r"from\s+([\w.]+)\s+import\s+\(?([\w,\s]+)\)?")


def imported_references(nb, notebook: str) -> list:
    """(cell, module.function) of each graded exercise's reference that a student cell
    of ``notebook`` imports by name (``from chesslab.search.mcts import puct_select``)
    while its exercise is not over: the answer would sit in the student's namespace."""
    order = [p.stem for p in source_notebooks()]
    here = order.index(notebook) if notebook in order else -1
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or TEACHER_TAG in cell.metadata.get("tags", []):
            continue
        for match in _FROM_IMPORT.finditer(cell.source):
            names = {n.split(" as ")[0].strip() for n in match.group(2).split(",")}
            for function, (_, notebooks) in _references().items():
                last = max(map(order.index, notebooks), default=len(order))
                if (last >= here and function.__module__ == match.group(1)
                        and function.__name__ in names):
                    found.append((index, f"{function.__module__}.{function.__name__}"))
    return found


@pytest.mark.parametrize("path", source_notebooks(), ids=lambda p: p.stem)
def test_no_student_cell_imports_a_graded_reference(path):
    assert imported_references(nbformat.read(path, as_version=4), path.stem) == []


def test_a_planted_import_of_a_reference_is_seen():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from chesslab.search.mcts import MCTS, puct_select"),
                nbformat.v4.new_code_cell("from chesslab.search.mcts import puct_select",
                                          metadata={"tags": [TEACHER_TAG]}),
                nbformat.v4.new_code_cell("from chesslab.search.mcts import MCTS")]
    assert imported_references(nb, "11_mcts") == [(0, "chesslab.search.mcts.puct_select")]
    assert imported_references(nb, "13_capstone") == []          # its exercise is over
