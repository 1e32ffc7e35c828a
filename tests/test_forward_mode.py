"""Forward mode in the engine (engine/forward.py, issue 44): `jvp`, the evaluation trace and
the Jacobian both ways, on the random graphs of test_engine_properties.py (which reuse nodes,
mix constants, numbers and detached nodes).

Oracles: `grad` after `backward` (the dot product with the direction), central differences of
the rebuilt graph moved along the direction, and a forward pass written here from the
definition (each tangent the left fold of local derivative × operand tangent over the edges of
a recursively found topological order).
"""

from __future__ import annotations

import math
import struct
from functools import reduce
from operator import add

import pytest
from hypothesis import assume, event, given
from hypothesis import strategies as st

from shared import reference_topology
from test_engine_properties import build, programs, safe_graph
from scalarlang import (
    ENGINE_ERRORS,
    FORWARD_ERRORS,
    DirectionLengthMismatch,
    ForwardInputNotVariable,
    JacobianTooLarge,
    NonFiniteDirection,
    NonFiniteTangent,
    Scalar,
    ScalarAutodiffError,
    Tensor,
    TensorInForwardMode,
    forward_trace,
    jacobian,
    jvp,
)

directions = st.lists(st.one_of(st.sampled_from([1.0, -1.0, 0.5, 0.0, 2.0]), st.floats(-3.0, 3.0)),
                      min_size=3, max_size=3)


def bits(value: float) -> bytes:
    return struct.pack("<d", value)


def reference_tangents(output: Scalar, seeds: dict[int, float]) -> tuple[list[Scalar], list[float]]:
    """The forward pass from its definition: a recursive topological order, each leaf's tangent
    from ``seeds`` (by identity), each other node's the left fold of its edges' products."""
    order = reference_topology(output)
    tangent_of: dict[int, float] = {}
    tangents = []
    for node in order:
        edges = node.parents
        if not edges:
            tangent = seeds.get(id(node), 0.0)
        else:
            tangent = reduce(add, [edge.local_derivative * tangent_of[id(edge.parent)] for edge in edges])
        tangent_of[id(node)] = tangent
        tangents.append(tangent)
    return order, tangents


def magnitude(output: Scalar, seeds: dict[int, float]) -> float:
    """The same pass on absolute values: how large the terms can be, to scale a tolerance."""
    order = reference_topology(output)
    size: dict[int, float] = {}
    for node in order:
        edges = node.parents
        size[id(node)] = abs(seeds.get(id(node), 0.0)) if not edges else reduce(
            add, [abs(edge.local_derivative) * size[id(edge.parent)] for edge in edges])
    return size[id(output)]


def snapshot(nodes) -> list[tuple]:
    """Everything stored on each node that a reader can see."""
    return [
        (bits(node.value), None if node.gradient is None else bits(node.gradient), node.label,
         node.operation, tuple((id(edge.parent), bits(edge.local_derivative)) for edge in node.parents))
        for node in nodes
    ]


def chosen_output(built):
    return built.nodes[built.tracked_output_index]


# ---- jvp against grad after backward --------------------------------------------------------


@given(programs(), directions)
def test_jvp_is_the_gradient_dotted_with_the_direction(program, direction):
    program, built = safe_graph(program)
    output = chosen_output(built)
    variables = built.variables
    direction = direction[: len(variables)]
    by_forward = jvp(output, variables, direction)
    output.backward()
    dot = 0.0
    for variable, number in zip(variables, direction):
        dot = dot + variable.gradient * number
    seeds = {id(variable): number for variable, number in zip(variables, direction)}
    scale = max(1.0, magnitude(output, seeds))
    assert abs(by_forward - dot) <= 1e-12 * scale, (by_forward, dot, scale)


@given(programs())
def test_jvp_along_one_variable_is_its_gradient(program):
    program, built = safe_graph(program)
    output = chosen_output(built)
    tangents = [jvp(output, variable) for variable in built.variables]
    output.backward()
    for variable, tangent in zip(built.variables, tangents):
        scale = max(1.0, magnitude(output, {id(variable): 1.0}))
        assert abs(tangent - variable.gradient) <= 1e-12 * scale


# ---- jvp against central differences --------------------------------------------------------


