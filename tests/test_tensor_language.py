"""Tensors in `.sad` (issue 42): every form's values against numpy written here, apart from the
engine (1e-12 relative), through the Python API (`scalarlang.Session`); gradients of `backward`
through tensors; `descend`, `zero_grad` and `gradcheck` on tensor variables; the forward values
of a tensor program bit for bit those of the same program written with lists. The errors, the
atomic failures and the real command are tests/test_tensor_language_errors.py's.
"""

from __future__ import annotations

import random
import struct

import numpy as np
import pytest

import scalarlang
from scalarlang.engine import normal
from scalarlang.engine.scalar import Scalar
from scalarlang.engine.tensor import Tensor

from numpy_reference import softmax
from sessions import failure, only, printed, run_ok, session_after, state
from scalarlang.interpreter.outcomes import GraphShown

A = [[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]]  # [2, 3]
B = [[1.5, -2.0], [0.25, 0.5], [-1.0, 3.0]]  # [3, 2]
V = [0.2, -0.7, 1.1]  # [3]
SETUP = f"""
let A = tensor({A})
let B = tensor({B})
let v = tensor({V})
let col = tensor([[2], [-3]])
let row = tensor([[1, 2, 3]])
let s = var 1.5
let idx = [1, 0, 1]
"""


def close(found, expected, tolerance: float = 1e-12) -> None:
    expected = np.asarray(expected, dtype=float)
    found = np.asarray(found, dtype=float)
    assert found.shape == expected.shape, (found.shape, expected.shape)
    assert np.allclose(found, expected, rtol=tolerance, atol=1e-300), (found, expected)


def value_of(session: scalarlang.Session, expression: str):
    """The value of ``expression`` in ``session``: nested lists for a tensor, a float for a
    node, a list for a list."""
    session_after(f"let result__ = {expression}", session)
    value = session.names["result__"]
    if value.__class__ is Tensor:
        return value.tolist()
    if value.__class__ is Scalar:
        return value.value
    return [item.value for item in value]


@pytest.fixture(scope="module")
def session():
    return session_after(SETUP)


a, b, v = np.array(A), np.array(B), np.array(V)
col, row, s = np.array([[2.0], [-3.0]]), np.array([[1.0, 2.0, 3.0]]), 1.5


def logsumexp(x, axis=None):
    top = x.max(axis=axis, keepdims=True)
    total = np.log(np.exp(x - top).sum(axis=axis, keepdims=True)) + top
    return total.reshape(()) if axis is None else np.squeeze(total, axis=axis)


