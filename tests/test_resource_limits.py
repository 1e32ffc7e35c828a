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
from sessions import printed
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


def test_the_budget_of_calls_is_each_statements(monkeypatch):
    from sessions import failure, run_ok
    from scalarlang.interpreter import calls, context

    # Patched: a budget of 1,000 calls, so that going past it, or not, takes milliseconds.
    monkeypatch.setattr(context, "MAX_CALLS", 1000)
    monkeypatch.setattr(calls, "MAX_CALLS", 1000)
    # 130 statements of 62 calls each: 8,060 in all, never more than 1,000 in one statement
    _, outcomes = run_ok(doubling_functions(5) + "let x = var 1\nrepeat 130 { let y = f5(x) }\nprint value(y)")
    assert printed(outcomes)[0] == format_number(2.0**5 * 1.0001)
    _, outcomes = run_ok(doubling_functions(8) + "let x = var 1\nprint value(f8(x))")  # 2^9 - 2 = 510 calls
    assert printed(outcomes)[0] == format_number(2.0**8 * 1.0001)
    error = failure(doubling_functions(9) + "let x = var 1\nlet y = f9(x)")  # 2^10 - 2 = 1,022 calls
    assert error.kind == "too-long" and error.fields == {"calls": 1000, "limit": 1000}
    # each point of a boundary is a statement's worth
    run_ok(doubling_functions(4) + "fn g(a, b) = f4(a) - f4(b)\nboundary(g, [[0, 0, 1], [1, 1, -1]])")


# ---- item 5: limits known before the work -------------------------------------------------------

# A text of 5,242,880 characters made in a few milliseconds (19 doublings), and a list holding
# it 1,024 times (shared, never copied): 5 · 10⁹ characters if it were written whole.
# And 2^22 numbers in a list of lists (shared): at least 3 · 2^22 characters written.
BIG_TEXT = (
    'let t = "aaaaaaaaaa"\nrepeat 19 { let t = t + t }\nlet L = [t]\nrepeat 10 { let L = L + L }\n'
    "let N = [1]\nrepeat 22 { let N = [N, N] }\n"
)

REFUSED_AT_ONCE = {
    "print of a list of texts": ("print L", 5_368_709_120),
    "a value line of a list of texts": ("L", 5_368_709_120),
    "print of texts one after another": ("print t, t", 10_485_760),
    "a hole of a list of texts": ('let s = "{L}"', 5_368_709_120 + 1024),
    "holes of texts": ('let s = "{t}{t}"', 10_485_760),
    "a format spec's width": ('let x = 1\nlet s = "{x:>1000000000}"', 1_000_000_000),
    "a format spec's precision": ('let x = 1\nlet s = "x = {x:.1000000000f}"', 1_000_000_004),
    "a list's numbers at a spec's width": ('let s = "{[1, 2, 3]:>5000000}"', 15_000_000),
    "a hole of millions of numbers": ('let s = "{N}"', 10_000_001),
}


@pytest.mark.parametrize("statement, length", REFUSED_AT_ONCE.values(), ids=list(REFUSED_AT_ONCE))
def test_a_text_too_long_is_refused_from_its_parts_at_once(statement, length):
    from sessions import run_ok
    from scalarlang.interpreter.core import Interpreter
    from scalarlang.language.source import Source

    session, _ = run_ok(BIG_TEXT)
    started = time.monotonic()
    outcomes = list(session.run(Source("t.sad", statement)))
    elapsed = time.monotonic() - started
    error = outcomes[-1].diagnostic
    assert error.kind == "too-long", error
    assert error.fields["length"] >= length and error.fields["limit"] == 10_000_000
    assert elapsed < 0.5, elapsed  # (print L took 149 s and 2.5 GB; the spec's text 4 s and 1 GB)
    assert isinstance(session, Interpreter)


def test_the_refusals_through_the_command_under_a_memory_limit(tmp_path):
    # each of them alone, a file of its own (a fresh session each), in one process that may not
    # grow past 400 MB: a refusal that built its text first would run out of memory instead
    files = [f"refused{number}.sad" for number in range(len(REFUSED_AT_ONCE))]
    for file, (statement, _) in zip(files, REFUSED_AT_ONCE.values()):
        (tmp_path / file).write_text(BIG_TEXT + statement + "\n")
    result = limited_command(tmp_path, 400, "--json", *files)
    assert result.stderr == b"", result.stderr[-2000:]
    runs: list[list[dict]] = []
    for event in events(result):
        if event["event"] == "start":
            runs.append([])
        runs[-1].append(event)
    assert [run[0]["file"] for run in runs] == files
    for name, run in zip(REFUSED_AT_ONCE, runs):
        assert [event["event"] for event in run][-1] == "error", (name, run)
        assert run[-1]["kind"] == "too-long", (name, run[-1])


