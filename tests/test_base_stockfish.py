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


def test_the_message_says_how_on_each_system_and_how_to_point_chesslab_at_it(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(stockfish, "USUAL_FOLDERS", ())
    with pytest.raises(FileNotFoundError) as error:
        find_stockfish()
    for needed in ("apt-get install", "brew install", "stockfishchess.org",
                   "CHESSLAB_STOCKFISH", "setx", "os.environ"):
        assert needed in str(error.value)


def _program(folder, name):
    folder.mkdir(exist_ok=True)
    program = folder / (name + (".exe" if os.name == "nt" else ""))
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    return str(program)


def test_chesslab_stockfish_may_name_the_unpacked_folder_or_be_quoted(monkeypatch, tmp_path):
    unpacked = tmp_path / "stockfish"          # as the download unzips, a long program name
    (unpacked / "src").mkdir(parents=True)
    (unpacked / "stockfish.txt").write_text("not a program", encoding="utf-8")
    program = _program(unpacked, "stockfish-ubuntu-x86-64-avx2")
    for value in (str(unpacked), f'"{program}"', f"'{unpacked}'"):   # Windows copies "..."
        monkeypatch.setenv("CHESSLAB_STOCKFISH", value)
        assert find_stockfish() == program
    _program(unpacked, "stockfish-ubuntu-x86-64-sse41")             # two: which one is meant?
    with pytest.raises(FileNotFoundError, match="a folder without a Stockfish program"):
        find_stockfish()
    monkeypatch.setenv("CHESSLAB_STOCKFISH", str(tmp_path))          # stockfish/ is a folder
    assert find_stockfish(required=False) is None


def test_chesslab_stockfish_may_name_a_program_on_path(monkeypatch, tmp_path):
    program = _program(tmp_path, "stockfish_16")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CHESSLAB_STOCKFISH", "stockfish_16")
    assert os.path.samefile(find_stockfish(), program)


def test_a_program_called_stockfish_in_the_folder_wins(monkeypatch, tmp_path):
    _program(tmp_path, "stockfish-old")
    program = _program(tmp_path, "stockfish")
    monkeypatch.setenv("CHESSLAB_STOCKFISH", str(tmp_path))
    assert find_stockfish() == program


@pytest.mark.skipif(os.name == "nt", reason="the stand-in programs are POSIX ones")
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


@pytest.mark.skipif(os.name == "nt", reason="the stand-in program is a POSIX one")
def test_a_build_for_a_newer_processor_is_named_as_such(monkeypatch, tmp_path):
    # an avx2 download on an older laptop dies of SIGILL before the handshake
    program = _program(tmp_path, "stockfish-ubuntu-x86-64-avx2")
    Path(program).write_text("#!/bin/sh\nkill -ILL $$\n", encoding="utf-8")
    with pytest.raises(ValueError, match="an instruction this processor lacks.*sse41-popcnt"):
        start_engine(program)


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


def test_stockfish_is_started_without_a_window(monkeypatch):
    started = {}

    def popen_uci(path, **options):
        started.update(options, path=path)
        raise OSError("not started in this test")
    monkeypatch.setattr(stockfish, "no_window", lambda: {"creationflags": 0x08000000})
    monkeypatch.setattr(stockfish.chess.engine.SimpleEngine, "popen_uci", popen_uci)
    with pytest.raises(ValueError, match="not a working UCI chess engine"):
        stockfish.start_engine("stockfish")
    assert started["creationflags"] == 0x08000000


def test_an_event_loop_that_starts_no_programs_is_explained(monkeypatch):
    # asyncio's selector loops on Windows (an ipykernel 6 kernel's) raise this at popen
    def popen_uci(path, **options):
        raise NotImplementedError
    monkeypatch.setattr(stockfish.chess.engine.SimpleEngine, "popen_uci", popen_uci)
    with pytest.raises(ValueError, match="cannot start programs.*pip install -U ipykernel"):
        stockfish.start_engine("stockfish")