FORMS = [
    ("A", a),
    ("A + 1", a + 1), ("2 - A", 2 - a), ("A * s", a * s), ("s / A", s / a), ("A ** 2", a ** 2),
    ("-A", -a), ("A + v", a + v), ("v * A", v * a), ("col + row", col + row), ("A - col", a - col),
    ("A / row", a / row), ("A * A", a * a), ("abs(A) ** 0.5", np.abs(a) ** 0.5),
    ("A > 0", (a > 0).astype(float)), ("A <= v", (a <= v).astype(float)), ("A == A", np.ones((2, 3))),
    ("1 < A", (1 < a).astype(float)), ("A != 0.5", (a != 0.5).astype(float)),
    ("exp(A)", np.exp(a)), ("log(abs(A))", np.log(np.abs(a))), ("tanh(A)", np.tanh(a)),
    ("relu(A)", np.maximum(a, 0)), ("sigmoid(A)", 1 / (1 + np.exp(-a))), ("sqrt(abs(A))", np.sqrt(np.abs(a))),
    ("abs(A)", np.abs(a)), ("max(A, 0.6)", np.maximum(a, 0.6)), ("min(A, v)", np.minimum(a, v)),
    ("A @ B", a @ b), ("A @ v", a @ v), ("v @ B", v @ b), ("v @ v", v @ v), ("B @ A @ v", b @ a @ v),
    ("sum(A)", a.sum()), ("sum(A, axis: 0)", a.sum(axis=0)), ("sum(A, axis: -1)", a.sum(axis=1)),
    ("mean(A)", a.mean()), ("mean(A, axis: 1)", a.mean(axis=1)),
    ("max(A)", a.max()), ("max(A, axis: 0)", a.max(axis=0)), ("min(A)", a.min()), ("min(A, axis: 1)", a.min(axis=1)),
    ("logsumexp(A)", logsumexp(a)), ("logsumexp(A, axis: 1)", logsumexp(a, 1)), ("logsumexp(A, axis: 0)", logsumexp(a, 0)),
    ("softmax(A)", softmax(a, 1)), ("softmax(A, axis: 0)", softmax(a, 0)), ("softmax(v)", softmax(v, 0)),
    ("argmax(A)", a.argmax(axis=1)), ("argmax(A, axis: 0)", a.argmax(axis=0)), ("argmin(A)", a.argmin(axis=1)),
    ("cross_entropy(A, [2, 0])", logsumexp(a, 1) - a[[0, 1], [2, 0]]),
    ("cross_entropy(A, tensor([1, 1]))", logsumexp(a, 1) - a[[0, 1], [1, 1]]),
    ("mean(cross_entropy(A, [2, 0]))", (logsumexp(a, 1) - a[[0, 1], [2, 0]]).mean()),
    ("one_hot([2, 0, 1], 4)", np.eye(4)[[2, 0, 1]]), ("one_hot(tensor([1, 1]), 2)", np.eye(2)[[1, 1]]),
    ("A[1]", a[1]), ("A[-1]", a[-1]), ("A[1][2]", a[1][2]), ("v[0]", v[0]), ("B[idx]", b[[1, 0, 1]]),
    ("B[tensor([[0, 2], [2, 2]])]", b[np.array([[0, 2], [2, 2]])]), ("B[[[0, 2], [2, 2]]]", b[np.array([[0, 2], [2, 2]])]),
    ("reshape(A, 3, 2)", a.reshape(3, 2)), ("reshape(A, -1)", a.reshape(-1)), ("reshape(A, 6, -1)", a.reshape(6, 1)),
    ("reshape(v, shape(v))", v), ("transpose(A)", a.T),
    ("transpose(reshape(A, 1, 2, 3), 0, 2)", np.swapaxes(a.reshape(1, 2, 3), 0, 2)),
    ("transpose(reshape(A, 1, 2, 3), -1, 1)", np.swapaxes(a.reshape(1, 2, 3), -1, 1)),
    ("value(A * 2)", a * 2), ("detach(A * s)", a * s), ("zeros(2, 3)", np.zeros((2, 3))), ("ones(3)", np.ones(3)),
    ("zeros(shape(A))", np.zeros((2, 3))), ("tensor(A)", a), ("tensor([[1, 2], [3, 4]]) * s", np.array([[1, 2], [3, 4]]) * s),
    ("tensor([s, s * 2, 3])", np.array([s, 2 * s, 3])),
    ("len(A)", 2.0), ("len(B)", 3.0),
]


@pytest.mark.parametrize("expression, expected", FORMS, ids=[form for form, _ in FORMS])
def test_every_form_against_numpy(session, expression, expected):
    close(value_of(session, expression), expected)


def test_shape_is_a_list_of_counts(session):
    assert value_of(session, "shape(A)") == [2.0, 3.0]
    assert value_of(session, "shape(B[tensor([[0, 2], [2, 2]])])") == [2.0, 2.0, 2.0]
    assert scalarlang.run("print shape(zeros(4, 1, 2)), len(ones(5, 2))").text == "[4, 1, 2] 5\n"


