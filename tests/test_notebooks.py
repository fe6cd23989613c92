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
    last = json.loads(path.read_text())["cells"][-1]
    text = "".join(last["source"])
    assert last["cell_type"] == "markdown" and text.startswith("## Further reading")
    assert "seed this notebook follows" in text and "chessprogramming.org/" in text
    assert re.search(r"\(1[89]\d\d|20\d\d\)", text)          # a dated paper or book
