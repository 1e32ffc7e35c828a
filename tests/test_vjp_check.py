"""vjp_check (engine/vjp_checking.py, issue 43 item 1): every tensor VJP of a loss's graph against
the sum of its scalar edges.

Each tensor operation is checked against VJPs written here in numpy (the independent side):
the loss is ``(Y * R).sum()`` for a fixed R, so the adjoint reaching Y is R, and what numpy's
VJP gives each operand from R must be what the scalar edges gave (and what the tensor VJP
gave). A deliberately wrong VJP (one kernel of one operation patched) makes the check fail
naming that node; nothing stored changes; makemore's batch is checked in seconds (at full size
in the slow run, on a narrow hidden layer in the default one).
"""

from __future__ import annotations

import random
import struct
import time

import numpy as np
import pytest

from numpy_reference import softmax, unbroadcast
from scalarlang.engine import (
    InvalidGradcheckTolerance,
    Scalar,
    Tensor,
    TensorOperation,
    UntrackedOutput,
    vjp_check,
)
from scalarlang.engine import tensor_linear
from scalarlang.engine.tensor_formulas import scalar_edges

RNG = np.random.default_rng(7)


def array(*shape, low=-1.5, high=1.5):
    return RNG.uniform(low, high, size=shape)


def var(values):
    return Tensor.variable(np.asarray(values).tolist())


def first_extreme_mask(a, axis, largest):
    """One-hot of the first largest (smallest) element along ``axis``."""
    at = (np.argmax if largest else np.argmin)(a, axis=axis)
    mask = np.zeros_like(a)
    np.put_along_axis(mask, np.expand_dims(at, axis), 1.0, axis=axis)
    return mask


def case_binary(symbol, a_shape, b_shape):
    a, b = array(*a_shape), array(*b_shape, low=0.5, high=2.0)
    A, B = var(a), var(b)
    result = {"+": A + B, "-": A - B, "*": A * B, "/": A / B}[symbol]

    def expected(g):
        da, db = {"+": (g, g), "-": (g, -g), "*": (g * b, g * a), "/": (g / b, -g * a / b**2)}[symbol]
        return [unbroadcast(da * np.ones_like(g), a_shape), unbroadcast(db * np.ones_like(g), b_shape)]
    return result, expected


def case_scalar_node(symbol):
    a = array(2, 3)
    s = Scalar.variable(0.75)
    A = var(a)
    result = {"*": s * A, "-": A - s}[symbol]

    def expected(g):
        if symbol == "*":
            return [np.array([np.sum(g * a)]), g * 0.75]
        return [g, np.array([-g.sum()])]
    return result, expected


def case_number():
    a = array(2, 3)
    A = var(a)
    return 2.5 / (A * 3.0 + 10.0) - 1.0, None  # several nodes, each with one node operand


def case_square_of_itself():
    a = array(3, 2)
    A = var(a)
    return A * A, lambda g: [g * a, g * a]  # two edges to one node, each checked


UNARY = {
    "neg": (lambda A: -A, lambda a, g: -g),
    "pow": (lambda A: A ** 3, lambda a, g: g * 3 * a**2),
    "exp": (Tensor.exp, lambda a, g: g * np.exp(a)),
    "log": (Tensor.log, lambda a, g: g / a),
    "tanh": (Tensor.tanh, lambda a, g: g * (1 - np.tanh(a) ** 2)),
    "sqrt": (Tensor.sqrt, lambda a, g: g / (2 * np.sqrt(a))),
    "relu": (Tensor.relu, lambda a, g: g * (a > 0)),
    "sigmoid": (Tensor.sigmoid, lambda a, g: g * (1 / (1 + np.exp(-a))) * (1 - 1 / (1 + np.exp(-a)))),
    "abs": (Tensor.abs, lambda a, g: g * np.sign(a)),
}


def case_unary(name):
    positive = name in ("log", "sqrt")
    a = array(2, 3, low=0.2 if positive else -1.5, high=1.5)
    operation, derivative = UNARY[name]
    return operation(var(a)), lambda g: [derivative(a, g)]


def case_extreme(largest):
    a = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, -0.5]])
    b = np.array([0.5, 0.0, 2.0])  # ties at (0, 0) and (0, 2): each side gets half
    A, B = var(a), var(b)
    result = A.maximum(B) if largest else A.minimum(B)

    def expected(g):
        wins = (a > b) if largest else (a < b)
        share = wins + 0.5 * (a == b)
        return [g * share, unbroadcast(g * (1 - share), (3,))]
    return result, expected


