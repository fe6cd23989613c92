"""What differs on a student's Windows or macOS laptop: text files and pipes in the
system's encoding (cp1252 on Windows, which lacks "→", "Ω", "₁"), "\\n" written as
"\\r\\n". chesslab's files are UTF-8 and name it at every ``open``; a check below reads
the code for a text file or pipe opened without an encoding, and ``windows_files`` makes
``open`` behave as on Windows so that a module can be run as a Windows student runs it.
"""
import ast
import builtins
import io
import sys
from pathlib import Path

import pytest

from chesslab.base.files import read_json, write_json_atomic

ROOT = Path(__file__).resolve().parents[1]
#: The code a student or a teacher runs: the package, the tools and the benchmarks.
CHECKED = ("chesslab", "tools", "bench")
#: Calls that run a program (``text=True`` makes their pipes text).
RUNS = {"run", "Popen", "check_output", "check_call", "call"}


def _mode(call: ast.Call, position: int):
    """The mode a call opens with: its ``mode=``, else its positional argument at
    ``position``, else "r"; None when the code computes it."""
    for keyword in call.keywords:
        if keyword.arg == "mode":
            return keyword.value.value if isinstance(keyword.value, ast.Constant) else None
    if len(call.args) > position:
        value = call.args[position]
        return value.value if isinstance(value, ast.Constant) else None
    return "r"


def unnamed_encodings(source: str) -> list[str]:
    """``line: call`` for each text file or pipe opened without naming its encoding:
    ``open``/``io.open``/``os.fdopen`` in text mode, ``gzip``/``bz2``/``lzma.open`` in
    "t" mode, ``Path.open`` with a text mode, ``read_text``/``write_text``,
    ``io.TextIOWrapper`` and a subprocess call with ``text=True`` (or
    ``universal_newlines``). An ``encoding`` keyword, or ``**kwargs`` that may carry one,
    satisfies it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        name = (function.id if isinstance(function, ast.Name)
                else function.attr if isinstance(function, ast.Attribute) else None)
        owner = (function.value.id if isinstance(function, ast.Attribute)
                 and isinstance(function.value, ast.Name) else None)
        keywords = {k.arg for k in node.keywords}
        if "encoding" in keywords or None in keywords:
            continue
        if name == "open" and (owner is None or owner in ("io", "builtins")):
            text = _mode(node, 1) is None or "b" not in _mode(node, 1)
        elif name == "fdopen" and owner == "os":
            text = _mode(node, 1) is None or "b" not in _mode(node, 1)
        elif name == "open" and owner in ("gzip", "bz2", "lzma"):
            text = "t" in (_mode(node, 1) or "t")
        elif name == "open":                  # a method: Path.open(mode) (not zip or image)
            mode = _mode(node, 0)
            text = (isinstance(mode, str) and mode.strip("rwax+t") == ""
                    and (bool(node.args) or "mode" in keywords))
        elif name == "read_text":
            text = not node.args
        elif name == "write_text":
            text = len(node.args) < 2
        elif name == "TextIOWrapper":
            text = len(node.args) < 2
        elif name in RUNS:
            text = any(k.arg in ("text", "universal_newlines") and not (
                isinstance(k.value, ast.Constant) and not k.value.value) for k in node.keywords)
        else:
            continue
        if text:
            found.append(f"{node.lineno}: {ast.unparse(node.func)}(...)")
    return found


@pytest.mark.parametrize("folder", CHECKED)
def test_every_text_file_and_pipe_names_its_encoding(folder):
    found = {str(path.relative_to(ROOT)): problems
             for path in sorted((ROOT / folder).rglob("*.py"))
             if (problems := unnamed_encodings(path.read_text(encoding="utf-8")))}
    assert found == {}, "add encoding=\"utf-8\" (the system's default is cp1252 on Windows)"


def test_the_check_sees_each_kind_and_passes_what_names_it():
    planted = """
