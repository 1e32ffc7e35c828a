"""`print` writes the program's text as it is (issue 40, item 2), through the real command: a
line of output for each line of the text, never wrapped at the width nor trimmed (trailing
spaces included), tabs kept; to a pipe or a file (and so in a golden) the text's own
characters, `\\r`, `\\v`, `\\f`, ESC, NUL and DEL included; on a terminal, its control
characters but tab and newline show as the escapes a value line writes (`\\x1b`, `\\r`), and
the REPL and the notebook's HTML show the same."""

from __future__ import annotations

import json
import re
import sys

import pytest

import scalarlang
from commands import command, needs_command

pytestmark = needs_command

# A text read from a file with every kind of character `print` must keep (written as bytes:
# read_text keeps them all, `\r\n` aside), and texts a wrapping or trimming printer would lose.
CONTROLS = "a\tb\rc\vd\fe\x1b[31mX\x00Y\x7fZ\x9b  "
ROW = ",".join(f"{i * 1.123456789:.9f}" for i in range(1, 21))  # 239 characters, one line
PROGRAM = f"""let t = read_text("controls.txt")
print t
print "{ROW}"
print "trailing   "
print "  leading", "and  inner  spaces "
print "two\\nlines  "
print ""
"""
EXPECTED = f"{CONTROLS}\n{ROW}\ntrailing   \n  leading and  inner  spaces \ntwo\nlines  \n\n"
ESCAPED = r"a	b\rc\x0bd\x0ce\x1b[31mX\x00Y\x7fZ\x9b  "  # (the tab stays a tab)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "controls.txt").write_bytes(CONTROLS.encode("utf-8"))
    (tmp_path / "p.sad").write_text(PROGRAM)
    return tmp_path


@pytest.mark.parametrize("width", [[], ["--width", "20"]], ids=["default", "narrow"])
def test_print_to_a_pipe_writes_the_texts_characters_exactly(folder, width):
    result = command(*width, "p.sad", cwd=folder)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode("utf-8") == EXPECTED
    assert result.stderr == b""


def test_the_json_events_hold_the_same_texts(folder):
    result = command("--json", "p.sad", cwd=folder)
    texts = [event["text"] for event in map(json.loads, result.stdout.decode().splitlines()) if event["event"] == "print"]
    assert "\n".join(texts) + "\n" == EXPECTED


def test_a_golden_holds_trailing_spaces_and_tabs(folder):
    (folder / "p.out").write_text(EXPECTED + "[exit status 0]\n")
    result = command("test", "p.sad", cwd=folder)
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()


# ---- on a terminal ------------------------------------------------------------------------------

pexpect = pytest.importorskip("pexpect")
from pty_session import EXECUTABLE, TIMEOUT, Terminal, base_env, exit_status, without_pauses  # noqa: E402 - after pexpect

on_a_terminal = pytest.mark.skipif(sys.platform == "win32" or not EXECUTABLE.exists(), reason="pseudo-terminals are POSIX")
SGR = re.compile(r"\x1b\[[0-9;]*m")


def shown_on_a_terminal(folder, columns: int, **env: str) -> str:
    """What the command printed on a terminal ``columns`` wide (its newlines made `\\n` again)."""
    child = pexpect.spawn(
        str(EXECUTABLE), ["p.sad"], env=base_env(folder, **env), dimensions=(40, columns), encoding="utf-8",
        timeout=TIMEOUT, cwd=str(folder),
    )
    without_pauses(child)
    try:
        output = child.read()
        status = exit_status(child)
    finally:
        child.close()
    assert status == 0, output
    return output.replace("\r\n", "\n")


@on_a_terminal
def test_on_a_terminal_control_characters_are_escapes_and_nothing_is_rewrapped(folder):
    shown = shown_on_a_terminal(folder, 40, NO_COLOR="1")
    # the terminal wraps the long row by itself: the program writes it as one line
    assert shown == EXPECTED.replace(CONTROLS, ESCAPED)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", shown)  # no control reaches the terminal raw


@on_a_terminal
def test_in_colour_the_escapes_are_dimmed(folder):
    shown = shown_on_a_terminal(folder, 100)
    assert "\x1b[2m\\r\x1b[0m" in shown and "\x1b[2m\\x1b\x1b[0m[31mX" in shown
    assert SGR.sub("", shown) == EXPECTED.replace(CONTROLS, ESCAPED)


@on_a_terminal
def test_the_repl_shows_the_same(folder):
    terminal = Terminal(folder)
    try:
        terminal.line(f'let t = read_text("{folder / "controls.txt"}")')
        terminal.line("print t")
        terminal.expect("^" + re.escape(ESCAPED) + "$")  # (the value line above showed it quoted: `\\t`)
        terminal.line(f'print "{ROW}  "')
        terminal.expect("^" + re.escape(ROW) + "  $")
        assert terminal.leave() == 0
    finally:
        terminal.child.close(force=True)
    raw = terminal.raw
    assert "\x1b[2m\\x1b\x1b[0m[31mX" in raw  # dimmed, as on the command's terminal
    assert "\x1b[31mX" not in raw and "\x00" not in raw and "\x7f" not in raw and "\x9b" not in raw


def test_the_notebook_shows_the_escapes_and_keeps_the_text(folder):
    program = f'print read_text("{folder / "controls.txt"}")\nprint "{ROW}  "'
    result = scalarlang.run(program, width=40)
    assert result.text == f"{CONTROLS}\n{ROW}  \n"  # the plain text: the text's own characters
    html = result._repr_html_()
    assert "\x1b" not in html and "\x00" not in html and "\r" not in html
    assert r"\x1b</span>[31mX" in html and ROW + "  " in html