def _moved_output(program, detached, leaves, direction, at, output_index):
    moved = {leaf: program.leaves[leaf][1] + at * number for leaf, number in zip(leaves, direction)}
    try:
        return build(program, moved, detached).nodes[output_index].value
    except ScalarAutodiffError:
        return None


def _central(program, detached, leaves, direction, step, output_index):
    above = _moved_output(program, detached, leaves, direction, step, output_index)
    below = _moved_output(program, detached, leaves, direction, -step, output_index)
    if above is None or below is None:
        return None
    return (above - below) / (2 * step)


@given(programs(), directions)
def test_jvp_matches_central_differences_along_the_direction(program, direction):
    program, built = safe_graph(program, kink_margin=1e-2)
    output_index = built.tracked_output_index
    output = built.nodes[output_index]
    direction = direction[: len(built.variables)]
    analytic = jvp(output, built.variables, direction)
    detached = {
        position: built.nodes[position].value
        for position, step in enumerate(program.steps, start=len(program.leaves))
        if step.op == "detach"
    }
    leaves = [i for i, (kind, _) in enumerate(program.leaves) if kind == "variable"]
    step = 2.0**-17
    coarse = _central(program, detached, leaves, direction, step, output_index)
    fine = _central(program, detached, leaves, direction, step / 2, output_index)
    if coarse is None or fine is None:
        event("difference left the domain: skipped")
        return
    if abs(coarse - fine) > 1e-6 * max(1.0, abs(fine)):
        event("unstable difference: skipped")
        return
    assert abs(analytic - fine) <= 1e-5 * max(1.0, abs(fine), abs(analytic)), (analytic, fine)


# ---- the trace against an independent forward pass ------------------------------------------


@given(programs(), directions)
def test_the_trace_is_the_forward_pass_of_its_definition(program, direction):
    program, built = safe_graph(program)
    output = built.output  # tracked or not: forward mode needs no gradient
    variables = built.variables
    direction = direction[: len(variables)]
    trace = forward_trace(output, variables, direction)
    order, tangents = reference_tangents(output, {id(v): n for v, n in zip(variables, direction)})
    assert trace.visited == len(order)
    assert [id(node) for node in trace.topology] == [id(node) for node in order]
    index = {id(node): at for at, node in enumerate(order)}
    for record, node, tangent in zip(trace.nodes, order, tangents):
        assert bits(record.tangent) == bits(tangent)
        assert bits(record.value) == bits(node.value) and record.operation == node.operation
        assert record.seeded == any(node is variable for variable in variables)
        assert len(record.terms) == len(node.parents)  # x*x: two terms
        for term, edge in zip(record.terms, node.parents):
            assert term.operand == index[id(edge.parent)] < record.index  # operands first
            assert bits(term.local_derivative) == bits(edge.local_derivative)
            assert bits(term.operand_tangent) == bits(tangents[term.operand])
            assert bits(term.product) == bits(edge.local_derivative * tangents[term.operand])
        if record.terms:
            assert bits(record.tangent) == bits(reduce(add, [term.product for term in record.terms]))
    assert bits(trace.tangent) == bits(tangents[-1])


def test_the_reused_square_has_one_term_per_edge():
    x = Scalar.variable(3.0)
    square = x * x
    y = square + square
    trace = forward_trace(y, x)
    assert [record.operation for record in trace.nodes] == ["variable", "mul", "add"]
    mul, added = trace.node(1), trace.node(2)
    assert [(t.operand, t.local_derivative, t.operand_tangent, t.product) for t in mul.terms] == [
        (0, 3.0, 1.0, 3.0), (0, 3.0, 1.0, 3.0)]
    assert [(t.operand, t.product) for t in added.terms] == [(1, 6.0), (1, 6.0)]
    assert trace.tangent == 12.0 and trace.visited == 3


def test_nary_operations_have_a_term_per_operand():
    a, b = Scalar.variable(1.0), Scalar.variable(2.0)
    for output in (Scalar.logsumexp([a, b, a]), Scalar.max_of([a, b, 0.5]), Scalar.min_of([b, a])):
        trace = forward_trace(output, [a, b], [1.0, -2.0])
        order, tangents = reference_tangents(output, {id(a): 1.0, id(b): -2.0})
        assert len(trace.node(trace.visited - 1).terms) == len(output.parents)
        assert [bits(t) for t in trace.tangents] == [bits(t) for t in tangents]