open(p); open(p, "w"); open(p, mode="a"); io.open(p); os.fdopen(fd, "w")
gzip.open(p, "rt"); Path(p).open("w"); p.read_text(); p.write_text(s)
io.TextIOWrapper(raw); subprocess.run(c, text=True); subprocess.Popen(c, universal_newlines=True)
"""
    assert len(unnamed_encodings(planted)) == 12
    named = """
open(p, encoding="utf-8"); open(p, "rb"); open(p, "wb"); os.fdopen(fd, "wb")
gzip.open(p); gzip.open(p, "rb"); gzip.open(p, "rt", encoding="utf-8"); zf.open(name)
Image.open(p); zf.open(name, "r"); zf.open("m.txt", "r"); p.read_text(encoding="utf-8")
p.write_text(s, encoding="utf-8"); p.read_text("utf-8"); io.TextIOWrapper(raw, "utf-8")
subprocess.run(c); subprocess.run(c, text=False); subprocess.run(c, **kw)
subprocess.run(c, capture_output=True, encoding="utf-8")
"""
    assert unnamed_encodings(named) == []


@pytest.fixture
def windows_files(monkeypatch):
    """``open`` (and ``Path.open``, ``read_text``, ``write_text``) and ``io.TextIOWrapper``
    as on Windows: text without an encoding is cp1252, and "\\n" is written as "\\r\\n"
    unless the call gives ``newline``."""
    real_open = io.open

    def windows_open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None,
                     closefd=True, opener=None):
        if "b" not in mode:
            if encoding in (None, "locale"):
                encoding = "cp1252"
            if newline is None and "r" not in mode and "+" not in mode:
                newline = "\r\n"
        return real_open(file, mode, buffering, encoding, errors, newline, closefd, opener)

    class WindowsTextIOWrapper(io.TextIOWrapper):
        def __init__(self, buffer, encoding=None, errors=None, newline=None, **kwargs):
            if newline is None and not buffer.readable():
                newline = "\r\n"
            super().__init__(buffer, encoding or "cp1252", errors, newline, **kwargs)

    monkeypatch.setattr(builtins, "open", windows_open)
    monkeypatch.setattr(io, "open", windows_open)
    monkeypatch.setattr(io, "TextIOWrapper", WindowsTextIOWrapper)


def test_the_emulation_is_windows(windows_files, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("a\nb\n")
    assert path.read_bytes() == b"a\r\nb\r\n"
    with pytest.raises(UnicodeEncodeError):
        path.write_text("→")


def test_json_is_written_with_the_same_bytes_on_windows(windows_files, tmp_path):
    data = {"name": "Zoë → Ω", "rows": [1, 2]}
    path = write_json_atomic(tmp_path / "r.json", data, indent=1)
    assert b"\r" not in path.read_bytes() and read_json(path) == data


def test_the_layer_check_reads_the_package_on_windows(windows_files):
    # the package's sources hold "₁" (bytes E2 82 81; 0x81 is no cp1252 character)
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import import_graph
    finally:
        sys.path.remove(str(ROOT / "tools"))
    edges, _ = import_graph.graph()
    assert "chesslab.figures.backprop" in edges


def test_games_are_written_with_the_same_bytes_on_windows(windows_files, tmp_path, monkeypatch):
    from chesslab.datasets import records
    played = '[Event "Zoë → Ω"]\n[Result "1-0"]\n\n1. f3 e5 2. g4 Qh4# 0-1'
    monkeypatch.setattr(records, "find_stockfish", lambda: "stockfish")
    monkeypatch.setattr(records, "_selfplay_pgn", lambda index, **kwargs: played)
    for name in ("games.pgn", "games.pgn.gz"):
        path = records.generate_games(2, tmp_path / name, progress=False)
        raw = path.read_bytes() if name.endswith(".pgn") else __import__("gzip").decompress(
            path.read_bytes())
        assert raw == (played + "\n\n").encode("utf-8") * 2
