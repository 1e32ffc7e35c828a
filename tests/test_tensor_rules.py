"""The chapter's rules of reverse accumulation on graphs holding tensor nodes, and the typed
errors of tensor operations (errors as data: kind and fields)."""

from __future__ import annotations

import math
import struct

import pytest

from scalarlang import (
    AxisOutOfRange,
    BadShape,
    IndexOutOfRange,
    InvalidShape,
    NonFiniteAccumulatedTensorGradient,
    NonFiniteTensorAdjoint,
    NonFiniteTensorLeaf,
    NonWholeIndex,
    ReshapeMismatch,
    Scalar,
    ShapeMismatch,
    Tensor,
    TensorBackwardPass,
    UntrackedOutput,
)
from shared import counted_frees


def bits(gradient):
    if gradient is None:
        return None
    if isinstance(gradient, float):
        return struct.pack("<d", gradient)
    return b"".join(struct.pack("<d", value) for value in gradient)


def model():
    """A small mixed graph: a tensor layer, a scalar bias, a list of scalar nodes stacked."""
    w = Tensor.variable([[0.5, -1.0], [2.0, 0.25]])
    b = Scalar.variable(0.1)
    s = Scalar.variable(1.5)
    x = Tensor.constant([[1.0, 2.0], [3.0, -1.0]])
    hidden = (x @ w + b).tanh()
    stacked = Tensor.constant([s, s * 2.0])
    loss = (hidden @ stacked).sum() + s * s
    return loss, (w, b, s, hidden)


def stored(nodes):
    return [bits(node.gradient) for node in nodes]


def test_backward_accumulates_and_zero_grad_zeroes_every_reachable_node():
    loss, nodes = model()
    loss.backward()
    first = [node.gradient for node in nodes]
    loss.backward()
    for node, once in zip(nodes, first):
        if isinstance(once, float):
            assert node.gradient == 2 * once
        else:
            assert node.gradient == tuple(2 * value for value in once)
    loss.zero_grad()
    assert all(not any(node.gradient) if isinstance(node.gradient, tuple) else node.gradient == 0.0 for node in nodes)
    loss.backward()
    assert [node.gradient for node in nodes] == first


def test_intermediate_tensor_nodes_store_their_adjoints_and_the_pass_reports_them():
    loss, (w, b, s, hidden) = model()
    backward_pass = loss.backward()
    assert isinstance(backward_pass, TensorBackwardPass)
    topology = backward_pass.topology
    at = next(index for index, node in enumerate(topology) if node is hidden)
    assert backward_pass.adjoint(at) == hidden.gradient
    record = backward_pass.nodes[at]
    assert record.tracked and record.value == hidden.values and record.accumulated_gradient == hidden.gradient
    assert list(backward_pass.edges) == []


def test_reverse_pass_writes_nothing():
    loss, nodes = model()
    before = stored(nodes)
    loss.reverse_pass()
    assert stored(nodes) == before


def test_each_unique_node_once_and_every_contribution_added():
    x = Tensor.variable([1.0, 2.0, 3.0])
    square = x * x
    loss = square.sum() + square.sum()  # `square` has two consumers, each with x twice
    loss.backward()
    assert x.gradient == (4.0, 8.0, 12.0)
    assert square.gradient == (2.0, 2.0, 2.0)
    assert sum(node is square for node in loss.topology()) == 1


def test_a_non_finite_adjoint_fails_the_pass_and_changes_no_stored_gradient():
    x = Tensor.variable([1e-300, 1.0])
    s = Scalar.variable(2.0)
    good = (x * s).sum()
    good.backward()
    bad = (x.log() * 1e10).sum() + good * s  # d log(x)/dx at 1e-300 is 1e300: times 1e10 overflows
    nodes = [x, s, good]
    before = stored(nodes)
    with pytest.raises(NonFiniteTensorAdjoint) as caught:
        bad.backward()
    assert caught.value.kind == "non-finite-tensor-adjoint"
    assert caught.value.element == (0,) and caught.value.value == math.inf
    assert bad.topology()[caught.value.node] is x
    assert stored(nodes) == before
    assert "element [0]" in str(caught.value)


def test_an_overflowing_stored_gradient_fails_before_anything_is_written():
    x = Tensor.variable([1.0, 1.0])
    s = Scalar.variable(1.0)
    loss = (x * 1e308).max() + s  # the first of the largest gets the whole adjoint
    loss.backward()
    before = stored([x, s, loss])
    with pytest.raises(NonFiniteAccumulatedTensorGradient) as caught:
        loss.backward()
    assert caught.value.element == 0 and caught.value.stored == 1e308 and caught.value.pass_adjoint == 1e308
    assert stored([x, s, loss]) == before


def test_detach_cuts_the_edges():
    x = Tensor.variable([1.0, 2.0])
    loss = (x * x.detach()).sum()
    loss.backward()
    assert x.gradient == (1.0, 2.0)  # only the tracked operand's edge


def test_an_untracked_output_is_refused():
    t = Tensor.constant([1.0, 2.0])
    with pytest.raises(UntrackedOutput):
        t.sum().backward()


def test_a_deep_chain_of_tensor_operations_needs_no_recursion():
    x = Tensor.variable([0.5, 0.25])
    y = x
    for _ in range(20000):
        y = y * 1.0
    y.sum().backward()
    assert x.gradient == (1.0, 1.0)


