"""Tensors in `.sad` (issue 42), their failures: every typed error at its span, with the words and
fields a learner needs (both shapes and the operator, a hint); atomic (an input that fails
changes no binding and no stored gradient, tensors' included); through the real command and
its JSON events, never a traceback; `:help` lists the tensor built-ins under "tensors".
"""

from __future__ import annotations

import io
import json
import math
import struct

import pytest

import scalarlang
from commands import needs_command, run_program
from scalarlang.engine.passes import topology
from scalarlang.engine.scalar import Scalar
from scalarlang.engine.tensor import Tensor
from scalarlang.front.repl_core import ReplCore
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.failures import RUNTIME_KINDS
from scalarlang.interpreter.library.registry import VALUE_FUNCTIONS
from scalarlang.render.text import Renderer, make_console

from sessions import failure, run, run_ok

SETUP = """
let A = tensor([[1, 2, 3], [4, 5, 6]])
let W = var tensor([[0.5, -1], [2, 0.25], [1, 1]])
let b = var 0.1
let v = var tensor([1, 2, 3])
let x = var 2
let L = [1, 2]
let loss = sum(tanh(A @ W + b)) + x * x
backward(loss)
"""

# (statement, kind, the span's text, words of the message, fields)
ERRORS = [
    ("A @ A", "shape-mismatch", "A @ A", "@ cannot combine shapes [2, 3] and [2, 3] (transpose(A), of shape [3, 2]?)",
     {"operator": "@", "left": [2, 3], "right": [2, 3]}),
    ("W @ W", "shape-mismatch", "W @ W", "@ cannot combine shapes [3, 2] and [3, 2] (transpose(W), of shape [2, 3]?)",
     {"left": [3, 2]}),
    ("A + W", "shape-mismatch", "A + W", "+ cannot combine shapes [2, 3] and [3, 2]", {"operator": "+"}),
    ("A * tensor([1, 2])", "shape-mismatch", "A * tensor([1, 2])", "* cannot combine shapes [2, 3] and [2]", {}),
    ("A < W", "shape-mismatch", "A < W", "< cannot combine shapes", {}),
    ("tensor([[1, 2], [3]])", "bad-shape", "tensor([[1, 2], [3]])", "row [1]", {"row": [1]}),
    ("tensor([[1, 2], [3, 4], [5, 6, 7]])", "bad-shape", "tensor([[1, 2], [3, 4], [5, 6, 7]])", "row [2]", {"row": [2]}),
    ("tensor([])", "invalid-shape", "tensor([])", "is not a shape", {}),
    ("zeros(2, 0)", "invalid-shape", "zeros(2, 0)", "[2, 0] is not a shape", {}),
    ("zeros(1.5)", "invalid-shape", "1.5", "a dimension must be a whole number", {}),
    ("reshape(A, 4)", "reshape-mismatch", "reshape(A, 4)", "cannot reshape [2, 3] to [4]", {}),
    ("sum(A, axis: 2)", "axis-out-of-range", "sum(A, axis: 2)", "axis 2 is out of range for a tensor of rank 2", {}),
    ("softmax(v, axis: -2)", "axis-out-of-range", "softmax(v, axis: -2)", "axis -2", {}),
    ("A[2]", "index-out-of-range", "2", "index 2 is out of range for `A`, a tensor [2, 3]", {}),
    ("A[1][-4]", "index-out-of-range", "-4", "index -4 is out of range", {}),
    ("A[[0, 2]]", "index-out-of-range", "[0, 2]", "index 2 is out of range", {}),
    ("A[0.5]", "not-an-index", "0.5", "an index must be a whole number, not 0.5", {}),
    ("A[tensor([0.5])]", "non-whole-index", "tensor([0.5])", "index 0.5 is not a whole number", {}),
    ("cross_entropy(A, [0, 3])", "index-out-of-range", "cross_entropy(A, [0, 3])", "index 3", {}),
    ("exp(A * 1000)", "non-finite-tensor-result", "exp(A * 1000)", "exp produced non-finite value", {}),
    ("tanh(A) + L", "not-a-list", "tanh(A)", "`tanh(A)` is a tensor [2, 3], not a list: `+` of a list", {}),
    ("exp(L[0]) + tanh(x) * v - L", "not-a-node", "L", "`L` is a list of 2", {}),
    ("backward(A @ W)", "not-a-node", "A @ W", "`A @ W` is a tensor [2, 2], not a node", {"found": "tensor", "shape": [2, 2]}),
    ("if v > 1 { print 1 }", "not-a-node", "v", "`v` is a tensor [3], not a node", {}),
    ("let y = x + W % 2", "not-a-node", "W", "is a tensor [3, 2]", {}),
    ("v ** x", "tracked-exponent", "x", "the exponent `x` is tracked", {}),
    # A tensor exponent: the exponent is what is wrong, not the base (it blamed the base once).
    ("v ** v", "tracked-exponent", "v", "the exponent `v` is a tracked tensor", {"found": "tensor", "shape": [3]}),
    ("x ** v", "tracked-exponent", "v", "the exponent `v` is a tracked tensor", {}),
    ("2 ** v", "tracked-exponent", "v", "the exponent `v` is a tracked tensor", {}),
    ("v ** A[0]", "not-a-node", "A[0]", "the exponent `A[0]` is a tensor [3]; `**` takes one number",
     {"found": "tensor", "shape": [3]}),
    ("transpose(x)", "not-a-tensor", "x", "`x` is a node, not a tensor: `transpose` takes a tensor", {"found": "node"}),
    ("shape(L)", "not-a-tensor", "L", "`L` is a list of 2, not a tensor", {"found": "list"}),
    ("x @ W", "not-a-tensor", "x", "`@` takes a tensor", {}),
    ("sum(L, axis: 0)", "wrong-arguments", "0", "`sum`'s `axis:` is for a tensor", {}),
    ("exp(A, axis: 0)", "wrong-arguments", "axis: 0", "`exp` takes no named arguments", {}),
    ("descend A by 0.1", "not-a-variable", "A", "`descend` needs tracked variables", {}),
    ("grad(A)", "no-gradient", "A", "untracked", {}),
    ("walk(A @ W)", "not-a-node", "A @ W", "`A @ W` is a tensor [2, 2], not a node", {"found": "tensor"}),
    ("walk(sum(v * v) * 1e300, 1e300)", "non-finite-tensor-adjoint", "sum(v * v) * 1e300", "non-finite pass adjoint",
     {}),
    ("paths(loss, x)", "tensor-graph", "loss", "`paths` shows graphs of scalar nodes", {"output": "loss", "tensor_nodes": 5}),
    ("gradcheck(loss, A)", "not-a-variable", "A", "is not a variable", {}),
    # (found by fuzzing the built-ins: 1e300 classes was an OverflowError, 2e7 made 4e7 elements)
    ("one_hot(L, 1e300)", "too-long", "1e300", "a tensor may hold at most 10,000,000 elements", {"limit": 10_000_000}),
    ("one_hot([0, 1], 2e7)", "too-long", "2e7", "a tensor may hold at most 10,000,000 elements", {}),
]


