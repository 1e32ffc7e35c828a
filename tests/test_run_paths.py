"""Ways of running the same statements that must not change what a program does (issue 13):
a session told not to echo bindings (``echo=False``, as scripts run), and statements outside
any loop, whose expressions are walked once (``direct.OnceCompiler``) rather than compiled."""

from __future__ import annotations

import io
import random
import struct

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from fuzzing import ProgramGenerator
from shared import text_of
from scalarlang.interpreter.control import Run
from scalarlang.language.diagnostics import LanguageError
from scalarlang.interpreter.direct import OnceCompiler
from scalarlang.render.events import dumps, event_of
from scalarlang.interpreter.expressions import Compiler
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.labels import made_span
from scalarlang.interpreter.outcomes import Bound, Defined, Failed
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

        monkeypatch.setattr(Interpreter, "run", run)
        out, err = io.StringIO(), io.StringIO()
        ScriptOutput(out, err, json_lines=json_lines, color="never").run(Source("p.sad", ECHOING_PROGRAM))
        monkeypatch.setattr(Interpreter, "run", original)
        return out.getvalue() + err.getvalue()

    asked: list[bool] = []
    assert script(None) == script(True)  # what the runner asks for, and the echoing session
    assert asked == [False, False]


# ---- statements run once: expressions walked, not compiled ----------------------------------

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


def _bits(value):
    return None if value is None else struct.pack("<d", value)


def _span(span):
    return None if span is None else (span.start, span.end, span.line, span.column, span.end_line, span.end_column)


def _entry(entry):
    """A label entry as data: names as they are, sources by name, spans by their numbers."""
    if entry is None:
        return None
    first = entry[0] if entry[0].__class__ is str else entry[0].name
    second = _entry(entry[1]) if entry[0].__class__ is str else _span(made_span(entry))
    return (first, second, entry[2])


def _evaluated(compiler_class, text: str):
    """What evaluating ``text`` once with a compiler of ``compiler_class`` made: the nodes it
    recorded, in order, and its result's graph, or its diagnostic."""
    session = Interpreter()
    list(session.run(Source("setup.sad", SETUP)))
    source = Source("e.sad", f"let r = {text}\n")
    expr = parse_program(source).statements[0].value
    labels = session._labels
    before = set(map(id, labels.entries))
    compiler = compiler_class(session._names, labels, source)
    try:
        node = compiler.expression(expr)(None)
        result = []
        for member in node.topology():
            result.append((
                str(member.operation), _bits(member.value), member.tracks_gradient, _bits(member.gradient),
                labels.label_of(member), labels.is_count(member), _entry(labels.entry(member)),
                tuple(node.topology().index(edge.parent) for edge in member.parents),
            ))
    except LanguageError as error:
        d = error.diagnostic
        result = [("error", d.kind, d.message, _span(d.span), d.source.name, repr(d.fields), d.notes)]
    made = [(str(key.operation), _bits(key.value), _entry(entry)) for key, entry in labels.entries.items() if id(key) not in before]
    return made, result


@given(_expression_texts())
def test_a_walked_expression_makes_what_the_compiled_one_makes(text):
    note(text)
    try:
        parse_program(Source("e.sad", f"let r = {text}\n"))
    except LanguageError:
        return  # (`var` and `const` need parentheses in places: not this test's business)
    assert _evaluated(OnceCompiler, text) == _evaluated(Compiler, text)


