"""Notebook 09 (play lab) in a real browser: JupyterLab + headless Chromium driven by Playwright.

Runs the notebook once, then clicks squares of its boards like a student would and
reads the result back from the page (the move list, the pieces on the squares): you
against the AI, AI vs AI (Step), you against Stockfish (skipped without Stockfish)
and the promotion picker. Each board is photographed, cropped to the widget, into
$CHESSLAB_SCREENSHOTS (default test-artifacts/): play_vs_ai.png, play_ai_vs_ai.png,
play_vs_stockfish.png; `python tools/screenshot_play.py` runs this test and keeps
those as figures/ for the notebook's static view. Skips with a reason when
Playwright or Chromium is missing (`python -m pytest` at home); CI installs both.
The JupyterLab server, its kernels and all its settings live in a temporary folder
and are stopped whatever happens; its kernels import chesslab from this checkout.
"""
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "09_play_lab.ipynb"
ARTIFACTS = ROOT / "test-artifacts"
#: The screenshots of the boards that figures/ keeps (tools/screenshot_play.py).
SHOTS = ("play_vs_ai", "play_ai_vs_ai", "play_vs_stockfish")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
# A prepared position for the promotion picker: White pawn on e7, kings far away
# (and a Black pawn, so that the game goes on after a knight promotion).
PROMOTION_CELL = '''promo = play_vs_ai(ai="random", fen="8/4P2k/7p/8/8/8/8/K7 w - - 0 1", seed=1)
promo.add_class("chesslab-promo-test")
promo'''

pytestmark = pytest.mark.browser


def _chromium():
    """The Chromium binary: $CHESSLAB_CHROMIUM, else chromium on PATH or /usr/bin/chromium."""
    for path in (os.environ.get("CHESSLAB_CHROMIUM"), shutil.which("chromium"),
                 "/usr/bin/chromium"):
        if path and Path(path).is_file():
            return path
    return None


def _missing():
    """Why the browser test cannot run here (None when it can)."""
    try:
        import jupyterlab  # noqa: F401
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return (f"{exc.name} is not installed; for this test: python -m pip install "
                f"playwright==1.65.2 (and apt-get install chromium)")
    if _chromium() is None:
        return "chromium is not installed (apt-get install chromium, or set CHESSLAB_CHROMIUM)"
    return None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(base, token, path, method="GET"):
    request = urllib.request.Request(f"{base}{path}?token={token}", method=method)
    with urllib.request.urlopen(request, timeout=5) as response:
        body = response.read()
    return json.loads(body) if body else None


def _write_settings(settings_dir):
    files = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
            {"fetchNews": "false", "checkForUpdates": False},
        # Render every cell (no virtual scrolling), so all three boards are in the DOM.
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings":
            {"windowingMode": "none"},
    }
    for name, value in files.items():
        path = settings_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


@contextlib.contextmanager
def lab_server(work: Path, home: Path):
    """A JupyterLab server on ``work`` (settings, kernels, everything under ``home``),
    stopped with its kernels whatever happens; yields (base url, token). Its kernels
    import chesslab from this checkout (not another installed copy)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
                "MPLCONFIGDIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        env[var] = str(home / var.lower())
        Path(env[var]).mkdir(parents=True)
    _write_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    port, token = _free_port(), "chesslab-browser-test"
    base = f"http://127.0.0.1:{port}"
    log = open(home / "jupyterlab.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1",
         "--port", str(port), f"--ServerApp.token={token}", "--allow-root",
         f"--ServerApp.root_dir={work}", "--ServerApp.port_retries=0",
         "--LabApp.expose_app_in_browser=True",
         "--FileContentsManager.delete_to_trash=False"],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=work)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _api(base, token, "/api/status")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not start:\n" + (home / "jupyterlab.log").read_text(encoding="utf-8")[-3000:])
                time.sleep(0.3)
        yield base, token
    finally:
        try:       # shut the kernels down before the server
            for session in _api(base, token, "/api/sessions") or []:
                _api(base, token, f"/api/sessions/{session['id']}", method="DELETE")
        except OSError:
            pass
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def run_all_cells(page, url: str) -> None:
    """Open the notebook at ``url`` in JupyterLab and run every cell (its kernel ready)."""
    page.goto(url)
    page.wait_for_function("""() => window.jupyterapp && window.jupyterapp.shell.currentWidget
        && window.jupyterapp.shell.currentWidget.sessionContext""", timeout=30000)
    page.evaluate("""async () => {
        const panel = window.jupyterapp.shell.currentWidget;
        await panel.sessionContext.ready;
        await window.jupyterapp.commands.execute('notebook:run-all-cells');
    }""")


def lab_folders(tmp_path_factory, name: str):
    """(root, work): a temporary folder for a JupyterLab server (its settings under root,
    the notebooks under work); skips the test, saying why, when no browser can run."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp(name)
    work = root / "course"
    work.mkdir()
    return root, work


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    import nbformat
    root, work = lab_folders(tmp_path_factory, "lab")
    (work / "notebooks").mkdir()
    (work / "figures").mkdir()
    for name in SHOTS:            # the notebook's markdown shows them (../figures/NAME.png)
        if (ROOT / "figures" / f"{name}.png").exists():
            shutil.copy(ROOT / "figures" / f"{name}.png", work / "figures")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROMOTION_CELL))
    nbformat.write(nb, work / "notebooks" / NOTEBOOK.name)
    with lab_server(work, root / "jupyter") as (base, token):
        yield {"url": f"{base}/lab/tree/notebooks/{NOTEBOOK.name}?token={token}",
               "base": base, "token": token}


