"""Ways of running the same statements that must not change what a program does (issue 13):
a session told not to echo bindings (``echo=False``, as scripts run), expressions run as
closures or, when deep, on an explicit stack; and what the one driver promises: a loop body
is compiled once, the statement budget counts every statement."""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from fuzzing import ProgramGenerator
from shared import bits, text_of
import scalarlang.interpreter.expressions as expressions
from scalarlang.interpreter.control import Run
from scalarlang.language.diagnostics import LanguageError
from scalarlang.render.events import dumps, event_of
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.values import is_count, label_of, made_at
from scalarlang.interpreter.outcomes import Bound, Defined, Failed, ListShown
from scalarlang.interpreter.values import plain_values
from scalarlang.front.runner import ScriptOutput
from scalarlang.language.source import Source
from scalarlang.language.parser import parse_program

ECHOING_PROGRAM = """\
let x = var 2
let data = [1, 2, 3]
fn f(a) = a * a + x
let y = f(x) * 3
y
print "y is {y}"
backward(y)
descend x by 0.1
repeat 2 { let z = x * 2
  print z }
quiet let w = x + 1
w
"""


@pytest.mark.parametrize("tail", ["", "let bad = nope + 1\nprint 1\n", "let v = x / 0\n", "fn len(a) = a\n"])
def test_without_echo_only_the_binding_outcomes_are_missing(tail):
    text = ECHOING_PROGRAM + tail
    echoed = list(Interpreter().run(Source("p.sad", text)))
    silent = list(Interpreter().run(Source("p.sad", text), echo=False))
    assert any(isinstance(outcome, (Bound, Defined)) for outcome in echoed)
    assert not any(isinstance(outcome, (Bound, Defined)) for outcome in silent)
    kept = [outcome for outcome in echoed if not isinstance(outcome, (Bound, Defined))]
    assert [type(outcome) for outcome in kept] == [type(outcome) for outcome in silent]
    assert text_of(kept) == text_of(silent)
    failures = [(o.diagnostic.kind, o.diagnostic.message, o.diagnostic.span) for o in silent if isinstance(o, Failed)]
    assert failures == [(o.diagnostic.kind, o.diagnostic.message, o.diagnostic.span) for o in kept if isinstance(o, Failed)]


def test_without_echo_the_session_ends_the_same():
    echoing, silent = Interpreter(), Interpreter()
    list(echoing.run(Source("p.sad", ECHOING_PROGRAM)))
    list(silent.run(Source("p.sad", ECHOING_PROGRAM), echo=False))
    assert {name: (node.value, node.gradient) for name, node in echoing.bindings.items()} == {
        name: (node.value, node.gradient) for name, node in silent.bindings.items()
    }
    assert echoing.functions == silent.functions
    assert {name: echoing.label_of(node) for name, node in echoing.bindings.items()} == {
        name: silent.label_of(node) for name, node in silent.bindings.items()
    }


@pytest.mark.parametrize("json_lines", [False, True])
def test_scripts_ask_for_no_binding_echoes_and_print_the_same(json_lines, monkeypatch):
    def script(echo_asked: bool | None) -> str:
        original = Interpreter.run

        def run(self, source, **options):
            asked.append(options.get("echo", True))
            if echo_asked is not None:
                options["echo"] = echo_asked
            return original(self, source, **options)

        # Patched: what the runner asks for (no echo) prints the same by design; only a spy sees it.
        monkeypatch.setattr(Interpreter, "run", run)
        out, err = io.StringIO(), io.StringIO()
        ScriptOutput(out, err, json_lines=json_lines, color="never").run(Source("p.sad", ECHOING_PROGRAM))
        monkeypatch.setattr(Interpreter, "run", original)
        return out.getvalue() + err.getvalue()

    asked: list[bool] = []
    assert script(None) == script(True)  # what the runner asks for, and the echoing session
    assert asked == [False, False]


# ---- deep expressions run on a stack: what closures make, in the same order ----------------

SETUP = """\
let x = var 2
let y = var 0.5
let n = const 3
let z = x * y
let t = [1, 2, 3]
fn f(a) = a * x + 1
fn g(a, b) = a / b
fn h(a) = a
fn k(a) = z
"""
NAMES_USED = ("x", "y", "n", "z", "t", "f", "nope", "exp", "t2")
LITERALS = ("0", "1", "2.5", "1e-3", "1e308", "1e400", "inf", "nan", "0.0")
FUNCTIONS = (
    "exp", "tanh", "log", "sqrt", "relu", "sigmoid", "abs", "detach", "grad", "value", "max", "min",
    "sum", "mean", "node_count", "edge_count", "len", "f", "g", "h", "k", "backward", "nope", "x",
)