@pytest.mark.parametrize(
    "text",
    [
        "x * 1.0000001 + 3", "-(x - y) / n", "var 1e400", "const inf", "x / 0", "nope + 1", "t * 2",
        "f(x) + g(x, y)", "f(x, y)", "f", "1e400 * x", "x ** 2", "x ** y", "x % 0", "n % 2",
        "sum(x, y, z)", "mean(x)", "len(t) * x", "len(x)", "backward(x)", "exp(\"a\")", "exp(a: 1)",
        "grad(n)", "k(1) + h(x)", "log(0 * x)", "exp(1000 * x)", "max(x)", "node_count(z)",
        "x + nope", "x * 1e400", "x - t", "x / f", "nope + t", "1e400 + nope", "x * 1e300 * 1e300 + 1",
        " + ".join(["x * 2"] * 300),  # deeper than closures go: the compiled path runs a stack
        "(" * 200 + "x" + ")" * 200,
    ],
)
def test_walked_and_compiled_expressions_agree_on_these(text):
    assert _evaluated(OnceCompiler, text) == _evaluated(Compiler, text)


def _events(text: str) -> list[str]:
    session = Interpreter()
    # (Bindings make no JSON event: their outcomes are compared as data.)
    return [
        repr(outcome) if isinstance(outcome, (Bound, Defined)) else dumps(event_of(outcome) or {})
        for outcome in session.run(Source("p.sad", text))
    ]


@given(st.integers(0, 2**32 - 1))
def test_generated_programs_run_the_same_compiled_and_walked(seed):
    text = "\n".join(ProgramGenerator(random.Random(seed)).program()) + "\n"
    note(text)
    walked = _events(text)
    once = Run._compile_once
    Run._compile_once = Run._compile  # every statement compiled, as loop bodies are
    try:
        compiled = _events(text)
    finally:
        Run._compile_once = once
    assert walked == compiled


# ---- which statements are compiled and kept ----------------------------------------------------


def test_a_statement_read_anew_never_runs_the_action_of_one_gone_before():
    # Top-level statements are made anew from the parsed form when read; the driver keeps the
    # compiled actions of statements by identity, so an id must never be reused: here the
    # `quiet` statements' inner ones and the `expect`s' come and go, a few thousand times.
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


def test_only_statements_inside_loops_are_compiled_and_kept():
    text = """\
let x = var 1
quiet let y = x * 2
if 1 < 2 { let z = x + y }
repeat 3 { let w = x * 3
  if 1 < 2 { let v = w + 1 } }
"""
    compiled = []
    original = Run._compile

    def compile_(self, statement):
        if not isinstance(self.compiler, OnceCompiler):  # (`_compile_once` swaps it in)
            compiled.append(Source("t", text).slice(statement.span))
        return original(self, statement)

    Run._compile = compile_
    try:
        outcomes = list(Interpreter().run(Source("t.sad", text)))
    finally:
        Run._compile = original
    assert not [outcome for outcome in outcomes if isinstance(outcome, Failed)]
    assert compiled == ["let w = x * 3", "if 1 < 2 { let v = w + 1 }", "let v = w + 1"]


def test_every_kept_action_belongs_to_a_statement_still_alive():
    text = "let x = var 1\n" + "".join(
        f"quiet let a{i} = x + {i}\nexpect undefined-name: let b{i} = nope\nrepeat 2 {{ quiet let c = x * {i} }}\n"
        for i in range(50)
    )
    source = Source("kept.sad", text)
    session = Interpreter()
    run = Run(session, source, None)
    for _ in run.steps(parse_program(source).statements, True):
        pass
    assert run.compiled and set(run.compiled) == {id(statement) for statement in run.kept}


# ---- label entries of straight-line statements: straight to the old table ----------------------


