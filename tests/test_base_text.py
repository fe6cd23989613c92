"""base.text: printing never fails on a character the output's encoding lacks, and a child
Python's output comes back as it printed it, on systems whose encoding is not UTF-8."""
import io
import subprocess
import sys

from chesslab.base.text import keep_printing, no_window, run_text

SYMBOLS = "± → × Ω"                   # none but ± and × in cp1252 (Windows' redirected output)


def test_a_stream_without_the_characters_escapes_them_instead_of_raising():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="cp1252")
    keep_printing(stream)
    print(SYMBOLS, file=stream)
    stream.flush()
    assert raw.getvalue().decode("cp1252") == "± \\u2192 × \\u03a9\n"


def test_a_utf8_stream_is_left_alone():
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    keep_printing(stream)
    assert stream.errors == "strict"


def test_a_child_pythons_output_comes_back_whatever_the_systems_encoding(monkeypatch):
    # PYTHONIOENCODING=cp1252 gives this process's children the pipes a Windows child has
    monkeypatch.setenv("PYTHONIOENCODING", "cp1252")
    code = f"import sys; print({SYMBOLS!r}); print({SYMBOLS!r}, file=sys.stderr)"
    run = run_text([sys.executable, "-c", code])
    assert run.returncode == 0, run.stderr
    assert run.stdout == SYMBOLS + "\n" and run.stderr == SYMBOLS + "\n"


def test_bytes_that_are_no_utf8_do_not_stop_the_reading():
    code = "import sys; sys.stdout.buffer.write(b'ok \\x81\\n')"
    assert run_text([sys.executable, "-c", code]).stdout == "ok \ufffd\n"


def test_console_programs_get_no_window_of_their_own_on_windows(monkeypatch):
    assert no_window() == ({"creationflags": subprocess.CREATE_NO_WINDOW}
                           if sys.platform == "win32" else {})
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(subprocess, "CREATE_NO_WINDOW", 0x08000000, raising=False)
    assert no_window() == {"creationflags": 0x08000000}
