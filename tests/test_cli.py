"""cli: one parser for every command, the old spellings, small runs into tmp_path, and
every wrong input one error line (exit 2) from the first place that can know it, before any
work, with nothing on disk lost."""
import errno
import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from chesslab.experiments import store
from chesslab.cli import match as cli_match
from chesslab.cli import train as cli_train
import chesslab.cli
import chesslab.experiments
from chesslab.cli import build_parser, main, new_spelling, subcommands
from chesslab.cli.common import path_problem
from chesslab.evaluators.registry import load_evaluator
from chesslab.base.files import MODELS_DIR, file_tag, read_json, write_json_atomic
from chesslab.matches.match import MatchResult
from chesslab.datasets.records import DEFAULT_GAMES
from chesslab.datasets import positions
from chesslab.board.scores import material_balance


@pytest.mark.parametrize("old, new", [
    (["train", "ann", "cnn", "--epochs", "2"], ["train", "nets", "ann", "cnn", "--epochs", "2"]),
    (["train", "all"], ["train", "nets", "all"]),
    (["selfplay", "endgame", "--workdir", "w"], ["train", "selfplay", "endgame", "--workdir", "w"]),
    (["bootstrap", "--out", "b.json"], ["train", "bootstrap", "--out", "b.json"]),
    (["evaluate-models", "pst"], ["results", "evaluators", "pst"]),
    (["train", "nets", "ann"], ["train", "nets", "ann"]),
    (["train", "--help"], ["train", "--help"]),
    (["match", "--white", "pst:1"], ["match", "--white", "pst:1"])])
def test_old_spellings_become_the_new_ones(old, new):
    assert new_spelling(old) == new


def test_the_commands_and_their_groups(capsys):
    parser = build_parser()
    args = parser.parse_args(["train", "nets", "all", "--epochs", "3"])
    assert args.func is cli_train._train_nets and args.names == ["all"] and args.epochs == 3
    args = parser.parse_args(["match", "--white", "pst:1", "--black", "random", "--games", "4"])
    assert (args.white, args.black, args.games) == ("pst:1", "random", 4)
    args = parser.parse_args(["bestmove", "--fen", "8/8/8/8/8/8/8/K1k5 w - - 0 1",
                              "--player", "pst:2"])
    assert args.func is cli_match._bestmove
    args = parser.parse_args(["figures", "--out", "x", "--only", "planes9"])
    assert (args.out, args.only) == ("x", ["planes9"])
    assert {"games", "label", "extend", "leaves", "build", "policy-labels",
            "random-positions", "info"} == set(subcommands()["data"])
    assert {"ladder", "event-ladder", "mcts-head-to-head"} < set(subcommands()["results"])
    for group in ("data", "train", "results"):
        commands = subcommands()[group]
        with pytest.raises(SystemExit):
            main([group, "--help"])
        shown = capsys.readouterr().out
        assert all(c in shown for c in commands), group
    with pytest.raises(SystemExit):
        main(["--help"])
    shown = capsys.readouterr().out
    listed = {line.split()[0] for line in shown.splitlines()
              if line.startswith("    ") and not line.startswith("     ")}
    assert listed == {"data", "train", "results", "match", "bestmove", "figures",
                      "tournament", "course", "uci"}  # no aliases


def _listed(text, command):
    """The words of the {...} list after ``command`` at a line's start in ``text``."""
    start = text.index(f"\n    {command} ")
    body = text[text.index("{", start) + 1:text.index("}", start)]
    return [word.strip() for word in body.split(",")]


def test_the_command_lists_in_docstrings_are_the_parsers():
    for group, commands in subcommands().items():
        assert f"\n    {group} " in chesslab.cli.__doc__, group
        if commands and group != "course":
            assert _listed(chesslab.cli.__doc__, group) == list(commands), group
    assert _listed("\n    " + cli_train.__doc__.replace("``python -m chesslab ", ""),
                   "train") == list(subcommands()["train"])
    shown = " ".join(build_parser().format_help().split())           # the top help
    assert f"train models into data/models ({', '.join(subcommands()['train'])})" in shown
    in_experiments = [line.split()[4] for line in chesslab.experiments.__doc__.splitlines()
                      if line.startswith("    python -m chesslab results ")]
    assert in_experiments == list(subcommands()["results"])


