"""Forward mode in the language (issue 44): `jvp`, `tangents` and `jacobian` as built-ins, their
text, JSON events and errors, and the session they leave exactly as it was (names, gradients,
the history of passes, the undo journal's work, labels)."""

from __future__ import annotations

import json
import math
import sys
import time
from functools import reduce
from operator import add
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from commands import needs_command, run_program
from sessions import failure, only, run, run_ok, script_output, shown
from shared import bits, text_of
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Failed, JacobianShown, TangentsShown, ValueShown
from scalarlang.interpreter.values import label_of

ROOT = Path(__file__).resolve().parents[1]

REUSED_SQUARE = "let x = var 3\nlet square = x * x\nlet y = square + square\n"
MODEL = """let x = var 0.5
let w = var -1.5
let b = var 0.25
let y = tanh(w * x + b) * x + x * x
"""


def value_of(text: str, session: Interpreter) -> float:
    (outcome,) = shown(run(text, session), ValueShown)
    return outcome.node.value


# ---- jvp ----------------------------------------------------------------------------------------


@given(st.lists(st.sampled_from([1.0, -1.0, 0.5, 0.0, 2.0, -0.25]), min_size=3, max_size=3))
def test_jvp_is_the_gradient_dotted_with_the_direction(direction):
    session, _ = run_ok(MODEL)
    v = ", ".join(repr(number) for number in direction)
    tangent = value_of(f"jvp(y, [x, w, b], [{v}])", session)
    run_ok("backward(y)", session)
    gradients = [value_of(f"grad({name})", session) for name in ("x", "w", "b")]
    dot = reduce(add, [gradient * number for gradient, number in zip(gradients, direction)])
    assert abs(tangent - dot) <= 1e-12 * max(1.0, abs(dot))


def test_jvp_along_one_variable_is_its_derivative_and_a_constant():
    session, _ = run_ok(MODEL)
    (outcome,) = shown(run("jvp(y, x)", session), ValueShown)
    x, w, b = 0.5, -1.5, 0.25
    inner = math.tanh(w * x + b)
    assert outcome.node.value == pytest.approx(inner + x * (1 - inner**2) * w + 2 * x, rel=1e-14)
    assert not outcome.node.tracked and outcome.node.operation == "constant"
    assert value_of("jvp(y, x, 2)", session) == value_of("jvp(y, [x], [2])", session) == 2 * outcome.node.value
    assert value_of("jvp(y, var 7)", session) == 0.0  # a variable the graph does not hold


def test_jvp_agrees_with_central_differences_as_gradcheck_takes_them():
    session, _ = run_ok(MODEL)
    tangent = value_of("jvp(y, [x, w], [1, -0.5])", session)
    step = 2.0**-20

    def f(t: float) -> float:
        x, w, b = 0.5 + t, -1.5 - 0.5 * t, 0.25
        return math.tanh(w * x + b) * x + x * x

    assert tangent == pytest.approx((f(step) - f(-step)) / (2 * step), rel=1e-8)


# ---- nothing of the session changes ------------------------------------------------------------


def everything(session: Interpreter) -> tuple:
    """Names (by identity), every reachable node's stored gradient and label, the history of
    passes, the variables passes reached, the generator's state."""
    names = tuple((name, id(value)) for name, value in session.bindings.items())
    nodes = {id(member): member for node in session.bindings.values() for member in node.topology()}
    gradients = tuple(sorted((key, bits(node.gradient)) for key, node in nodes.items()))
    labels = tuple(sorted((key, label_of(node)) for key, node in nodes.items()))
    state = session.state
    history = None if state.history is None else [id(event) for event in state.history.newest_first()]
    return names, gradients, labels, history, sorted(map(id, state.reached.variables)), state.random.getstate()


FORMS = [
    "jvp(y, x)",
    "jvp(y, [x, w, b], [1, 0, 2])",
    "tangents(y, x)",
    "tangents(y, [x, w], [0.5, 1])",
    "jacobian([y, w * x], [x, w, b])",
    "quiet tangents(y, b)",
    "expect direction-length-mismatch: jvp(y, [x, w], [1])",
    "expect not-a-variable: tangents(y, [x, y], [1, 1])",
]