def _board(game):
    """{'e2': glyph, ...} read from the square buttons' classes and text."""
    return game.evaluate("""el => Object.fromEntries(
        [...el.querySelectorAll('.chesslab-sq')].map(b => [
            ([...b.classList].find(c => /^chesslab-sq-[a-h][1-8]$/.test(c)) || "").slice(12),
            b.textContent.trim()]).filter(([k]) => k))""")


def _moves(game):
    return game.locator(".chesslab-moves").inner_text().strip()


def _square(game, name):
    return game.locator(f".chesslab-sq-{name}")


def _shots_dir() -> Path:
    folder = Path(os.environ.get("CHESSLAB_SCREENSHOTS") or ARTIFACTS)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _photograph(page, game, name):
    """A screenshot of one board widget, cropped to what it draws (the widget's own box
    is as wide as the notebook; its two columns are not)."""
    game.evaluate("el => el.scrollIntoView({block: 'center'})")   # clear of the toolbar
    page.mouse.move(0, 0)                      # no hover highlight on a square
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # no focus ring
    page.wait_for_timeout(300)
    box = game.evaluate("""el => {
        const row = el.querySelector(':scope > .widget-hbox');   // board | side panels
        const r = row.getBoundingClientRect();
        let right = r.left, bottom = r.top;
        for (const col of row.children) {
            const c = col.getBoundingClientRect();
            right = Math.max(right, c.right);
            bottom = Math.max(bottom, c.bottom);
        }
        return {x: r.left, y: r.top, width: right - r.left, height: bottom - r.top};
    }""")
    pad = 6                                    # (1 above: the cell's text sits close)
    clip = {"x": max(0, box["x"] - pad), "y": max(0, box["y"] - 1),
            "width": box["width"] + 2 * pad, "height": box["height"] + 1 + pad}
    path = _shots_dir() / f"{name}.png"
    page.screenshot(path=str(path), clip=clip)
    return path


@pytest.fixture(scope="module")
def notebook(lab):
    """The notebook open in Chromium with every cell run (once for all the tests)."""
    from playwright.sync_api import expect, sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            run_all_cells(page, lab["url"])
            # you vs AI, AI vs AI, the promotion board; and Stockfish's board or its message
            expect(page.locator(".chesslab-promo-test")).to_have_count(1, timeout=60000)
            expect(page.locator(".chesslab-mode-stockfish, .chesslab-no-stockfish")).to_have_count(1)
            expect(page.locator(".chesslab-game")).to_have_count(
                3 + page.locator(".chesslab-mode-stockfish").count())
            yield page
        finally:
            browser.close()


