"""Mutations of the examples (issue #5): valid programs and deliberately broken ones.

The programs are the examples with lines dropped, repeated and swapped and numbers replaced
(still valid syntax), or with tokens deleted, duplicated, swapped, replaced and inserted
(mostly broken). Each is run through the `Interpreter` statement by statement, through the text
and JSON front ends, and (a seeded batch) through the real command:

- the answer is success or a diagnostic of docs/language.md's kinds, never an internal error;
- a statement that fails leaves every binding and stored gradient bit for bit as it was;
- every ``backward`` event of the JSON output agrees bit for bit with the engine called
  directly (``Scalar``, not the interpreter) on the statements that ran.

The hypothesis profile comes from ``conftest.py`` (``ci`` by default; ``deep`` for long runs).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import operator
import random
import re
import subprocess

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from commands import COMMAND, ROOT
from shared import bits
from scalarlang import Scalar
from scalarlang.front import cli
from scalarlang.language import tree as ast
from scalarlang.language.diagnostics import LanguageError
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.failures import RUNTIME_KINDS
from scalarlang.interpreter.outcomes import Failed
from scalarlang.front.runner import ScriptOutput, read_source
from scalarlang.language.source import Source
from scalarlang.language.parser import parse_program

# The straight-line examples: every line a whole statement, every statement one the direct
# engine calls below model. The training examples (blocks, functions, loops) have their own
# oracle in test_training_properties.py.
EXAMPLES = {
    path.name: text
    for path in sorted((ROOT / "examples").glob("*.sad"))
    if not re.search(r"\{\s*$|^fn ", text := path.read_text(encoding="utf-8"), re.MULTILINE)
}
# The kinds of a program that did not parse (exit status 2): `run_checked` finds them only from
# the parser, and every failure at run time is of RUNTIME_KINDS (exit status 1; an io-error
# there is a file a statement cannot read or write, the program itself was read).
STATIC_KINDS = {"syntax-error", "too-deep"}

# ---- mutations --------------------------------------------------------------------------------

_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|\n|[ \t]+|==|!=|<=|>=|[A-Za-z_][A-Za-z0-9_]*(?:-[a-z]+)*'
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|."
)
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
NUMBERS = ["0", "1", "2", "0.5", "3", "1e-320", "1e-200", "1e300", "1e308", "inf", "nan", "1e309", "700"]
VOCABULARY = [
    "(", ")", "+", "-", "*", "/", "=", "==", "<", ",", ";", ":", "\n", "{", "}", '"', "\\", "#",
    "var", "const", "let", "expect", "within", "print", "assert", "backward", "graph", "gradcheck",
    "grad", "value", "exp", "log", "tanh", "detach", "zero_grad", "inf", "nan", "0", "1e308",
    "x", "lose", "no-gradient", "\x00", "é", "\t", "{{",
]


def tokens_of(text: str) -> list[str]:
    return _TOKEN.findall(text)


def significant(tokens: list[str]) -> list[int]:
    return [i for i, token in enumerate(tokens) if not token.isspace() or token == "\n"]


@st.composite
def valid_programs(draw) -> str:
    """An example with whole lines dropped, repeated or swapped and numbers replaced: still
    valid syntax (every line of an example is a whole statement or a comment)."""
    lines = draw(st.sampled_from(list(EXAMPLES.values()))).splitlines()
    for _ in range(draw(st.integers(0, 3))):
        if not lines:
            break
        i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
        operation = draw(st.sampled_from(["drop", "repeat", "swap"]))
        if operation == "drop":
            del lines[i]
        elif operation == "repeat":
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
    tokens = tokens_of("\n".join(lines) + "\n")
    numbers = [i for i, token in enumerate(tokens) if _NUMBER.match(token)]
    for _ in range(draw(st.integers(0, 2)) if numbers else 0):
        tokens[draw(st.sampled_from(numbers))] = draw(st.sampled_from(NUMBERS))
    return "".join(tokens)


def mutate(tokens: list[str], choose) -> list[str]:
    """One token mutation; ``choose(options)`` picks one of a list (hypothesis or random)."""
    places = significant(tokens)
    if not places:
        return tokens + [choose(VOCABULARY)]
    i, j = choose(places), choose(places)
    operation = choose(["delete", "duplicate", "swap", "swap-near", "replace", "insert"])
    tokens = list(tokens)
    if operation == "delete":
        del tokens[i]
    elif operation == "duplicate":
        tokens.insert(i, tokens[i])
    elif operation == "swap":
        tokens[i], tokens[j] = tokens[j], tokens[i]
    elif operation == "swap-near":
        k = places[min(places.index(i) + 1, len(places) - 1)]
        tokens[i], tokens[k] = tokens[k], tokens[i]
    elif operation == "replace":
        tokens[i] = choose(NUMBERS if _NUMBER.match(tokens[i]) else VOCABULARY)
    else:
        tokens.insert(i, choose(VOCABULARY))
    return tokens


@st.composite
def broken_programs(draw) -> str:
    """An example with tokens deleted, duplicated, swapped, replaced or inserted."""
    tokens = tokens_of(draw(st.sampled_from(list(EXAMPLES.values()))))
    for _ in range(draw(st.integers(1, 4))):
        tokens = mutate(tokens, lambda options: draw(st.sampled_from(options)))
    return "".join(tokens)


programs = st.one_of(valid_programs(), broken_programs())


# ---- running ------------------------------------------------------------------------------------


def snapshot(session: Interpreter) -> tuple:
    bindings = tuple((name, id(node), bits(node.value)) for name, node in session.bindings.items())
    gradients = {}
    for node in session.bindings.values():
        for member in node.topology():
            gradients[id(member)] = bits(member.gradient)
    return bindings, tuple(sorted(gradients.items()))


def run_checked(text: str) -> tuple[list[ast.Statement], str | None]:
    """Run ``text`` one statement at a time in a fresh session, checking each failure: a kind
    of the spec, never internal, and nothing changed. The statements that ran, and the kind of
    the failure (None when all ran)."""
    source = Source("mutant.sad", text)
    try:
        program = parse_program(source)
    except LanguageError as error:
        kind = error.diagnostic.kind
        assert kind in {"syntax-error", "too-deep"}, error.diagnostic.message
        assert [type(outcome) for outcome in Interpreter().run(source)] == [Failed]
        return [], kind
    session = Interpreter()
    done: list[ast.Statement] = []
    for statement in program.statements:
        before = snapshot(session)
        outcomes = list(session.run_program(ast.Program((statement,)), source))
        failures = [outcome for outcome in outcomes if isinstance(outcome, Failed)]
        if failures:
            (failure,) = failures
            assert outcomes[-1] is failure
            kind = failure.diagnostic.kind
            assert kind in RUNTIME_KINDS, (kind, failure.diagnostic.message)
            assert snapshot(session) == before
            return done, kind
        done.append(statement)
    return done, None


def expected_status(kind: str | None) -> int:
    return 0 if kind is None else 2 if kind in STATIC_KINDS else 1


def front_ends(source: Source | str) -> tuple[int, str, int, str, str]:
    """Text status and stderr, JSON status and lines, text stdout, as the command prints them."""
    if isinstance(source, str):
        source = Source("mutant.sad", source)
    out, err = io.StringIO(), io.StringIO()
    text_status = ScriptOutput(out, err).run(source)
    json_out = io.StringIO()
    json_status = ScriptOutput(json_out, io.StringIO(), json_lines=True).run(source)
    return text_status, err.getvalue(), json_status, json_out.getvalue(), out.getvalue()


# ---- the engine, called directly ------------------------------------------------------------------


class Direct:
    """The statements that ran, replayed on `Scalar` itself: bindings, passes committed by
    ``backward`` (and ``walk``), ``zero_grad``; what changes nothing (print, assert, expect, graph,
    gradcheck, bare values) is skipped. Its passes are what the JSON must show."""

    UNARY = {"exp": Scalar.exp, "tanh": Scalar.tanh, "log": Scalar.log, "detach": Scalar.detach}
    BINARY = {
        "+": Scalar.add, "-": Scalar.sub, "*": Scalar.mul, "/": Scalar.div,
        "**": lambda base, exponent: base ** exponent.value,  # a constant exponent (else it failed)
        "//": lambda left, right: Scalar.constant(left.value // right.value),  # constants, no edges
        "%": lambda left, right: Scalar.constant(left.value % right.value),
    }
    COMPARISONS = {
        "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    }

    def softmax(self, logits, rest):  # each exp(L[i] - max(L)) over their left-folded sum
        top = Scalar.constant(max(item.value for item in logits))
        weights = [(item - top).exp() for item in logits]
        total = weights[0]
        for weight in weights[1:]:
            total = total + weight
        return [weight / total for weight in weights]

    def cross_entropy(self, logits, rest):
        return Scalar.logsumexp(logits) - logits[int(self.number(rest[0]))]

    def extreme(largest: bool):  # type: ignore[misc]  # (a helper of the class body, deleted after)
        def fold(self, first, rest):
            items = first if isinstance(first, list) else [first, *map(self.node, rest)]
            if len(items) == 2 and not isinstance(first, list):
                return items[0].max(items[1]) if largest else items[0].min(items[1])
            return Scalar.max_of(items) if largest else Scalar.min_of(items)

        return fold

    def argmax(self, logits, rest):
        values = [item.value for item in logits]
        return Scalar.constant(values.index(max(values)))

    LISTS = {
        "softmax": softmax, "cross_entropy": cross_entropy, "logsumexp": lambda self, logits, rest: Scalar.logsumexp(logits),
        "max": extreme(True), "min": extreme(False), "argmax": argmax,
    }
    del extreme

    def __init__(self) -> None:
        self.bindings: dict[str, Scalar] = {}
        self.passes: list = []

    def run(self, statement: ast.Statement) -> None:
        if isinstance(statement, ast.Quiet):  # committed as any pass, but not shown
            shown = len(self.passes)
            self.run(statement.statement)
            del self.passes[shown:]
        elif isinstance(statement, ast.Let):
            self.bindings[statement.name] = self.node(statement.value)
        elif isinstance(statement, ast.ZeroGrad):
            targets = list(self.bindings.values()) if statement.target is None else [self.node(statement.target)]
            while targets:  # lists hold nodes too
                target = targets.pop()
                if isinstance(target, list):
                    targets.extend(target)
                else:
                    target.zero_grad()
        elif isinstance(statement, ast.ExprStatement) and isinstance(statement.expr, ast.Call):
            call = statement.expr
            if call.function in ("backward", "walk"):  # a walk is backward's pass and commit
                output = self.node(call.args[0])
                seed = self.number(call.args[1]) if len(call.args) == 2 else 1.0
                self.passes.append(output.backward_with_seed(seed))

    def number(self, expr: ast.Expr) -> float:
        literal = self.literal(expr)
        return literal if literal is not None else self.node(expr).value

    @staticmethod
    def literal(expr: ast.Expr) -> float | None:
        if isinstance(expr, ast.Number):
            return expr.value
        if isinstance(expr, ast.Unary) and isinstance(expr.operand, ast.Number):
            return -expr.operand.value
        return None

    def node(self, expr: ast.Expr) -> Scalar:  # the examples nest a few levels: recursion is fine
        if isinstance(expr, ast.Number):
            return Scalar.constant(expr.value)
        if isinstance(expr, ast.Name):
            return self.bindings[expr.name]
        if isinstance(expr, ast.Unary):
            return -self.node(expr.operand)
        if isinstance(expr, ast.Binary):
            return self.BINARY[expr.op](self.node(expr.left), self.node(expr.right))
        if isinstance(expr, ast.Compare):  # a constant 1 or 0, no edges
            holds = self.COMPARISONS[expr.op](self.node(expr.left).value, self.node(expr.right).value)
            return Scalar.constant(1.0 if holds else 0.0)
        if isinstance(expr, ast.Leaf):
            literal = self.literal(expr.operand)
            value = literal if literal is not None else self.node(expr.operand).value
            return Scalar.variable(value) if expr.kind == "var" else Scalar.constant(value)
        if isinstance(expr, ast.ListLiteral):  # a number item, possibly negated, is one constant
            return [Scalar.constant(number) if (number := self.literal(item)) is not None else self.node(item)
                    for item in expr.items]  # type: ignore[return-value]
        if isinstance(expr, ast.Index):
            return self.node(expr.target)[int(self.number(expr.index))]  # type: ignore[index]
        argument = self.node(expr.args[0])
        function = expr.function
        if function in self.LISTS:  # issue 32's functions of a list of logits
            return self.LISTS[function](self, argument, expr.args[1:])
        if function in self.UNARY:
            return self.UNARY[function](argument)
        if function == "value":
            return Scalar.constant(argument.value)
        if function == "grad":
            return Scalar.constant(argument.gradient)
        topology = argument.topology()
        if function == "node_count":
            return Scalar.constant(len(topology))
        return Scalar.constant(sum(len(member.parents) for member in topology))


def jsonable(value):
    """A float as the JSON lines write it (bits for finite ones: -0.0 is not 0.0)."""
    if isinstance(value, float):
        return bits(value) if math.isfinite(value) else ("nan" if value != value else "inf" if value > 0 else "-inf")
    return value


def from_json(value):
    return bits(float(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


NODE_FIELDS = ("topology_index", "value", "tracked", "pass_adjoint", "accumulated_gradient")
EDGE_FIELDS = (
    "reverse_index", "child", "parent", "operand", "local_derivative", "upstream", "contribution",
    "parent_tracked", "parent_adjoint_before", "parent_adjoint_after",
)


def compare_passes(events: list[dict], passes: list) -> None:
    assert len(events) == len(passes)
    for event, backward_pass in zip(events, passes):
        assert from_json(event["seed"]) == jsonable(backward_pass.seed)
        assert len(event["nodes"]) == len(backward_pass.nodes) and len(event["edges"]) == len(backward_pass.edges)
        for shown, record in zip(event["nodes"], backward_pass.nodes):
            assert shown["operation"] == str(record.operation)
            for field in NODE_FIELDS:
                integer = field == "topology_index"
                want = getattr(record, field)
                assert (shown[field] if integer else from_json(shown[field])) == (want if integer else jsonable(want)), field
        for shown, record in zip(event["edges"], backward_pass.edges):
            for field in EDGE_FIELDS:
                want = getattr(record, field)
                got = shown[field]
                if isinstance(want, float):
                    assert from_json(got) == jsonable(want), field
                else:
                    assert got == want, field


# ---- properties ------------------------------------------------------------------------------------


@given(valid_programs())
def test_valid_variants_parse(text):
    parse_program(Source("variant.sad", text))


@given(programs)
def test_mutants_never_fail_internally_and_a_failure_changes_nothing(text):
    note(repr(text))
    run_checked(text)


@given(programs)
def test_mutants_through_the_text_and_json_front_ends(text):
    note(repr(text))
    _, kind = run_checked(text)
    text_status, err, json_status, json_out, _ = front_ends(text)
    assert text_status == json_status == expected_status(kind)
    assert "Traceback" not in err and "internal-error" not in err
    events = [json.loads(line) for line in json_out.splitlines()]
    errors = [event for event in events if event["event"] == "error"]
    assert [event["kind"] for event in errors] == ([kind] if kind else [])
    if kind:
        assert err.startswith(f"error[{kind}]: ") or f"\nerror[{kind}]: " in err
    # The command itself, in this process, prints the same JSON lines.
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = cli.main(["--json", "-c", text])
    assert status == json_status
    assert out.getvalue() == json_out.replace('"file": "mutant.sad"', '"file": "<command line>"')


@given(programs)
def test_json_gradients_match_the_engine_called_directly(text):
    note(repr(text))
    done, kind = run_checked(text)
    _, _, _, json_out, _ = front_ends(text)
    events = [event for event in map(json.loads, json_out.splitlines()) if event["event"] == "backward"]
    direct = Direct()
    for statement in done:
        direct.run(statement)
    compare_passes(events, direct.passes)


def test_the_examples_themselves_match_the_engine_called_directly():
    for name, text in EXAMPLES.items():
        done, kind = run_checked(text)
        assert kind is None, (name, kind)  # every example runs to its end
        _, _, _, json_out, _ = front_ends(text)
        events = [event for event in map(json.loads, json_out.splitlines()) if event["event"] == "backward"]
        direct = Direct()
        for statement in done:
            direct.run(statement)
        assert events or "backward(" not in text, name
        compare_passes(events, direct.passes)


@pytest.mark.skipif(not COMMAND.exists(), reason=f"{COMMAND} is not installed")
def test_a_seeded_batch_of_mutants_through_the_real_command(tmp_path):
    """One process, many files: its JSON lines are exactly what the front end printed for
    each file in this process, and its status is the worst of theirs."""
    rng = random.Random(5)
    paths, expected, worst = [], [], 0
    for index in range(60):
        tokens = tokens_of(rng.choice(list(EXAMPLES.values())))
        for _ in range(rng.randint(0 if index < 7 else 1, 4)):
            tokens = mutate(tokens, rng.choice)
        path = tmp_path / f"mutant{index:02}.sad"
        path.write_text("".join(tokens), encoding="utf-8")
        paths.append(path)
        _, kind = run_checked("".join(tokens))
        _, _, status, json_out, _ = front_ends(read_source(str(path)))
        assert status == expected_status(kind)
        expected.append(json_out)
        worst = max(worst, status)
    result = subprocess.run(
        [str(COMMAND), "--json", *map(str, paths)], capture_output=True, cwd=ROOT, timeout=300
    )
    assert result.stderr == b""
    assert result.returncode == worst
    assert result.stdout.decode("utf-8") == "".join(expected)
    text = subprocess.run([str(COMMAND), *map(str, paths)], capture_output=True, cwd=ROOT, timeout=300)
    assert text.returncode == worst
    assert b"Traceback" not in text.stderr and b"internal-error" not in text.stderr
