"""Execute notebooks top to bottom and store their outputs, ready for nbval.

    python tools/execute_notebooks.py notebooks/01_board_encoding.ipynb [...]
    python tools/execute_notebooks.py            # every notebook

Runs each notebook in a fresh kernel from the notebooks/ folder with one BLAS thread,
stores the outputs in place, drops saved widget state (nbval ignores it, it is large)
and prints the wall time per notebook (the course budget is 60 s on 2 cores).
"""
import os
import sys
import time
from pathlib import Path

from chesslab.base.parallel import BLAS_VARIABLES

for var in BLAS_VARIABLES:                          # inherited by every kernel started here
    os.environ.setdefault(var, "1")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def execute(path: Path, timeout: int = 600) -> float:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return seconds


def main(argv):
    paths = [Path(p) for p in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        seconds = execute(path.resolve())
        flag = "" if seconds <= 60 else "   <-- over the 60 s budget"
        print(f"{path.name:40s} {seconds:6.1f} s{flag}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
