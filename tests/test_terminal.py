"""The command on a real terminal (pexpect pseudo-terminals), issue 12 and issue 11 item 4:
NO_COLOR, FORCE_COLOR and COLUMNS are honoured there (and only there), scripts follow the
terminal's width unless --width is given, and the REPL works whatever its history path is."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from pty_session import ANSI, EXECUTABLE, TIMEOUT, Terminal, base_env, exit_status, without_pauses  # noqa: E402 - after pexpect

ROOT = Path(__file__).resolve().parents[1]
SGR = re.compile(r"\x1b\[[0-9;]*m")
PROGRAM = "let x = var 2\nlet square = x * x\nlet loss = square + square\nbackward(loss)\nlose"

pytestmark = [
    pytest.mark.skipif(not EXECUTABLE.exists(), reason=f"no scalarlang next to {sys.executable}"),
    pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX"),
]


def run_on_terminal(args: list[str], env: dict[str, str], columns: int = 80) -> tuple[str, int]:
    """Run the command with stdout and stderr on a terminal ``columns`` wide; what it showed
    (carriage returns removed) and its status."""
    child = pexpect.spawn(str(EXECUTABLE), args, env=env, dimensions=(40, columns), encoding="utf-8", timeout=TIMEOUT, cwd=str(ROOT))
    without_pauses(child)
    try:
        output = child.read()
        status = exit_status(child)
    finally:
        child.close()
    return output.replace("\r", ""), status


def visible_lines(output: str) -> list[str]:
    return SGR.sub("", output).splitlines()


# ---- colour (NO_COLOR, FORCE_COLOR, TERM) -------------------------------------------------------------


def test_colour_on_a_terminal_by_default(tmp_path):
    output, status = run_on_terminal(["-c", PROGRAM], base_env(tmp_path))
    assert status == 1
    assert SGR.search(output)


# The environment's other cases (NO_COLOR's values, an empty one, FORCE_COLOR over NO_COLOR and
# TERM=dumb) are decided by `make_console` alone, in-process: tests/test_startup.py.
def test_no_color_on_a_terminal_gives_plain_text(tmp_path):
    output, status = run_on_terminal(["-c", PROGRAM], base_env(tmp_path, NO_COLOR="1"))
    assert status == 1
    assert not ANSI.search(output), output[:300]
    assert "backward from loss with seed 1" in output
    assert "error[undefined-name]" in output  # the diagnostic is plain too
    output, _ = run_on_terminal(["-c", PROGRAM], base_env(tmp_path, NO_COLOR="1", TERM="dumb", FORCE_COLOR="1"))
    assert SGR.search(output)


def test_the_color_option_wins_over_the_environment(tmp_path):
    output, _ = run_on_terminal(["--color", "never", "-c", PROGRAM], base_env(tmp_path, FORCE_COLOR="1"))
    assert not ANSI.search(output)
    output, _ = run_on_terminal(["--color", "always", "-c", PROGRAM], base_env(tmp_path, NO_COLOR="1"))
    assert SGR.search(output)


# ---- width -------------------------------------------------------------------------------------------


def test_a_script_follows_the_terminals_width(tmp_path):
    # (the chapter's 12 decimals make the tables wide enough to show the width)
    output, status = run_on_terminal(["--digits", "12", "-c", PROGRAM], base_env(tmp_path), columns=60)
    lines = visible_lines(output)
    assert status == 1
    assert max(map(len, lines)) <= 60
    rules = [line for line in lines if line.startswith("─")]
    assert rules and max(map(len, rules)) > 40  # tables were laid out for 60, not cut to it
    wide, _ = run_on_terminal(["--digits", "12", "-c", PROGRAM], base_env(tmp_path), columns=140)
    assert max(map(len, visible_lines(wide))) > 100  # a wider terminal: wider tables


def test_columns_sets_the_width_on_a_terminal(tmp_path):
    output, _ = run_on_terminal(["-c", PROGRAM], base_env(tmp_path, COLUMNS="50"), columns=120)
    assert max(map(len, visible_lines(output))) <= 50


def test_an_explicit_width_wins_on_a_terminal(tmp_path):
    output, _ = run_on_terminal(
        ["--width", "100", "--digits", "12", "-c", PROGRAM], base_env(tmp_path, COLUMNS="50"), columns=140
    )
    rules = [line for line in visible_lines(output) if line.startswith("─")]
    assert max(map(len, rules)) == 100  # exactly as without a terminal


# ---- the REPL with a history that is not a regular file (issue 11, item 4) -----------------------------


def _session_works(home: Path, history: str, reason: str) -> None:
    repl = Terminal(home, SCALARLANG_HISTORY=history)
    try:
        # The warning (printed before the prompt), then the prompt, within seconds: no read
        # of /dev/zero, no wait on a FIFO.
        repl.expect(r"not a regular\s+file", within=10)  # wrapped at the terminal's width
        repl.expect(r"sad> ", within=10)
        warning = f"history is kept for this session only: {history} is {reason}, not a regular file"
        assert warning in " ".join(repl.text.split())
        assert repl.text.count("history is kept") == 1
        repl.child.send("let x = var 3\r")
        repl.expect(r"^x = 3", within=10)
        repl.child.send("x * x\r")
        repl.expect(r"^x \* x = 9", within=10)
        repl.expect(r"sad> ", within=10)
        repl.child.send("\x1b[A")  # Up: the history in memory still works
        repl.expect(r"x \* x", within=10)
        repl.child.send("\x03")  # Ctrl-C drops that line
        assert repl.leave() == 0
    finally:
        repl.child.close(force=True)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/full", "/dev/null"])
def test_a_device_as_history_warns_and_keeps_history_in_memory(tmp_path, device):
    _session_works(tmp_path, device, "a device")


def test_a_fifo_as_history_does_not_block(tmp_path):
    fifo = tmp_path / "history.fifo"
    os.mkfifo(fifo)
    _session_works(tmp_path, str(fifo), "a FIFO")


def test_a_directory_as_history_warns(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    _session_works(tmp_path, str(folder), "a directory")