def test_an_input_given_twice_moves_by_the_sum_and_one_outside_the_graph_by_nothing():
    x, y, elsewhere = Scalar.variable(2.0), Scalar.variable(5.0), Scalar.variable(1.0)
    out = x * y
    assert jvp(out, [x, x], [1.0, 2.0]) == jvp(out, x, [3.0]) == 15.0
    trace = forward_trace(out, [elsewhere, y], [4.0, 1.0])
    assert trace.inputs[0] is None and trace.tangent == 2.0
    assert jvp(Scalar.constant(3.0) * 2, elsewhere) == 0.0


def test_a_deep_chain_needs_no_recursion():
    # 40,000 nodes deep: forty times what a recursive walk could reach under Python's limit of
    # 1,000 frames (scalarlang never raises it); 400,000 showed no more, at ten times the work.
    x = Scalar.variable(0.5)
    node = x
    for _ in range(20_000):
        node = node * 1.0 + 0.0
    assert jvp(node, x) == 1.0


# ---- the Jacobian both ways, and its counts -------------------------------------------------


def test_three_inputs_one_output_costs_three_forward_passes_and_one_reverse():
    a, b, c = (Scalar.variable(v) for v in (1.0, 2.0, 3.0))
    loss = (a * b + b * c).tanh()
    nodes = len(loss.topology())
    result = jacobian([loss], [a, b, c])
    assert (result.forward_passes, result.reverse_passes) == (3, 1)
    assert (result.forward_visits, result.reverse_visits) == (3 * nodes, nodes)
    derivative = 1 - math.tanh(8.0) ** 2
    expected = (derivative * 2.0, derivative * 4.0, derivative * 2.0)
    for row in (result.forward, result.reverse):
        assert row[0] == pytest.approx(expected, rel=1e-12)
    assert result.largest_difference <= 1e-15


def test_a_limit_on_node_visits_counts_both_modes_before_any_pass():
    x, w = Scalar.variable(0.5), Scalar.variable(2.0)
    square = x * x
    outputs = [square, square * w, square]  # the union: x, square, w, square * w
    result = jacobian(outputs, [x, w])
    visits = result.forward_visits + result.reverse_visits
    assert (result.forward_visits, result.reverse_visits) == (2 * 4, 2 + 4 + 2)
    assert jacobian(outputs, [x, w], max_visits=visits) == result  # at the limit: the same
    with pytest.raises(JacobianTooLarge) as caught:
        jacobian(outputs, [x, w], max_visits=visits - 1)  # past it once every graph was walked
    assert caught.value == JacobianTooLarge(visits, 4, True, visits - 1)
    with pytest.raises(JacobianTooLarge) as caught:  # past it at the second output: a lower bound
        jacobian(outputs, [x, w], max_visits=2 * 4 + 2 + 4 - 1)
    assert caught.value == JacobianTooLarge(2 * 4 + 2 + 4, 4, False, 2 * 4 + 2 + 4 - 1)


def test_one_input_three_outputs_costs_one_forward_pass_and_three_reverse():
    x = Scalar.variable(0.5)
    square = x * x
    outputs = [square, square.exp(), square * 3 + x]
    result = jacobian(outputs, [x])
    union = {id(node) for output in outputs for node in output.topology()}
    assert (result.forward_passes, result.reverse_passes) == (1, 3)
    assert result.forward_visits == len(union)
    assert result.reverse_visits == sum(len(output.topology()) for output in outputs)
    expected = ((1.0,), (math.exp(0.25),), (4.0,))
    for matrix in (result.forward, result.reverse):
        assert [row[0] for row in matrix] == pytest.approx([row[0] for row in expected], rel=1e-15)
    assert result.largest_difference <= 1e-15


