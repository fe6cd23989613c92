"""Notebook 08 in a real browser: JupyterLab + headless Chromium driven by Playwright.

Clicks squares of the widget board like a student would and reads the result back
from the page (the move list, the pieces on the squares). Skips with a reason when
Playwright or Chromium is missing (`python -m pytest` at home); CI installs both.
The JupyterLab server, its kernels and all its settings live in a temporary folder
and are stopped whatever happens.
"""
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
NOTEBOOK = ROOT / "notebooks" / "08_play.ipynb"
ARTIFACTS = ROOT / "test-artifacts"
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


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    reason = _missing()
    if reason:
        pytest.skip(reason)
    import nbformat
    root = tmp_path_factory.mktemp("lab")
    home = root / "jupyter"
    work = root / "notebooks"
    work.mkdir()
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROMOTION_CELL))
    nbformat.write(nb, work / NOTEBOOK.name)
    env = dict(os.environ)
    for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
                "MPLCONFIGDIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        env[var] = str(home / var.lower())
        Path(env[var]).mkdir(parents=True)
    _write_settings(Path(env["JUPYTERLAB_SETTINGS_DIR"]))
    port, token = _free_port(), "chesslab-browser-test"
    base = f"http://127.0.0.1:{port}"
    log = open(root / "jupyterlab.log", "w")
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
                    pytest.fail("JupyterLab did not start:\n" + (root / "jupyterlab.log").read_text()[-3000:])
                time.sleep(0.3)
        yield {"url": f"{base}/lab/tree/{NOTEBOOK.name}?token={token}", "base": base,
               "token": token}
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


def _board(game):
    """{'e2': glyph, ...} read from the square buttons' classes and text."""
    return game.evaluate("""el => Object.fromEntries(
        [...el.querySelectorAll('.chesslab-sq')].map(b => [
            ([...b.classList].find(c => /^chesslab-sq-[a-h][1-8]$/.test(c)) || "").slice(12),
            b.textContent.trim()]).filter(([k]) => k))""")


def _moves(game):
    return game.locator(".chesslab-moves").inner_text().strip()


def test_play_a_game_in_jupyterlab(lab):
    from playwright.sync_api import expect, sync_playwright
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            page.goto(lab["url"])
            page.wait_for_function("""() => window.jupyterapp && window.jupyterapp.shell.currentWidget
                && window.jupyterapp.shell.currentWidget.sessionContext""", timeout=30000)
            page.evaluate("""async () => {
                const panel = window.jupyterapp.shell.currentWidget;
                await panel.sessionContext.ready;
                await window.jupyterapp.commands.execute('notebook:run-all-cells');
            }""")
            games = page.locator(".chesslab-game")
            expect(games).to_have_count(3, timeout=40000)
            game, promo = games.nth(0), page.locator(".chesslab-promo-test")
            square = lambda g, name: g.locator(f".chesslab-sq-{name}")
            expect(square(game, "e2")).to_have_text(re.compile(r"\S"))
            start = _board(game)
            assert _moves(game) == ""

            # You play 1. e4; the AI answers in the background.
            square(game, "e2").click()
            expect(square(game, "e4")).to_have_class(re.compile(r"chesslab-target"))
            square(game, "e4").click()
            expect(game.locator(".chesslab-moves")).to_have_text(
                re.compile(r"1\. e4 [A-Za-z][\w=+#-]*"), timeout=20000)
            expect(game.locator(".chesslab-status")).to_have_text(re.compile("White to move"))
            after = _board(game)
            assert after["e2"] == "" and after["e4"] == start["e2"] != ""
            changed = {sq for sq in start if start[sq] != after[sq]} - {"e2", "e4"}
            assert len(changed) >= 2, f"the AI's reply did not change the board: {changed}"
            expect(game.locator(".chesslab-explain")).to_contain_text("Why")

            # An illegal target: the knight on g1 cannot go to g4. Nothing moves.
            square(game, "g1").click()
            expect(square(game, "g1")).to_have_class(re.compile("chesslab-selected"))
            moves_before = _moves(game)
            square(game, "g4").click()
            page.wait_for_timeout(500)
            assert _board(game) == after and _moves(game) == moves_before
            square(game, "g1").click()           # deselect
            expect(square(game, "g1")).not_to_have_class(re.compile("chesslab-selected"))
            game.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "play_browser.png"))

            # Promotion through the picker: e7-e8, choose a knight.
            promo.scroll_into_view_if_needed()
            picker = promo.locator(".chesslab-promotion")
            expect(picker).to_be_hidden()
            square(promo, "e7").click()
            square(promo, "e8").click()
            expect(picker).to_be_visible()
            promo.locator(".chesslab-promote-n").click()
            expect(promo.locator(".chesslab-moves")).to_have_text(
                re.compile(r"^1\. e8=N \S+"), timeout=20000)
            assert _board(promo)["e8"].startswith("\u265e")     # the knight glyph
            expect(square(promo, "e8")).to_have_class(re.compile("chesslab-white-piece"))
            expect(picker).to_be_hidden()
            page.screenshot(path=str(ARTIFACTS / "play_browser_promotion.png"))
        finally:
            browser.close()
