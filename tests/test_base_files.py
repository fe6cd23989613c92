"""base.files: an interrupted save keeps the old file; read errors name the file."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chesslab.base import files
from chesslab.base.files import (atomic_path, file_name, check_writable, check_writable_dir, read_json,
                            write_json_atomic)


def test_write_json_atomic_writes_and_replaces(tmp_path):
    path = tmp_path / "sub" / "model.json"
    write_json_atomic(path, {"a": [1, 2]})
    write_json_atomic(path, {"a": [3]}, indent=1)
    assert read_json(path) == {"a": [3]}
    assert os.listdir(path.parent) == ["model.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask      # not mkstemp's 0600


@pytest.mark.parametrize("bad", [{"a": 1, "b": object()}, {"a": float("nan")}])
def test_an_interrupted_write_leaves_the_old_file(tmp_path, bad):
    path = tmp_path / "model.json"
    write_json_atomic(path, {"old": True})
    with pytest.raises((TypeError, ValueError)):       # json.dump fails half-way
        write_json_atomic(path, bad)
    assert read_json(path) == {"old": True}
    assert os.listdir(tmp_path) == ["model.json"]      # no temporary file left behind


def test_atomic_path_renames_only_on_success(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(path, suffix=".pgn.tmp") as tmp:
            tmp.write_text("half a ga")
            raise KeyboardInterrupt
    assert path.read_text(encoding="utf-8") == "old" and os.listdir(tmp_path) == ["games.pgn"]
    with atomic_path(path) as tmp:
        tmp.write_text("new")
    assert path.read_text(encoding="utf-8") == "new"


def test_read_json_errors_name_the_file_and_the_problem(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(FileNotFoundError, match=f"model file {missing} does not exist"):
        read_json(missing, "model file")
    truncated = tmp_path / "cut.json"
    truncated.write_text(json.dumps({"layer1": [1, 2, 3]})[:12])
    with pytest.raises(ValueError, match=rf"results file {truncated} is not valid JSON "
                                         r"\(line 1, column 1[0-9]"):
        read_json(truncated, "results file")
    binary = tmp_path / "model.pkl"
    binary.write_bytes(b"\x80\x04\x95\xff\xfe")
    with pytest.raises(ValueError, match=f"{binary} is not a text file"):
        read_json(binary)


def test_unwritable_targets_are_refused_before_the_work(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        check_writable(tmp_path, "PGN file")
    assert check_writable(tmp_path / "new" / "x.pgn") == tmp_path / "new" / "x.pgn"
    a_file = tmp_path / "f"
    a_file.write_text("")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        check_writable_dir(a_file)
    with pytest.raises(ValueError, match="cannot write"):
        check_writable(a_file / "x.json")                  # a file where a folder should be


def _data_dir_of(root):
    """DATA_DIR as files.py computes it when the package lives at ``root/chesslab``."""
    import importlib.util
    import shutil
    from chesslab.base import files
    target = root / "chesslab" / "base" / "files.py"
    target.parent.mkdir(parents=True)
    shutil.copyfile(files.__file__, target)
    spec = importlib.util.spec_from_file_location("files_copy", target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DATA_DIR


def test_data_is_found_in_a_clone_and_in_an_installed_wheel(tmp_path):
    clone = tmp_path / "clone"                     # data/ beside the package
    assert _data_dir_of(clone) == (clone / "data").resolve()
    site = tmp_path / "site-packages"              # the wheel: chesslab/data inside it
    (site / "chesslab" / "data").mkdir(parents=True)
    assert _data_dir_of(site) == (site / "chesslab" / "data").resolve()


def test_this_checkout_reads_the_repository_data():
    from chesslab.base.files import DATA_DIR, MODELS_DIR
    import chesslab
    package = Path(chesslab.__file__).resolve().parent
    assert DATA_DIR in (package / "data", package.parent / "data")
    assert (MODELS_DIR / "policy_value.json").is_file()


def _replace_refused(monkeypatch, times):
    """os.replace refuses ``times`` times, as Windows does for a file another program
    holds open (a virus scanner for a moment, Excel while it shows it)."""
    real, refusals = os.replace, []

    def replace(src, dst):
        if len(refusals) < times:
            refusals.append(dst)
            raise PermissionError(13, "Access is denied")
        return real(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    return refusals


def test_a_file_held_open_for_a_moment_is_replaced_when_it_is_free(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "REPLACE_TRIES", 3)
    monkeypatch.setattr(files.time, "sleep", lambda seconds: None)
    path = write_json_atomic(tmp_path / "grades.json", {"old": True})
    refusals = _replace_refused(monkeypatch, 2)
    write_json_atomic(path, {"new": True})
    assert len(refusals) == 2 and read_json(path) == {"new": True}
    assert os.listdir(tmp_path) == ["grades.json"]


def test_a_file_that_stays_open_keeps_the_new_content_and_says_where(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "REPLACE_TRIES", 2)
    monkeypatch.setattr(files.time, "sleep", lambda seconds: None)
    path = write_json_atomic(tmp_path / "grades.json", {"old": True})
    _replace_refused(monkeypatch, 5)
    with pytest.raises(PermissionError, match=r"cannot replace .*grades.json \(Access is "
                                              r"denied\): .* What was to be written is in") as e:
        write_json_atomic(path, {"new": True})
    kept = Path(str(e.value).rsplit(" is in ", 1)[1])
    assert read_json(kept) == {"new": True} and read_json(path) == {"old": True}


def test_a_file_name_made_of_specs_is_one_file_on_every_system():
    assert file_name('pst:2_vs_players\\anna.py_vs_a/b <1> "x" | y? *') == \
        "pst-2_vs_players-anna.py_vs_a-b -1- -x- - y- -"
    assert file_name("mcts@1s_vs_pst@1s_100g_seed0_tc60+0.6") == \
        "mcts@1s_vs_pst@1s_100g_seed0_tc60+0.6"                # the names stored before


# A writer that adds ``rows`` distinct rows to a shared file, one update each, starting
# when the test says go (so the two writers overlap). ``UNLOCKED`` is how the writers
# updated before (read, change, write atomically, no lock): the race the lock closes.
_WRITER = """
import sys, time
from pathlib import Path
from chesslab.base.files import read_json, updating_json, write_json_atomic
path, name, rows, locked = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
(path.parent / f"ready_{name}").touch()
while not (path.parent / "go").exists():
    time.sleep(0.001)