def test_a_live_nursery_filled_outside_loops_goes_to_the_old_table():
    from scalarlang.engine.scalar import Scalar
    from scalarlang.interpreter.labels import NURSERY_SIZE, TRUSTED_NURSERIES, Labels

    labels = Labels()
    assert labels.straight_table is labels.entries and labels.straight_limit == NURSERY_SIZE
    kept = [Scalar.constant(float(i)) for i in range(100)]
    for index, node in enumerate(kept):
        labels.name(node, f"n{index}")
    nursery = labels.entries
    labels.settle((), lasting=True)
    assert not labels.middle and list(labels.old) == kept
    assert labels.entries is nursery and not nursery  # emptied in place: the driver holds it
    assert [labels.label_of(node) for node in kept] == [f"n{index}" for index in range(100)]
    # Straight-line statements then record in the old table itself, dead entries too
    # (until a pruning), for so many nurseries' worth...
    assert labels.straight_table is labels.old
    assert labels.straight_limit == 100 + TRUSTED_NURSERIES * NURSERY_SIZE
    dead = Scalar.constant(0.0)
    labels.straight_table[dead] = ("dead", None, False)
    del dead
    assert labels.label_of(kept[0]) == "n0" and len(labels.old) == 101
    # ... and the settle that ends it looks at nothing (an empty nursery) ...
    labels.settle((), lasting=True)
    assert labels.straight_table is labels.entries and labels.straight_limit == NURSERY_SIZE
    assert len(labels.old) == 101 and not labels.middle
    # ... so the next nursery is looked at: mostly dead, to the middle generation, as
    # without `lasting`, and the nursery is where the next are recorded.
    for index in range(100):
        labels.name(Scalar.constant(float(index)), "dead")
    live = Scalar.constant(1.0)
    labels.name(live, "live")
    labels.settle((), lasting=True)
    assert labels.middle == {live: ("live", None, False)} and labels.label_of(live) == "live"
    assert labels.straight_table is labels.entries


def test_a_nursery_filled_while_the_old_table_is_trusted_is_looked_at_and_ends_it():
    from scalarlang.engine.scalar import Scalar
    from scalarlang.interpreter.labels import Labels

    labels = Labels()
    kept = [Scalar.constant(float(i)) for i in range(10)]
    for node in kept:
        labels.name(node, "kept")
    labels.settle((), lasting=True)
    assert labels.straight_table is labels.old
    more = [Scalar.constant(float(i)) for i in range(10)]
    for node in more:  # recorded the usual way meanwhile: in the nursery
        labels.name(node, "more")
    labels.settle((), lasting=True)  # all live, but not trusted twice in a row unlooked
    assert list(labels.old) == kept + more and not labels.entries
    assert labels.straight_table is labels.entries


def test_the_old_table_is_pruned_at_twice_its_size_or_four_times_when_nearly_all_live(monkeypatch):
    import scalarlang.interpreter.labels as labels_module
    from scalarlang.engine.scalar import Scalar

    monkeypatch.setattr(labels_module, "PRUNE_MINIMUM", 10)
    labels = labels_module.Labels()
    labels.prune_at = 10
    kept = [Scalar.constant(float(i)) for i in range(20)]
    for node in kept:
        labels.old[node] = (str(node.value), None, False)
    labels.settle()
    assert list(labels.old) == kept and labels.prune_at == 80  # all live: four times
    for index in range(61):
        labels.old[Scalar.constant(float(index))] = ("dead", None, False)
    labels.settle()
    assert list(labels.old) == kept and labels.prune_at == 40  # a quarter live: twice


@pytest.mark.parametrize("atomic, echo", [(False, True), (True, True), (False, False), (True, False)])
def test_long_straight_line_programs_show_the_same_with_and_without_lasting_entries(atomic, echo, monkeypatch):
    import scalarlang.interpreter.labels as labels_module

    # (2,500 statements: four nodes each, more than a trusted stretch of the old table holds)
    lines = ["let a0 = var 1"] + [f"let a{i} = a{i - 1} * 1.0000001 + {i % 7}" for i in range(1, 1200)]
    lines += ["let c = a5", "let d = var 2"] + [f"let a{i} = a{i - 1} * 1.0000001 + {i % 7}" for i in range(1200, 2500)]
    lines += ["a0 * 2 + 1", "backward(a2499)", "print a350, grad(a0), c, d", "repeat 600 { let b = a0 * 2 + a1 }", "backward(b)"]
    text = "\n".join(lines) + "\n"

    def events():
        outcomes = Interpreter().run(Source("long.sad", text), atomic=atomic, echo=echo)
        return [repr(o) if isinstance(o, (Bound, Defined)) else dumps(event_of(o) or {}) for o in outcomes]

    settled = []
    settle = labels_module.Labels.settle

    def spy(self, others=(), lasting=False):
        settle(self, others, lasting)
        settled.append((lasting, not self.middle))
        trusted.append(self.straight_table is self.old)

    trusted: list[bool] = []
    monkeypatch.setattr(labels_module.Labels, "settle", spy)
    lasting = events()
    assert (True, True) in settled and (False, False) in settled  # both ways were taken
    # Without echo the lets run straight, and record in the trusted old table for a while.
    assert any(trusted) or echo
    monkeypatch.setattr(labels_module, "LASTING_SHARE", 0.0)  # never straight to the old table
    settled.clear()
    trusted.clear()
    assert lasting == events()
    assert (True, True) not in settled and not any(trusted)


