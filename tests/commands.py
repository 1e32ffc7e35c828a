"""Running the real `scalarlang` command, the console script installed beside this Python, as
a user does: `command` (any arguments, bytes out, in the repository's root) and `run_program`
(a program on standard input, `-`, at a given width, text out). Tests that need it skip with
`needs_command` when it is not installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMAND = Path(sys.executable).parent / "scalarlang"
needs_command = pytest.mark.skipif(not COMMAND.exists(), reason=f"{COMMAND} is not installed")


def command(*args: str, cwd: Path | None = ROOT, timeout: float = 60, **options) -> subprocess.CompletedProcess:
    """`scalarlang ARGS…` run in ``cwd``, its output captured (bytes unless ``text=True``)."""
    return subprocess.run([str(COMMAND), *args], capture_output=True, timeout=timeout, cwd=cwd, **options)


def run_program(program: str, *args: str, width: int | str = 80, timeout: float = 60) -> subprocess.CompletedProcess:
    """`scalarlang --width WIDTH ARGS… -` with ``program`` on standard input; text out."""
    return subprocess.run(
        [str(COMMAND), "--width", str(width), *args, "-"], input=program, capture_output=True, text=True,
        timeout=timeout,
    )