for i in range(rows):
    if locked:
        with updating_json(path, new=lambda: {"rows": []}) as doc:
            doc["rows"].append(f"{name}{i}")
    else:
        doc = read_json(path) if path.exists() else {"rows": []}
        doc["rows"].append(f"{name}{i}")
        write_json_atomic(path, doc)
"""


def _two_writers(folder, rows, locked):
    path = folder / "results.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(files.__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name, str(rows),
                               "1" if locked else "0"], env=env) for name in "ab"]
    deadline = time.monotonic() + 120
    while not all((folder / f"ready_{n}").exists() for n in "ab"):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.01)
    (folder / "go").touch()
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    return read_json(path)["rows"]


def test_two_processes_updating_one_file_keep_every_row(tmp_path):
    rows = _two_writers(tmp_path, 150, locked=True)
    assert sorted(rows) == sorted(f"{n}{i}" for n in "ab" for i in range(150))
    assert sorted(os.listdir(tmp_path)) == ["go", "ready_a", "ready_b", "results.json"]


def test_an_update_that_fails_leaves_the_file_and_no_lock(tmp_path):
    path = write_json_atomic(tmp_path / "results.json", {"rows": [1]})
    with pytest.raises(KeyError):
        with files.updating_json(path) as doc:
            doc["rows"].append(2)
            raise KeyError("stopped half-way")
    assert read_json(path) == {"rows": [1]} and os.listdir(tmp_path) == ["results.json"]
    with files.updating_json(tmp_path / "new.json", new=lambda: {"rows": []}, indent=1) as doc:
        with files.updating_json(tmp_path / "new.json") as again:   # nested: same thread
            assert again == {}          # not written yet
        doc["rows"].append(3)
    assert (tmp_path / "new.json").read_text() == json.dumps({"rows": [3]}, indent=1)
    assert sorted(os.listdir(tmp_path)) == ["new.json", "results.json"]


def test_a_lock_left_behind_gives_a_clear_error(tmp_path):
    path = write_json_atomic(tmp_path / "mcts_tuning.json", {"rows": []})
    files.lock_path(path).write_text("process 12345 on lab-pc since 2026-11-27 10:00:00\n")
    with pytest.raises(TimeoutError) as e:
        with files.updating_json(path, timeout=0.1):
            pass
    message = str(e.value)
    assert str(path) in message and str(files.lock_path(path)) in message
    assert "process 12345 on lab-pc" in message
    assert "If no chesslab command is running" in message and "delete" in message
    assert read_json(path) == {"rows": []}
    files.lock_path(path).unlink()                       # what the message says to do
    with files.updating_json(path) as doc:
        doc["rows"].append(1)
    assert read_json(path) == {"rows": [1]} and os.listdir(tmp_path) == ["mcts_tuning.json"]