def test_a_bad_command_line_is_one_error_line(capsys):
    assert main(["train", "nets", "mlp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: argument NAME: invalid choice: 'mlp'")
    assert len(err.strip().splitlines()) == 1 and "--help" in err
    assert main([]) == 1                                  # no command: the help


LONG_NAME = "a" * 5000


@pytest.mark.parametrize("argv", [
    ["data", "info", LONG_NAME],
    ["data", "extend", "--data", LONG_NAME],
    ["train", "nets", "ann", "--out", LONG_NAME],
    ["results", "mcts-head-to-head", "--a", LONG_NAME, "--b", LONG_NAME],
    ["match", "--white", "random", "--black", "random", "--pgn", LONG_NAME],
    ["figures", "--out", LONG_NAME],
])
@pytest.mark.skipif(sys.platform == "win32", reason="the error text is Linux's (ENAMETOOLONG)")
def test_a_path_the_system_refuses_is_one_short_error_line(argv, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == (f"error: cannot use the path {'a' * 60}... (5,000 characters): "
                            f"File name too long; give a shorter path\n")
    assert "Traceback" not in captured.out


def test_a_folder_given_as_a_file_says_so(tmp_path, capsys):
    assert main(["data", "info", str(tmp_path)]) == 2
    err = capsys.readouterr().err               # the system's words between ("Is a directory")
    assert err.startswith(f"error: cannot use the path {tmp_path}: ")
    assert err.endswith("; give a file name inside it\n") and len(err.splitlines()) == 1


def test_a_folder_refused_as_windows_refuses_it_is_still_named_a_folder(tmp_path):
    # Windows opens no folder as a file and says "Permission denied" (EACCES), not EISDIR
    refused = PermissionError(errno.EACCES, "Permission denied", str(tmp_path))
    assert path_problem(refused) == (f"cannot use the path {tmp_path}: Permission denied; "
                                     f"give a file name inside it")
    refused = PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "f.json"))
    assert path_problem(refused).endswith("check its permissions or choose another folder")


@pytest.fixture
def tiny_pgn(tmp_path):
    """The first 40 shipped games."""
    with gzip.open(DEFAULT_GAMES, "rt") as fh:
        text = fh.read()
    games = text.split("\n\n[Event ")[:40]
    path = tmp_path / "games.pgn"
    path.write_text("\n\n[Event ".join(games) + "\n\n")
    return path


def test_train_bayes_and_results_bayes_on_a_few_games(tmp_path, tiny_pgn, capsys):
    model = tmp_path / "bayes.json"
    assert main(["train", "bayes", "--pgn", str(tiny_pgn), "--out", str(model)]) == 0
    info = read_json(model)["info"]
    assert info["train_games"] + info["test_games"] == 40
    assert info["command"].startswith("python -m chesslab train bayes --pgn")
    assert load_evaluator("bayes", model=model).name == "bayes"
    out = tmp_path / "comparison.json"
    assert main(["results", "bayes", "--pgn", str(tiny_pgn), "--out", str(out)]) == 0
    table = read_json(out)
    models = [r["model"] for r in table["table"]]
    assert models[0].startswith("majority class") and "Naive Bayes, all features" in models
    assert len(table["drop_one"]) == len(table["feature_names"])
    assert table["command"].startswith("python -m chesslab results bayes")
    assert f"written to {out}" in capsys.readouterr().out


def test_results_bayes_matches_chunk_by_chunk(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store, "RESULTS_DIR", tmp_path)          # the checkpoints
    out = tmp_path / "bayes_matches.json"
    argv = ["results", "bayes-matches", "--player", "material:1", "--opponents", "random",
            "pst:1", "--games", "4", "--chunk", "2", "--max-plies", "16", "--out", str(out)]
    assert main(argv) == 0
    doc = read_json(out)
    assert doc["player"] == "material:1" and doc["chunk"] == 2
    for opponent in ("random", "pst:1"):
        entry = doc["matches"][opponent]
        assert sorted(entry["chunks"]) == ["0", "1"] and entry["summary"]["games"] == 4
        assert all(len(c["games"]) == 2 for c in entry["chunks"].values())
    assert not list((tmp_path / "partial").glob("*.jsonl"))        # done: no checkpoint left
    assert "material:1 vs random" in capsys.readouterr().out