def test_a_table_gives_a_rank_2_tensor(tmp_path, monkeypatch):
    (tmp_path / "t.csv").write_text("x,y\n1,2\n3,4.5\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    session = session_after('let T = tensor(read_table("t.csv"))')
    assert session.names["T"].tolist() == [[1.0, 2.0], [3.0, 4.5]]


def test_randn_and_rand_draw_what_a_comprehension_of_gauss_and_uniform_draws():
    session = session_after(
        "random_seed(7)\nlet G = randn(3, 4)\nlet U = rand(2, 5)\nlet after = uniform(0, 1)\n"
        "random_seed(7)\nlet g = [[gauss(0, 1) for j in 0..4] for i in 0..3]\n"
        "let u = [[uniform(0, 1) for j in 0..5] for i in 0..2]\nlet after2 = uniform(0, 1)\n"
    )
    names = session.names
    assert names["G"].tolist() == [[node.value for node in row] for row in names["g"]]
    assert names["U"].tolist() == [[node.value for node in row] for row in names["u"]]
    assert names["after"].value == names["after2"].value  # the generator moved on as far
    generator = random.Random(7)
    assert names["G"].tolist()[0] == [normal.gauss(generator, 0, 1) for _ in range(4)]  # Python's formula


def test_var_makes_tensor_variables_and_const_constants():
    session = session_after(
        "let W = var tensor([[1, 2]])\nlet Z = var zeros(2)\nlet R = var randn(2, 2)\nlet E = var exp(W)\n"
        "let K = const W * 2\n"
    )
    names = session.names
    for name in ("W", "Z", "R", "E"):
        assert names[name].is_variable and names[name].gradient == (0.0,) * names[name].size
    close(names["E"].tolist(), np.exp([[1.0, 2.0]]))
    assert not names["K"].tracks_gradient and names["K"].tolist() == [[2.0, 4.0]]


def gradient_program() -> tuple[str, dict]:
    """A model with every kind of edge: @ with broadcasting, a scalar node broadcast, an
    embedding lookup with repeated rows, a reduction along an axis, a repeated operand."""
    rng = np.random.default_rng(42)
    embeddings, weights, inputs = rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), [[0, 3], [3, 3], [1, 0]]
    bias = 0.3
    program = (
        f"let C = var tensor({embeddings.tolist()})\nlet W = var tensor({weights.tolist()})\nlet b = var {bias}\n"
        f"let X = {inputs}\n"
        "let E = C[X]\n"  # [3, 2, 3]
        "let H = tanh(reshape(E, 6, 3) @ W + b)\n"  # [6, 4]
        "let Z = reshape(H, 3, 8)\n"
        "let loss = mean(cross_entropy(Z, [1, 7, 0])) + sum(W * W, axis: 0)[2] * 0.1\n"
        "backward(loss)\n"
    )
    # numpy's forward and backward, written out by hand
    x = np.array(inputs)
    e = embeddings[x].reshape(6, 3)
    pre = e @ weights + bias
    h = np.tanh(pre)
    z = h.reshape(3, 8)
    targets = np.array([1, 7, 0])
    probabilities = softmax(z, 1)
    dz = probabilities.copy()
    dz[np.arange(3), targets] -= 1
    dz /= 3
    dpre = dz.reshape(6, 4) * (1 - h ** 2)
    dweights = e.T @ dpre
    dweights[:, 2] += 0.1 * 2 * weights[:, 2]
    demb = np.zeros_like(embeddings)
    np.add.at(demb, x.reshape(-1), (dpre @ weights.T).reshape(6, 3))
    loss = (logsumexp(z, 1) - z[np.arange(3), targets]).mean() + 0.1 * (weights[:, 2] ** 2).sum()
    return program, {"C": demb, "W": dweights, "b": dpre.sum(), "loss": loss}


def test_backward_through_tensors_against_numpy():
    program, expected = gradient_program()
    session = session_after(program)
    names = session.names
    close(names["loss"].value, expected["loss"])
    close(np.array(names["C"].gradient).reshape(5, 3), expected["C"])
    close(np.array(names["W"].gradient).reshape(3, 4), expected["W"])
    close(names["b"].gradient, expected["b"])
    close(value_of(session, "grad(W)"), expected["W"])


