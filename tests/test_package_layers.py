"""The folders are the layers: imports point down, no cycles, small modules, a light searcher."""
import importlib
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import import_graph  # noqa: E402  (tools/ is not a package)


def _both():
    edges, local = import_graph.graph()
    return {m: edges[m] | set(local[m]) for m in edges}


def test_no_module_imports_a_higher_layer():
    assert import_graph.upward(_both()) == []


def test_no_import_cycle_even_through_function_local_imports():
    assert import_graph.cycles(_both()) == []


def test_the_checks_see_a_planted_upward_import_and_cycle():
    planted = {"chesslab.board.rules": {"chesslab.search.searcher"},
               "chesslab.search.searcher": {"chesslab.board.rules"}}
    assert import_graph.upward(planted) == [("chesslab.board.rules", "chesslab.search.searcher")]
    assert import_graph.cycles(planted) == [["chesslab.board.rules", "chesslab.search.searcher"]]


def test_every_package_module_belongs_to_a_layer():
    for module in import_graph.MODULES:
        import_graph.layer(module)          # ValueError for a folder that is no layer


def test_few_modules_at_the_top_and_none_too_long():
    top = [p.name for p in (ROOT / "chesslab").glob("*.py")
           if p.name not in ("__init__.py", "__main__.py")]
    assert len(top) <= 8, top
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "chesslab").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert long == {}


def test_importing_the_searcher_loads_no_data_engine_or_model_code():
    code = ("import sys; from chesslab.search import search; "
            "print(' '.join(m for m in sys.modules if m.startswith('chesslab')))")
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True, cwd=ROOT).stdout.split())
    assert "chesslab.search.searcher" in loaded
    heavy = {m for m in loaded if m.startswith(("chesslab.datasets", "chesslab.evaluators",
                                                "chesslab.base.stockfish", "chesslab.nn",
                                                "chesslab.matches", "chesslab.widgets"))}
    assert heavy == set()


@pytest.mark.parametrize("name", sorted(importlib.import_module("chesslab")._FACE))
def test_each_public_name_is_defined_once_in_its_layer(name):
    chesslab = importlib.import_module("chesslab")
    if chesslab._FACE[name].startswith("chesslab.widgets"):
        pytest.importorskip("ipywidgets")
    value = getattr(chesslab, name)
    assert value.__module__ == chesslab._FACE[name]
    assert getattr(importlib.import_module(chesslab._FACE[name]), name) is value


def test_an_unknown_public_name_is_an_attribute_error():
    chesslab = importlib.import_module("chesslab")
    with pytest.raises(AttributeError, match="no attribute 'serach'"):
        chesslab.serach
    assert "make_player" in dir(chesslab)