def _expression_texts():
    leaves = st.one_of(st.sampled_from(NAMES_USED), st.sampled_from(LITERALS))

    def extend(inner):
        arguments = st.lists(st.one_of(inner, inner, st.just('"a"')), min_size=0, max_size=3)
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%", "**"]), inner).map(lambda p: f"({p[0]} {p[1]} {p[2]})"),
            inner.map(lambda e: f"-{e}"),
            st.tuples(st.sampled_from(["var", "const"]), inner).map(lambda p: f"({p[0]} {p[1]})"),
            st.tuples(st.sampled_from(FUNCTIONS), arguments).map(lambda p: f"{p[0]}({', '.join(p[1])})"),
            inner.map(lambda e: f"exp(a: {e})"),
        )

    return st.recursive(leaves, extend, max_leaves=10)


def _span(span):
    return None if span is None else (span.start, span.end, span.line, span.column, span.end_line, span.end_column)


def _made(node):
    made = made_at(node)
    return None if made is None else (made[0].name, _span(made[1]))


def _evaluated(text: str, closure_depth: int):
    """What ``let r = TEXT`` leaves, run with expressions deeper than ``closure_depth`` on
    the stack runner: the result's graph (operations, values, labels, counts, where each
    node was made, operands), or the diagnostic."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(expressions, "CLOSURE_DEPTH", closure_depth)
        session = Interpreter()
        list(session.run(Source("setup.sad", SETUP)))
        outcomes = list(session.run(Source("e.sad", f"let r = {text}\nr\n")))
    failed = [outcome for outcome in outcomes if isinstance(outcome, Failed)]
    if failed:
        d = failed[0].diagnostic
        return [("error", d.kind, d.message, _span(d.span), d.source.name, repr(d.fields), d.notes)]
    result = session.lookup("r")
    if result is None:  # a list (`t`): what its `r` line shows
        return [("list", repr(plain_values(outcome.value))) for outcome in outcomes if isinstance(outcome, ListShown)]
    topology = result.topology()
    return [
        (
            str(member.operation), bits(member.value), member.tracks_gradient, bits(member.gradient),
            label_of(member), is_count(member), _made(member),
            tuple(topology.index(edge.parent) for edge in member.parents),
        )
        for member in topology
    ]


@given(_expression_texts())
def test_an_expression_on_the_stack_makes_what_closures_make(text):
    note(text)
    try:
        parse_program(Source("e.sad", f"let r = {text}\n"))
    except LanguageError:
        return  # (`var` and `const` need parentheses in places: not this test's business)
    assert _evaluated(text, 0) == _evaluated(text, 10**9)


@pytest.mark.parametrize(
    "text",
    [
        "x * 1.0000001 + 3", "t", "-(x - y) / n", "var 1e400", "const inf", "x / 0", "nope + 1", "t * 2",
        "f(x) + g(x, y)", "f(x, y)", "f", "1e400 * x", "x ** 2", "x ** y", "x % 0", "n % 2",
        "sum(x, y, z)", "mean(x)", "len(t) * x", "len(x)", "backward(x)", "exp(\"a\")", "exp(a: 1)",
        "grad(n)", "k(1) + h(x)", "log(0 * x)", "exp(1000 * x)", "max(x)", "node_count(z)",
        "x + nope", "x * 1e400", "x - t", "x / f", "nope + t", "1e400 + nope", "x * 1e300 * 1e300 + 1",
        " + ".join(["x * 2"] * 300),
        "(" * 200 + "x" + ")" * 200,
    ],
)
def test_stack_and_closures_agree_on_these(text):
    assert _evaluated(text, 0) == _evaluated(text, 10**9)


def _events(text: str) -> list[str]:
    session = Interpreter()
    # (Bindings make no JSON event: their outcomes are compared as data.)
    return [
        repr(outcome) if isinstance(outcome, (Bound, Defined)) else dumps(event_of(outcome) or {})
        for outcome in session.run(Source("p.sad", text))
    ]


@given(st.integers(0, 2**32 - 1))
def test_generated_programs_run_the_same_with_every_expression_on_the_stack(seed):
    text = "\n".join(ProgramGenerator(random.Random(seed)).program()) + "\n"
    note(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(expressions, "CLOSURE_DEPTH", 0)
        stacked = _events(text)
    assert stacked == _events(text)


# ---- the driver: which statements are compiled, and how often --------------------------------


def test_a_statement_read_anew_never_runs_the_action_of_one_gone_before():
    # A program's statements may be made anew each time they are read; an action must never
    # be found again by a statement's identity: here the `quiet` statements' inner ones and
    # the `expect`s' come and go, a few thousand times.
    lines = ["let x = var 1"]
    for index in range(2_000):
        if index % 2:
            lines.append(f"expect undefined-name: let b{index} = nope{index}")
        else:
            lines.append(f"quiet let a{index} = x + {index}")
    lines.append("assert value(a1998) == 1999")
    out, err = io.StringIO(), io.StringIO()  # run as the command runs it (where it was seen)
    status = ScriptOutput(out, err, color="never").run(Source("ids.sad", "\n".join(lines) + "\n"))
    assert (status, err.getvalue()) == (0, "")
    assert out.getvalue().count("expected undefined-name") == 1_000


def test_every_statement_is_compiled_once_however_often_it_runs(monkeypatch):
    text = """\