def test_a_format_spec_is_checked_without_writing_its_text():
    from sessions import failure

    error = failure('let x = 1\nlet s = "{x:>99999999999999999999999}"')  # Python's own limit
    assert error.kind == "syntax-error" and "Too many decimal digits" in error.message
    error = failure('let x = 1\nlet s = "{x:>1000000000q}"')
    assert error.kind == "syntax-error"
    from sessions import run_ok

    _, outcomes = run_ok('let x = 1.5\nprint "{x:>12.3f}|{x:010.2f}|{x:,.2f}|{x:_>6}|{x:.3%}"')
    assert printed(outcomes)[0] == f"{1.5:>12.3f}|{1.5:010.2f}|{1.5:,.2f}|{1.5:_>6}|{1.5:.3%}"


def test_the_least_a_hole_writes_is_never_more_than_it_writes():
    import random

    from scalarlang.engine.scalar import Scalar
    from scalarlang.interpreter.values import ListValue, TextValue, formatted_value
    from scalarlang.interpreter.lists import least_hole_length, spec_length

    generator = random.Random(40)

    def value(depth: int):
        items: list = []
        for _ in range(generator.randint(0, 4)):
            choice = generator.random()
            if choice < 0.3 and depth < 3:
                items.append(value(depth + 1))
            elif choice < 0.6:
                items.append(TextValue("".join(generator.choice('ab\n\x00{"') for _ in range(generator.randint(0, 3)))))
            else:
                items.append(Scalar.constant(generator.choice([0.0, 1.0, -2.5, 1e-9, 123456.0, 1e300])))
        made = ListValue(items)
        return ListValue([made, made]) if generator.random() < 0.2 else made

    for spec in (None, ">7", ".3f", "e", "#.5g", "+.2%"):
        for _ in range(500):
            written = value(0)
            assert least_hole_length(written, spec_length(spec)) <= len(formatted_value(written, spec)), (written, spec)


def test_texts_and_lists_within_the_limits_still_print():
    from sessions import run_ok

    _, outcomes = run_ok('let t = "aaaaaaaaaa"\nrepeat 19 { let t = t + t }\nprint t\nprint [t]\nlet u = "{t}!"\nprint len(u)')
    assert [len(text) for text in printed(outcomes)] == [5_242_880, 5_242_884, 7]
    # a million numbers write more characters than a text may have: they are no text
    _, outcomes = run_ok("let L = [1 / 7]\nrepeat 20 { let L = L + L }\nprint L", echo=False)
    assert len(printed(outcomes)[0]) == 2**20 * len(format_number(1 / 7) + ", ")


def command_under_memory_limit(folder, program: str, megabytes: int, *args: str):
    """`scalarlang --json ARGS p.sad` in ``folder`` in a process whose address space may not
    grow past ``megabytes`` (as `ulimit -v`), set by the test itself."""
    (folder / "p.sad").write_text(program)
    return limited_command(folder, megabytes, "--json", *args, "p.sad")


def limited_command(folder, megabytes: int, *args: str):
    """`scalarlang ARGS` in ``folder``, its address space limited to ``megabytes``."""
    import resource

    limit = megabytes * 1024 * 1024

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return command(*args, cwd=folder, timeout=120, preexec_fn=limited)


# ---- item 4: running out of memory ---------------------------------------------------------------

# Grows its graph (every step's node stays bound) until a process of GROWN megabytes runs out
# (the command runs a short program in 39 MB, on Python 3.11 as on 3.13: 100 leaves it 60 MB to
# grow, the same failure at two thirds of the work of 150).
GROWN = 100
GROWING = "let x = var 1\nrepeat 1000000 { let x = x * 1.0000001 }\nprint value(x)\n"
GROWING_AT_ONCE = "let L = [[i, i * 2] for i in 0..1000000]\nprint len(L)\n"


def assert_out_of_memory(result, line: int | None) -> None:
    """One `start` event, one `out-of-memory` error event, status 1, and no traceback."""
    assert b"Traceback" not in result.stderr and result.stderr == b"", result.stderr[-3000:]
    found = events(result)
    assert [event["event"] for event in found] == ["start", "error"], found
    assert found[-1]["kind"] == "out-of-memory" and found[-1]["line"] == line, found[-1]
    assert result.returncode == 1


@posix_only
def test_running_out_of_memory_is_one_typed_error_event_every_time(tmp_path):
    # (issue 40: about half such runs printed three chained tracebacks; six in a row show it)
    for run in range(6):  # a loop's statement, and a comprehension, by turns
        if run % 2:
            assert_out_of_memory(command_under_memory_limit(tmp_path, GROWING, GROWN), 2)
        else:
            assert_out_of_memory(command_under_memory_limit(tmp_path, GROWING_AT_ONCE, GROWN), 1)


# Three shortages caught by `expect` (a loop's graph, a comprehension, the loop again), each
# leaving the session as it was, then one that is not caught: still reported, with its reserve.
CAUGHT = """let x = var 1
let L = [1, 2]
expect out-of-memory: repeat 1000000 { let x = x * 1.0000001 }
print "{value(x)} {node_count(x)} {len(L)}"
expect out-of-memory: let M = [[i, i * 2] for i in 0..1000000]
print "{value(x)} {node_count(x)} {len(L)}"
expect out-of-memory: repeat 1000000 { let x = x * 1.0000001 }
print "{value(x)} {node_count(x)} {len(L)}"
repeat 1000000 { let x = x * 1.0000001 }
print value(x)
"""