@pytest.mark.parametrize(
    "statement, element",
    [("backward(A @ W)", "(A @ W)[0]"), ("backward(A)", "A[0]"), ("backward(tanh(A))", "tanh(A)[0]"),
     ("edge_count(W * 2)", "(W * 2)[0]"), ("backward(var A)", "(var A)[0]")],
)
def test_the_help_of_a_tensor_for_a_node_indexes_the_whole_tensor(statement, element):
    # `A @ W[0]` would index W: the help wrote its `{text}[0]` without parentheses.
    session, _ = run_ok(SETUP)
    diagnostic = failure(statement, session)
    assert diagnostic.kind == "not-a-node"
    assert f"an element (`{element}`…) or a reduction (`sum(" in diagnostic.notes[-1], diagnostic.notes


def snapshot(session: Interpreter) -> tuple:
    """Every binding by identity, and the bits of every stored gradient (a tensor's elements
    too) in the graphs the bindings hold: what a failed input must leave as it was."""
    values = session.values
    nodes = []
    for value in values.values():
        items = value if isinstance(value, tuple) else (value,)
        nodes.extend(item for item in items if item.__class__ in (Scalar, Tensor))
    gradients = {}
    for node in nodes:
        for member in topology(node):
            stored = member.gradient
            if stored is not None:
                stored = stored if isinstance(stored, tuple) else (stored,)
                gradients[id(member)] = b"".join(struct.pack("<d", value) for value in stored)
    return tuple((name, id(value)) for name, value in values.items()), tuple(sorted(gradients.items()))


