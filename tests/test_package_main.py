"""chesslab/__main__.py: ``python -m chesslab`` runs the command line of chesslab.cli, in a
fresh interpreter, with its exit status."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
GROUPS = ("data", "train", "results", "match", "bestmove", "figures")


def run(*args):
    """``python -m chesslab ARGS`` on this checkout's package."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.run([sys.executable, "-m", "chesslab", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)


def test_help_exits_0_and_lists_every_group():
    done = run("--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m chesslab")
    listed = [line.split()[0] for line in done.stdout.splitlines()
              if line.startswith("    ") and line.split()[0] in GROUPS]
    assert listed == list(GROUPS)


def test_no_command_prints_the_help_and_a_bad_one_is_one_error_line():
    bare = run()
    assert bare.returncode == 1 and "COMMAND" in bare.stdout
    bad = run("frobnicate")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("error: ")
    assert "invalid choice: 'frobnicate'" in bad.stderr
