"""`while COND { … }` and `break` (issue 32): through the public API and the real command.
(`A // B` and `floor(A)`, of the same issue: test_arithmetic.py.)"""

from __future__ import annotations

import io
import signal
import subprocess
import time

import pytest

from commands import COMMAND
import scalarlang
from sessions import error_of, session_after
from scalarlang.front.repl_core import ReplCore
from scalarlang.render.text import Renderer, make_console


# ---- while and break ----------------------------------------------------------------------------


def test_while_runs_while_its_condition_is_not_zero():
    session = session_after("let i = 0\nlet total = 0\nwhile i < 5 {\n  let i = i + 1\n  let total = total + i\n}")
    assert session["i"].value == 5 and session["total"].value == 15
    session = session_after("let i = 7\nwhile i < 5 { let i = i + 100 }\nlet n = 3\nwhile n { let n = n - 1 }")
    assert session["i"].value == 7 and session["n"].value == 0


def test_the_spec_sampling_loop_shape():
    """`while c != newline` with a text growing in its body, as in the language-model example."""
    session = session_after(
        'let vocab = chars("\\nabc")\nlet newline = encode("\\n", vocab)[0]\nlet word = ""\nlet c = 3\n'
        "while c != newline {\n  let word = word + vocab[c]\n  let c = c - 1\n}"
    )
    assert session["word"] == "cba"


def test_break_leaves_the_innermost_loop_only():
    session = session_after(
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
    session = session_after(
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
    error = error_of("let i = 0\nwhile i < 5 {\n  let i = i + 1\n  if i == 3 { let q = nope }\n}")
    assert error.kind == "undefined-name" and error.notes[-1] == "in iteration 3 of the loop at 2:1"
    error = error_of('let i = 0\nwhile [i] { }')
    assert error.kind == "not-a-node" and "`while` takes a node" in error.notes[0]
    assert error_of('while "yes" { }').kind == "not-a-node"


def test_a_while_stops_at_the_iteration_limit():
    error = error_of("while 1 { }")
    assert error.kind == "too-long" and error.fields == {"iterations": 1_000_000, "limit": 1_000_000}
    assert error.message == "this `while` has run 1,000,000 iterations, the most a loop may, and its condition still holds"


@pytest.mark.slow
def test_a_while_may_run_exactly_the_limit():
    session = session_after("let i = 0\nwhile i < 1000000 { let i = i + 1 }")
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