@pytest.mark.parametrize("statement, kind, span_text, words, fields", ERRORS, ids=[row[0] for row in ERRORS])
def test_each_error_is_typed_at_its_span(statement, kind, span_text, words, fields):
    session, _ = run_ok(SETUP)
    diagnostic = failure(statement, session)
    assert diagnostic.kind == kind, diagnostic.message
    assert kind in RUNTIME_KINDS
    source_text = statement
    assert source_text[diagnostic.span.start:diagnostic.span.end] == span_text, diagnostic
    assert words in diagnostic.message, diagnostic.message
    for name, value in fields.items():
        assert diagnostic.fields[name] == value, diagnostic.fields


@pytest.mark.parametrize("statement", [row[0] for row in ERRORS])
def test_an_input_that_fails_changes_nothing(statement):
    """In the REPL's atomic run: the statements before the failing one (a pass, a `descend`,
    draws, a new binding) are undone with it."""
    session, _ = run_ok(SETUP)
    before = snapshot(session)
    random_state = session.state.random.getstate()
    outcomes = run(
        "backward(loss)\nlet v = v * 2\nlet R = randn(3)\nzero_grad(x)\ndescend W by 0.5\n" + statement, session,
        atomic=True,
    )
    assert type(outcomes[-1]).__name__ == "Failed"
    assert snapshot(session) == before
    assert session.state.random.getstate() == random_state


def test_a_shape_mismatch_in_a_loop_names_the_operator_and_undoes_the_loop():
    session, _ = run_ok(SETUP)
    before = snapshot(session)
    outcomes = run("for i in 0..3 {\n  backward(loss)\n  descend W by 0.1\n  let Z = A @ W @ W\n}", session, atomic=True)
    (diagnostic,) = [outcome.diagnostic for outcome in outcomes if type(outcome).__name__ == "Failed"]
    assert diagnostic.kind == "shape-mismatch" and diagnostic.fields["operator"] == "@"
    assert snapshot(session) == before


@needs_command
def test_the_real_command_reports_tensor_errors_with_their_lines_and_no_traceback():
    program = "let A = tensor([[1, 2, 3], [4, 5, 6]])\nprint A\nlet B = A @ A\nprint 1\n"
    result = run_program(program, width=200)
    assert result.returncode == 1
    assert result.stdout == "tensor [2, 3]\n  1  2  3\n  4  5  6\n"
    assert "error[shape-mismatch]: @ cannot combine shapes [2, 3] and [2, 3] (transpose(A), of shape [3, 2]?)" in result.stderr
    assert " --> <stdin>:3:9" in result.stderr and "Traceback" not in result.stderr
    events = [json.loads(line) for line in run_program(program, "--json").stdout.splitlines()]
    (error,) = [event for event in events if event["event"] == "error"]
    assert (error["kind"], error["line"], error["column"]) == ("shape-mismatch", 3, 9)
    assert (error["operator"], error["left"], error["right"]) == ("@", [2, 3], [2, 3])


@needs_command
def test_the_real_command_trains_a_tensor_model_and_expect_catches_tensor_errors():
    program = (
        "random_seed(0)\nlet W = var randn(3, 2)\nlet X = tensor([[1, 0, 1], [0, 1, 1]])\n"
        "for step in 0..3 {\n  let loss = mean(cross_entropy(X @ W, [0, 1]))\n  backward(loss)\n"
        "  descend W by 0.5\n  zero_grad\n  print \"{step} {loss:.6f}\"\n}\n"
        "expect shape-mismatch: X @ X\nexpect bad-shape: tensor([[1], [2, 3]])\nexpect not-a-tensor: shape(1)\n"
    )
    result = run_program(program, width=200)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    losses = [float(line.split()[1]) for line in lines[:3]]
    assert losses[0] > losses[1] > losses[2]  # it learns
    assert [line.split(":")[0] for line in lines[3:]] == [
        "expected shape-mismatch", "expected bad-shape", "expected not-a-tensor",
    ]


