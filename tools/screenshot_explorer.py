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
import sys

from screenshot_play import ROOT, take

TEST = ROOT / "tests" / "browser" / "test_explorer_browser.py"
SHOTS = ("explore_search", "explore_mcts")


if __name__ == "__main__":
    sys.exit(take(TEST, SHOTS))
