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
from scalarlang.engine.numbers import format_number

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


# ---- item 6: calls of `fn` functions have a budget ---------------------------------------------


def doubling_functions(levels: int) -> str:
    """`f0` .. `fN`, each calling the one before twice: fN(x) makes 2^(N+1) - 2 calls."""
    lines = ["fn f0(x) = x * 1.0001"]
    lines += [f"fn f{level}(x) = f{level - 1}(x) + f{level - 1}(x)" for level in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_a_function_calling_itself_twice_thirty_levels_deep_stops_at_once(tmp_path):
    # (issue 40 item 6: 2^30 calls grew to 3.5 GB in 30 s)
    (tmp_path / "exp_calls.sad").write_text(doubling_functions(30) + "let x = var 1\nprint value(f30(x))\n")
    started = time.monotonic()
    result = command("--json", "exp_calls.sad", cwd=tmp_path, timeout=60)
    elapsed = time.monotonic() - started
    error = only_error(result)
    assert error["kind"] == "too-long"
    assert error["message"] == "this statement has called functions defined with `fn` 1,000,000 times, the most one statement may"
    assert (error["calls"], error["limit"]) == (1_000_000, 1_000_000)
    # at the call that went past the budget, in the body of one of the functions
    program_lines = (tmp_path / "exp_calls.sad").read_text().splitlines()
    assert 2 <= error["line"] <= 31
    assert program_lines[error["line"] - 1][error["column"] - 1 :].startswith(f"f{error['line'] - 2}(x)")
    assert error["notes"][-1] == "in the call `f30(x)` at 33:13"
    assert result.returncode == 1
    assert elapsed < 15  # (about 1 s; 2^30 calls would take hours)


def test_the_budget_of_calls_is_each_statements():
    from sessions import failure, run_ok

    # 130 statements of 8,190 calls each: over a million in all, never in one statement
    _, outcomes = run_ok(doubling_functions(12) + "let x = var 1\nrepeat 130 { let y = f12(x) }\nprint value(y)")
    assert outcomes[-1].text == format_number(2.0**12 * 1.0001)
    _, outcomes = run_ok(doubling_functions(18) + "let x = var 1\nprint value(f18(x))")  # 2^19 - 2 calls
    assert outcomes[-1].text == format_number(2.0**18 * 1.0001)
    error = failure(doubling_functions(19) + "let x = var 1\nlet y = f19(x)")  # 2^20 - 2 calls
    assert error.kind == "too-long" and error.fields == {"calls": 1_000_000, "limit": 1_000_000}
