"""`while COND { … }`, `break`, `A // B` and `floor(A)` (issue 32): through the public API and
the real command; `//` and `floor` against Python's `//` and `math.floor` (hypothesis, negative
numbers included)."""

from __future__ import annotations

import io
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import scalarlang
from scalarlang.front.repl_core import ReplCore
from scalarlang.render.text import Renderer, make_console

COMMAND = Path(sys.executable).parent / "scalarlang"


def run_ok(program: str) -> scalarlang.Session:
    session = scalarlang.Session()
    result = session.run(program)
    assert result.error is None, result.text
    return session


def failure(program: str):
    result = scalarlang.run(program)
    assert result.error is not None, result.text
    return result.error


# ---- while and break ----------------------------------------------------------------------------


def test_while_runs_while_its_condition_is_not_zero():
    session = run_ok("let i = 0\nlet total = 0\nwhile i < 5 {\n  let i = i + 1\n  let total = total + i\n}")
    assert session["i"].value == 5 and session["total"].value == 15
    session = run_ok("let i = 7\nwhile i < 5 { let i = i + 100 }\nlet n = 3\nwhile n { let n = n - 1 }")
    assert session["i"].value == 7 and session["n"].value == 0


def test_the_spec_sampling_loop_shape():
    """`while c != newline` with a text growing in its body, as in the language-model example."""
    session = run_ok(
        'let vocab = chars("\\nabc")\nlet newline = encode("\\n", vocab)[0]\nlet word = ""\nlet c = 3\n'
        "while c != newline {\n  let word = word + vocab[c]\n  let c = c - 1\n}"
    )
    assert session["word"] == "cba"


def test_break_leaves_the_innermost_loop_only():
    session = run_ok(
        "let seen = []\n"
        "for i in 0..3 {\n"
        "  let j = 0\n"
        "  while 1 {\n"
        "    let j = j + 1\n"
        "    if j == 2 { break }\n"
        "  }\n"
        "  repeat 5 { break }\n"
        "  let seen = seen + [i * 10 + j]\n"
        "  if i == 1 { quiet break }\n"
        "}"
    )
    assert [item.value for item in session["seen"]] == [2, 12]
    assert session["i"].value == 1  # the loop's name keeps the iteration it left in


def test_break_in_else_branches_and_at_the_end_of_a_body():
    session = run_ok(
        "let n = 0\nwhile 1 {\n  let n = n + 1\n  if n < 3 { } else if n > 10 { } else { break }\n}\n"
        'let found = -1\nfor c in "xyz" {\n  let found = found + 1\n  if c == "y" { break }\n}'
    )
    assert session["n"].value == 3 and session["found"].value == 1


@pytest.mark.parametrize(
    "program, message",
    [
        ("break", "`break` outside a loop: it leaves the innermost `for`, `repeat` or `while`"),
        ("if 1 < 2 { break }", "`break` outside a loop"),
        ("repeat 2 { expect too-long: break }", "`break` under `expect` leaves no loop"),
        ("let break = 1", "`break` is a keyword and cannot be used as a name"),
        ("let while = 1", "`while` is a keyword and cannot be used as a name"),
        ("fn f(x) = break", "`break` is a keyword and cannot be used as a name"),
    ],
)
def test_a_break_outside_a_loop_is_a_syntax_error(program, message):
    result = scalarlang.run("print 1\n" + program)
    assert result.error.kind == "syntax-error" and result.error.message.startswith(message)
    assert result.text.startswith("error")  # parsed whole: nothing ran


def test_an_error_in_a_while_names_its_iteration():
    error = failure("let i = 0\nwhile i < 5 {\n  let i = i + 1\n  if i == 3 { let q = nope }\n}")
    assert error.kind == "undefined-name" and error.notes[-1] == "in iteration 3 of the loop at 2:1"
    error = failure('let i = 0\nwhile [i] { }')
    assert error.kind == "not-a-node" and "`while` takes a node" in error.notes[0]
    assert failure('while "yes" { }').kind == "not-a-node"


def test_a_while_stops_at_the_iteration_limit():
    error = failure("while 1 { }")
    assert error.kind == "too-long" and error.fields == {"iterations": 1_000_000, "limit": 1_000_000}
    assert error.message == "this `while` has run 1,000,000 iterations, the most a loop may, and its condition still holds"


@pytest.mark.slow
def test_a_while_may_run_exactly_the_limit():
    session = run_ok("let i = 0\nwhile i < 1000000 { let i = i + 1 }")
    assert session["i"].value == 1_000_000


def test_a_failing_while_in_the_repl_changes_nothing():
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    core.handle("let n = 0")
    core.handle("while n < 10 {\n  let n = n + 1\n  if n == 4 { let q = exp(1000) }\n}")
    stream.seek(0)
    stream.truncate(0)
    core.handle("n")
    assert stream.getvalue().strip() == "n = 0 (constant, untracked)"


def test_ctrl_c_stops_a_while_in_a_script():
    process = subprocess.Popen(
        [str(COMMAND), "-c", "let n = 0\nwhile 1 { let n = n + 1 }"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    time.sleep(0.6)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr


# ---- // and floor --------------------------------------------------------------------------------

FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12) | st.integers(-50, 50).map(float)


@settings(max_examples=80, deadline=None)
@given(a=FINITE, b=FINITE)
@example(a=-1.0, b=2.2e-313)  # beyond the float range on the negative side: -inf
def test_floor_division_and_floor_agree_with_python(a, b):
    session = scalarlang.Session()
    result = session.run(f"let a = const {a!r}\nlet b = const {b!r}\nlet f = floor(a)\nlet q = a // b")
    assert session["f"].value == float(math.floor(a))
    if b == 0.0:
        assert result.error.kind == "non-finite-result"
        assert result.error.message.endswith("by 0 is not a number")
        return
    if not math.isfinite(a // b):  # beyond the float range: `1 // 5e-324`
        shown = "-inf" if a // b < 0 else "inf"
        assert result.error.kind == "non-finite-result" and f"not finite ({shown})" in result.error.message
        return
    assert result.error is None, result.text
    assert session["q"].value == a // b and math.copysign(1.0, session["q"].value) == math.copysign(1.0, a // b)


def test_floor_division_gives_constants_printed_whole():
    session = run_ok("let x = var 7\nlet q = x // 2\nlet f = floor(x / 2)\nlet y = q * x + f * x")
    assert session.run("print q, f, -7 // 2, 7.5 // 2, floor(-0.5)").text == "3 3 -4 3 -1\n"
    assert session.run("backward(y)\nprint grad(x)").text.splitlines()[-1] == "6"  # no gradient through // or floor
    assert session.run("q").text == "q = 3 (constant, untracked)\n"
    error = failure("let q = 1e308 // 1e-308")
    assert error.kind == "non-finite-result" and "not finite (inf)" in error.message
    assert failure('let q = "a" // 2').kind == "not-a-node"
    assert failure("let q = [1] // 2").kind == "not-a-node"
    assert failure("let q = floor([1])").kind == "not-a-node"
    assert failure("let q = floor(1, 2)").kind == "wrong-arguments"
