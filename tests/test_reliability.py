"""Cross-cutting reliability of the command line: a wrong input is one line (exit 2)
from the first place that can know it, before any work, and nothing on disk is lost."""
import json
import random

import numpy as np
import pytest

from chesslab.datasets import positions as data
from chesslab.__main__ import main
from chesslab.board.scores import material_balance


def _dataset_file(path, n=200, seed=3):
    rng, rows = random.Random(seed), []
    while len(rows) < n:
        board = data.random_board(rng, max_plies=120)
        if board is not None:
            rows.append(dict(fen=board.fen(), cp=material_balance(board), wdl=(0, 1000, 0),
                             source="random", game_id=len(rows) // 4, ply=board.ply(),
                             result="*", sampled_by_rule=False))
    return data.save_dataset(data.make_dataset(rows, {"depth": 1}), path)


def _one_error_line(capsys, *needles):
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, err
    return err


@pytest.mark.parametrize("flag, value, needle", [
    ("--epochs", "0", "--epochs: must be at least 1, got 0"),
    ("--batch-size", "0", "--batch-size: must be at least 1"),
    ("--max-train", "0", "--max-train: must be at least 1")])
def test_train_refuses_zero_settings_and_keeps_the_model(tmp_path, capsys, flag, value, needle):
    out = tmp_path / "models"
    out.mkdir()
    (out / "ann.json").write_text('{"shipped": true}')
    assert main(["train", "nets", "ann", "--data", str(_dataset_file(tmp_path / "d.npz")),
                 "--out", str(out), "--quiet", flag, value]) == 2
    _one_error_line(capsys, needle)
    assert json.loads((out / "ann.json").read_text()) == {"shipped": True}


def test_train_into_an_unwritable_folder_fails_before_training(tmp_path, capsys, monkeypatch):
    from chesslab.training import pipeline as training
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(training, "train_net", lambda *a, **k: pytest.fail("trained"))
    assert main(["train", "ann", "--data", str(_dataset_file(tmp_path / "d.npz")),
                 "--out", str(blocker / "models"), "--quiet"]) == 2
    _one_error_line(capsys, "cannot write into the --out folder")
    assert main(["train", "ann", "--data", str(tmp_path / "d.npz"), "--out", str(blocker),
                 "--quiet"]) == 2
    _one_error_line(capsys, "is a file, not a folder")


def test_train_on_a_tiny_dataset_is_one_line(tmp_path, capsys):
    path = _dataset_file(tmp_path / "d.npz", n=4)     # one game: nothing to validate on
    assert main(["train", "ann", "--data", str(path), "--out", str(tmp_path), "--quiet",
                 "--epochs", "1"]) == 2
    _one_error_line(capsys, "too little data to train")
    assert not (tmp_path / "ann.json").exists()


@pytest.mark.parametrize("damage", ["cut", "flipped", "text", "ragged"])
def test_damaged_dataset_files_are_one_line(tmp_path, capsys, damage):
    path = _dataset_file(tmp_path / "d.npz")
    raw = path.read_bytes()
    if damage == "cut":
        path.write_bytes(raw[:len(raw) // 2])
    elif damage == "flipped":                 # corrupt the compressed bytes of a column
        middle = bytearray(raw)
        for i in range(len(raw) // 3, len(raw) // 3 + 64):
            middle[i] ^= 0xFF
        path.write_bytes(bytes(middle))
    elif damage == "text":
        path.write_text("fen,cp\nstartpos,0\n")
    else:                                      # columns of different lengths
        with np.load(path) as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays["cp"] = arrays["cp"][:-5]
        np.savez_compressed(path, **arrays)
    assert main(["data", "info", str(path)]) == 2
    err = _one_error_line(capsys, str(path))
    expected = {"cut": "cut off or damaged", "flipped": "cut off or damaged",
                "text": "is not an .npz file", "ragged": "column cp has 195 rows"}[damage]
    assert expected in err and "pickled" not in err


@pytest.mark.parametrize("argv, needle", [
    (["selfplay", "endgame", "--workdir", "{blocked}/w"], "cannot write into the --workdir"),
    (["selfplay", "endgame", "--workdir", "{tmp}/w", "--iterations", "0"],
     "--iterations: must be at least 1"),
    (["selfplay", "full", "--workdir", "{tmp}/w", "--simulations", "0"],
     "--simulations: must be at least 1"),
    (["bootstrap", "--out", "{blocked}/net.json"], "cannot write the network file"),
    (["bootstrap", "--out", "{tmp}/net.json", "--epochs", "0"], "--epochs: must be at least 1"),
    (["figures", "--out", "{blocked}/figs", "--only", "x"], "cannot write into the --out"),
    (["data", "label", "--out", "{blocked}/d.npz", "--random", "1"],
     "cannot write the dataset file"),
    (["data", "games", "--count", "0", "--out", "{tmp}/g.pgn"], "--count: must be at least 1"),
    (["evaluate-models", "material", "--out", "{blocked}/t.json"],
     "cannot write the results file"),
    # the same checks under the new spellings
    (["train", "selfplay", "endgame", "--workdir", "{blocked}/w"],
     "cannot write into the --workdir"),
    (["train", "bootstrap", "--out", "{tmp}/net.json", "--blocks", "0"],
     "--blocks: must be at least 1"),
    (["train", "bayes", "--out", "{blocked}/bayes.json"], "cannot write the model file"),
    (["train", "bayes", "--test-fraction", "1"], "--test-fraction: must be between 0 and 1"),
    (["results", "evaluators", "material", "--out", "{blocked}/t.json"],
     "cannot write the results file"),
    (["results", "bayes", "--out", "{blocked}/b.json"], "cannot write the results file"),
    (["results", "bayes-matches", "--chunk", "3", "--out", "{tmp}/b.json"],
     "chunks hold an even number of games"),
    (["results", "mcts-matches", "--player", "pst:1", "--out", "{tmp}/m.json"],
     "must be an MCTS spec"),
    (["train", "selfplay", "full", "--workdir", "{tmp}/w", "--lr", "0"],
     "--lr: must be positive")])
def test_cli_outputs_and_counts_are_checked_before_any_work(tmp_path, capsys, argv, needle):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    argv = [a.format(tmp=tmp_path, blocked=blocker) for a in argv]
    assert main(argv) == 2
    _one_error_line(capsys, needle)
