"""The project's markdown tells the truth about the code: links resolve, every dotted
``chesslab.x.y`` name imports, ARCHITECTURE.md lists every module, the README stays a
front page. (The notebooks' own prose has tests/test_prose.py.)"""
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([*ROOT.glob("*.md"), ROOT / "bench" / "README.md", ROOT / "data" / "README.md"])
README_MAX_LINES = 250


def _prose(text: str) -> str:
    """The text without fenced code blocks (they hold commands, not links or headings)."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces -."""
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return "".join("-" if ch == " " else ch for ch in heading
                   if ch.isalnum() or ch in "-_ ")


def anchors(path: Path) -> set:
    seen, found = {}, set()
    for m in re.finditer(r"^#{1,6} (.+?)\s*#*$", _prose(path.read_text(encoding="utf-8")), re.M):
        a = slug(m.group(1).replace("`", ""))
        found.add(a if a not in seen else f"{a}-{seen[a]}")
        seen[a] = seen.get(a, 0) + 1
    return found


def broken_links(path: Path) -> list:
    text = re.sub(r"`[^`\n]*`", "", _prose(path.read_text(encoding="utf-8")))
    broken = []
    for target in re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://|mailto:", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target} (no such heading)")
    return broken


def resolves(name: str) -> bool:
    """``chesslab.a.b.c``: the longest importable prefix, then attributes."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def dotted_names(text: str) -> set:
    return {n.rstrip(".") for n in re.findall(r"\bchesslab(?:\.[A-Za-z_]\w*)+", text)}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves(path):
    assert broken_links(path) == []


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_chesslab_name_imports(path):
    assert sorted(n for n in dotted_names(path.read_text(encoding="utf-8")) if not resolves(n)) == []


def test_the_checks_catch_a_broken_link_and_a_gone_name(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("# Top\n[ok](#top) [gone](#nowhere) [file](missing.md)\n"
                   "`chesslab.search.search` and `chesslab.arena.match`\n")
    assert broken_links(doc) == ["#nowhere (no such heading)", "missing.md (no such file)"]
    assert sorted(n for n in dotted_names(doc.read_text(encoding="utf-8")) if not resolves(n)) == \
        ["chesslab.arena.match"]


def test_architecture_lists_every_module_of_every_layer():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = []
    for layer in sorted(p for p in (ROOT / "chesslab").iterdir() if (p / "__init__.py").exists()):
        modules = [p.stem for p in layer.glob("*.py") if p.stem != "__init__"]
        modules += [p.name for p in layer.iterdir() if (p / "__init__.py").exists()]
        missing += [f"{layer.name}/{m}" for m in modules
                    if not re.search(rf"`{m}(/|\.py)?`|{layer.name}\.{m}\b|{layer.name}/{m}\b", text)]
    assert missing == []


def test_the_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_each_teaching_session_plan_adds_up_to_its_length():
    """TEACHING.md's session plans: the minutes of a plan's parts sum to the length in its
    heading (shown to fail on a planted plan that is 5 minutes short)."""
    def plans(text):
        found = {}
        for m in re.finditer(r"^### (Session [^(\n]*)\((\d+) min[^\n]*\n(.*?)(?=^#{2,3} |\Z)",
                             text, re.S | re.M):
            parts = re.findall(r"^\|[^\n]*\|\s*(\d+)\s*\|$", m.group(3), re.M)
            found[m.group(1).strip()] = (int(m.group(2)), sum(map(int, parts)))
        return found

    found = plans((ROOT / "TEACHING.md").read_text(encoding="utf-8"))
    assert len(found) >= 13 and all(total for _, total in found.values())
    assert {name: v for name, v in found.items() if v[0] != v[1]} == {}
    planted = "### Session 99 · x (90 min)\n\n| part | minutes |\n|---|---|\n| a | 40 |\n| b | 45 |\n"
    assert plans(planted) == {"Session 99 · x": (90, 85)}