def test_results_mcts_matches_records_each_pairing_once(tmp_path, capsys):
    out = tmp_path / "mcts_matches.json"
    argv = ["results", "mcts-matches", "--player", "mcts:2", "--opponents", "random",
            "--games", "2", "--max-plies", "8", "--out", str(out)]
    assert main(argv) == 0
    [entry] = read_json(out)["matches"]
    assert (entry["a"], entry["b"], entry["games"]) == ("mcts:2", "random", 2)
    assert len(entry["interval95"]) == 2 and entry["summary"].startswith("mcts:2 vs random")
    assert entry["network"] == file_tag(MODELS_DIR / "policy_value.json", 16)
    assert entry["mean_move_seconds"] > 0 and len(entry["terminations"]) == 2
    capsys.readouterr()
    assert main(argv) == 0                                  # a rerun skips the pairing
    assert "already in mcts_matches.json" in capsys.readouterr().out
    assert len(read_json(out)["matches"]) == 1
    # a file of the older schema (player/opponent, score_95) is read the same way
    old = {("player" if k == "a" else "opponent" if k == "b" else
            "score_95" if k == "interval95" else k): v for k, v in entry.items()}
    write_json_atomic(out, {"matches": [old]})
    assert main(argv) == 0 and "already in" in capsys.readouterr().out
    assert MatchResult.from_record(old).summary() == entry["summary"]
    # --describe notes what the network is, beside its results
    assert main(argv + ["--describe", "the shipped net"]) == 0
    doc = read_json(out)
    assert doc["networks"] == {entry["network"]: "the shipped net"} and len(doc["matches"]) == 1


def test_results_mcts_head_to_head(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "RESULTS_DIR", tmp_path)
    out = tmp_path / "h2h.json"
    a, b = MODELS_DIR / "policy_value_selfplay.json", MODELS_DIR / "policy_value_bootstrap.json"
    argv = ["results", "mcts-head-to-head", "--a", str(a), "--b", str(b), "--simulations",
            "2", "--games", "2", "--max-plies", "8", "--workers", "1", "--out", str(out)]
    assert main(argv) == 0
    assert main(argv) == 0                                  # a rerun replaces its entry
    [entry] = read_json(out)["matches"]
    assert (entry["a"], entry["b"], entry["games"]) == (a.name, b.name, 2)
    assert entry["wins"] + entry["draws"] + entry["losses"] == 2
    assert entry["after_iterations"] == 3 and len(entry["interval95"]) == 2
    assert entry["simulations"] == 2 and entry["time_per_move"] is None
    # at a time per move instead: a second match of the same two networks, not a rerun
    timed = argv[:6] + ["--seconds", "0.05"] + argv[8:]
    assert main(timed) == 0
    first, second = read_json(out)["matches"]
    assert first == entry
    assert second["time_per_move"] == 0.05 and second["simulations"] is None
    assert "mcts@0.05s" in second["summary"]
    assert second["wins"] + second["draws"] + second["losses"] == 2
    with pytest.raises(ValueError, match="not allowed with"):   # one budget, not both
        build_parser().parse_args(argv + ["--seconds", "1"])


def test_a_network_is_named_by_path_or_by_its_shipped_file_name(tmp_path, monkeypatch):
    """A command copied from a notebook runs from any folder: a bare file name that is
    not in the current folder is the shipped model of that name; a path, or a name that
    is in the current folder, is taken as given."""
    monkeypatch.chdir(tmp_path)
    parse = build_parser().parse_args
    args = parse(["results", "mcts-head-to-head", "--a", "policy_value_selfplay.json",
                  "--b", "no_such_net.json"])
    assert args.a == str(MODELS_DIR / "policy_value_selfplay.json")
    assert args.b == "no_such_net.json"              # the command's own message says so
    (tmp_path / "policy_value_selfplay.json").write_text("{}")
    assert parse(["train", "recalibrate", "--net", "policy_value_selfplay.json"]).net == \
        "policy_value_selfplay.json"
    assert parse(["train", "selfplay", "full", "--workdir", "w", "--initial",
                  "sub/policy_value.json"]).initial == str(Path("sub/policy_value.json"))


