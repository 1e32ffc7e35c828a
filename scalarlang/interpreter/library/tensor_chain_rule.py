"""``explain(T)`` of a tensor node, and the summaries of many numbers it shows.

A tensor edge is one VJP standing for many scalar edges, so `explain` of a tensor node shows
each of its operand edges (the VJP's formula, the shapes, how many scalar edges it stands for:
``[32, 30] @ [30, 200]``, 192,000 multiply edges), then, in the latest kept pass whose graph
holds it, the adjoint that reached it and the edges into it from its consumers, each with its
contribution (the VJP applied again to the consumer's adjoint from the pass: a VJP is a pure
function of it), summarised: shape, first values, largest magnitude. Changes nothing.
"""

from __future__ import annotations

from operator import add
from typing import Any, Sequence

from ...engine.tensor_shapes import unravel
from ...engine.tensor_formulas import operation_shapes, scalar_edges, tensor_edges, vjp_formula
from ...engine.tensor_node import TensorNode
from ...engine.tensor_operations import TensorOperation
from ..tensor_outcomes import TensorEdge, TensorExplained, TensorSummary
from ..state import History, KeptPass
from ..values import label_of

SUMMARY_VALUES = 3  # the first values a summary shows


def summarised(values: Sequence[float], shape: tuple[int, ...]) -> TensorSummary:
    """``values`` (row major, of ``shape``; one number: shape ``()``) in a line."""
    largest_at = 0
    largest = abs(values[0])
    for position, value in enumerate(values):
        if abs(value) > largest:
            largest, largest_at = abs(value), position
    return TensorSummary(shape, tuple(values[:SUMMARY_VALUES]), values[largest_at], unravel(largest_at, shape))


def _summary_of(value: Any, node: Any) -> TensorSummary:
    if isinstance(node, TensorNode):
        return summarised(list(value), node._shape)
    return summarised([float(value)], ())


def edge_of(node: Any, slot: int, contribution: TensorSummary | None = None) -> TensorEdge:
    operand = tensor_edges(node)[slot][0]
    count, kind = scalar_edges(node, slot)
    return TensorEdge(
        label_of(node), slot, label_of(operand), operation_shapes(node), vjp_formula(node, slot), count, kind,
        operand._gradient is not None, contribution,
    )


def tensor_explained(node: TensorNode, history: History | None, span) -> TensorExplained:
    label = label_of(node)  # type: ignore[arg-type]
    operands: tuple[TensorEdge, ...] = ()
    if node._operation.__class__ is TensorOperation:
        operands = tuple(edge_of(node, slot) for slot in range(len(tensor_edges(node))))
    operation, shape = str(node.operation), node.shape
    if node._gradient is None:
        note: str | None = f"`{label}` is untracked ({operation}): no pass gives it an adjoint, and it has no gradient"
        return TensorExplained(span, label, operation, shape, False, operands, None, None, None, (), True, None, (), note)
    latest, held, zeroed = history.passes_through(node) if history is not None else (None, [], False)
    passes = [kept.number for kept, _ in held]
    gradient = summarised(node._gradient, shape)
    if latest is None:
        note = f"`{label}` was in no backward pass the session keeps"
        return TensorExplained(span, label, operation, shape, True, operands, None, None, None, (), True, gradient,
                               tuple(passes), note)
    kept, index = latest
    backward_pass = kept.backward_pass
    adjoint = backward_pass.adjoint(index)  # type: ignore[attr-defined]  # a pass over tensors
    consumers, total = _edges_into(kept, index)
    adds_up = total is None or list(total) == list(adjoint)
    note = None
    if zeroed and not passes:
        note = f"`{label}` was zeroed since pass {kept.number}: its gradient holds no pass yet"
    return TensorExplained(
        span, label, operation, shape, True, operands, kept.number, kept.output, summarised(adjoint, shape),
        consumers, adds_up, gradient, tuple(passes), note,
    )


def _edges_into(kept: KeptPass, index: int) -> tuple[tuple[TensorEdge, ...], list[float] | None]:
    """The edges into topology node ``index`` in the pass's order (consumers from the output
    back, each one's slots in order), their contributions, and the sum of them the pass made."""
    backward_pass = kept.backward_pass
    topology = backward_pass.topology
    target = topology[index]
    edges: list[TensorEdge] = []
    total: list[float] | None = None
    for child in range(len(topology) - 1, index, -1):
        consumer = topology[child]
        if consumer._gradient is None or consumer._left is None:
            continue
        if consumer._operation.__class__ is not TensorOperation:
            continue  # (a scalar operation's operands are scalar nodes, never this tensor)
        for slot, (operand, vjp) in enumerate(tensor_edges(consumer)):
            if operand is not target:
                continue
            upstream = backward_pass.adjoint(child)  # type: ignore[attr-defined]
            contribution = vjp(upstream if upstream.__class__ is float else list(upstream))
            total = list(contribution) if total is None else list(map(add, total, contribution))
            edges.append(edge_of(consumer, slot, _summary_of(contribution, target)))
    return tuple(edges), total