def _events_compiled(text: str, atomic: bool = False) -> list[str]:
    once = Run._compile_once
    Run._compile_once = Run._compile  # every statement compiled, as loop bodies are
    try:
        return _events_of(text, atomic)
    finally:
        Run._compile_once = once


def _events_of(text: str, atomic: bool) -> list[str]:
    return [
        repr(outcome) if isinstance(outcome, (Bound, Defined)) else dumps(event_of(outcome) or {})
        for outcome in Interpreter().run(Source("p.sad", text), atomic=atomic)
    ]


@pytest.mark.parametrize("atomic", [False, True])
@pytest.mark.parametrize(
    "text",
    [
        "let x = var 2\nlet x = x * 3\nx\n",
        "let exp = 1\n",
        "let t = [1, 2]\nlet t = t\n",
        "let x = var 1\nlet y = x / 0\nlet z = 1\n",
        "let x = var 1\nlet y = x + nope\n",
        "let x = var 1\nlet y = x\nlet z = y\nbackward(z * x)\n",
        "let a = var 1e400\n",
        "fn f(a) = a * 2\nlet y = f(var 3)\nlet w = f(1, 2)\n",
    ],
)
def test_top_level_lets_run_as_compiled_ones(text, atomic):
    assert _events_of(text, atomic) == _events_compiled(text, atomic)


# ---- top-level `let`s run straight from their compact form (`straight`) ------------------------

STRAIGHT_SETUP = """\
let x = var 2
let y = var 0.5
let n = const 3
let t = [1, 2, 3]
fn f(a) = a * x + 1
"""
STRAIGHT_LEAVES = ("x", "y", "n", "t", "f", "nope", "exp", "0", "1", "2.5", "1e-3", "1e308", "1e-400", "inf", "nan")


def _straight_expressions():
    leaves = st.sampled_from(STRAIGHT_LEAVES)

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "*", "+", "%", "**"]), inner).map(
                lambda p: f"({p[0]} {p[1]} {p[2]})"
            ),
            inner.map(lambda e: f"-{e}"),
            st.tuples(st.sampled_from(["var", "const"]), st.sampled_from(["", "-"]), leaves).map(
                lambda p: f"({p[0]} {p[1]}{p[2]})"
            ),
            inner.map(lambda e: f"exp({e})"),
        )

    return st.recursive(leaves, extend, max_leaves=6)


def _session_state(session: Interpreter, outcomes) -> tuple:
    """All a run leaves behind, as data: its outcomes, the names' nodes, every label entry in
    each generation's order (by the nodes' operations, value bits and entries)."""
    labels = session._labels
    tables = [
        [(str(node.operation), _bits(node.value), _entry(entry)) for node, entry in table.items()]
        for table in (labels.entries, labels.middle, labels.old)
    ]
    names = {
        name: (str(node.operation), _bits(node.value), node.tracks_gradient, labels.label_of(node))
        if hasattr(node, "operation") else type(node).__name__
        for name, node in session._names.items()
    }
    shown = [
        repr(outcome) if isinstance(outcome, (Bound, Defined)) else dumps(event_of(outcome) or {})
        for outcome in outcomes
    ]
    return shown, names, tables