def test_head_to_head_refuses_a_time_that_is_not_positive():
    from chesslab.experiments.matches import mcts_head_to_head
    a = MODELS_DIR / "policy_value_selfplay.json"
    with pytest.raises(ValueError, match="time_per_move must be a positive"):
        mcts_head_to_head(a, a, games=2, time_per_move=0)


def test_results_depth_cost_writes_where_out_says(tmp_path, capsys):
    shipped = store.result_path("depth_cost")
    before = shipped.read_bytes() if shipped.exists() else None
    out = tmp_path / "mine.json"
    assert main(["results", "depth-cost", "--max-depth", "1", "--quiet", "--out", str(out)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert {r["algorithm"] for r in rows} == {"minimax", "alphabeta", "full"}
    assert all(r["depth"] == 1 and r["nodes"] > 0 for r in rows)
    assert (shipped.read_bytes() if shipped.exists() else None) == before
    assert str(out) in capsys.readouterr().out


def test_option_defaults_come_from_the_functions_they_call():
    import inspect
    from chesslab.datasets.records import generate_games
    from chesslab.experiments.matches import record_long_match
    parser = build_parser()
    games = parser.parse_args(["data", "games"])
    assert games.count == inspect.signature(generate_games).parameters["count"].default
    assert games.max_plies == inspect.signature(generate_games).parameters["max_plies"].default
    build = parser.parse_args(["data", "build"])        # two steps: each option its own step's
    assert (build.depth, build.extra_depth, build.max_plies) == (10, 8, 300)
    long = parser.parse_args(["results", "match", "--a", "pst:1", "--b", "random"])
    params = inspect.signature(record_long_match).parameters
    assert (long.games, long.resign_cp) == (params["games"].default, params["resign_cp"].default)
    assert parser.parse_args(["results", "depth-cost"]).max_depth == 4
    import chesslab.cli.common as common
    source = inspect.getsource(common.game_sample_args)
    assert "default=" not in source.replace("defaults_from", "")


def test_cli_match_and_bestmove(capsys, tmp_path):
    assert main(["match", "--white", "alphabeta:1", "--black", "random", "--games", "2",
                 "--max-plies", "20", "--quiet", "--pgn", str(tmp_path / "x.pgn")]) == 0
    assert "alphabeta:1 vs random" in capsys.readouterr().out
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    assert main(["bestmove", "--fen", fen, "--player", "pst:2"]) == 0
    out = capsys.readouterr().out
    assert "bestmove h5f7" in out and "score +M1" in out and "Qxf7#" in out
    assert main(["bestmove", "--fen", "not a fen"]) == 2


# ------------------------------------------------ a wrong input is one line, before any work

def _dataset_file(path, n=200, seed=3):
    rng, rows = random.Random(seed), []
    while len(rows) < n:
        board = positions.random_board(rng, max_plies=120)
        if board is not None:
            rows.append(dict(fen=board.fen(), cp=material_balance(board), wdl=(0, 1000, 0),
                             source="random", game_id=len(rows) // 4, ply=board.ply(),
                             result="*", sampled_by_rule=False))
    return positions.save_dataset(positions.make_dataset(rows, {"depth": 1}), path)


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
    assert json.loads((out / "ann.json").read_text(encoding="utf-8")) == {"shipped": True}


def test_train_into_an_unwritable_folder_fails_before_training(tmp_path, capsys, monkeypatch):
    from chesslab.training import pipeline
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(pipeline, "train_net", lambda *a, **k: pytest.fail("trained"))
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


def test_a_path_the_output_encoding_lacks_prints_escaped_not_as_an_error(tmp_path):
    # Windows writes redirected output in cp1252, which has no "Ω" or "→": the command
    # did its work, then failed printing where it wrote (exit 2, "charmap" codec error)
    out = tmp_path / "Ω→" / "positions.npz"
    run = subprocess.run([sys.executable, "-m", "chesslab", "data", "random-positions",
                          "--count", "2", "--out", str(out)], capture_output=True,
                         env=dict(os.environ, PYTHONIOENCODING="cp1252"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr.decode("cp1252")
    shown = str(out).encode("cp1252", "backslashreplace").decode("cp1252")   # ...\u03a9\u2192...
    assert run.stdout.decode("cp1252").endswith(f"to {shown}\n") and "\\u2192" in shown
    assert out.exists()
