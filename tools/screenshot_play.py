"""Screenshots of notebook 09's boards for its static view: figures/play_*.png.

    python tools/screenshot_play.py

Runs the browser test (tests/browser/test_play_browser.py: JupyterLab in headless
Chromium runs the notebook, then a move is played on each board) with its screenshots
sent to a temporary folder, and keeps each board's picture, already cropped to the
widget, as a small palette PNG in figures/: play_vs_ai.png, play_ai_vs_ai.png,
play_vs_stockfish.png. Notebook 09 shows them under the cells that make the boards,
so GitHub's static view shows what a live board looks like.

Needs what the browser test needs (playwright, /usr/bin/chromium) and Stockfish for
its board. These images come from this script only: never edit them by hand, rerun it.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
TEST = ROOT / "tests" / "browser" / "test_play_browser.py"
SHOTS = ("play_vs_ai", "play_ai_vs_ai", "play_vs_stockfish")
MAX_WIDTH = 1100           # pixels; the widgets are 950-1050 wide at 100% zoom
MAX_BYTES = 150_000


def shrink(source: Path, target: Path) -> int:
    """Save ``source`` as a palette PNG no wider than MAX_WIDTH; returns its size."""
    image = Image.open(source).convert("RGB")
    if image.width > MAX_WIDTH:
        height = round(image.height * MAX_WIDTH / image.width)
        image = image.resize((MAX_WIDTH, height), Image.Resampling.LANCZOS)
    for colors in (128, 64, 32):
        small = image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT,
                               dither=Image.Dither.NONE)
        small.save(target, optimize=True)
        if target.stat().st_size < MAX_BYTES:
            break
    return target.stat().st_size


def take(test: Path, shots) -> int:
    """Run the browser test ``test`` with its screenshots sent to a temporary folder,
    and keep each of ``shots`` as figures/NAME.png (shrunk); 0 when all were taken."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "CHESSLAB_SCREENSHOTS": folder,
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                           os.environ.get("PYTHONPATH")]))}
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p",
                              "no:cacheprovider", str(test)], cwd=ROOT, env=env)
        if run.returncode != 0:
            print("the browser test failed (above); figures/ unchanged", file=sys.stderr)
            return run.returncode
        missing = []
        for name in shots:
            shot = Path(folder) / f"{name}.png"
            if not shot.exists():
                missing.append(name)
                continue
            target = ROOT / "figures" / f"{name}.png"
            size = shrink(shot, target)
            width, height = Image.open(target).size
            print(f"{target.relative_to(ROOT)}: {width}x{height}, {size / 1000:.0f} KB")
            if size >= MAX_BYTES:
                print(f"  over {MAX_BYTES // 1000} KB", file=sys.stderr)
                return 1
    if missing:
        print(f"no screenshot of {', '.join(missing)} (a skipped test: see its reason "
              f"above); those figures are unchanged", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    return take(TEST, SHOTS)


if __name__ == "__main__":
    sys.exit(main())