def test_play_against_the_ai_by_clicking(notebook):
    from playwright.sync_api import expect
    page = notebook
    game = page.locator(".chesslab-mode-play").first
    expect(_square(game, "e2")).to_have_text(re.compile(r"\S"))
    start = _board(game)
    assert _moves(game) == ""

    # You play 1. e4; the AI answers in the background.
    _square(game, "e2").click()
    expect(_square(game, "e4")).to_have_class(re.compile(r"chesslab-target"))
    _square(game, "e4").click()
    expect(game.locator(".chesslab-moves")).to_have_text(
        re.compile(r"1\. e4 [A-Za-z][\w=+#-]*"), timeout=20000)
    expect(game.locator(".chesslab-status")).to_have_text(re.compile("White to move"))
    after = _board(game)
    assert after["e2"] == "" and after["e4"] == start["e2"] != ""
    changed = {sq for sq in start if start[sq] != after[sq]} - {"e2", "e4"}
    assert len(changed) >= 2, f"the AI's reply did not change the board: {changed}"
    expect(game.locator(".chesslab-explain")).to_contain_text("Why")

    # An illegal target: the knight on g1 cannot go to g4. Nothing moves.
    _square(game, "g1").click()
    expect(_square(game, "g1")).to_have_class(re.compile("chesslab-selected"))
    moves_before = _moves(game)
    _square(game, "g4").click()
    page.wait_for_timeout(500)
    assert _board(game) == after and _moves(game) == moves_before
    _square(game, "g1").click()           # deselect
    expect(_square(game, "g1")).not_to_have_class(re.compile("chesslab-selected"))
    game.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play_browser.png"))
    _photograph(page, game, "play_vs_ai")


def test_ai_vs_ai_steps_on_the_button(notebook):
    from playwright.sync_api import expect
    page = notebook
    match = page.locator(".chesslab-mode-watch")
    moves = match.locator(".chesslab-moves")
    # the shown board waits at the start (the notebook drives a second board from code)
    expect(moves).to_have_text("")
    expect(_square(match, "e2")).to_have_text(re.compile(r"\S"))
    for ply in (1, 2):                     # one move each, by the Step button
        match.locator(".chesslab-step").click()
        expect(moves).to_have_text(re.compile(r"^1\. \S+" + (r" \S+" if ply == 2 else "") + r"$"),
                                   timeout=20000)
        expect(match.locator(".chesslab-status")).not_to_have_text(re.compile("thinking"))
    expect(match.locator(".chesslab-explain")).to_contain_text("Why")
    expect(match.locator(".chesslab-pause")).to_be_disabled()
    _photograph(page, match, "play_ai_vs_ai")


def test_play_against_stockfish_at_a_level(notebook):
    from playwright.sync_api import expect
    page = notebook
    if page.locator(".chesslab-no-stockfish").count():
        expect(page.locator(".chesslab-no-stockfish")).to_contain_text(
            "apt-get install -y stockfish")
        pytest.skip("Stockfish is not installed: the notebook shows how to install it "
                    "(no screenshot of its board)")
    game = page.locator(".chesslab-mode-stockfish")
    level = game.locator(".chesslab-stockfish-level")
    expect(level).to_contain_text("Stockfish")
    expect(level.locator("select")).to_have_value("skill level")
    expect(level.locator(".widget-readout")).to_have_text("3")
    expect(game.locator(".chesslab-side-black select")).to_have_value("stockfish:skill=3")
    _square(game, "e2").click()
    _square(game, "e4").click()
    expect(game.locator(".chesslab-moves")).to_have_text(
        re.compile(r"1\. e4 [A-Za-z][\w=+#-]*"), timeout=20000)
    expect(game.locator(".chesslab-status")).to_have_text(re.compile("White to move"))
    expect(game.locator(".chesslab-explain")).to_contain_text("stockfish:skill=3 played")
    _photograph(page, game, "play_vs_stockfish")


def test_promotion_through_the_picker(notebook):
    from playwright.sync_api import expect
    page = notebook
    promo = page.locator(".chesslab-promo-test")
    promo.scroll_into_view_if_needed()
    picker = promo.locator(".chesslab-promotion")
    expect(picker).to_be_hidden()
    _square(promo, "e7").click()
    _square(promo, "e8").click()
    expect(picker).to_be_visible()
    promo.locator(".chesslab-promote-n").click()
    expect(promo.locator(".chesslab-moves")).to_have_text(
        re.compile(r"^1\. e8=N \S+"), timeout=20000)
    assert _board(promo)["e8"].startswith("\u265e")     # the knight glyph
    expect(_square(promo, "e8")).to_have_class(re.compile("chesslab-white-piece"))
    expect(picker).to_be_hidden()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play_browser_promotion.png"))