def case_matmul(a_shape, b_shape):
    a, b = array(*a_shape), array(*b_shape)
    result = var(a) @ var(b)

    def expected(g):
        if a.ndim == 2 and b.ndim == 2:
            return [g @ b.T, a.T @ g]
        if a.ndim == 2:
            return [np.outer(g, b), a.T @ g]
        if b.ndim == 2:
            return [b @ g, np.outer(a, g)]
        return [g * b, g * a]  # dot
    return result, expected


def case_reduction(name, shape, axis):
    a = array(*shape)
    if name in ("max", "min"):
        a[0, 0] = a[0, 1] = a.max() + 1 if name == "max" else a.min() - 1  # a tie: the first wins
    result = getattr(var(a), name)(axis)

    def expected(g):
        if axis is None:
            g = np.full(shape, g)
            full_axis = None
        else:
            g = np.expand_dims(g, axis)
            full_axis = axis
        if name == "sum":
            return [g * np.ones(shape)]
        if name == "mean":
            count = a.size if axis is None else shape[axis]
            return [g * np.ones(shape) / count]
        if name in ("max", "min"):
            if full_axis is None:
                mask = np.zeros(a.size)
                mask[(np.argmax if name == "max" else np.argmin)(a)] = 1.0
                return [g * mask.reshape(shape)]
            return [g * first_extreme_mask(a, full_axis, name == "max")]
        if full_axis is None:  # logsumexp
            return [g * softmax(a.reshape(-1), 0).reshape(shape)]
        return [g * softmax(a, full_axis)]
    return result, expected


def case_softmax(axis):
    a = array(3, 4)
    s = softmax(a, axis)
    return var(a).softmax(axis), lambda g: [s * (g - (g * s).sum(axis=axis, keepdims=True))]


def case_cross_entropy():
    z = array(4, 5)
    targets = [1, 0, 4, 1]
    one_hot = np.eye(5)[targets]
    return var(z).cross_entropy(targets), lambda g: [g[:, None] * (softmax(z, 1) - one_hot)]


def case_index_row():
    a = array(3, 4)

    def expected(g):
        d = np.zeros_like(a)
        d[1] = g
        return [d]
    return var(a)[1], expected


def case_index_element():
    a = array(4)

    def expected(g):
        d = np.zeros_like(a)
        d[2] = g
        return [d]
    return var(a)[2], expected


def case_gather():
    c = array(5, 3)
    rows = [[0, 2], [2, 2], [4, 0]]

    def expected(g):
        d = np.zeros_like(c)
        np.add.at(d, np.array(rows), g)
        return [d]
    return var(c)[rows], expected


def case_reshape():
    a = array(2, 3, 2)
    return var(a).reshape(3, -1), lambda g: [g.reshape(2, 3, 2)]


def case_transpose():
    a = array(2, 3, 4)
    return var(a).transpose(0, 2), lambda g: [np.swapaxes(g, 0, 2)]


def case_stack():
    x, y = Scalar.variable(0.25), Scalar.variable(-1.5)
    result = Tensor.constant([[x, 2.0], [y, x]])  # an edge per place: x twice
    return result, lambda g: [np.array([g[0, 0]]), np.array([g[1, 0]]), np.array([g[1, 1]])]


CASES = {
    "add broadcast row": lambda: case_binary("+", (2, 3), (3,)),
    "sub broadcast column": lambda: case_binary("-", (2, 3), (2, 1)),
    "mul broadcast both": lambda: case_binary("*", (2, 1, 3), (4, 1)),
    "div broadcast": lambda: case_binary("/", (3, 2), (1, 2)),
    "scalar node times a tensor": lambda: case_scalar_node("*"),
    "tensor minus a scalar node": lambda: case_scalar_node("-"),
    "numbers on either side": case_number,
    "X * X": case_square_of_itself,
    **{name: (lambda name=name: case_unary(name)) for name in UNARY},
    "maximum with ties": lambda: case_extreme(True),
    "minimum with ties": lambda: case_extreme(False),
    "matmul": lambda: case_matmul((3, 4), (4, 2)),
    "matrix @ vector": lambda: case_matmul((3, 4), (4,)),
    "vector @ matrix": lambda: case_matmul((4,), (4, 2)),
    "dot": lambda: case_matmul((4,), (4,)),
    **{f"{name} axis {axis}": (lambda name=name, axis=axis: case_reduction(name, (3, 4), axis))
       for name in ("sum", "mean", "max", "min", "logsumexp") for axis in (None, 0, 1)},
    "softmax axis 0": lambda: case_softmax(0),
    "softmax axis -1": lambda: case_softmax(-1),
    "cross_entropy": case_cross_entropy,
    "index a row": case_index_row,
    "index an element": case_index_element,
    "gather repeated rows": case_gather,
    "reshape": case_reshape,
    "transpose": case_transpose,
    "tensor of scalar nodes": case_stack,
}


