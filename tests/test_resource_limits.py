"""Limits and failures of the machine, through the real command (issue 40, items 4 to 7): a
file that is not a regular one is an `io-error` at once, a text or a printed line whose
length is known from its parts to be too long is refused before it is built, calls of `fn`
functions have a budget as loops do, and running out of memory is one typed error, never a
Python traceback."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

from commands import command, needs_command

pytestmark = needs_command

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and memory limits are POSIX")


def events(result) -> list[dict]:
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


def only_error(result) -> dict:
    """The one error event of a `--json` run (after its start event)."""
    found = events(result)
    assert [event["event"] for event in found][-1] == "error", found
    return found[-1]


# ---- item 7: a file that is not a regular one --------------------------------------------------


@posix_only
@pytest.mark.parametrize("reader", ["read_text", "read_table"])
def test_reading_a_fifo_is_an_io_error_at_once(tmp_path, reader):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "p.sad").write_text(f'print {reader}("pipe")\n')
    started = time.monotonic()
    result = command("--json", "p.sad", cwd=tmp_path, timeout=20)  # (blocked forever before)
    assert time.monotonic() - started < 10
    error = only_error(result)
    assert error["kind"] == "io-error"
    assert "FIFO" in error["message"] and "not a regular file" in error["message"]
    assert (error["line"], error["column"]) == (1, len(f"print {reader}(") + 1)
    assert result.returncode == 1 and result.stderr == b""


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("reader", ["read_text", "read_table"])
def test_reading_a_device_is_an_io_error_at_once(tmp_path, reader):
    result = command("--json", "-c", f'print {reader}("/dev/zero")', cwd=tmp_path, timeout=20)
    error = only_error(result)
    assert error["kind"] == "io-error"
    assert "a device, not a regular file" in error["message"]


@posix_only
def test_a_socket_is_not_read_either(tmp_path):
    import socket

    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "s"))
        result = command("--json", "-c", 'print read_text("s")', cwd=tmp_path, timeout=20)
    finally:
        server.close()
    assert only_error(result)["message"] == "cannot read `s`: it is a socket, not a regular file"