def test_passes_accumulate_zero_grad_zeroes_and_descend_steps_tensors_lists_and_scalars():
    program, expected = gradient_program()
    session = session_after(program + "backward(loss)\n")  # a second pass adds as much again
    close(np.array(session.names["W"].gradient).reshape(3, 4), 2 * expected["W"])
    session_after("zero_grad\nbackward(loss)\nlet L = [C, b]\nlet W0 = value(W)\ndescend W, L by 0.5", session)
    names = session.names
    close(names["W"].tolist(), names["W0"].tolist() - 0.5 * expected["W"])
    assert names["W"].is_variable and names["W"].gradient == (0.0,) * 12
    fresh_c, fresh_b = names["L"]
    assert fresh_c.__class__ is Tensor and fresh_b.__class__ is Scalar
    close(fresh_b.value, 0.3 - 0.5 * expected["b"])
    session_after("zero_grad(loss)", session)
    assert session.names["C"].gradient == (0.0,) * 15  # the old C, still in loss's graph, zeroed


def test_a_tensor_of_tracked_nodes_stacks_them_and_sends_their_gradients_back():
    session = session_after(
        "let s = var 1.5\nlet T = tensor([[s, s * 2], [3, s * s]])\nlet loss = sum(T * tensor([[1, 10], [100, 1000]]))\n"
        "backward(loss)\n"
    )
    assert session.names["T"].tolist() == [[1.5, 3.0], [3.0, 2.25]]
    close(session.names["s"].gradient, 1 + 10 * 2 + 1000 * 2 * 1.5)


def test_zero_grad_of_a_tensor_expression_and_detach_cuts_the_graph():
    session = session_after(
        "let W = var tensor([1, 2])\nlet s = sum(W * W)\nbackward(s)\nzero_grad(W * 1)\n"
        "let t = sum(detach(W) * W)\nbackward(t)\n"
    )
    assert session.names["W"].gradient == (1.0, 2.0)  # only the live W: detach(W) sends nothing


@pytest.mark.parametrize(
    "expression", ["sum(T * T)", "sum(tensor([x, x]) * x)", "mean(exp(T - max(T))) + x", "T[1] * x", "sum((T @ T) * T)"]
)
def test_node_count_and_edge_count_of_a_graph_holding_tensors_are_what_graph_counts(expression):
    # Found by the fuzz tests: edge_count read every node's scalar edges, and a tensor has
    # none (an internal-error); a tensor operation's node is counted by its VJP edges, as in `graph`.
    _, outcomes = run_ok(
        f"let x = var 2\nlet T = var tensor([1, -2])\nlet y = {expression}\ngraph(y)\nprint node_count(y), edge_count(y)"
    )
    shown = only(outcomes, GraphShown)
    assert printed(outcomes) == [f"{len(shown.nodes)} {shown.edge_count}"]


def test_gradcheck_of_tensor_variables_passes_and_names_the_worst_element():
    result = scalarlang.run(
        "let W = var tensor([[0.5, -1], [2, 0.25]])\nlet b = var 0.1\n"
        "let loss = sum(tanh(W @ W + b) * tensor([1, 2]))\ngradcheck(loss, W, b)\n"
    )
    assert result.ok, result.text
    assert "gradcheck loss by W (4 elements; worst [" in result.text and "pass=true" in result.text
    assert "gradcheck loss by b:" in result.text
    many = scalarlang.run("random_seed(1)\nlet C = var randn(40, 30)\ngradcheck(sum(C * C * C), C)")
    assert many.ok and "by C (100 drawn elements; worst [" in many.text


def bits_of(values) -> bytes:
    return b"".join(struct.pack("<d", value) for value in values)