@pytest.mark.parametrize("form", FORMS)
def test_each_form_leaves_the_session_as_it_was(form):
    session, _ = run_ok(MODEL + "backward(y)\nexplain(x)\nbackward(y)\n")
    before = everything(session)
    outcomes = run(form, session)
    assert not shown(outcomes, Failed)
    assert everything(session) == before
    # in an atomic input that fails later, the undo puts back what the input did: nothing
    outcomes = run(f"{form}\nlet x = 5\nnope", session, atomic=True)
    assert isinstance(outcomes[-1], Failed) and everything(session) == before


# ---- tangents -----------------------------------------------------------------------------------


def test_the_reused_squares_trace_writes_each_tangent_as_its_sum_over_edges():
    _, outcomes = run_ok(REUSED_SQUARE + "tangents(y, x)")
    assert text_of(outcomes).splitlines() == [
        "tangents of y along x: one forward pass, operands before results",
        "  [0] x       variable   3  ṫ = 1 (input)",
        "  [1] square  mul        9  ṫ = 3 × 1 + 3 × 1 = 6",
        "  [2] y       add       18  ṫ = 1 × 6 + 1 × 6 = 12",
        "dy/dx = 12 (1 forward pass: 3 nodes visited)",
    ]


def test_a_direction_is_named_in_the_trace_and_its_result():
    _, outcomes = run_ok("let x = var 2\nlet w = var 3\nlet c = const 4\nlet y = x * w + c\ntangents(y, [x, w], [1, 0.5])")
    lines = text_of(outcomes).splitlines()
    assert lines[0] == "tangents of y along (x: 1, w: 0.5): one forward pass, operands before results"
    assert "ṫ = 3 × 1 + 2 × 0.5 = 4" in lines[3]
    assert lines[4].split() == ["[3]", "c", "constant", "4", "ṫ", "=", "0"]
    assert lines[-1] == "dy along (x: 1, w: 0.5) = 4 (1 forward pass: 5 nodes visited)"


def test_the_trace_sums_against_an_independent_forward_pass():
    _, outcomes = run_ok(MODEL + "tangents(y, [x, w, b], [1, -2, 0.5])")
    trace = only(outcomes, TangentsShown)
    session, _ = run_ok(MODEL)
    output = session.bindings["y"]
    seeds = {id(session.bindings[name]): number for name, number in (("x", 1.0), ("w", -2.0), ("b", 0.5))}
    # the definition, on the session's own graph: operands first, a left fold over each node's edges
    order, tangent_of = output.topology(), {}
    for node, record in zip(order, trace.nodes):
        edges = node.parents
        products = [edge.local_derivative * tangent_of[id(edge.parent)] for edge in edges]
        tangent_of[id(node)] = reduce(add, products) if edges else seeds.get(id(node), 0.0)
        assert bits(record.tangent) == bits(tangent_of[id(node)])
        assert [bits(term.product) for term in record.terms] == [bits(product) for product in products]
        assert record.label == label_of(node) and record.input == (id(node) in seeds)
    assert len(trace.nodes) == len(order) and bits(trace.tangent) == bits(tangent_of[id(output)])


def test_tangents_and_jacobian_are_json_events():
    _, outcomes = run_ok(REUSED_SQUARE + "tangents(y, x)\njacobian([y, square], [x])")
    from scalarlang.render.events import event_of

    tangents, jacobian = (json.loads(json.dumps(event_of(outcome, "t.sad"))) for outcome in outcomes[-2:])
    assert tangents["event"] == "tangents" and tangents["visited"] == 3 and tangents["passes"] == 1
    assert [node["tangent"] for node in tangents["nodes"]] == [1.0, 6.0, 12.0]
    assert tangents["nodes"][1]["terms"] == [{"operand": 0, "local": 3.0, "operand_tangent": 1.0, "product": 3.0}] * 2
    assert jacobian["event"] == "jacobian" and jacobian["forward"] == jacobian["reverse"] == [[12.0], [6.0]]
    assert (jacobian["forward_passes"], jacobian["reverse_passes"]) == (1, 2)
    assert (jacobian["forward_visits"], jacobian["reverse_visits"], jacobian["largest_difference"]) == (3, 5, 0.0)


def test_a_long_trace_shows_its_first_rows_and_how_many_more():
    program = "let x = var 0.5\nlet y = x\nrepeat 300 { let y = y * 1 }\ntangents(y, x)"
    _, outcomes = run_ok(program)
    lines = text_of(outcomes).splitlines()
    assert "  … 401 more nodes (--json lists them all)" in lines  # 601 nodes, 200 shown
    assert lines[-1] == "dy/dx = 1 (1 forward pass: 601 nodes visited)"


# ---- jacobian and its counts --------------------------------------------------------------------


