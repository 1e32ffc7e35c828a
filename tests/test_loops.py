"""Loops: `repeat`, `for` over ranges and lists, `if`, a failure naming its iterations, and
`while COND { … }` and `break` (issue 32): through the public API and the real command.
(`A // B` and `floor(A)`, of the same issue: test_arithmetic.py.)"""

from __future__ import annotations

import io
import signal
import subprocess
import time

import pytest

from commands import COMMAND
import scalarlang
from sessions import error_of, failure, printed, run_ok, session_after
from scalarlang.front.repl_core import ReplCore
from scalarlang.interpreter.core import Interpreter
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
        [str(COMMAND), "-c", 'let n = 0\nprint "looping"\nwhile 1 { let n = n + 1 }'], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stdout.readline() == b"looping\n"  # started: no wait for start-up
    time.sleep(0.1)  # in the loop (it never ends by itself)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr


# ---- repeat, for and if (from test_training.py) ---------------------------------------------

def test_repeat_runs_its_block_n_times():
    session, outcomes = run_ok("let n = const 0\nrepeat 5 { let n = n + 1 }\nrepeat 0 { let n = n + 100 }\nprint n")
    assert printed(outcomes) == ["5"]


def test_repeat_needs_a_whole_count():
    for count in ("2.5", "-1", "nan", "inf"):
        diagnostic = failure(f"repeat {count} {{ }}")
        assert diagnostic.kind == "not-a-count", count


def test_for_range_is_half_open_and_binds_counts():
    session, outcomes = run_ok("for i in -1..3 { print i, \"{i}\" }\nfor i in 5..5 { print 99 }")
    assert printed(outcomes) == ["-1 -1", "0 0", "1 1", "2 2"]
    assert session.lookup("i").value == 2.0 and not session.lookup("i").tracks_gradient
    assert failure("for i in 0..2.5 { }").kind == "not-a-count"


def test_names_bound_in_blocks_stay_bound():
    session, _ = run_ok("repeat 1 { let inside = var 3 }\nif 1 < 2 { let there = 1 }")
    assert session.lookup("inside").value == 3.0 and session.lookup("there").value == 1.0


def test_for_over_a_list_binds_each_rows_items_themselves():
    session, outcomes = run_ok(
        "let data = [(1, 3), (2, 5)]\nlet seen = const 0\n"
        "for x, y in data { let seen = seen + x * 10 + y }\nfor v in [7, 8] { print v }\nprint len(data)"
    )
    assert session.lookup("seen").value == 13.0 + 25.0
    assert printed(outcomes) == ["7", "8", "2"]
    data = session.values["data"]
    # Not fresh constants: the names are bound to the nodes the last row holds.
    assert session.lookup("x") is data[1][0] and session.lookup("y") is data[1][1]
    assert session.label_of(session.lookup("x")) == "data[1][0]"
    # A list of variables: the loop's sum has operand edges to the variables themselves.
    session, _ = run_ok(
        "let a = var 2\nlet b = var 3\nlet s = const 0\nfor w in [a, b, a] { let s = s + w * w }\nbackward(s)"
    )
    assert session.lookup("a").gradient == 8.0 and session.lookup("b").gradient == 6.0


@pytest.mark.parametrize(
    "program, message",
    [
        ("let t = [1, 2]\nfor a, b in t { }", "`for` names 2, but item 0 of `t` is a node"),
        ("for a, b in [1, 2] { }", "`for` names 2, but item 0 of `[1, 2]` is a node"),
        ("for a, b in [(1, 2), (3, 4, 5)] { }", "`for` names 2, but item 1 of `[(1, 2), (3, 4, 5)]` is a row of 3"),
    ],
)
def test_a_row_of_the_wrong_width_is_table_width(program, message):
    diagnostic = failure(program)
    assert (diagnostic.kind, diagnostic.message) == ("table-width", message)


@pytest.mark.parametrize(
    "program, message",
    [
        ("let t = 3\nfor a in t { }", "`t` is a node, not a list: `for … in` takes a list"),
        ("let t = 3\nprint len(t)", "`t` is a node, not a list: `len` takes a list"),
        ("print len(1 + 2)", "`1 + 2` is a node, not a list: `len` takes a list"),
    ],
)
def test_a_node_where_a_list_is_needed_is_not_a_list(program, message):
    diagnostic = failure(program)
    assert (diagnostic.kind, diagnostic.message) == ("not-a-list", message)


def test_loop_sources_that_are_not_there_or_empty():
    assert failure("for a in nope { }").kind == "undefined-name"
    run_ok("for a, b in [] { }")
    # A ragged list is fine for one name, and `len` counts its items.
    session, outcomes = run_ok("let r = [1, (2, 3), [4, [5]]]\nfor item in r { }\nprint len(r), len(r[1]), len(r[2][1])")
    assert printed(outcomes) == ["3 2 1"]


def test_if_else_and_else_if():
    session, outcomes = run_ok(
        'for i in 0..4 { if i % 3 == 0 { print "a {i}" } else if i == 1 { print "b" } else { print "c {i}" } }'
    )
    assert printed(outcomes) == ["a 0", "b", "c 2", "a 3"]


def test_a_failure_names_its_iterations_innermost_first():
    diagnostic = failure("let x = var 1\nfor i in 0..5 {\n  repeat 3 {\n    assert i < 3\n  }\n}")
    assert diagnostic.kind == "assertion-failed"
    assert diagnostic.notes == (
        "in iteration 1 of 3 of the loop at 3:3",
        "in iteration 4 of 5 of the loop at 2:1, where i = 3",
    )


def test_a_failing_script_keeps_what_ran_before_and_the_repl_undoes_the_input():
    program = "let n = const 0\nrepeat 10 { let n = n + 1\n assert n < 5 }"
    session = Interpreter()
    assert failure(program, session).kind == "assertion-failed"
    assert session.lookup("n").value == 5.0  # a script stops; nothing is undone
    session, _ = run_ok("let x = var 2\nlet n = const 0")
    before_n = session.lookup("n")
    assert failure("repeat 10 { let n = n + 1\n let loss = x * x\n backward(loss)\n assert n < 5 }", session, atomic=True)
    assert session.lookup("n") is before_n and session.lookup("loss") is None
    assert session.lookup("x").gradient == 0.0


def test_a_failing_while_in_a_script_keeps_its_earlier_iterations_and_undoes_only_the_failing_statement():
    # Found by the fuzz tests, which took a `while` for one statement: the loop is not atomic
    # (each statement of its body is), so run alone it leaves what its earlier iterations did.
    program = "let n = const 2\nlet m = const 0\nwhile n > 0 {\n  let m = m + 1\n  let n = n - 1\n  let m = len(n)\n}"
    session = Interpreter()
    assert failure(program, session).kind == "not-a-list"
    assert (session.lookup("n").value, session.lookup("m").value) == (1.0, 1.0)
    session, _ = run_ok("let n = const 2\nlet m = const 0")
    n, m = session.lookup("n"), session.lookup("m")
    assert failure(program.split("\n", 2)[2], session, atomic=True).kind == "not-a-list"
    assert session.lookup("n") is n and session.lookup("m") is m  # the REPL undoes it all


def test_each_statement_of_a_body_is_atomic():
    session = Interpreter()
    failure("let x = var 1\nrepeat 3 { let y = x * 2\n let x = y + log(x - 2) }", session)
    assert session.lookup("x").value == 1.0 and session.lookup("y").value == 2.0
