"""Screenshots of the tree explorers for the notebooks' static view: figures/explore_*.png.

    python tools/screenshot_explorer.py

Runs the browser test of the explorers (tests/browser/test_explorer_browser.py:
JupyterLab in headless Chromium, Step clicked, MCTS simulations run by the buttons) with
its screenshots sent to a temporary folder, and keeps each explorer's picture, cropped
to the widget, as a small palette PNG in figures/: explore_search.png (notebooks 06 and
07 show it) and explore_mcts.png (notebook 11). Needs what the browser test needs
(playwright, /usr/bin/chromium). These images come from this script only: rerun it,
never edit them by hand.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

from screenshot_play import MAX_BYTES, ROOT, shrink

TEST = ROOT / "tests" / "browser" / "test_explorer_browser.py"
SHOTS = ("explore_search", "explore_mcts")


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "CHESSLAB_SCREENSHOTS": folder,
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                           os.environ.get("PYTHONPATH")]))}
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p",
                              "no:cacheprovider", str(TEST)], cwd=ROOT, env=env)
        if run.returncode != 0:
            print("the browser test failed (above); figures/ unchanged", file=sys.stderr)
            return run.returncode
        for name in SHOTS:
            shot = Path(folder) / f"{name}.png"
            if not shot.exists():
                print(f"no screenshot of {name} (a skipped test: see its reason above); "
                      f"figures/ unchanged", file=sys.stderr)
                return 1
            target = ROOT / "figures" / f"{name}.png"
            size = shrink(shot, target)
            width, height = Image.open(target).size
            print(f"{target.relative_to(ROOT)}: {width}x{height}, {size / 1000:.0f} KB")
            if size >= MAX_BYTES:
                print(f"  over {MAX_BYTES // 1000} KB", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