let x = var 1
quiet let y = x * 2
if 1 < 2 { let z = x + y }
repeat 3 { let w = x * 3
  if 1 < 2 { let v = w + 1 } else { let v = w }
  expect undefined-name: let u = nope
  quiet let q = w }
for i in 0..2 { for a, b in [(1, 2), (3, 4)] { let s = a * b + i } }
"""
    compiled = []
    original = Run._compile

    def compile_(self, statement):
        compiled.append(Source("t", text).slice(statement.span))
        return original(self, statement)

    # Patched: compiling once changes no output, only time; a spy on the compiler counts it.
    monkeypatch.setattr(Run, "_compile", compile_)
    session = Interpreter()
    outcomes = list(session.run(Source("t.sad", text)))
    assert not [outcome for outcome in outcomes if isinstance(outcome, Failed)]
    assert sorted(compiled) == sorted(set(compiled))  # none twice
    assert "let v = w" not in compiled  # (a branch never taken is never compiled)
    assert {"let w = x * 3", "let v = w + 1", "let u = nope", "let q = w", "let s = a * b + i"} <= set(compiled)
    assert session.lookup("s").value == 13.0 and session.label_of(session.lookup("s")) == "s"


@pytest.mark.parametrize("budget", [0, 1, 7, 30])
def test_the_statement_budget_counts_every_statement(budget, monkeypatch):
    from scalarlang.interpreter import control

    # Patched: the real budget takes millions of statements to reach; a small one is the same code.
    monkeypatch.setattr(control, "MAX_STATEMENTS", budget)
    lines = ["let a0 = var 1"] + [f"let a{i} = a{i - 1} * 1.0000001 + {i % 7}" for i in range(1, 50)]
    for options in ({"echo": False}, {"echo": False, "atomic": True}, {"echo": True}):
        session = Interpreter()
        outcomes = list(session.run(Source("p.sad", "\n".join(lines) + "\n"), **options))
        failure = [outcome.diagnostic for outcome in outcomes if isinstance(outcome, Failed)]
        assert len(failure) == 1 and failure[0].kind == "too-long" and failure[0].span.line == budget + 1
        bound = session.bindings
        if options.get("atomic"):
            assert bound == {}  # the whole input undone
        else:
            assert (f"a{budget - 1}" in bound or budget == 0) and f"a{budget}" not in bound


def test_a_thousand_nested_parentheses_run_on_the_stack_at_the_top_and_in_loops():
    nested = "(" * 1_000 + "x" + " * 1.001)" * 1_000
    text = f"let x = var 1\nlet y = {nested}\nrepeat 3 {{ let z = {nested.replace('x', 'y', 1)} }}\nbackward(z)\n"
    session = Interpreter()
    outcomes = list(session.run(Source("deep.sad", text), echo=False))
    assert not [outcome for outcome in outcomes if isinstance(outcome, Failed)]
    assert session.lookup("x").gradient == pytest.approx(1.001 ** 2_000)
    assert label_of(session.lookup("z").parents[0].parent).startswith("(" * 59)


def test_a_long_straight_line_program_labels_every_name_and_node():
    lines = ["let a0 = var 1"] + [f"let a{i} = a{i - 1} * 0.5 + {i}" for i in range(1, 2_500)]
    lines += ["let c = a5", "let d = var 2", "backward(a2499)"]
    session = Interpreter()
    outcomes = list(session.run(Source("p.sad", "\n".join(lines) + "\n"), echo=False))
    assert not [outcome for outcome in outcomes if isinstance(outcome, Failed)]
    names = session.bindings
    assert all(label_of(node) == f"a{i}" for i, node in enumerate(names[f"a{i}"] for i in range(2_500)))
    assert label_of(names["c"]) == "a5" and label_of(names["d"]) == "d"
    last = names["a2499"]
    product, constant = last.parents[0].parent, last.parents[1].parent
    assert (label_of(product), label_of(constant), label_of(product.parents[1].parent)) == ("a2498 * 0.5", "2499", "0.5")
    assert made_at(last)[1].line == 2_500 and made_at(product)[1].column == 13


# ---- the collector after a run, in the command's own process ----------------------------------


def test_only_the_command_s_own_process_freezes_what_a_run_made():
    import gc

    from scalarlang.front import cli

    text = "let a0 = var 1\n" + "".join(f"let a{i} = a{i - 1} * 2 + 1\n" for i in range(1, 200)) + "backward(a199)\n"
    gc.unfreeze()
    try:
        list(Interpreter().run(Source("lib.sad", text)))  # a library's session: nothing frozen
        assert gc.get_freeze_count() == 0
        assert cli.main(["-c", "let x = var 1\nx * 2"]) == 0  # argv given: not its own process
        assert gc.get_freeze_count() == 0
        out, err = io.StringIO(), io.StringIO()
        assert ScriptOutput(out, err, color="never", own_process=True).run(Source("own.sad", text)) == 0
        assert gc.get_freeze_count() > 200  # the nodes the statements made, at least
        assert "a199" in out.getvalue() and err.getvalue() == ""
    finally:
        gc.unfreeze()


def test_the_command_itself_freezes_what_its_run_made(tmp_path):
    import subprocess
    import sys

    program = tmp_path / "p.sad"
    program.write_text("let a = var 1\nlet b = a * 2\nbackward(b)\n")
    probe = (
        "import gc, sys; from scalarlang.front import cli; sys.argv = ['scalarlang', sys.argv[1]]; "
        "status = cli.main(); print('frozen', gc.get_freeze_count(), file=sys.stderr); sys.exit(status)"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(program)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stderr.split("frozen ")[1]) > 0


# ---- the command's exit leaves the last program's graph to the operating system ----------------


def test_the_command_s_own_process_keeps_only_the_last_program_s_session_for_the_exit():
    import weakref

    from scalarlang.front import runner

    out, err = io.StringIO(), io.StringIO()
    output = ScriptOutput(out, err, color="never", own_process=True)
    try:
        assert output.run(Source("first.sad", "let a = var 1\nlet b = a * 2\n")) == 0
        # Private state read: what the process keeps for its exit changes no output; only this list shows it.
        (first,) = runner._left_for_exit
        first_gone = weakref.ref(first)
        del first
        assert output.run(Source("second.sad", "let c = var 3\n")) == 0
        assert first_gone() is None  # (freed as the second started)
        (second,) = runner._left_for_exit
        assert second.lookup("c").value == 3.0
        # A library's or a test's ScriptOutput keeps nothing.
        runner._left_for_exit.clear()
        assert ScriptOutput(out, err, color="never").run(Source("lib.sad", "let d = var 1\n")) == 0
        assert runner._left_for_exit == []
    finally:
        runner._left_for_exit.clear()


@pytest.mark.parametrize("entry", ["script", "module"])
def test_the_command_exits_with_its_status_and_all_its_output_printed(entry, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "scalarlang"
    if entry == "script" and not script.exists():
        pytest.skip(f"{script} is not installed")
    argv = [str(script)] if entry == "script" else [sys.executable, "-m", "scalarlang"]
    program = tmp_path / "many.sad"
    program.write_text("let x = var 1\n" + "print x * 2\n" * 5_000 + "let y = nope\n")
    with open(tmp_path / "out.txt", "wb") as into:  # a file: block-buffered to the end
        done = subprocess.run([*argv, str(program)], stdout=into, stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 1 and b"undefined-name" in done.stderr
    printed = (tmp_path / "out.txt").read_text().splitlines()
    assert len(printed) == 5_000 and set(printed) == {printed[0]}
    done = subprocess.run([*argv, "-c", "let z = var 2\nz"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() and done.stderr == ""
