"""House rules for the course notebooks (nbval itself compares their outputs).

nbval silently skips a code cell that was never executed, so a notebook saved without
outputs would pass while testing nothing; these checks close that hole.
"""
import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found in notebooks/"
    names = [p.name for p in NOTEBOOKS]
    assert all(re.match(r"\d\d_[a-z0-9_]+\.ipynb$", n) for n in names), names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_was_executed_in_order_and_is_clean(path):
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    cells = code_cells(nb)
    assert cells, f"{path.name} has no code cells"
    counts = [c["execution_count"] for c in cells]
    missing = [i for i, n in enumerate(counts) if n is None]
    assert not missing, (f"{path.name}: code cells {missing} were never executed; run "
                         f"`python tools/execute_notebooks.py notebooks/{path.name}`")
    assert counts == sorted(counts) and len(set(counts)) == len(counts), (
        f"{path.name}: cells were run out of order; re-execute top to bottom")
    assert "widgets" not in nb.get("metadata", {}), f"{path.name}: saved widget state (drop it)"
    assert not re.search(r"/(work|tmp|root|home|Users)/", text), (
        f"{path.name}: an absolute machine path appears in the notebook")
    assert nb["cells"][0]["cell_type"] == "markdown" and nb["cells"][0]["source"][0].startswith("# "), (
        f"{path.name}: the first cell should be a markdown title")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_full_run_switch_sits_in_the_first_code_cell(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    first = "".join(code_cells(nb)[0]["source"])
    assert re.search(r"^FULL_RUN\s*=\s*False\b", first, re.M), (
        f"{path.name}: the first code cell should set FULL_RUN = False (bigger settings "
        f"sit behind it)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_images_in_markdown_exist(path):
    # e.g. notebook 09's screenshots of its boards (figures/play_*.png, made by
    # tools/screenshot_play.py), which a static view shows in place of live widgets
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for link in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", "".join(cell["source"])):
            if "://" in link:
                continue
            image = (path.parent / link).resolve()
            assert image.is_file(), f"{path.name} shows {link}, which does not exist"
            if image.name.startswith("play_"):
                assert image.stat().st_size < 150_000, f"{link} is over 150 KB"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebook_ends_with_further_reading(path):
    last = json.loads(path.read_text(encoding="utf-8"))["cells"][-1]
    text = "".join(last["source"])
    assert last["cell_type"] == "markdown" and text.startswith("## Further reading")
    assert "source this notebook follows" in text and "chessprogramming.org/" in text
    assert re.search(r"\(1[89]\d\d|20\d\d\)", text)          # a dated paper or book


# ------------------------------------------------------------ numbers from results files
RESULTS = NOTEBOOKS[0].parent.parent / "data" / "results"


def _last_match(a, b):
    """The score of the last stored match of ``a`` against ``b`` (the shipped model's:
    a retrained model's match is added after the older ones)."""
    def score(doc):
        return [m for m in doc["matches"] if (m["a"], m["b"]) == (a, b)][-1]["score"]
    score.__name__ = f"{a}_vs_{b}"
    return score


def _ladder_rating(player):
    """A player's rating on the stored ladder (its name has dots: not a dotted key)."""
    def rating(doc):
        return doc["ratings"][player]
    rating.__name__ = f"rating_of_{player}"
    return rating


#: Numbers a notebook shows from a shipped results file: (notebook, file in data/results,
#: key, format). The value is read from the file *now*, formatted, and must appear in the
#: notebook's stored outputs, so rerunning `python -m chesslab results ...` without
#: re-executing the notebook fails here. Prose that needs such a number points at the
#: output instead of typing it. The key is a dotted path, where `name[field=value,...]`
#: picks the one element of a list whose fields have those values; or a function of the
#: parsed file. To cover a new number, add a row.
RESULT_NUMBERS = [
    *[("05_training_ann_vs_cnn", "evaluators.json",
       f"rows[evaluator={name}].search_depth1.all.{metric}", "{:.3f}")
      for name in ("ann64", "cnn64", "ann", "cnn", "pst")
      for metric in ("mae_cp", "correlation", "sign_accuracy")],
    ("05_training_ann_vs_cnn", "evaluators.json", "rows[evaluator=nnue].search_depth1.all.mae_cp",
     "| nnue | {:.0f} |"),
    ("05_training_ann_vs_cnn", "recipe.json",
     "rows[net=ann,step=thesis pipeline].search_depth1.all.mae_cp", "MAE {:5.1f}"),
    ("05_training_ann_vs_cnn", "recipe.json",
     "rows[net=ann,step=+ every ply (depth 8)].search_depth1.all.mae_cp", "MAE {:5.1f}"),
    ("05_training_ann_vs_cnn", "matches.json", _last_match("nnue@1s", "pst@1s"), "score {:.3f}"),
    ("08_matches", "tournament.json", "what", "{}"),
    ("08_matches", "tournament.json", "date", "{}"),
    ("13_capstone", "tournament.json", "what", "{}"),
    *[("13_capstone", "evaluators.json", f"rows[evaluator={name}].search_depth1.all.mae_cp",
       "{:5.0f} cp") for name in ("material", "pst", "nnue", "ann", "cnn")],
    *[("10_naive_bayes", "bayes_matches.json", f"matches.{opponent}.summary.score", "{:.3f}")
      for opponent in ("random", "material:3", "pst:3")],
    *[("12_alphazero_loop", "mcts_head_to_head.json", f"matches[after_iterations={n}].score",
       "{:.3f}") for n in (3,)],
    *[("12_alphazero_loop", "matches.json", _last_match("mcts@1s", opponent), "score {:.3f}")
      for opponent in ("random", "pst@1s", "material@1s")],
    *[("12_alphazero_loop", "ladder.json", _ladder_rating(player), "Elo {:.0f}")
      for player in ("policy", "mcts@0.1s")],
]


def results_value(doc, key):
    """The value at ``key`` (see ``RESULT_NUMBERS``) of a parsed results file."""
    if callable(key):
        return key(doc)
    for part in re.findall(r"[^.\[\]]+(?:\[[^\]]*\])?", key):
        name, _, selector = part.partition("[")
        doc = doc[name]
        if selector:
            wanted = dict(pair.split("=", 1) for pair in selector.rstrip("]").split(","))
            [doc] = [item for item in doc
                     if all(str(item.get(k)) == v for k, v in wanted.items())]
    return doc


def stored_output_text(nb) -> str:
    """Everything a notebook's code cells printed or displayed as text."""
    texts = []
    for cell in code_cells(nb):
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")))
            for mime in ("text/plain", "text/markdown", "text/html"):
                texts.append("".join(out.get("data", {}).get(mime, "")))
    return "\n".join(texts)


@pytest.mark.parametrize("row", RESULT_NUMBERS,
                         ids=lambda r: f"{r[0][:2]}-{r[1]}-{getattr(r[2], '__name__', r[2])}")
def test_numbers_from_results_files_are_the_files_numbers_now(row):
    notebook, filename, key, fmt = row
    value = results_value(json.loads((RESULTS / filename).read_text(encoding="utf-8")), key)
    shown = fmt.format(value)
    nb = json.loads((NOTEBOOKS[0].parent / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    assert re.search(rf"(?<![\d.]){re.escape(shown)}(?!\d)", stored_output_text(nb)), (
        f"{notebook} does not show {shown!r} ({filename}: {key}); re-execute it")


def test_the_results_check_sees_a_stale_number():
    doc = {"rows": [{"evaluator": "nnue", "mae": 87.0}, {"evaluator": "pst", "mae": 90.0}]}
    assert results_value(doc, "rows[evaluator=nnue].mae") == 87.0
    stale = {"cells": [{"cell_type": "code", "source": "x", "outputs": [
        {"output_type": "stream", "text": "| nnue | 97 |"}]}]}
    assert "| nnue | 87 |" not in stored_output_text(stale)
    assert "| nnue | 97 |" in stored_output_text(stale)


# ------------------------------------------------------------ hidden state
def _kind(node):
    """The kind of object an expression builds, when its syntax says so (else None)."""
    import ast
    kinds = {ast.Dict: "dict", ast.DictComp: "dict", ast.List: "list", ast.ListComp: "list",
             ast.Tuple: "tuple", ast.Set: "set", ast.SetComp: "set", ast.Lambda: "function",
             ast.JoinedStr: "str", ast.GeneratorExp: "generator"}
    if type(node) in kinds:
        return kinds[type(node)]
    if isinstance(node, ast.Constant):
        value = node.value
        return "number" if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else type(value).__name__
    if isinstance(node, ast.IfExp):
        a, b = _kind(node.body), _kind(node.orelse)
        return a if a == b else None
    if isinstance(node, ast.Call):
        # a builtin that builds a known kind, or a CapWords name: a class, whose call
        # builds an object of that class (GameTree(...) and chess.Board(...) differ)
        func = node.func
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else ""
        if isinstance(func, ast.Name) and name in _BUILTIN_KINDS:
            return _BUILTIN_KINDS[name]
        if name[:1].isupper() and not name.isupper():
            return f"{name} object"
    return None


#: Builtins whose call builds an object of a known kind (unless the notebook shadows them).
_BUILTIN_KINDS = {"int": "number", "float": "number", "str": "str", "list": "list",
                  "sorted": "list", "dict": "dict", "set": "set", "tuple": "tuple"}


def cell_bindings(source: str):
    """(name, kind) of each binding of a code cell outside its functions: "import" for a
    name bound by an import, the expression's kind for an assignment ("other" when the
    syntax does not tell), "function"/"class" for a definition, "other" for a loop or
    with target."""
    import ast
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    found = []

    def visit(body):
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.extend(((a.asname or a.name).split(".")[0], "import") for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((node.name, "function"))
            elif isinstance(node, ast.ClassDef):
                found.append((node.name, "class"))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        found.append((target.id, _kind(node.value) or "other"))
                    elif isinstance(target, (ast.Tuple, ast.List)):
                        found.extend((t.id, "other") for t in target.elts
                                     if isinstance(t, ast.Name))
            if isinstance(node, (ast.For, ast.With)):
                targets = [node.target] if isinstance(node, ast.For) else \
                    [item.optional_vars for item in node.items if item.optional_vars]
                for target in targets:
                    found.extend((n.id, "other") for n in ast.walk(target)
                                 if isinstance(n, ast.Name))
            # the bodies of loops, tests and with/try blocks bind names of the cell too
            for field in ("body", "orelse", "finalbody"):
                if isinstance(node, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
                    visit(getattr(node, field, []))
            if isinstance(node, ast.Try):
                for handler in node.handlers:
                    visit(handler.body)

    visit(tree.body)
    return found


def rebound_names(nb):
    """Names bound in two cells to different kinds of object: an imported name later
    assigned or defined, or two assignments whose syntax builds different kinds (a tuple,
    then a list). Re-running the first cell's readers after the second cell breaks or
    silently changes them. "_" is free to reuse."""
    first = {}                       # name -> (cell index, kind) of its first known binding
    problems = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        for name, kind in cell_bindings("".join(cell["source"])):
            if name == "_":
                continue
            if name not in first:
                first[name] = (index, kind)
                continue
            where, was = first[name]
            if where == index or kind == was:
                continue
            if "import" in (was, kind) or "other" not in (was, kind):
                problems.append((name, where, was, index, kind))
            if was == "other":
                first[name] = (index, kind)
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_no_notebook_name_is_rebound_to_another_kind_of_object(path):
    problems = rebound_names(json.loads(path.read_text(encoding="utf-8")))
    def what(kind):
        return {"import": "an imported name", "other": "an assigned value"}.get(kind, f"a {kind}")
    assert not problems, "\n".join(
        f"{path.name}: `{name}` is {what(was)} in cell {a} and {what(kind)} in cell {b}; "
        f"re-running cell {a}'s readers after cell {b} uses the wrong object: give one of "
        f"them another name" for name, a, was, b, kind in problems)


def test_the_hidden_state_check_sees_a_module_rebound_and_a_tuple_turned_list():
    def nb(*sources):
        return {"cells": [{"cell_type": "code", "source": s} for s in sources]}
    assert rebound_names(nb("from chesslab.training import recipe", "x = recipe.quiet_leaf(b)",
                            "recipe = read_json('recipe.json')")) == [
        ("recipe", 0, "import", 2, "other")]
    assert rebound_names(nb("depths = (3, 4)", "depths = [1, 2] if a else [1, 2, 3]")) == [
        ("depths", 0, "tuple", 1, "list")]
    assert rebound_names(nb("rows = {r: 1 for r in x}", "for d in ds:\n    rows = [d]")) == [
        ("rows", 0, "dict", 1, "list")]
    assert rebound_names(nb("board = chess.Board()", "board = make()", "n = 3", "n = 4",
                            "_ = plot()", "_ = [1]")) == []


def test_the_hidden_state_check_sees_a_name_bound_to_objects_of_two_classes():
    def nb(*sources):
        return {"cells": [{"cell_type": "code", "source": s} for s in sources]}
    assert rebound_names(nb("small = GameTree(chess.Board(), material, depth=1)",
                            "small = chess.Board('4k3/8/8/8/8/8/8/4K3 w - - 0 1')")) == [
        ("small", 0, "GameTree object", 1, "Board object")]
    assert rebound_names(nb("k = int(a)", "k = str(a)")) == [("k", 0, "number", 1, "str")]
    # the same class twice, or a call the syntax cannot place, is no rebinding
    assert rebound_names(nb("board = chess.Board()", "board = chess.Board(fen)",
                            "tree = GameTree(board, m, 3)", "tree = make_tree()",
                            "k = int(a)", "k = 3", "ID = MAKE()", "ID = [1]")) == []
