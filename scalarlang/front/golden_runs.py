"""Running one program for its golden: what ``cd FOLDER && scalarlang FILE.sad`` prints
without a terminal, both streams as one, and its exit status; or that it ran out of time.

A program runs in this process, in a fresh session (the command's own ``ScriptOutput``), with
its folder as the working folder: its diagnostics name it ``FILE.sad`` whatever folder the
tests were started from, ``read_table`` reads beside it (as it always does) and
``draw(x, "FILE.svg")`` writes beside it. So a hundred small programs take a second, not a
hundred start-ups.

The timeout interrupts the program in this process: a SIGALRM timer whose handler raises
``TimedOut``, a kind of KeyboardInterrupt, which the interpreter already treats as a clean stop
(a Ctrl-C) and which no ``except Exception`` on the way catches. A signal handler can only be
set in the main thread (and only where SIGALRM exists, not on Windows): elsewhere the program
runs as the command itself, in a subprocess, which the timeout kills. Both give the same text.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

DEFAULT_WIDTH = 100  # the command's width without a terminal: what `scalarlang FILE.sad > FILE.out` writes
DEFAULT_TIMEOUT = 60.0
# After the timer first fires it fires again this often, in case its KeyboardInterrupt was
# swallowed (Python only reports one raised inside some callbacks).
_AGAIN_AFTER = 1.0


@dataclass(frozen=True)
class ProgramRun:
    """What a program printed (standard output and error, in order) and its exit status;
    ``status`` None: it ran out of time, and ``output`` is what it printed until then."""

    output: str
    status: int | None
    seconds: float


def run_program(path: str | os.PathLike[str], *, width: int = DEFAULT_WIDTH, timeout: float = DEFAULT_TIMEOUT) -> ProgramRun:
    """Run the program at ``path`` as the command would from its folder (see the module)."""
    folder, name = os.path.split(os.path.abspath(path))
    if _timer_usable():
        return _run_here(folder, name, width, timeout)
    return run_in_subprocess(folder, name, width, timeout)


def _timer_usable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _run_here(folder: str, name: str, width: int, timeout: float) -> ProgramRun:
    from .runner import ScriptOutput, read_source

    stream = io.StringIO()
    output = ScriptOutput(stream, stream, width=width, color="never")
    started = time.monotonic()
    try:
        with contextlib.chdir(folder), Deadline(timeout):
            status: int | None = output.run(read_source(name))
    except TimedOut:
        status = None
    return ProgramRun(stream.getvalue(), status, time.monotonic() - started)


def run_in_subprocess(folder: str, name: str, width: int, timeout: float) -> ProgramRun:
    """The same run as the command itself (``python -m scalarlang``), killed at the timeout."""
    command = [sys.executable, "-m", "scalarlang", "--width", str(width), "--color", "never", "--", name]
    environment = dict(os.environ, PYTHONIOENCODING="utf-8")
    started = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=folder, env=environment, timeout=timeout,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
    except subprocess.TimeoutExpired as expired:
        printed = expired.output if isinstance(expired.output, bytes) else b""
        return ProgramRun(printed.decode("utf-8", "replace"), None, time.monotonic() - started)
    return ProgramRun(done.stdout.decode("utf-8", "replace"), done.returncode, time.monotonic() - started)


class TimedOut(KeyboardInterrupt):
    """The program ran longer than its timeout (raised by ``Deadline``'s timer)."""


class Deadline:
    """``with Deadline(seconds):`` raises ``TimedOut`` in the block when the time is up. The
    timer and SIGALRM handler in place before (pytest-timeout's, say) are put back after,
    the timer less the time the block took."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.armed = False

    def __enter__(self) -> Deadline:
        self.started = time.monotonic()
        self.previous_handler = signal.signal(signal.SIGALRM, self._expire)
        self.armed = True
        self.previous_timer = signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def _expire(self, signum, frame) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, _AGAIN_AFTER)
            raise TimedOut

    def __exit__(self, *exc_info) -> None:
        # (A second TimedOut could only come _AGAIN_AFTER later: the first line ends them.)
        try:
            self.armed = False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            # (None: a handler set outside Python, which cannot be put back; the default then)
            previous = self.previous_handler
            signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
            delay, interval = self.previous_timer
            if delay > 0:
                left = delay - (time.monotonic() - self.started)
                signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), interval)