def test_explain_of_a_scalar_in_a_kept_pass_through_tensors_shows_its_vjp_edge():
    session = scalarlang.Session()  # (it keeps the passes, for `explain` in a later call)
    result = session.run(SETUP + "explain(b)")
    assert result.ok, result.error
    # b's one edge is into `A @ W + b`, whose VJP sums dC over C: sum(1 - tanh(A @ W + b)²)
    a, w = [[1, 2, 3], [4, 5, 6]], [[0.5, -1], [2, 0.25], [1, 1]]
    gradient = 0.0
    for i in range(2):
        for j in range(2):
            inner = 0.0
            for k in range(3):
                inner += a[i][k] * w[k][j]
            gradient += 1 - math.tanh(inner + 0.1) ** 2
    assert session.names["b"].gradient == pytest.approx(gradient, rel=1e-12)
    assert "dB = dC, summed over C (B a scalar)" in result.text and "b: stored gradient" in result.text


def test_graph_and_draw_show_a_graph_holding_tensors_and_paths_refuses_it_pointing_to_vjp_check():
    session, _ = run_ok(SETUP)
    result = scalarlang.run(SETUP + "graph(loss)\ndraw(loss)")
    assert result.ok, result.error
    assert "matmul" in result.text and "[2, 2]" in result.text and "dA = dC @ Bᵀ" in result.text
    diagnostic = failure("paths(loss, x)", session)
    assert diagnostic.kind == "tensor-graph" and "`paths` shows graphs of scalar nodes" in diagnostic.message
    assert "`explain(T)`" in diagnostic.notes[0] and "`vjp_check(loss)` compares each VJP" in diagnostic.notes[0]


def test_the_python_api_reports_a_tensor_error_and_keeps_the_session():
    session = scalarlang.Session()
    assert session.run("let W = var tensor([1, 2])").ok
    result = session.run("let W = W @ tensor([[1, 2]])")
    assert result.error is not None and result.error.kind == "shape-mismatch"
    assert session.names["W"].tolist() == [1.0, 2.0]


def test_help_lists_the_tensor_built_ins_under_their_own_heading():
    tensors = [name for name, entry in VALUE_FUNCTIONS.items() if entry.category == "tensors"]
    assert tensors == ["tensor", "zeros", "ones", "randn", "rand", "shape", "reshape", "transpose"]
    stream = io.StringIO()
    ReplCore(Renderer(make_console(stream, width=100, color="never"))).handle(":help")
    text = stream.getvalue()
    section = text[text.index("\ntensors\n"):]
    for form in ("A @ B", "tensor(L)", "randn(S, …)", "reshape(T, S, …)", "transpose(T) · transpose(T, A, B)"):
        assert form in section, form
    assert "sum(T[, axis: K])" in text and "softmax(T[, axis: K])" in text


@needs_command
def test_for_over_a_tensor_through_the_command():
    # Its rows, as numpy and PyTorch iterate (a tensor was not-a-list to `for … in`).
    program = ("let X = var tensor([[1, 2], [3, 4], [5, 6]])\nfor row in X { print \"{row[0]} {sum(row)}\" }\n"
               "for x1, x2 in X { print x1 * x2 }\nlet loss = sum([sum(row * row) for row in X])\nbackward(loss)\n"
               "print grad(X)\nfor a, b, c in X { }\n")
    result = run_program(program)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "1 3", "3 7", "5 11", "2", "12", "30", "backward from loss with seed 1"] + result.stdout.splitlines()[7:]
    assert result.stdout.endswith("tensor [3, 2]\n   2   4\n   6   8\n  10  12\n")
    assert result.stderr.startswith("error[table-width]: `for` names 3, but each row of `X` (a tensor [3, 2]) is a")