@posix_only
def test_expect_catches_running_out_of_memory_every_time(tmp_path):
    for _ in range(2):
        result = command_under_memory_limit(tmp_path, CAUGHT, GROWN)
        assert b"Traceback" not in result.stderr and result.stderr == b"", result.stderr[-3000:]
        found = events(result)
        assert [event["event"] for event in found] == ["start"] + ["expected", "print"] * 3 + ["error"], found
        assert [event["kind"] for event in found if event["event"] == "expected"] == ["out-of-memory"] * 3
        assert [event["text"] for event in found if event["event"] == "print"] == ["1 1 2"] * 3
        assert found[-1]["kind"] == "out-of-memory" and found[-1]["line"] == 9, found[-1]
        assert result.returncode == 1


@posix_only
def test_running_out_of_memory_as_text_is_one_diagnostic(tmp_path):
    (tmp_path / "p.sad").write_text(GROWING)
    result = limited_command(tmp_path, GROWN, "p.sad")
    assert result.returncode == 1 and result.stdout == b""
    said = result.stderr.decode()
    assert said.startswith("error[out-of-memory]: the memory ran out while this statement ran\n --> p.sad:2:18\n"), said
    assert "Traceback" not in said


@posix_only
@pytest.mark.slow
@pytest.mark.parametrize(
    "program, megabytes, line",
    [
        ("let y = " + "+".join(["1"] * 700_000) + "\n", 230, None),  # while parsing
        ("let x = var 1\nrepeat 200000 { let x = x * 1.0000001 }\ngraph(x)\n", 230, 3),  # the graph's outcome
    ],
    ids=["parse", "graph"],
)
def test_running_out_of_memory_anywhere_is_one_typed_error(tmp_path, program, megabytes, line):
    for _ in range(3):
        assert_out_of_memory(command_under_memory_limit(tmp_path, program, megabytes), line)


def test_running_out_of_memory_while_writing_an_outcome_is_one_error_event(monkeypatch):
    import io

    from scalarlang.front import runner
    from scalarlang.language.source import Source

    output = io.StringIO()
    script = runner.ScriptOutput(output, io.StringIO(), json_lines=True)
    real_write = output.write

    def write(text):  # Patched: the memory runs out halfway through the second event
        if '"print"' in text:
            real_write(text[:20])
            raise MemoryError
        return real_write(text)

    monkeypatch.setattr(output, "write", write)
    assert script.run(Source("p.sad", "let x = 1\nprint x\nprint x")) == 1
    lines = output.getvalue().splitlines()
    assert json.loads(lines[0])["event"] == "start"
    assert lines[1] == '{"event": "print", "'  # (cut short, and ended: the error is a line of its own)
    assert json.loads(lines[2])["kind"] == "out-of-memory" and len(lines) == 3


def test_running_out_of_memory_while_restoring_sigint_changes_nothing(monkeypatch, capsys):
    import signal

    from scalarlang.front import cli

    real_signal = signal.signal

    def failing_signal(number, handler):  # Patched: as `cli._restore_sigint` failed under a memory limit
        real_signal(number, handler)
        raise MemoryError

    monkeypatch.setattr(signal, "signal", failing_signal)
    assert cli.main(["-c", "print 1"]) == 0
    assert capsys.readouterr().out == "1\n"


def test_running_out_of_memory_while_a_notebook_renders_is_a_failure_in_its_result(monkeypatch):
    from scalarlang.front import api
    from scalarlang.interpreter.outcomes import Printed

    real_add = api._TextBuffer.add

    def add(self, outcome):  # Patched: the memory runs out while the second `print` is rendered
        if isinstance(outcome, Printed) and outcome.text == "2":
            raise MemoryError
        real_add(self, outcome)

    monkeypatch.setattr(api._TextBuffer, "add", add)
    result = scalarlang_session().run("print 1\nprint 2\nprint 3")
    assert result.error is not None and result.error.kind == "out-of-memory"
    assert result.text.startswith("1\nerror[out-of-memory]: the memory ran out while the output was written")


def scalarlang_session():
    import scalarlang

    return scalarlang.Session()


def test_running_out_of_memory_while_the_repl_shows_a_result_is_one_typed_error(monkeypatch):
    import io

    from scalarlang.front.repl_core import ReplCore
    from scalarlang.interpreter.outcomes import Printed
    from scalarlang.render.text import Renderer, make_console

    out, err = io.StringIO(), io.StringIO()
    repl = ReplCore(Renderer(make_console(out)), Renderer(make_console(err)))
    real_printed = Renderer.printed

    def printed(self, text):  # Patched: the memory runs out while the result is shown
        if text == "2":
            raise MemoryError
        real_printed(self, text)

    monkeypatch.setattr(Renderer, "printed", printed)
    assert repl.handle("print 1\nprint 2") and repl.handle("print 3")
    assert out.getvalue() == "1\n3\n"
    assert err.getvalue() == "error[out-of-memory]: the memory ran out while the result was shown\n"