def checked(result):
    """vjp_check of ``(result * R).sum()``: the record of ``result``'s node, and R."""
    result.tag = "y"
    if isinstance(result, Scalar):
        weights = np.array(1.75)
        loss = result * 1.75
    else:
        weights = array(*result.shape)
        loss = (result * Tensor.constant(weights.tolist())).sum()
    check = vjp_check(loss)
    (record,) = [node for node in check.nodes if node.label == "y"]
    return check, record, weights


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_vjp_equals_its_scalar_edges_and_numpy(name):
    result, expected = CASES[name]()
    check, record, weights = checked(result)
    assert check.passed and record.passed, record
    assert record.scaled_error <= 1e-12
    for operand in record.operands:  # the scalar side agrees with the tensor side
        np.testing.assert_allclose(operand.scalar, operand.tensor, rtol=1e-12, atol=1e-14)
    if expected is None:
        assert len(check.nodes) >= 4
        return
    wanted = expected(weights)
    assert [operand.slot for operand in record.operands] == list(range(len(wanted)))
    for operand, contribution in zip(record.operands, wanted):
        np.testing.assert_allclose(operand.scalar, np.asarray(contribution, dtype=float).reshape(-1),
                                   rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(operand.tensor, np.asarray(contribution, dtype=float).reshape(-1),
                                   rtol=1e-12, atol=1e-14)


def test_the_cases_cover_every_tensor_operation():
    seen = set()
    for make in CASES.values():
        result, _ = make()
        check = vjp_check((result * 1.0).sum() if not isinstance(result, Scalar) else result * 1.0)
        seen |= {node.operation for node in check.nodes}
    assert seen == set(TensorOperation)


def test_scalar_edges_are_counted_per_operand():
    _, record, _ = checked(case_matmul((3, 4), (4, 2))[0])
    # 3 * 2 entries, each 4 products (8 edges) and 3 adds (6 edges); 24 products reach each side
    assert record.scalar_edges == 6 * (8 + 6)
    assert [operand.scalar_edges for operand in record.operands] == [24, 24]
    _, record, _ = checked(case_gather()[0])
    assert record.scalar_edges == 18 and record.operands[0].scalar_edges == 18  # moved elements
    assert record.operand_shapes == ((5, 3),) and record.shape == (3, 2, 3)


def test_a_softmax_counts_its_scalar_edges_once_whatever_its_axis():
    # Each fiber's nodes once: along axis 0 of [3, 4] as many edges as along axis 1 of [4, 3]
    # (a fiber that crosses the output rows was made, and counted, once per row: 3 times).
    _, along_columns, _ = checked(case_softmax(0)[0])
    a = array(4, 3)
    _, along_rows, _ = checked(var(a).softmax(1))
    assert along_columns.passed and along_rows.passed
    assert along_columns.scalar_edges == along_rows.scalar_edges
    assert [operand.scalar_edges for operand in along_columns.operands] == [
        operand.scalar_edges for operand in along_rows.operands
    ]


def case_size_one(make, shape):
    """An operation on a tensor with an axis (or every axis) of length 1, against numpy."""
    a = array(*shape)
    result, derivative = make(var(a))
    return result, lambda g: [derivative(a, g)]


SIZE_ONE = {  # each: (the operation, its VJP in numpy, the rebuild's scalar edges by hand)
    "sum of one element": ((1,), lambda A: A.sum(), lambda a, g: np.full(a.shape, g), 1),
    "sum of [1, 1]": ((1, 1), lambda A: A.sum(), lambda a, g: np.full(a.shape, g), 1),
    "sum along an axis of length 1": ((1, 3), lambda A: A.sum(0), lambda a, g: g[None, :], 3),
    "sum along the other axis of [1, 3]": ((1, 3), lambda A: A.sum(1), lambda a, g: np.repeat(g[:, None], 3, 1), 4),
    "mean of one element": ((1,), lambda A: A.mean(), lambda a, g: np.full(a.shape, g), 2),
    "mean along an axis of length 1": ((3, 1), lambda A: A.mean(1), lambda a, g: g[:, None], 6),
    "max of one element": ((1,), lambda A: A.max(), lambda a, g: np.full(a.shape, g), 1),
    "min along an axis of length 1": ((1, 2), lambda A: A.min(0), lambda a, g: g[None, :], 2),
    "logsumexp of one element": ((1, 1), lambda A: A.logsumexp(), lambda a, g: np.full(a.shape, g), 1),
    "softmax of one element": ((1, 1), lambda A: A.softmax(1), lambda a, g: np.zeros(a.shape), 6),
    "matmul with an inner axis of 1": ((2, 1), lambda A: A @ Tensor.constant([[2.0, 3.0]]),
                                       lambda a, g: g @ np.array([[2.0], [3.0]]), 8),
    "broadcast from [1]": ((1,), lambda A: A + Tensor.constant([[1.0, 2.0], [3.0, 4.0]]),
                           lambda a, g: np.array([g.sum()]), 8),
}


@pytest.mark.parametrize("name", sorted(SIZE_ONE))
def test_an_axis_of_length_one_counts_one_scalar_edge_an_element(name):
    # A fold of one element is that element: a sum of one tensor element was counted 0 scalar
    # edges (the rebuild made no node), where explain counts one; it is one edge of derivative 1.
    shape, operation, derivative, edges = SIZE_ONE[name]
    result, expected = case_size_one(lambda A: (operation(A), derivative), shape)
    check, record, weights = checked(result)
    assert check.passed and record.passed, record
    for operand, contribution in zip(record.operands, expected(weights)):
        np.testing.assert_allclose(operand.scalar, np.asarray(contribution).reshape(-1), rtol=1e-12, atol=1e-14)
    assert record.scalar_edges == edges
    assert record.operands[0].scalar_edges >= 1


@pytest.mark.parametrize("name", sorted(CASES) + [f"size one: {name}" for name in sorted(SIZE_ONE)])
def test_each_operand_counts_the_scalar_edges_explain_shows(name):
    if name.startswith("size one: "):
        shape, operation, derivative, _ = SIZE_ONE[name.removeprefix("size one: ")]
        result, _ = case_size_one(lambda A: (operation(A), derivative), shape)
    else:
        result, _ = CASES[name]()
    loss = (result * 1.0).sum() if not isinstance(result, Scalar) else result * 1.0
    topology = loss.reverse_pass().topology
    for record in vjp_check(loss).nodes:
        for operand in record.operands:
            assert operand.scalar_edges == scalar_edges(topology[record.node], operand.slot)[0], record


def test_an_untracked_operand_is_not_checked():
    x = Tensor.constant(array(2, 3).tolist())
    w = var(array(3, 2))
    product = x @ w
    product.tag = "y"
    check = vjp_check(product.sum())
    (record,) = [node for node in check.nodes if node.label == "y"]
    assert [operand.slot for operand in record.operands] == [1] and check.passed


# ---- a makemore-sized batch, a wrong VJP -----------------------------------------------------


def makemore_batch(seed=1, hidden=200):
    """makemore's MLP on one batch: [32, 3] indices into C [27, 10], [32, 30] @ [30, 200] + b1,
    tanh, @ [200, 27] + b2, cross_entropy, mean. A narrower hidden layer (``hidden``) keeps the
    same nodes for the tests of a wrong VJP, at a tenth of the scalar edges to check."""
    g = random.Random(seed)
    C = Tensor.randn([27, 10], g, variable=True)
    W1 = Tensor.variable([[g.gauss(0, 1) * 0.2 for _ in range(hidden)] for _ in range(30)])
    b1 = Tensor.variable([g.gauss(0, 1) * 0.01 for _ in range(hidden)])
    W2 = Tensor.variable([[g.gauss(0, 1) * 0.01 for _ in range(27)] for _ in range(hidden)])
    b2 = Tensor.variable([0.0] * 27)
    X = [[g.randrange(27) for _ in range(3)] for _ in range(32)]
    Y = [g.randrange(27) for _ in range(32)]
    embedded = C[X]
    embedded.tag = "C[X]"
    product = embedded.reshape(32, 30) @ W1
    product.tag = "emb @ W1"
    hidden = (product + b1).tanh()
    loss = (hidden @ W2 + b2).cross_entropy(Y).mean()
    return loss, (C, W1, b1, W2, b2)


def test_makemore_batch_passes_on_a_narrow_hidden_layer():
    # (the default run's representative of the full-size batch below: the same nine nodes)
    check = vjp_check(makemore_batch(hidden=16)[0])
    assert check.passed
    assert [str(node.operation) for node in check.nodes] == [
        "gather", "reshape", "matmul", "add", "tanh", "matmul", "add", "cross_entropy", "mean"]
    product = next(node for node in check.nodes if node.name == "emb @ W1")
    assert [operand.scalar_edges for operand in product.operands] == [32 * 30 * 16] * 2


@pytest.mark.slow  # (3 s of CPU; the narrow batch above in the default run)
def test_makemore_batch_passes_in_seconds():
    loss, _ = makemore_batch()
    start = time.perf_counter()
    check = vjp_check(loss)
    seconds = time.perf_counter() - start
    assert check.passed
    assert [str(node.operation) for node in check.nodes] == [
        "gather", "reshape", "matmul", "add", "tanh", "matmul", "add", "cross_entropy", "mean"]
    product = next(node for node in check.nodes if node.name == "emb @ W1")
    assert [operand.scalar_edges for operand in product.operands] == [192_000, 192_000]
    assert seconds < 60, f"vjp_check took {seconds:.1f} s"  # about 2.5 s natively on two cores


def test_a_wrong_vjp_fails_naming_its_node(monkeypatch):
    # Patched: the test double of one operation's VJP, dB = Aᵀ @ dC, off in one element.
    real = tensor_linear.matmul_transposed_left

    def wrong(a, n, k, g, m):
        out = real(a, n, k, g, m)
        out[7] += 1e-6
        return out
    monkeypatch.setattr(tensor_linear, "matmul_transposed_left", wrong)
    loss, _ = makemore_batch(hidden=16)
    check = vjp_check(loss)
    assert not check.passed
    failures = check.failures
    assert [node.name for node in failures] == ["emb @ W1", "#9"]  # both matmuls use the kernel
    first = failures[0]
    assert [operand.passed for operand in first.operands] == [True, False]
    assert first.operands[1].element == (0, 7)
    assert first.operands[1].largest_difference == pytest.approx(1e-6, rel=1e-6)
    assert check.worst is not None and not check.worst.passed


def test_an_embedding_vjp_that_assigns_instead_of_adding_fails(monkeypatch):
    # Patched: the classic bug of an embedding's backward, a repeated row counted once.
    def assigned(contributions, width, rows, count):
        totals = [0.0] * (count * width)
        for at, row in enumerate(rows):
            totals[row * width:(row + 1) * width] = contributions[at * width:(at + 1) * width]
        return totals
    monkeypatch.setattr(tensor_linear, "scatter_rows", assigned)
    loss, _ = makemore_batch(hidden=16)
    check = vjp_check(loss)
    assert [node.name for node in check.failures] == ["C[X]"]


def test_nothing_stored_changes():
    loss, parameters = makemore_batch(hidden=16)
    loss.backward()
    before = [tuple(struct.pack("<d", value) for value in tensor.gradient) for tensor in parameters]
    topology = loss.topology()
    vjp_check(loss)
    after = [tuple(struct.pack("<d", value) for value in tensor.gradient) for tensor in parameters]
    assert before == after
    assert all(a is b for a, b in zip(loss.topology(), topology)) and len(loss.topology()) == len(topology)


def test_a_scalar_graph_has_nothing_to_check_and_errors_are_typed():
    x = Scalar.variable(2.0)
    assert vjp_check(x * x).nodes == () and vjp_check(x * x).passed
    with pytest.raises(UntrackedOutput):
        vjp_check(Tensor.constant([1.0, 2.0]).sum())
    with pytest.raises(InvalidGradcheckTolerance):
        vjp_check(x * x, tolerance=0.0)