def test_three_inputs_and_one_output_show_why_training_is_reverse_mode():
    program = "let a = var 1\nlet b = var 2\nlet c = var 3\nlet loss = a * b + b * c\njacobian([loss], [a, b, c])"
    _, outcomes = run_ok(program)
    shown_ = only(outcomes, JacobianShown)
    assert shown_.forward == shown_.reverse == ((2.0, 4.0, 2.0),)
    assert (shown_.forward_passes, shown_.forward_visits) == (3, 3 * 6)  # a, b, a * b, c, b * c, loss
    assert (shown_.reverse_passes, shown_.reverse_visits) == (1, 6)
    assert text_of(outcomes).splitlines()[-3:] == [
        "forward mode: 3 passes (one per input), 18 node visits",
        "reverse mode: 1 pass (one per output), 6 node visits",
        "largest difference between the two: 0",
    ]


def test_one_input_and_three_outputs_turn_the_counts_around():
    program = "let x = var 0.5\nlet s = x * x\njacobian([s, exp(s), s * 3], [x])"
    _, outcomes = run_ok(program)
    shown_ = only(outcomes, JacobianShown)
    assert (shown_.forward_passes, shown_.reverse_passes) == (1, 3)
    # forward: x, s, exp(s), 3, s * 3 once; reverse: each output's own graph
    assert shown_.forward_visits == 5 and shown_.reverse_visits == 2 + 3 + 4
    assert shown_.forward[1][0] == pytest.approx(math.exp(0.25), rel=1e-15)


# ---- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("call, kind, message", [
    ("jvp(y, c)", "not-a-variable", "`jvp` moves variables; `c` is a constant node, not a variable"),
    ("tangents(y, [x, x * w], [1, 1])", "not-a-variable", "`tangents` moves variables; `x * w` is a mul node, not a variable"),
    ("jacobian([y], [x, detach(w)])", "not-a-variable", "`jacobian` moves variables; `detach(w)` is a detached node, not a variable"),
    ("jvp(y, [x, w], [1])", "direction-length-mismatch", "`jvp` has 2 inputs and a direction of 1 number: one number per input"),
    ("tangents(y, [x, w])", "wrong-arguments", "`tangents` of a list of inputs moves them along a direction: give it as a third argument"),
    ("jvp(x * 1e300, x, 1e300)", "non-finite-tangent", None),
    ("jvp(y, [])", "wrong-arguments", "`jvp` of an empty list: it has no inputs"),
    ("jacobian([], [x])", "wrong-arguments", "`jacobian` of an empty list: it has no outputs"),
    ("jvp([y], x)", "not-a-node", None),
    ("jvp(y)", "wrong-arguments", None),
])
def test_errors_are_typed_and_change_nothing(call, kind, message):
    session, _ = run_ok("let x = var 2\nlet w = var 3\nlet c = const 4\nlet y = x * w + c\nbackward(y)\n")
    before = everything(session)
    diagnostic = failure(call, session)
    assert diagnostic.kind == kind
    if message is not None:
        assert diagnostic.message == message
    assert everything(session) == before
    assert run(f"expect {kind}: {call}", session)[-1].kind == kind


# ---- the limits of a Jacobian -------------------------------------------------------------------

# 2,000 variables and a chain of 7,997 nodes (each step a mul, its constant 0.5 and an add, and
# the variable it adds): one output by all 2,000 inputs is 2,000 forward passes over 7,997 nodes
# and one reverse pass over them, 16,001,997 node visits (about 2 s before the limit).
CHAIN = """let xs = [var i for i in 0..2000]
let y = xs[0]
for i in 1..2000 { let y = y * 0.5 + xs[i] }
"""


@needs_command
def test_a_jacobian_past_its_node_visits_is_too_long_through_the_command():
    started = time.perf_counter()
    result = run_program(CHAIN + "jacobian([y], xs)\nprint \"after\"", width=200)
    elapsed = time.perf_counter() - started
    assert result.returncode == 1 and result.stdout == ""
    flat = " ".join(result.stderr.split())
    assert flat.startswith(
        "error[too-long]: `jacobian` of 1 output by 2,000 inputs: its passes would visit 16,001,997 nodes "
        "(2,000 forward passes over a graph of 7,997 nodes, and a reverse pass per output over its own); a "
        "Jacobian may make at most 10,000,000 node visits --> <stdin>:4:1"), result.stderr
    assert "help: `jvp(Y, X)` is one column (one forward pass), `backward(Y)` one row" in flat
    assert elapsed < 20  # refused before any pass (the program itself takes a fraction of a second)
    # under the limit it runs: 1,000 inputs are 8,004,997 visits
    result = run_program(CHAIN + "jacobian([y], [xs[i] for i in 0..1000])", width=200)
    assert result.returncode == 0, result.stderr
    assert "forward mode: 1,000 passes (one per input), 7,997,000 node visits" in result.stdout


