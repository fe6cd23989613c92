"""chesslab.base.stockfish: finding the program, starting it with clear errors, one engine per
worker (process or thread), stopped when the work is done."""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess
import pytest

from chesslab.datasets import positions
from chesslab.base import stockfish
from chesslab.matches.players import make_player
from chesslab.base.stockfish import (find_stockfish, start_engine, stop_worker_engines,
                                worker_engine)
from needs_stockfish import needs_stockfish


def test_a_missing_stockfish_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("CHESSLAB_STOCKFISH", str(tmp_path / "nothing-here"))
    assert find_stockfish(required=False) is None
    with pytest.raises(FileNotFoundError, match="is not an executable file.*apt-get install"):
        find_stockfish()


def test_a_program_that_is_not_an_engine_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("CHESSLAB_STOCKFISH", "/bin/true")          # exits at once
    with pytest.raises(ValueError, match="/bin/true is not a working UCI chess engine"):
        make_player("stockfish:1350")            # the player says it too
    with pytest.raises(ValueError, match="/bin/true is not a working UCI chess engine"):
        start_engine()
    silent = tmp_path / "silent"                                   # never answers
    silent.write_text("#!/bin/sh\nsleep 30\n")
    silent.chmod(0o755)
    monkeypatch.setenv("CHESSLAB_STOCKFISH", str(silent))
    monkeypatch.setattr(stockfish, "ENGINE_START_TIMEOUT", 0.5)
    with pytest.raises(ValueError, match="did not answer the UCI handshake within 0.5 s"):
        start_engine()


@needs_stockfish
def test_one_engine_per_worker_kept_for_its_jobs_then_stopped():
    path = find_stockfish()
    first = worker_engine(path)
    assert worker_engine(path) is first                       # kept for the next job
    with ThreadPoolExecutor(1) as executor:
        other = executor.submit(worker_engine, path).result()
    assert other is not first                                 # another thread, its own
    stop_worker_engines()
    assert first.returncode.done() and other.returncode.done()  # both processes ended
    assert worker_engine(path) is not first                   # a new one on demand
    stop_worker_engines()


@needs_stockfish
def test_labels_on_an_executor_equal_labels_in_this_process():
    fens = [chess.STARTING_FEN, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
            "3qk3/8/8/8/8/8/8/4K3 b - - 0 1", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"]
    here = positions.label_fens(fens, depth=6, progress=False)
    with ThreadPoolExecutor(2) as executor:
        there = positions.label_fens(fens, depth=6, workers=executor, progress=False)
    assert here[0].tolist() == there[0].tolist() and here[1].tolist() == there[1].tolist()


@needs_stockfish
def test_an_engine_nobody_quit_does_not_keep_python_alive():
    # chess.engine talks to the program from a non-daemon thread; an engine left open
    # (a notebook's Stockfish board) used to keep a script or a kernel from exiting.
    code = ("from chesslab.matches.players import make_player; import chess; "
            "p = make_player('stockfish:skill=0'); print(p.choose_move(chess.Board()))")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=30, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
