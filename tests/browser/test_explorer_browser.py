"""The tree explorers in a real browser: JupyterLab + headless Chromium (Playwright).

A small notebook makes the two explorers of notebooks 07 and 11 (alpha-beta with move
ordering on a middlegame; MCTS on the back-rank mate); the test clicks Step and sees the
tree grow, steps over, selects a node, runs MCTS simulations by the buttons and reads
the results back from the page. Each explorer is photographed into
$CHESSLAB_SCREENSHOTS (default test-artifacts/): explore_search.png, explore_mcts.png;
`python tools/screenshot_explorer.py` runs this test and keeps them in figures/ for the
notebooks' static view. Skips with a reason when Playwright or Chromium is missing.
"""
import re

import pytest

from test_play_browser import (CHROMIUM_ARGS, _chromium, _shots_dir, lab_folders,  # noqa: I001
                               lab_server, run_all_cells)

SHOTS = ("explore_search", "explore_mcts")
CELLS = [
    """import chess
from chesslab import explore_mcts, explore_search
middle = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8")
search_view = explore_search(middle, "pst", depth=3, algorithm="alphabeta", ordering=True)
search_view""",
    """mcts_view = explore_mcts(chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),
                        simulations=100, depth=3)
mcts_view.run(20)
mcts_view""",
]

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root, work = lab_folders(tmp_path_factory, "explorer-lab")
    import nbformat
    from playwright.sync_api import expect, sync_playwright
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}     # else JupyterLab asks for one
    nbformat.write(nb, work / "explorers.ipynb")
    with lab_server(work, root / "jupyter") as (base, token), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1300})
            run_all_cells(page, f"{base}/lab/tree/explorers.ipynb?token={token}")
            expect(page.locator(".chesslab-search-explorer")).to_have_count(1, timeout=60000)
            expect(page.locator(".chesslab-mcts-explorer")).to_have_count(1, timeout=60000)
            yield page
        finally:
            browser.close()


def _boxes(view):
    return view.locator(".chesslab-explore-tree svg rect, .chesslab-mcts-tree svg rect").count()


def _photograph(page, view, name):
    """A screenshot of one explorer, cropped to what it draws."""
    view.evaluate("el => el.scrollIntoView({block: 'start'})")
    page.mouse.move(0, 0)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.wait_for_timeout(300)
    box = view.evaluate("""el => {
        const r = el.getBoundingClientRect();
        let right = r.left, bottom = r.top;
        for (const child of el.querySelectorAll('svg, .widget-html-content, button, table')) {
            const c = child.getBoundingClientRect();
            if (c.width && c.height) {
                right = Math.max(right, c.right);
                bottom = Math.max(bottom, c.bottom);
            }
        }
        return {x: r.left, y: r.top, width: right - r.left, height: bottom - r.top};
    }""")
    pad = 6
    clip = {"x": max(0, box["x"] - pad), "y": max(0, box["y"] - pad),
            "width": box["width"] + 2 * pad, "height": box["height"] + 2 * pad}
    page.screenshot(path=str(_shots_dir() / f"{name}.png"), clip=clip)


def test_search_explorer_grows_on_step(page):
    from playwright.sync_api import expect
    view = page.locator(".chesslab-search-explorer")
    status = view.locator(".chesslab-explore-status")
    expect(status).to_contain_text("positions visited 1/2563")
    assert _boxes(view) == 1                                   # the root alone
    view.locator(".chesslab-explore-step").click()
    expect(status).to_contain_text("positions visited 2/")
    expect(view.locator(".chesslab-explore-tree svg rect")).to_have_count(2)   # it grew
    view.locator(".chesslab-explore-step").click()
    expect(view.locator(".chesslab-explore-tree svg rect")).to_have_count(3)
    view.locator(".chesslab-explore-back").click()
    expect(view.locator(".chesslab-explore-tree svg rect")).to_have_count(2)
    for _ in range(3):
        view.locator(".chesslab-explore-over").click()
    for _ in range(12):
        view.locator(".chesslab-explore-step").click()
    expect(status).to_contain_text(re.compile(r"step \d+/5126"))
    steps = int(re.search(r"step (\d+)/", status.inner_text()).group(1))
    assert steps > 3 + 12                      # each Step over crossed a whole subtree
    expect(view.locator(".chesslab-explore-tree g.node-cutoff").first).to_contain_text("by ")
    expect(view.locator(".chesslab-explore-info")).to_contain_text("window on entry")
    up = view.locator(".chesslab-node-button").first                 # select the parent
    path_before = view.locator(".chesslab-explore-info").inner_text()
    up.click()
    expect(view.locator(".chesslab-explore-info")).not_to_have_text(path_before)
    view.locator(".chesslab-explore-step").click()                   # back to the search
    _photograph(page, view, "explore_search")
    view.locator(".chesslab-explore-end").click()
    expect(status).to_contain_text("positions visited 2563/2563")


def test_mcts_explorer_runs_simulations(page):
    from playwright.sync_api import expect
    view = page.locator(".chesslab-mcts-explorer")
    status = view.locator(".chesslab-mcts-status")
    expect(status).to_contain_text("simulations 20 ")
    view.locator(".chesslab-mcts-step").click()
    expect(status).to_contain_text("simulations 21 ")
    expect(view.locator(".chesslab-mcts-path")).to_contain_text("simulation 21")
    view.locator(".chesslab-mcts-run").click()                       # N = 10
    expect(status).to_contain_text("simulations 31 ")
    view.locator(".chesslab-mcts-back").click()
    expect(status).to_contain_text("simulations 30 ")
    view.locator(".chesslab-mcts-end").click()
    expect(status).to_contain_text("simulations 100 ")
    expect(view.locator(".chesslab-mcts-tree svg rect").first).to_be_visible()
    _photograph(page, view, "explore_mcts")