def _run_both_ways(text: str, monkeypatch, **options) -> tuple[tuple, tuple]:
    def state(straight: bool) -> tuple:
        monkeypatch.setattr(Run, "straight", straight)
        session = Interpreter()
        list(session.run(Source("setup.sad", STRAIGHT_SETUP)))
        outcomes = list(session.run(Source("p.sad", text), **options))
        return _session_state(session, outcomes)

    return state(True), state(False)


@given(st.lists(_straight_expressions(), min_size=1, max_size=4), st.integers(0, 2**32 - 1))
def test_straight_lets_leave_what_the_usual_way_leaves(expressions, seed):
    import scalarlang.interpreter.control as control

    # Each expression three times (a shape is written on its second run), under fresh names
    # and reusing earlier ones, in a random order; then a backward pass shows the graph.
    rng = random.Random(seed)
    lines = []
    for copy in range(3):
        for index, expression in enumerate(expressions):
            lines.append(f"let v{index}_{copy} = {expression}")
            lines.append(f"let w{copy} = v{index}_{copy} * x + {rng.choice(STRAIGHT_LEAVES)}")
    rng.shuffle(lines)
    lines.append("let last = x * 1")
    lines.append("backward(last)")
    text = "\n".join(lines) + "\n"
    note(text)
    with pytest.MonkeyPatch.context() as monkeypatch:
        for options in ({"echo": False}, {"echo": False, "atomic": True}, {"echo": True}, {"quiet": True, "echo": True}):
            straight, usual = _run_both_ways(text, monkeypatch, **options)
            assert straight == usual
    assert control.Run.straight is True


def test_straight_lets_are_taken_and_a_failing_one_reports_as_ever(monkeypatch):
    import scalarlang.interpreter.straight as straight_module

    ran: list[bool] = []  # for each statement tried straight, whether it ran so
    by_bytes, by_ints = straight_module.run_straight, straight_module.run_straight_ints

    def spy_bytes(run, item, lines, text):
        done = by_bytes(run, item, lines, text)
        ran.append(done)
        return done

    def spy_ints(run, items, index, stop, *rest):
        end = by_ints(run, items, index, stop, *rest)
        ran.extend([True] * (end - index) + [False] * (end < stop and items[end].__class__ is int))
        return end

    monkeypatch.setattr("scalarlang.interpreter.control.run_straight", spy_bytes)
    monkeypatch.setattr("scalarlang.interpreter.control.run_straight_ints", spy_ints)
    lines = ["let a0 = var 1"] + [f"let a{i} = a{i - 1} * 1.0000001 + {i % 7}" for i in range(1, 50)]
    # `e`, of the same shape, overflows: it ends the run of straight statements, runs the
    # usual way and fails there.
    lines += ["let b = a1 * 1e300 + 1", "let e = a1 * 1e308 + 1", "let d = a1 * 1"]
    text = "\n".join(lines) + "\n"
    straight, usual = _run_both_ways(text, monkeypatch, echo=False)
    assert straight == usual
    assert ran.count(True) >= 45 and ran[-1] is False
    failure = [event for event in straight[0] if "non-finite" in event]
    assert len(failure) == 1 and '"line": 52' in failure[0]
    assert "d" not in straight[1] and "e" not in straight[1] and "b" in straight[1]


