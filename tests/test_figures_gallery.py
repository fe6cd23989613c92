"""figures.gallery: each registered figure draws; the command's output is reproducible."""
import hashlib
import re
from pathlib import Path

import matplotlib
import pytest

from chesslab import figures
from chesslab.__main__ import main

FIGURES_DIR = Path(__file__).resolve().parents[1] / "figures"


@pytest.mark.parametrize("name", list(figures.figure_registry()))
def test_every_registered_figure_draws(name):
    try:
        fig = figures.figure_registry()[name][0]()
    except FileNotFoundError as exc:          # results not computed yet: says which command
        assert "python -m chesslab" in str(exc)
        pytest.skip(str(exc))
    assert isinstance(fig, matplotlib.figure.Figure) and fig.axes


def test_cli_output_is_byte_identical_twice(tmp_path, capsys):
    only = ["piece_table", "cnn_structure"]
    digests = []
    for run in range(2):
        out = tmp_path / f"run{run}"
        assert main(["figures", "--out", str(out), "--only", *only, "--quiet"]) == 0
        digests.append({p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                        for p in sorted(out.iterdir())})
    assert len(digests[0]) == 4 and digests[0] == digests[1]
    assert main(["figures", "--out", str(tmp_path), "--only", "nonsense"]) == 2
    assert "unknown figure" in capsys.readouterr().err


def _texts(svg: str) -> list[str]:
    """The text a figure shows: matplotlib writes each label into its SVG as a comment."""
    return re.findall(r"<!-- (.*?) -->", svg)


def test_the_committed_figures_show_what_the_code_and_results_draw_now(tmp_path):
    # the README's gallery is figures/: a changed caption or a rerun results file must be
    # followed by `python -m chesslab figures`; compared by the words and numbers each
    # figure shows (not bytes: fonts and renderers differ between machines)
    assert main(["figures", "--out", str(tmp_path), "--quiet"]) == 0
    drawn = sorted(tmp_path.glob("*.svg"))
    assert len(drawn) == len(figures.figure_registry())
    stale = [p.name for p in drawn
             if _texts(p.read_text(encoding="utf-8"))
             != _texts((FIGURES_DIR / p.name).read_text(encoding="utf-8"))]
    assert not stale, f"run `python -m chesslab figures`: {stale} differ from what they draw now"
