"""The installed `scalarlang` on a pseudo-terminal (pexpect), for the pty tests
(``test_repl_pty``, ``test_terminal``): the environment of a clean home, and a REPL session
whose output is searched as plain text (one REPL may serve several tests: `Terminal.mark`)."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pexpect

EXECUTABLE = Path(sys.executable).parent / "scalarlang"
TIMEOUT = 15.0
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def base_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment under `home` (history and caches there), UTF-8, a colour terminal."""
    env = {
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "TERM": "xterm-256color",
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    env.update(extra)
    return env


def without_pauses(child: pexpect.spawn) -> pexpect.spawn:
    """No pause before each `send` (pexpect's 50 ms, for programs that turn echo off late: the
    REPL reads its terminal in raw mode from its start, and keeps what comes early), nor after
    closing (ptyprocess's 100 ms, for a status not yet known: the harness waits for the exit
    itself)."""
    child.delaybeforesend = None
    child.ptyproc.delayafterclose = 0
    return child


def exit_status(child: pexpect.spawn) -> int | None:
    """The status of a child that has closed its terminal, once it has exited (None if it has
    not within the timeout: `close` then ends it)."""
    deadline = time.monotonic() + TIMEOUT
    while child.isalive() and time.monotonic() < deadline:
        time.sleep(0.005)
    return child.exitstatus


# An empty prompt at the end of what the terminal shows. After the harness's answer to a cursor
# position request (row 1), prompt_toolkit lays out the whole screen below the prompt: blank
# lines (and a space, backspace) after it, then the cursor moved back up to the prompt, which
# the plain text cannot show. Those blank lines are still the prompt's screen.
_LAST_EMPTY_PROMPT = re.compile(r"sad> [ \n\x08]*\Z")


class Terminal:
    """A spawned REPL, 120 columns wide, and everything it has printed, ANSI escapes removed."""

    def __init__(self, home: Path, **env: str):
        self.child = pexpect.spawn(
            str(EXECUTABLE), [], env=base_env(home, **{"TERM": "xterm", **env}), dimensions=(40, 120),
            encoding="utf-8", timeout=TIMEOUT,
        )
        without_pauses(self.child)
        self.raw = ""
        self.shown_from = 0  # where in all the plain text `text` starts (see `mark`)
        self.seen = 0  # where in `text` the next search starts
        self.answered = 0  # cursor position requests answered

    @property
    def text(self) -> str:
        """The plain text shown since the start, or since the last `mark`."""
        return ANSI.sub("", self.raw).replace("\r", "")[self.shown_from :]

    def mark(self) -> None:
        """Show `text` (and searches) only what comes after the last match: a REPL shared by
        several tests is, for each, a terminal where nothing was shown before."""
        self.shown_from += self.seen
        self.seen = 0

    def _read(self) -> None:
        try:
            chunk = self.child.read_nonblocking(65536, timeout=0.05)
        except pexpect.TIMEOUT:
            return
        self.raw += chunk
        # The REPL asks where the cursor is (CPR); answer each request like a terminal would
        # (counted in all that was read: a request may come split over two reads).
        asked = self.raw.count("\x1b[6n")
        while self.answered < asked:
            self.child.send("\x1b[1;1R")
            self.answered += 1

    def expect(self, pattern: str, within: float = TIMEOUT) -> re.Match:
        """Wait until ``pattern`` (a regex) shows in the plain text after the last match."""
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + within
        while True:
            match = regex.search(self.text, self.seen)
            if match is not None:
                self.seen = match.end()
                return match
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not seen within {within} s; the terminal shows:\n{self.text[self.seen:]}")
            self._read()

    def line(self, text: str) -> None:
        """Type a line at the prompt and press Enter."""
        self.expect(r"sad> ")
        self.child.send(text + "\r")

    def at_empty_prompt(self) -> None:
        """Wait until the terminal's last line is an empty prompt (the REPL waits for input)."""
        # The last line, not any prompt: a prompt seen earlier may be a redraw of a line still
        # being edited (after Up, before a Ctrl-C is handled).
        self.expect(r"sad> ")
        deadline = time.monotonic() + TIMEOUT
        while _LAST_EMPTY_PROMPT.search(self.text) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"no empty prompt at the end within {TIMEOUT} s; the terminal shows:\n{self.text[-2000:]}")
            self._read()

    def leave(self) -> int | None:
        """Ctrl-D at an empty prompt (elsewhere it would delete a character); the exit status."""
        self.at_empty_prompt()
        self.child.sendcontrol("d")
        deadline = time.monotonic() + TIMEOUT
        # Until the process has exited, not just closed the terminal: closing it earlier
        # would kill it while it finishes (the status would be None).
        while self.child.isalive() and time.monotonic() < deadline:
            try:
                self._read()
            except pexpect.EOF:
                time.sleep(0.02)
        self.child.close(force=True)  # (it has exited: this only collects its status)
        return self.child.exitstatus
