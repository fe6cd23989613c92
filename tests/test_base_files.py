"""base.files: an interrupted save keeps the old file; read errors name the file."""
import json
import os
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
