"""Property tests of the language (issue #3): random well-formed programs.

- Any program the generator writes (comparisons inside expressions and statements over a
  list included) parses, and running it gives only normal outcomes or a failure of a kind a
  statement can fail with (never ``internal-error``, never a Python exception), and every
  outcome renders as text and as JSON.
- A failing statement, and any ``expect``, leaves the session as it was.
- The JSON ``backward`` events agree bit for bit with the engine called directly on the same
  graph, rebuilt here with ``scalarlang.Scalar`` from the generator's own description.

The hypothesis profile comes from ``conftest.py`` (``ci``: about 50 examples per property).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass

from hypothesis import event as tally, given, note
from hypothesis import strategies as st

from shared import bits
from scalarlang import Scalar, ScalarAutodiffError
from scalarlang.language import tree as ast
from scalarlang.language.tree import Program
from scalarlang.render.events import dumps, event_of
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.failures import RUNTIME_KINDS
from scalarlang.interpreter.values import flat_nodes
from scalarlang.interpreter.outcomes import (
    BackwardShown,
    Bound,
    Defined,
    Expected,
    Failed,
    GradcheckShown,
    GraphShown,
    ListShown,
    Printed,
    ValueShown,
    Warned,
)
from scalarlang.render.text import Renderer, make_console
from scalarlang.language.source import Source
from scalarlang.language.parser import parse_program

NAMES = ("x", "y", "w", "sq", "loss")
# A name bound to a list at the start of every program (`let ws = [var …, var …]`).
LIST_NAME = "ws"
# (Warned: the statement ran, and the run goes on: `descend` by gradients no pass wrote.)
NORMAL = (ValueShown, ListShown, Bound, Defined, Printed, BackwardShown, GraphShown, GradcheckShown, Expected, Warned)

# ---- expression trees -----------------------------------------------------------------------
# ("num", v) · ("name", n) · ("neg", e) · ("bin", op, l, r) · ("call", f, e) · ("leaf", var|const, e)
# · ("cmp", op, l, r): a comparison inside an expression, the constant 1 or 0

# Precedence of what a tree prints as: var/const take everything on their right; a comparison
# is looser than `+ -` and does not chain (both its sides are sums).
_PRECEDENCE = {"leaf": 0, "cmp": 1, "+": 2, "-": 2, "*": 3, "/": 3, "neg": 4, "atom": 5}
COMPARISONS = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def _precedence(tree) -> int:
    if tree[0] == "bin":
        return _PRECEDENCE[tree[1]]
    return _PRECEDENCE.get(tree[0], _PRECEDENCE["atom"])


def _number_text(value: float) -> str:
    if math.isinf(value):
        return "inf"
    if math.isnan(value):
        return "nan"
    return repr(float(value)) if value != int(value) or abs(value) >= 1e16 else str(int(value))


def source_of(tree, needed: int = 0) -> str:
    """The tree as `.sad` text, with parentheses only where precedence needs them."""
    kind = tree[0]
    if kind == "num":
        text = _number_text(tree[1])
    elif kind == "name":
        text = tree[1]
    elif kind == "neg":
        text = "-" + source_of(tree[1], _PRECEDENCE["neg"])
    elif kind == "bin":
        level = _PRECEDENCE[tree[1]]
        text = f"{source_of(tree[2], level)} {tree[1]} {source_of(tree[3], level + 1)}"
    elif kind == "cmp":
        sums = _PRECEDENCE["+"]
        text = f"{source_of(tree[2], sums)} {tree[1]} {source_of(tree[3], sums)}"
    elif kind == "call":
        text = f"{tree[1]}({source_of(tree[2])})"
    else:
        text = f"{tree[1]} {source_of(tree[2])}"
    return f"({text})" if _precedence(tree) < needed else text


def compared_source(tree) -> str:
    """A side of `assert` (or `if`): a sum, or `var`/`const` of a sum."""
    sums = _PRECEDENCE["+"]
    if tree[0] == "leaf":
        return f"{tree[1]} {source_of(tree[2], sums)}"
    return source_of(tree, sums)


FINITE_LITERALS = st.one_of(
    st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5, 0.25, 10.0, 1e-3]),
    st.floats(min_value=0.0, max_value=4.0, allow_nan=False, allow_infinity=False),
)
# Mostly finite; now and then a value that makes something non-finite.
ANY_LITERALS = st.one_of(
    FINITE_LITERALS, FINITE_LITERALS, FINITE_LITERALS, st.sampled_from([math.inf, math.nan, 1e308, 1e-200, 1e300])
)
FUNCTIONS = ("exp", "tanh", "log", "detach", "grad", "value")


def expressions(names, literals=FINITE_LITERALS, functions=FUNCTIONS, max_leaves=8):
    """Trees over ``names`` (or, given an int, over name slots ``0 .. names-1`` for `resolve`)."""
    name = st.integers(0, names - 1) if isinstance(names, int) else st.sampled_from(names)
    names_leaf = st.tuples(st.just("name"), name)
    leaves = st.one_of(st.tuples(st.just("num"), literals), names_leaf, names_leaf)

    def extend(inner):
        return st.one_of(
            st.tuples(st.just("bin"), st.sampled_from("+-*/"), inner, inner),
            st.tuples(st.just("neg"), inner),
            st.tuples(st.just("call"), st.sampled_from(functions), inner),
            st.tuples(st.just("leaf"), st.sampled_from(["var", "const"]), inner),
            st.tuples(st.just("cmp"), st.sampled_from(sorted(COMPARISONS)), inner, inner),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def resolve(tree, bound: list[str]):
    """A tree over name slots with each slot replaced by one of the ``bound`` names."""
    kind = tree[0]
    if kind == "name":
        return ("name", bound[tree[1] % len(bound)])
    if kind == "num":
        return tree
    if kind in ("bin", "cmp"):
        return (kind, tree[1], resolve(tree[2], bound), resolve(tree[3], bound))
    return (kind, tree[1], resolve(tree[2], bound)) if kind in ("call", "leaf") else ("neg", resolve(tree[1], bound))


# ---- property 1: any program runs without an internal error ------------------------------------

# Strategies are built once: building them per draw dominates the run time.
ANY_EXPRESSIONS = expressions(NAMES, ANY_LITERALS)
STRINGS = st.lists(
    st.one_of(
        st.text(st.characters(codec="utf-8", exclude_characters='"\\{}\n\r', exclude_categories=("Cc", "Cs")), max_size=6),
        st.sampled_from(['\\"', "\\\\", "\\n", "{{", "}}", " # "]),
        expressions(NAMES, ANY_LITERALS, max_leaves=3).map(lambda tree: "{" + source_of(tree) + "}"),
    ),
    max_size=4,
).map(lambda pieces: '"' + "".join(pieces) + '"')
NUMBERS = st.one_of(ANY_LITERALS.map(_number_text), ANY_LITERALS.map(lambda v: "-" + _number_text(v)))


@st.composite
def list_statements(draw, names=NAMES):
    """Statements over the list `ws`: binding it (a literal, a comprehension over it), reading
    it (indexing, `len`, `sum`, `mean`, `dot`, `flatten`, `zip`, comparisons of its items),
    training it (`descend`, `for` over it), and the list errors (an index out of range or not
    whole, a list where a node is needed, a node where a list is needed)."""
    e = lambda needed=0: source_of(draw(ANY_EXPRESSIONS), needed)  # noqa: E731
    factor, sums = _PRECEDENCE["*"] + 1, _PRECEDENCE["+"]  # a right operand of `*`; a side of `<`
    index = draw(st.sampled_from(["0", "1", "-1", "2", "-3", "0.5", "len(ws) - 1", "x > 1"]))
    name = draw(st.sampled_from(names))
    forms = [
        lambda: f"let ws = [{', '.join(e() for _ in range(draw(st.integers(0, 3))))}]",
        lambda: f"let ws = [var {e()} for p in ws]",
        lambda: f"let ws = [p * {e(factor)} for p in ws]",
        lambda: "let ws = [ws[i] + ws[-1 - i] for i in 0..len(ws)]",
        lambda: f"let {name} = ws[{index}]",
        lambda: f"ws[{index}] * {e(factor)}",
        lambda: f"let {name} = sum(ws) + len(ws)",
        lambda: f"let {name} = mean(ws) * {e(factor)}",
        lambda: f"let {name} = dot(ws, [{e()} for p in ws])",
        lambda: f"let {name} = sum(flatten(ws, [{e()}], zip(ws, ws)))",
        lambda: f"let {name} = mean([(p > {e(sums)}) == ({e(sums)} < 1) for p in ws])",
        lambda: f"backward(dot(ws, ws) * {name})",
        lambda: f"descend ws by {draw(NUMBERS)}",
        lambda: f"for p in ws {{ let {name} = {name} + p * {e(factor)} }}",
        lambda: f"for p, q in zip(ws, ws) {{ let {name} = p * q }}",
        lambda: "print ws, \"{ws}\"",
        lambda: f"[p * {e(factor)} for p in ws]",
        lambda: f"tanh(ws) + {e(sums + 1)}",
        lambda: f"let {name} = len({e()})",
        lambda: "zero_grad",
    ]
    return draw(st.sampled_from(forms))()


@st.composite
def statements(draw, names=NAMES, depth=0):
    expr, number = ANY_EXPRESSIONS, NUMBERS
    choice = draw(st.integers(0, 13 if depth < 2 else 12))
    e = lambda: source_of(draw(expr))  # noqa: E731
    c = lambda: compared_source(draw(expr))  # noqa: E731
    if choice <= 2:
        return f"let {draw(st.sampled_from(names))} = {e()}"
    if choice == 3:
        return e()
    if choice == 4:
        items = draw(st.lists(st.one_of(STRINGS, expr.map(source_of)), min_size=1, max_size=3))
        return "print " + ", ".join(items)
    if choice == 5:
        # Mostly of something tracked, so that passes happen and reach the variables.
        tree = draw(expr)
        if draw(st.booleans()):
            tree = ("bin", "*", tree, ("name", draw(st.sampled_from(names))))
        output = source_of(tree)
        return f"backward({output})" if draw(st.booleans()) else f"backward({output}, {draw(number)})"
    if choice == 6:
        return "zero_grad" if draw(st.booleans()) else f"zero_grad({e()})"
    if choice == 7:
        return f"graph({e()})"
    if choice == 8:
        target = draw(st.sampled_from(names))
        tree = draw(expr)
        if draw(st.booleans()):
            tree = ("bin", "+", tree, ("bin", "*", ("name", target), draw(expr)))
        output = source_of(tree)
        if draw(st.booleans()):
            return f"gradcheck({output}, {target})"
        return f"gradcheck({output}, {target}, {draw(number)}, {draw(number)})"
    if choice in (9, 10):
        op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
        within = f" within {draw(number)}" if op == "==" and draw(st.booleans()) else ""
        return f"assert {c()} {op} {c()}{within}"
    if choice in (11, 12):
        return draw(list_statements(names))
    kind = draw(st.sampled_from(sorted(RUNTIME_KINDS)))
    return f"expect {kind}: {draw(statements(names, depth + 1))}"


@st.composite
def programs(draw):
    """Variables, then random statements over a small pool of names: all but the last are
    bound at the start, the last (``loss``) only if a statement binds it."""
    lines = [f"let {name} = var {_number_text(draw(FINITE_LITERALS))}" for name in NAMES[:-1]]
    lines.append(f"let {LIST_NAME} = [var {_number_text(draw(FINITE_LITERALS))}, var {_number_text(draw(FINITE_LITERALS))}]")
    lines += draw(st.lists(statements(NAMES), max_size=8))
    separators = draw(st.lists(st.sampled_from(["\n", "; ", "  # note\n"]), min_size=len(lines), max_size=len(lines)))
    separators[-1] = draw(st.sampled_from(["", "\n", "  # note", "  # note\n"]))  # the end of the text
    return "".join(line + separator for line, separator in zip(lines, separators))


def session_state(session: Interpreter) -> tuple:
    """Bindings (nodes and lists) by identity and the bits of every stored gradient reachable
    from them (through every node a list holds too)."""
    seen = {}
    for value in session.values.values():
        for node in flat_nodes(value):
            for member in node.topology():
                seen[id(member)] = bits(member.gradient)
    return tuple((name, id(value)) for name, value in session.values.items()), tuple(sorted(seen.items()))


def _render(outcome, renderer: Renderer) -> None:
    renderer.outcome(outcome)
    event = event_of(outcome)
    if event is not None:
        json.loads(dumps(event))  # valid JSON: non-finite numbers became strings


@given(programs())
def test_random_programs_give_only_normal_outcomes_or_runtime_failures(text):
    note(text)
    source = Source("random.sad", text)
    program = parse_program(source)  # well-formed: it must parse
    session = Interpreter()
    renderer = Renderer(make_console(io.StringIO(), width=100, color="never"))
    for statement in program.statements:
        before = session_state(session)
        # A loop's body statements are each atomic, the loop is not (the iterations before a
        # failure stay done), unless it runs atomic, as a REPL line does.
        loop = isinstance(statement, (ast.ForEach, ast.ForRange, ast.Repeat, ast.If))
        outcomes = list(session.run_program(Program((statement,)), source, atomic=loop))
        for outcome in outcomes:
            assert isinstance(outcome, NORMAL + (Failed,)), outcome
            if isinstance(outcome, Warned):
                assert outcome.kind == "no-backward" and text[outcome.span.start :].startswith("descend"), outcome
            _render(outcome, renderer)
            tally(type(outcome).__name__ if not isinstance(outcome, Failed) else f"failed: {outcome.diagnostic.kind}")
        failures = [outcome for outcome in outcomes if isinstance(outcome, Failed)]
        if failures:
            (failed,) = failures
            assert outcomes[-1] is failed
            diagnostic = failed.diagnostic
            assert diagnostic.kind in RUNTIME_KINDS, (diagnostic.kind, diagnostic.message, failed.traceback)
            assert diagnostic.span is not None and diagnostic.source is source
            # A statement is atomic: a failure binds nothing and changes no stored gradient
            # (nor does a failing loop run atomic).
            assert session_state(session) == before
        if isinstance(statement, ast.Expect):
            assert session_state(session) == before  # expect never applies its statement


@given(programs(), st.sampled_from(sorted(RUNTIME_KINDS)), statements(NAMES))
def test_expect_leaves_the_state_as_before(prefix, kind, statement):
    session = Interpreter()
    list(session.run(Source("prefix.sad", prefix)))
    before = session_state(session)
    outcomes = list(session.run(Source("expect.sad", f"expect {kind}: {statement}")))
    (outcome,) = outcomes
    assert isinstance(outcome, (Expected, Failed))
    if isinstance(outcome, Failed):
        assert outcome.diagnostic.kind == "expectation-failed"
    assert session_state(session) == before


# ---- property 2: JSON backward events against the engine called directly -------------------------


class _NoGradient(Exception):
    kind = "no-gradient"


@dataclass
class Mirror:
    """The same program run on the engine directly: names to nodes, and each bound node's
    first name (keyed by the node itself, which keeps it alive)."""

    env: dict
    first_names: dict

    def eval(self, tree) -> Scalar:
        kind = tree[0]
        if kind == "num":
            return Scalar.constant(tree[1])
        if kind == "name":
            return self.env[tree[1]]
        if kind == "neg":
            return -self.eval(tree[1])
        if kind == "bin":
            left, right = self.eval(tree[2]), self.eval(tree[3])
            return {"+": left.add, "-": left.sub, "*": left.mul, "/": left.div}[tree[1]](right)
        if kind == "cmp":
            left, right = self.eval(tree[2]), self.eval(tree[3])
            return Scalar.constant(1.0 if COMPARISONS[tree[1]](left.value, right.value) else 0.0)
        if kind == "call":
            argument = self.eval(tree[2])
            if tree[1] == "grad":
                if argument.gradient is None:
                    raise _NoGradient()
                return Scalar.constant(argument.gradient)
            if tree[1] == "value":
                return Scalar.constant(argument.value)
            return getattr(argument, tree[1])()
        make = Scalar.variable if tree[1] == "var" else Scalar.constant
        operand = tree[2]
        if operand[0] == "num":
            return make(operand[1])
        if operand[0] == "neg" and operand[1][0] == "num":
            return make(-operand[1][1])
        return make(self.eval(operand).value)


TRAINING_EXPRESSIONS = expressions(8)


@st.composite
def training_programs(draw):
    """Lets, backward passes (with and without seeds) and zero_grads over bound names, ending
    with ``backward(out)``: a list of steps the test runs both ways. ``x`` is a variable that
    is never bound again, and ``out`` uses it, so most final passes reach a variable."""
    steps = []
    bound = ["x"] + draw(st.lists(st.sampled_from(NAMES[1:]), max_size=2, unique=True))
    for name in bound:
        steps.append(("let", name, ("leaf", "var", ("num", draw(FINITE_LITERALS)))))
    for _ in range(draw(st.integers(1, 6))):
        choice = draw(st.integers(0, 5))
        if choice <= 2:
            name = draw(st.sampled_from(NAMES[1:]))
            steps.append(("let", name, resolve(draw(TRAINING_EXPRESSIONS), bound)))
            bound.append(name) if name not in bound else None
        elif choice == 3:
            seed = draw(st.one_of(st.none(), st.sampled_from([1.0, 2.0, 0.5, 3.0])))
            steps.append(("backward", draw(st.sampled_from(bound)), seed))
        elif choice == 4:
            steps.append(("zero_grad", draw(st.one_of(st.none(), st.sampled_from(bound)))))
        else:
            steps.append(("backward", draw(st.sampled_from(bound)), None))
    final = ("bin", draw(st.sampled_from("+-*")), resolve(draw(TRAINING_EXPRESSIONS), bound), ("name", "x"))
    steps.append(("let", "out", final))
    steps.append(("backward", "out", None))
    return steps


def program_text(steps) -> str:
    lines = []
    for step in steps:
        if step[0] == "let":
            lines.append(f"let {step[1]} = {source_of(step[2])}")
        elif step[0] == "backward":
            lines.append(f"backward({step[1]})" if step[2] is None else f"backward({step[1]}, {_number_text(step[2])})")
        else:
            lines.append("zero_grad" if step[1] is None else f"zero_grad({step[1]})")
    return "\n".join(lines) + "\n"


def run_mirror(steps):
    """The steps on the engine: per step, ("ok", pass or None) or ("error", kind) and stop."""
    mirror = Mirror({}, {})
    results = []
    for step in steps:
        try:
            if step[0] == "let":
                node = mirror.eval(step[2])
                mirror.env[step[1]] = node
                mirror.first_names.setdefault(node, step[1])
                results.append(("ok", None))
            elif step[0] == "backward":
                output = mirror.env[step[1]]
                backward_pass = output.backward() if step[2] is None else output.backward_with_seed(step[2])
                results.append(("ok", backward_pass))
            else:
                outputs = list(mirror.env.values()) if step[1] is None else [mirror.env[step[1]]]
                for output in outputs:
                    output.zero_grad()
                results.append(("ok", None))
        except (ScalarAutodiffError, _NoGradient) as error:
            results.append(("error", error.kind))
            break
    return mirror, results


@given(training_programs())
def test_json_backward_events_match_the_engine_called_directly(steps):
    text = program_text(steps)
    note(text)
    events = []
    for outcome in Interpreter().run(Source("train.sad", text)):
        event = event_of(outcome)
        if event is not None:
            events.append(json.loads(dumps(event)))
    mirror, results = run_mirror(steps)

    expected_events = []
    for step, (status, value) in zip(steps, results):
        if status == "error":
            expected_events.append(("error", value))
        elif step[0] == "backward":
            expected_events.append(("backward", value))
    assert [event["event"] for event in events] == [kind for kind, _ in expected_events]

    for event, (kind, value) in zip(events, expected_events):
        if kind == "error":
            assert event["kind"] == value, event["message"]
            continue
        backward_pass = value
        assert event["seed"] == backward_pass.seed
        assert len(event["nodes"]) == len(backward_pass.nodes)
        for shown, record, node in zip(event["nodes"], backward_pass.nodes, backward_pass.topology):
            assert shown["operation"] == str(record.operation)
            assert bits(shown["value"]) == bits(record.value)
            assert shown["tracked"] == record.tracked
            assert bits(shown["pass_adjoint"]) == bits(record.pass_adjoint)
            assert bits(shown["accumulated_gradient"]) == bits(record.accumulated_gradient)
            name = mirror.first_names.get(node)
            if name is not None:
                assert shown["label"] == name
        assert len(event["edges"]) == len(backward_pass.edges)
        for shown, record in zip(event["edges"], backward_pass.edges):
            assert (shown["child"], shown["parent"], shown["operand"]) == (record.child, record.parent, record.operand)
            assert bits(shown["contribution"]) == bits(record.contribution)
            assert bits(shown["parent_adjoint_after"]) == bits(record.parent_adjoint_after)

    tally(f"final backward: {results[-1]}"[:40] if results[-1][0] == "error" else "final backward: ok")
    if results[-1][0] == "ok":
        # The last event is the final backward(out), and the stored gradients agree too.
        assert events[-1]["label"] == mirror.first_names[mirror.env["out"]]