@needs_command
def test_a_jacobian_of_many_outputs_is_refused_while_their_graphs_are_walked():
    # 2,000 outputs, each over the whole chain (2,000 reverse passes of 7,999 nodes: 16 million
    # visits): the count passes the limit while the outputs' graphs are walked, about the
    # 1,250th, before any pass: "at least".
    result = run_program(CHAIN + "jacobian([y * k for k in 0..2000], [xs[0]])", "--json")
    assert result.returncode == 1
    event = json.loads(result.stdout.splitlines()[-1])
    assert event["event"] == "error" and event["kind"] == "too-long"
    assert event["limit"] == 10_000_000 and event["visits"] > 10_000_000 and event["outputs"] == 2000
    assert "its passes would visit at least " in event["message"] and " nodes or more" in event["message"]


@needs_command
def test_a_jacobian_matrix_past_its_entries_is_too_long():
    program = "let x = var 1\nlet y = x * 2\njacobian([y for i in 0..2000], [x for i in 0..1000])"
    result = run_program(program, width=200)
    assert result.returncode == 1
    assert " ".join(result.stderr.split()).startswith(
        "error[too-long]: `jacobian` of 2,000 outputs by 1,000 inputs: its matrix would have 2,000 × 1,000 = "
        "2,000,000 entries; a Jacobian may have at most 1,000,000 -->"), result.stderr


def test_expect_catches_a_jacobian_too_long_and_the_session_is_unchanged():
    session, _ = run_ok(CHAIN + "backward(y)")
    before = everything(session)
    assert failure("jacobian([y], xs)", session).kind == "too-long"
    assert everything(session) == before
    assert run("expect too-long: jacobian([y], xs)", session)[-1].kind == "too-long"
    assert everything(session) == before


# ---- in a notebook and in the playground --------------------------------------------------------


def test_the_trace_shows_in_the_api_and_the_playground():
    import scalarlang

    result = scalarlang.run(REUSED_SQUARE + "tangents(y, x)\njacobian([y], [x])")
    assert "ṫ = 3 × 1 + 3 × 1 = 6" in result.text and "reverse mode: 1 pass" in result.text
    assert "ṫ = 3 × 1 + 3 × 1 = 6" in result._repr_html_()
    sys.path.insert(0, str(ROOT / "playground"))
    import sad_playground

    messages: list[dict] = []
    sad_playground.run(REUSED_SQUARE + "tangents(y, x)", "p.sad", lambda message: messages.append(json.loads(message)))
    text = "".join(part.get("text", "") for message in messages[:-1] for part in message["parts"])
    assert "dy/dx = 12 (1 forward pass: 3 nodes visited)" in text


# ---- the docs -----------------------------------------------------------------------------------


def test_the_readme_forward_section_prints_what_it_shows():
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Forward and reverse\n", 1)[1].split("\n## ", 1)[0]
    program, output = re.findall(r"```\n(.*?)```", section, flags=re.DOTALL)
    assert script_output(program, "forward.sad") == (0, output)
    language = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    for block in re.findall(r"```\n(.*?)```", language.split("## Forward and reverse", 1)[1].split("\n## ", 1)[0], flags=re.DOTALL):
        assert block in output  # docs/language.md shows the same two results
    example = (ROOT / "examples" / "forward_mode.sad").read_text(encoding="utf-8")
    assert all(line in example for line in program.splitlines()[1:4])  # the chapter's reused square


def test_help_lists_forward_mode_as_a_task_of_its_own():
    import io

    from scalarlang.front.repl_core import ReplCore
    from scalarlang.render.text import Renderer, make_console

    stream = io.StringIO()
    ReplCore(Renderer(make_console(stream, width=80, color="never"))).handle(":help")
    section = " ".join(stream.getvalue().split("\nforward mode\n", 1)[1].split("\ncommands\n", 1)[0].split())
    for form in ("jvp(Y, X) · jvp(Y, [X, …], [V, …])", "tangents(Y, X)", "jacobian([Y, …], [X, …])"):
        assert form in section
