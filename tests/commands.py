"""Running the real `scalarlang` command, the console script installed beside this Python, as
a user does: `command` (any arguments, bytes out, in the repository's root) and `run_program`
(a program on standard input, `-`, at a given width, text out). Tests that need it skip with
`needs_command` when it is not installed.

`run_program_in_process` gives what `run_program` gives from the command's own `main` in this
process, its standard streams captured: for tests of what the command prints where a process of
its own proves nothing more (each spawn costs about 0.1 s of CPU; the start-up, signals, the real
streams and the exit of a process keep their tests through the real command)."""

from __future__ import annotations

import io
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


def run_program_in_process(program: str, *args: str, width: int | str = 80) -> subprocess.CompletedProcess:
    """`run_program`'s arguments and result, from `scalarlang.front.cli.main` in this process:
    ``program`` on a standard input that is no terminal, both outputs captured as UTF-8 text."""
    from scalarlang.front import cli

    argv = ["--width", str(width), *args, "-"]
    streams = sys.stdin, sys.stdout, sys.stderr
    stdin = io.TextIOWrapper(io.BytesIO(program.encode("utf-8")), encoding="utf-8")
    stdout, stderr = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="") for _ in range(2))
    try:
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        status = cli.main(argv)
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
    texts = []
    for stream in (stdout, stderr):
        stream.flush()
        texts.append(stream.buffer.getvalue().decode("utf-8"))
    return subprocess.CompletedProcess(["scalarlang", *argv], status, texts[0], texts[1])