def test_straight_label_entries_are_one_tuple_a_node_of_objects_that_exist_already():
    # The four nodes of a statement share its item (the parsed form's int) and the run's
    # `StatementSpans`; their spans are found again only when a label is read.
    from scalarlang.interpreter.labels import made_span

    text = "let a0 = var 1\n" + "".join(f"let a{i} = a{i - 1} * 2.5 + {i}\n" for i in range(1, 40))
    session = Interpreter()
    list(session.run(Source("p.sad", text), echo=False))
    labels = session._labels
    last = session._names["a39"]
    mul, constant = last.parents[0].parent, last.parents[1].parent
    named = labels.entry(last)
    made = [labels.entry(mul), labels.entry(mul.parents[1].parent), labels.entry(constant), named[1]]
    assert named[0] == "a39" and all(len(entry) == 5 for entry in made)
    assert len({id(entry[1]) for entry in made}) == 1 and len({id(entry[4]) for entry in made}) == 1
    assert labels.entry(session._names["a20"])[1][4] is made[0][4]
    spans = [made_span(entry) for entry in made]
    line = text.splitlines()[39]
    assert [line[s.column - 1 : s.end_column - 1] for s in spans] == ["a38 * 2.5", "2.5", "39", "a38 * 2.5 + 39"]
    assert all(s.line == 40 for s in spans) and labels.label_of(mul) == "a38 * 2.5"


@pytest.mark.parametrize("budget", [0, 1, 7, 30])
def test_the_statement_budget_counts_statements_run_straight(budget, monkeypatch):
    from scalarlang.interpreter import control

    monkeypatch.setattr(control, "MAX_STATEMENTS", budget)
    lines = ["let a0 = var 1"] + [f"let a{i} = a{i - 1} * 1.0000001 + {i % 7}" for i in range(1, 50)]
    straight, usual = _run_both_ways("\n".join(lines) + "\n", monkeypatch, echo=False)
    assert straight == usual
    failure = [event for event in straight[0] if "too-long" in event]
    assert len(failure) == 1 and f'"line": {budget + 1},' in failure[0]
    assert f"a{budget - 1}" in straight[1] or budget == 0
    assert f"a{budget}" not in straight[1]


@pytest.mark.parametrize(
    "statement",
    [
        "let r = x * 2 + 1", "let r = -x / 3 - y", "let r = var 2 * x", "let r = const -1.5 + n",
        "let r = x ** 2 + 1", "let r = x % 2 * y", "let r = exp(x) + 1", "let r = t", "let r = f(x) * 2",
        "let exp = x + 1", "let r = (var -inf) + x", "let r = 1e-400 * x", "let r = x / 0",
        "let r = nope * 2", "let r = t * 2", "let r = (x * 2) * (y + 1)", "let r = --x",
        "let r = var x * 2", "let r = (const -x) + (var -2)", "let r = var 1e400 * x", "let r = const t",
    ],
)
def test_straight_lets_agree_with_the_usual_way_on_these(statement, monkeypatch):
    text = "\n".join([statement] * 4 + ["r", "backward(r * x)"]) + "\n"
    for options in ({"echo": False}, {"echo": False, "atomic": True}):
        straight, usual = _run_both_ways(text, monkeypatch, **options)
        assert straight == usual


def test_straight_writes_no_function_for_shapes_it_does_not_cover():
    import marshal

    from scalarlang.language.shapes import template_match
    from scalarlang.interpreter.straight import write, write_matched

    def written(statement: str) -> tuple:
        # Parsed three times: the third is a statement of a shape the parser has learnt, an
        # int naming it (when its shape is one the fast path takes), else bytes.
        for _ in range(3):
            text = statement + "\n"
            item = parse_program(Source("s.sad", text)).statements.held()[0][0]
        if item.__class__ is int:
            template, _ = template_match(item, text)
            return write(template.operations), write_matched(template)
        operations = marshal.loads(item)[0]
        return write(operations), write(operations)

    covered = ("let r = x * 2 + 1", "let r = -x", "let r = var 2", "let r = (const -2) * x", "let r = const -2 * x")
    for statement in covered:
        assert None not in written(statement), statement
    for statement in ("let r = exp(x)", "let r = [1, 2]", "print x", "let r = var exp(x)", "x + 1"):
        assert written(statement) == (None, None), statement


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