def test_a_tensor_programs_forward_values_are_the_lists_programs_bit_for_bit():
    """The same layers written with tensors and with lists of nodes and `dot`: each element is the
    same left fold in the same order."""
    common = (
        "random_seed(3)\nlet X = [[uniform(-2, 2) for j in 0..5] for i in 0..7]\n"
        "let W = [[uniform(-1, 1) for j in 0..5] for i in 0..4]\nlet c = [uniform(-1, 1) for i in 0..4]\n"
    )
    lists = session_after(
        common + "let H = [[tanh(dot(W[k], x) + c[k]) for k in 0..4] for x in X]\n"
        "let total = sum([sum(h) for h in H])\nlet m = mean([max(h) for h in H])\n"
        "let P = [softmax(h) for h in H]\n"
    ).names
    tensors = session_after(
        common + "let H = tanh(tensor(X) @ transpose(tensor(W)) + tensor(c))\n"
        "let total = sum(sum(H, axis: 1))\nlet m = mean(max(H, axis: 1))\nlet P = softmax(H)\n"
    ).names
    expected = [node.value for row in lists["H"] for node in row]
    assert bits_of(tensors["H"].values) == bits_of(expected)
    for name in ("total", "m"):
        assert bits_of([tensors[name].value]) == bits_of([lists[name].value]), name
    # softmax too: a list's and a tensor's are each exp(x - max(x)) over their left-folded sum.
    softmaxes = [node.value for row in lists["P"] for node in row]
    assert bits_of(tensors["P"].values) == bits_of(softmaxes)


def test_print_and_value_lines_show_a_tensor_and_the_api_gives_the_tensor():
    # (the text of a tensor, as tests/test_tensor_show.py checks it, made by the language's forms)
    result = scalarlang.run('let T = tensor([[1, 2.5], [3, 4]])\nprint T\nT[0]\nprint "{T}"\nlet L = [T, 1]\nL')
    assert result.ok
    assert result.text.splitlines() == [
        "tensor [2, 2]", "  1  2.5", "  3    4",
        "T[0] = tensor [2] (index, untracked)", "  1  2.5",
        "tensor [2, 2]", "  1  2.5", "  3    4",
        "[tensor([[1, 2.5], [3, 4]]), 1]",
    ]
    session = session_after("let T = var tensor([1, 2])")
    assert isinstance(session.names["T"], Tensor)


def test_node_count_and_edge_count_count_a_tensor_graphs_nodes_and_operand_edges():
    # Counted by hand: a tensor operation is one node and each operand slot one edge, repeats
    # included (`h * h`: two), as `graph` counts them; a scalar node of tensor operands (a dot,
    # a sum) too. (The counts were an internal error once: a `Tensor` has no `parents`.)
    session = session_after(
        "let W = var tensor([[1, 2], [3, 4]])\nlet x = tensor([1, 1])\nlet h = W @ x\n"
        "let loss = sum(h * h)\nlet a = var tensor([1, 2])\nlet d = a @ x\n"
        "let p = var 2\nlet s = sum(tensor([p, var 3, p]))\n"
    )
    counts = [session.run(f"print node_count({name}), edge_count({name})") for name in ("loss", "d", "s")]
    assert [result.text for result in counts] == ["5 5\n", "3 2\n", "4 4\n"]
    graph = session.run("graph(loss)").text
    assert graph.rstrip().endswith("5 unique nodes, 5 operand edges")


# ---- iterating a tensor: its rows, as numpy and PyTorch iterate -------------------------------


