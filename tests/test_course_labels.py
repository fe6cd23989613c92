"""Every course checker's line is labelled by the student's function it checks
(``my_quiesce: all 40 cases agree ...``), never by the name of chesslab's reference
(``quiesce``), which would point a student at the code that holds the answer (issue 38).

Derived from the notebooks, so a new checker cannot regress: each call of a course
checker in a notebook passes the student's ``my_...`` function(s) first, and the label is
those names (two functions checked together: ``my_a and my_b``). Both the checker's code
(the label it hands ``run_cases`` and its kin) and the notebook's stored output (the line
the visible check printed) are held to it."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXERCISES = sorted(p for p in (ROOT / "chesslab" / "course" / "exercises").glob("*.py")
                   if p.name != "__init__.py")
#: the calls inside a checker that take its printed label as their first argument
LABELLERS = {"run_cases", "_measured"}


def _code_cells(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [c for c in cells if c["cell_type"] == "code"]


def _parse(source):
    """A cell's code as a tree (IPython's ``%`` and ``!`` lines made Python, as the
    kernel does)."""
    return ast.parse(TransformerManager().transform_cell(source))


def _student_functions(path):
    """The ``my_...`` functions the notebook's exercise cells (nbgrader solution cells)
    define at top level."""
    names = set()
    for cell in _code_cells(path):
        if cell["metadata"].get("nbgrader", {}).get("solution"):
            names.update(node.name for node in _parse("".join(cell["source"])).body
                         if isinstance(node, ast.FunctionDef) and node.name.startswith("my_"))
    return names


def _checker_calls(tree):
    """``(checker, label the student should see, shown?)`` for every course checker
    called in ``tree``: the label is the leading ``my_...`` arguments joined by "and"."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id.startswith("check_")):
            mine = []
            for arg in node.args:
                if not (isinstance(arg, ast.Name) and arg.id.startswith("my_")):
                    break
                mine.append(arg.id)
            if mine:
                shown = not any(k.arg == "show" and isinstance(k.value, ast.Constant)
                                and k.value.value is False for k in node.keywords)
                yield node.func.id, " and ".join(mine), shown


def _notebook_calls():
    """``{checker: {label, ...}}`` over every notebook."""
    calls = {}
    for path in NOTEBOOKS:
        for cell in _code_cells(path):
            for checker, label, _ in _checker_calls(_parse("".join(cell["source"]))):
                calls.setdefault(checker, set()).add(label)
    return calls


def _checker_labels():
    """``{checker: {constant labels handed to run_cases / _measured / a *Result}}`` read
    from the exercise modules' source (nested helpers included)."""
    labels = {}
    for path in EXERCISES:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
                found = labels.setdefault(node.name, set())
                for call in ast.walk(node):
                    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                            and (call.func.id in LABELLERS or call.func.id.endswith("Result"))
                            and call.args):
                        continue
                    first = call.args[0]
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        found.add(first.value)
    return labels


def test_every_checker_labels_its_line_with_the_students_function():
    calls, labels = _notebook_calls(), _checker_labels()
    assert len(labels) >= 20, sorted(labels)        # the parsing found the checkers
    assert sorted(set(labels) - set(calls)) == [], "checkers no notebook calls with my_..."
    for checker, said in labels.items():
        assert said, f"{checker}: no constant label handed to run_cases or a result"
        assert said == calls[checker], (
            f"{checker} labels its line {sorted(said)}, the notebook's student function is "
            f"{sorted(calls[checker])}: label the line by the student's function, not by "
            f"chesslab's reference")


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if _student_functions(p)],
                         ids=lambda p: p.stem)
def test_stored_checker_lines_name_the_students_function(path):
    """Each visible check's stored line starts with the student's function (defined in
    the notebook's exercise cell), and every exercise's function labels a stored line."""
    defined, labelled = _student_functions(path), set()
    for cell in _code_cells(path):
        calls = [(label, shown) for _, label, shown in
                 _checker_calls(_parse("".join(cell["source"])))]
        shown = {label for label, visible in calls if visible}
        if not shown:
            continue
        for label in shown:
            assert set(label.split(" and ")) <= defined, (path.name, label, defined)
        text = "".join("".join(o.get("text", "")) for o in cell.get("outputs", [])
                       if o.get("output_type") == "stream" and o.get("name") == "stdout")
        lines = [line for line in text.splitlines() if line and not line[0].isspace()]
        assert lines, f"{path.name}: the check of {sorted(shown)} printed nothing"
        for line in lines:
            label = re.match(r"(.*?): ", line)
            assert label and label.group(1) in shown, (
                f"{path.name}: stored line {line[:80]!r} is not labelled by {sorted(shown)}")
            labelled.update(label.group(1).split(" and "))
    assert defined <= labelled, f"{path.name}: no stored line for {sorted(defined - labelled)}"
