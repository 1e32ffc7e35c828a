"""The installed `scalarlang` on a pseudo-terminal (pexpect's fdspawn), for the pty tests
(``test_repl_pty``, ``test_terminal``): the environment of a clean home, and a REPL session
whose output is searched as plain text (one REPL may serve several tests: `Terminal.mark`)."""

from __future__ import annotations

import fcntl
import os
import re
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pexpect
from pexpect.fdpexpect import fdspawn

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


# The child's first step: the terminal it was handed (its standard input) becomes its controlling
# terminal, so that Ctrl-C typed there is a SIGINT for it and a resize a SIGWINCH; then the command.
_TAKE_THE_TERMINAL = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); os.execv(sys.argv[1], sys.argv[1:])"
)


class PtyChild(fdspawn):
    """A command on a pseudo-terminal, read and written through pexpect's public `fdspawn` on
    the terminal's master side, with what `pexpect.spawn` adds that the tests use (`sendintr`,
    `sendcontrol`, `setwinsize`, `isalive`, `exitstatus`, `close(force=)`).

    The child is started by `subprocess` (fork and exec in C, in a new session) rather than
    by pexpect's `forkpty()`: forking this Python process while it has threads (pytest-xdist's
    worker has) may deadlock the child, and CPython 3.12+ warns of it."""

    def __init__(self, command: str, args: list[str], *, env: dict[str, str], dimensions: tuple[int, int],
                 cwd: str | None = None, encoding: str = "utf-8", timeout: float = 30.0):
        master, terminal = os.openpty()
        try:
            _set_size(terminal, *dimensions)
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _TAKE_THE_TERMINAL, command, *args],
                stdin=terminal, stdout=terminal, stderr=terminal, env=env, cwd=cwd, start_new_session=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(terminal)  # (the child's copies only: the master reads EOF once it exits)
        super().__init__(master, timeout=timeout, encoding=encoding)
        self.pid = self.process.pid
        self.exitstatus: int | None = None
        self.signalstatus: int | None = None

    # As `pexpect.spawn` does, a pause before each write: typed keys (and the answers to the
    # REPL's cursor position requests) arriving at once raced prompt_toolkit's first layout.
    delaybeforesend = 0.05

    def send(self, s: str) -> int:
        time.sleep(self.delaybeforesend)
        return super().send(s)

    def sendcontrol(self, char: str) -> int:
        return self.send(chr(ord(char.lower()) & 0x1F))

    def sendintr(self) -> None:
        """The terminal's interrupt character (Ctrl-C): a SIGINT for the child, or a key while
        its line editor has the terminal raw."""
        self.send("\x03")

    def setwinsize(self, rows: int, cols: int) -> None:
        """Resize the terminal; the kernel tells the child with SIGWINCH."""
        _set_size(self.child_fd, rows, cols)

    def isalive(self) -> bool:
        if self.process.poll() is None:
            return True
        self._collect()
        return False

    def close(self, force: bool = True) -> None:
        """Close the terminal (a hangup for the child) and collect the child's status; with
        ``force``, kill a child still running after that."""
        super().close()
        try:
            self.process.wait(timeout=5 if force else None)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self._collect()

    def _collect(self) -> None:
        code = self.process.returncode
        if code is not None:
            self.exitstatus, self.signalstatus = (code, None) if code >= 0 else (None, -code)


def _set_size(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def spawn(command: Path | str, args: list[str], *, env: dict[str, str], dimensions: tuple[int, int],
          cwd: str | None = None, timeout: float = TIMEOUT) -> PtyChild:
    """``command args`` on a new pseudo-terminal of ``dimensions`` (rows, columns), text in UTF-8."""
    return PtyChild(str(command), args, env=env, dimensions=dimensions, cwd=cwd, timeout=timeout)


# An empty prompt at the end of what the terminal shows. After the harness's answer to a cursor
# position request (row 1), prompt_toolkit lays out the whole screen below the prompt: blank
# lines (and a space, backspace) after it, then the cursor moved back up to the prompt, which
# the plain text cannot show. Those blank lines are still the prompt's screen.
_LAST_EMPTY_PROMPT = re.compile(r"sad> [ \n\x08]*\Z")


class Terminal:
    """A spawned REPL, 120 columns wide, and everything it has printed, ANSI escapes removed."""

    def __init__(self, home: Path, **env: str):
        self.child = spawn(EXECUTABLE, [], env=base_env(home, **{"TERM": "xterm", **env}), dimensions=(40, 120))
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

    def after_a_pause(self, seconds: float) -> str:
        """The plain text shown after the last match once ``seconds`` have passed: where a test
        checks that something did not happen (a second edge before Enter, a prompt under a
        pager)."""
        time.sleep(seconds)
        self._read()
        return self.text[self.seen :]

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