@given(programs(), st.lists(st.integers(0, 100), min_size=1, max_size=3))
def test_the_jacobian_both_ways_agrees_and_each_column_is_a_jvp(program, picks):
    program, built = safe_graph(program)
    outputs = [built.nodes[pick % len(built.nodes)] for pick in picks]
    inputs = built.variables
    result = jacobian(outputs, inputs)
    assert result.forward_passes == len(inputs) and result.reverse_passes == len(outputs)
    union = {id(node) for output in outputs for node in reference_topology(output)}
    assert result.forward_visits == len(inputs) * len(union)
    assert result.reverse_visits == sum(len(reference_topology(output)) for output in outputs)
    largest = 0.0
    for i, output in enumerate(outputs):
        for j, variable in enumerate(inputs):
            assert bits(result.forward[i][j]) == bits(jvp(output, variable))
            difference = abs(result.forward[i][j] - result.reverse[i][j])
            scale = max(1.0, magnitude(output, {id(variable): 1.0}))
            assert difference <= 1e-12 * scale
            largest = max(largest, difference)
    assert result.largest_difference == largest
    assume(len(inputs) != len(outputs))
    event("n != m")


# ---- nothing stored changes -----------------------------------------------------------------


@given(programs(), directions)
def test_forward_mode_changes_nothing_stored(program, direction):
    program, built = safe_graph(program)
    output = chosen_output(built)
    output.backward()  # gradients that are not zero, to see them kept
    for node, name in zip(built.nodes, "abcdefghij"):
        node.tag = name
    before = snapshot(built.nodes)
    direction = direction[: len(built.variables)]
    jvp(output, built.variables, direction)
    forward_trace(built.output, built.variables, direction).nodes
    jacobian([output, built.output], built.variables)
    assert snapshot(built.nodes) == before


# ---- typed errors ---------------------------------------------------------------------------


def test_a_tensor_in_the_graph_is_a_typed_error():
    x = Scalar.variable(2.0)
    weights = Tensor.variable([1.0, 2.0])
    mixed = weights.sum() * x
    for call in (lambda: jvp(mixed, x), lambda: forward_trace(mixed, x),
                 lambda: jacobian([x * 2, mixed], [x])):
        with pytest.raises(TensorInForwardMode) as caught:
            call()
        assert caught.value.kind == "tensor-in-forward-mode"
        assert caught.value.operation in ("variable", "sum")
    with pytest.raises(ForwardInputNotVariable) as caught:
        jvp(x * 2, [x, weights])
    assert caught.value == ForwardInputNotVariable(1, "a tensor variable")


def test_an_input_that_is_not_a_variable_is_a_typed_error():
    x = Scalar.variable(2.0)
    square = x * x
    for input, operation in ((Scalar.constant(1.0), "a constant node"), (square, "a mul node"),
                             (x.detach(), "a detached node")):
        with pytest.raises(ForwardInputNotVariable) as caught:
            jvp(square, [x, input], [1.0, 1.0])
        assert caught.value == ForwardInputNotVariable(1, operation)
        assert "not a scalar variable" in str(caught.value)
        with pytest.raises(ForwardInputNotVariable):
            jacobian([square], [input])


def test_a_direction_of_the_wrong_length_or_not_finite_is_a_typed_error():
    x, y = Scalar.variable(2.0), Scalar.variable(3.0)
    with pytest.raises(DirectionLengthMismatch) as caught:
        jvp(x * y, [x, y], [1.0])
    assert caught.value == DirectionLengthMismatch(2, 1)
    assert str(caught.value) == "a direction of 1 numbers for 2 inputs: give one number per input"
    with pytest.raises(NonFiniteDirection) as infinite:
        forward_trace(x * y, [x, y], [1.0, math.inf])
    assert infinite.value == NonFiniteDirection(1, math.inf)
    with pytest.raises(TypeError):
        jvp(x * y, [x, y], [1.0, "up"])


def test_an_overflowing_tangent_is_a_typed_error():
    x = Scalar.variable(1e-300)
    huge = x * 1e300
    with pytest.raises(NonFiniteTangent) as caught:
        jvp(huge, x, [1e300])
    assert caught.value == NonFiniteTangent(2, "mul", math.inf)  # node 1: the constant 1e300


def test_forward_errors_are_engine_errors_with_kinds_of_their_own():
    kinds = [error.kind for error in FORWARD_ERRORS]
    assert len(set(kinds)) == len(kinds)
    assert not set(kinds) & {error.kind for error in ENGINE_ERRORS}
    assert all(issubclass(error, ScalarAutodiffError) for error in FORWARD_ERRORS)
