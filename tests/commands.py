"""Running the real `scalarlang` command, the console script installed beside this Python, as
a user does: `command` (any arguments, bytes out, in the repository's root), `run_program` (a
program on standard input, `-`, at a given width, text out) and `printed_texts` (the `print`
texts of a `--json` run). Tests that need it skip with `needs_command` when it is not installed.

`command_in_process` and `run_program_in_process` give what `command` and `run_program` give,
from the command's own `main` in this process, its standard streams captured: for tests of what
the command prints where a process of its own proves nothing more (each process costs about
0.1 s of CPU to start; the start-up, signals, the real streams and the exit of a process keep
their tests through the real command)."""

from __future__ import annotations

import io
import json
import os
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


def printed_texts(result: subprocess.CompletedProcess) -> list[str]:
    """The texts of the `print` events of a `--json` run (`command` or `run_program`), in order."""
    output = result.stdout.decode("utf-8") if isinstance(result.stdout, bytes) else result.stdout
    return [event["text"] for event in map(json.loads, output.splitlines()) if event["event"] == "print"]


def command_in_process(
    *args: str, stdin: str | bytes = b"", cwd: Path | None = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """`command`'s arguments and result (bytes out), from `scalarlang.front.cli.main` in this
    process: in ``cwd``, with ``env`` as the whole environment when given, ``stdin`` on a
    standard input that is no terminal, both outputs captured."""
    from scalarlang.front import cli

    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd(), dict(os.environ)
    buffers = io.BytesIO(), io.BytesIO()
    stdout, stderr = (io.TextIOWrapper(buffer, encoding="utf-8", newline="") for buffer in buffers)
    try:
        if cwd is not None:
            os.chdir(cwd)
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        sys.stdout, sys.stderr = stdout, stderr
        status = cli.main(list(args))
        stdout.flush()
        stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[:3]
        os.chdir(saved[3])
        if env is not None:
            os.environ.clear()
            os.environ.update(saved[4])
    return subprocess.CompletedProcess(["scalarlang", *args], status, buffers[0].getvalue(), buffers[1].getvalue())


def run_program_in_process(program: str, *args: str, width: int | str = 80) -> subprocess.CompletedProcess:
    """`run_program`'s arguments and result (text out), from `command_in_process`."""
    done = command_in_process("--width", str(width), *args, "-", stdin=program, cwd=None)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))