def test_zero_grad_of_a_tensor_zeroes_its_graph():
    x = Tensor.variable([1.0, 2.0])
    y = x * 3.0
    y.sum().backward()
    y.zero_grad()
    assert x.gradient == (0.0, 0.0) and y.gradient == (0.0, 0.0)


# ---- typed errors --------------------------------------------------------------------------------


def test_shapes_that_do_not_broadcast_name_both_shapes_the_operator_and_a_hint():
    a = Tensor.zeros((2, 3))
    with pytest.raises(ShapeMismatch) as caught:
        a + Tensor.zeros((3, 2))
    error = caught.value
    assert (error.kind, error.operator, error.left, error.right) == ("shape-mismatch", "+", (2, 3), (3, 2))
    assert str(error) == "+ cannot combine shapes [2, 3] and [3, 2] (transpose(right), of shape [2, 3]?)"
    with pytest.raises(ShapeMismatch) as caught:
        Tensor.zeros((4, 3)) @ Tensor.zeros((2, 3))
    assert str(caught.value) == "@ cannot combine shapes [4, 3] and [2, 3] (transpose(right), of shape [3, 2]?)"
    with pytest.raises(ShapeMismatch) as caught:
        Tensor.zeros((2, 3)) * Tensor.zeros((4,))
    assert caught.value.hint == ""
    assert caught.value == ShapeMismatch("*", (2, 3), (4,), "")


def test_a_ragged_list_is_bad_shape_naming_the_row():
    with pytest.raises(BadShape) as caught:
        Tensor.constant([[1, 2, 3], [4, 5, 6], [7, 8]])
    assert caught.value.row == (2,) and str(caught.value) == "ragged list: row [2] has 2 items where the rows before it have 3 items"
    with pytest.raises(BadShape) as caught:
        Tensor.constant([[[1, 2], [3, 4]], [[5, 6], [7]]])
    assert caught.value.row == (1, 1)
    assert str(caught.value) == "ragged list: row [1, 1] has 1 item where the rows before it have 2 items"
    with pytest.raises(BadShape):
        Tensor.constant([[1, 2], 3])


def test_indices_must_be_whole_and_in_range():
    t = Tensor.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(IndexOutOfRange) as caught:
        t[2]
    assert (caught.value.index, caught.value.size) == (2, 2)
    with pytest.raises(IndexOutOfRange):
        t[[0, 5]]
    with pytest.raises(NonWholeIndex):
        t[0.5]
    with pytest.raises(NonWholeIndex):
        t[[1.5]]
    assert t[1.0][0].value == 3.0  # a whole float is an index


def test_shapes_axes_and_reshapes_are_checked():
    with pytest.raises(InvalidShape):
        Tensor.zeros((2, 0))
    with pytest.raises(InvalidShape):
        Tensor.zeros(())
    with pytest.raises(InvalidShape):
        Tensor.constant([])
    t = Tensor.zeros((2, 3))
    with pytest.raises(ReshapeMismatch):
        t.reshape(4, -1)
    with pytest.raises(ReshapeMismatch):
        t.reshape(-1, -1)
    with pytest.raises(AxisOutOfRange) as caught:
        t.sum(2)
    assert (caught.value.axis, caught.value.rank) == (2, 2)
    with pytest.raises(AxisOutOfRange):
        t.softmax(-3)


def test_a_non_finite_number_in_a_list_names_its_element():
    with pytest.raises(NonFiniteTensorLeaf) as caught:
        Tensor.variable([[1.0, 2.0], [float("nan"), 3.0]])
    assert caught.value.element == (1, 0)


def test_descended_steps_each_element_against_its_gradient_into_a_new_variable():
    w = Tensor.variable([[1.0, 2.0], [3.0, 4.0]])
    (w * w).sum().backward()
    stepped = w.descended(0.1)
    assert stepped is not w and stepped.is_variable and stepped.gradient == (0.0,) * 4
    assert stepped.values == tuple(value - 0.1 * (2 * value) for value in (1.0, 2.0, 3.0, 4.0))
    assert w.gradient_tensor().values == (2.0, 4.0, 6.0, 8.0)
    assert not w.gradient_tensor().tracks_gradient
    with pytest.raises(NonFiniteTensorLeaf):
        w.descended(1e308)


# A deep tensor graph freed with the finalizer of Emscripten and WASI (shared.COUNTED_FREES).
FREE_DEEP_TENSORS = """
from scalarlang.engine import Tensor, tensor_node
setattr(tensor_node.TensorNode, "__del__", counted)
x = Tensor.variable([0.5, 0.25])
for _ in range(20000):
    x = (x * 1.0 + x[0]).tanh()
del x
gc.collect()
print(deepest, outermost, frees)
"""


def test_where_cpython_cannot_measure_its_stack_a_deep_tensor_graph_is_freed_one_node_at_a_time():
    deepest, outermost, frees = counted_frees(FREE_DEEP_TENSORS)
    # the first free lets the rest go from its loop (a VJP holding an operand must not keep it
    # for a free of its own, outside the loop, nested in the C stack)
    assert frees > 80_000 and outermost <= 10 and deepest <= 3


def test_iterating_a_tensor_gives_its_rows_as_indexing_does():
    t = Tensor.variable([[1.0, 2.0], [3.0, 4.0]])
    rows = list(t)
    assert [row.values for row in rows] == [(1.0, 2.0), (3.0, 4.0)]
    assert [element.value for element in rows[1]] == [3.0, 4.0]