def test_for_over_a_tensor_gives_its_rows_as_indexing_does():
    # `for row in T` binds T[0], T[1], …: the same nodes indexing makes (an `index` edge to T),
    # so the gradients are the indexed loop's, bit for bit, and numpy's.
    t = [[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]]
    by_rows = session_after(f"let T = var tensor({t})\nlet loss = 0\n"
                            "for row in T { let loss = loss + sum(row * row) }\nbackward(loss)")
    by_index = session_after(f"let T = var tensor({t})\nlet loss = 0\n"
                             "for i in 0..len(T) { let loss = loss + sum(T[i] * T[i]) }\nbackward(loss)")
    assert bits_of([by_rows.names["loss"].value]) == bits_of([by_index.names["loss"].value])
    assert bits_of(by_rows.names["T"].gradient) == bits_of(by_index.names["T"].gradient)
    close(np.array(by_rows.names["T"].gradient).reshape(2, 3), 2 * np.array(t))
    row = by_rows.names["row"]  # the last row: a tensor node of one edge, to T
    assert isinstance(row, Tensor) and row.shape == (3,) and str(row.operation) == "index"
    session, outcomes = run_ok(f"let T = var tensor({t})\nfor row in T {{ }}\ngraph(row)")
    graph = only(outcomes, GraphShown)
    assert [(node.label, node.operation, node.operands) for node in graph.nodes] == [
        ("T", "variable", ()), ("T[1]", "index", (0,))]


def test_a_comprehension_over_a_tensor_and_a_rank_1_tensors_elements():
    session = session_after(
        "let T = var tensor([[1, 2], [3, 4], [5, 6]])\nlet L = [sum(row * row) for row in T]\n"
        "let E = [x * 10 for x in T[1]]\nlet P = [a * b for a, b in T]\n"
        "let loss = sum(L) + sum(P)\nbackward(loss)"
    )
    names = session.names
    assert [node.value for node in names["L"]] == [5.0, 25.0, 61.0]
    assert [node.value for node in names["E"]] == [30.0, 40.0]  # scalar nodes, T[1][0] and T[1][1]
    assert all(node.__class__ is Scalar for node in names["E"])
    assert [node.value for node in names["P"]] == [2.0, 12.0, 30.0]
    # d/dT of sum(row²) + a*b per row: 2T + the other element of the row
    assert names["T"].gradient == (4.0, 5.0, 10.0, 11.0, 16.0, 17.0)


def test_the_rows_are_labelled_as_indexing_labels_them():
    session, _ = run_ok("let T = var tensor([[1, 2], [3, 4]])\nlet L = [sum(r) for r in T * 2]\n"
                        "let M = [a + b for a, b in T]\nfn f(W) = [sum(r) for r in W]\nlet F = f(T)")

    def labels(expression):
        return [node.label for node in only(run_ok(f"graph({expression})", session)[1], GraphShown).nodes]
    assert labels("L[1]")[-2:] == ["(T * 2)[1]", "L[1]"]
    assert labels("M[1]")[1:] == ["T[1]", "T[1][0]", "T[1][1]", "M[1]"]
    assert labels("F[0]")[1:] == ["f: W[0]", "F[0]"]


@pytest.mark.parametrize("program, kind, message", [
    ("for a, b, c in T { }", "table-width", "`for` names 3, but each row of `T` (a tensor [3, 2]) is a tensor [2]"),
    ("let L = [a for a, b in T[0]]", "table-width",
     "`for` names 2, but each row of `T[0]` (a tensor [2]) is a scalar node"),
    ("for x in zeros(2000000) { }", "too-long", "the tensor is 2,000,000 iterations; a loop may run at most 1,000,000"),
    ("for r in T { let y = log(r - 3) }", "non-finite-tensor-result", None),
])
def test_iterating_a_tensor_fails_as_a_typed_error_that_changes_nothing(program, kind, message):
    session, _ = run_ok("let T = var tensor([[1, 2], [3, 4], [5, 6]])\nlet y = 1")
    before = state(session)
    diagnostic = failure(program, session, atomic=True)  # (as the REPL runs a line: undone whole)
    assert diagnostic.kind == kind
    if message is not None:
        assert diagnostic.message == message
    else:  # the iteration's note names the row by its label
        assert any("where r = T[0] (a tensor [2])" in note for note in diagnostic.notes), diagnostic.notes
    assert state(session) == before
