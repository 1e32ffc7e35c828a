"""The reverse pass of a graph holding tensor nodes: the chapter's rules, on mixed graphs.

passes.py walks the graph (each unique node once, operands before results) and hands a graph
with a node of a tensor operation to `compute_pass`, which keeps every rule of the scalar
pass: fresh adjoints for this pass only (a float for a scalar node, a list of floats of the
node's size for a tensor node), the nodes visited once in reverse topological order (a loop,
no recursion), every edge's contribution added, never assigned (so `X * X`, `A @ A` and a
tensor with two consumers get each contribution), every adjoint and every future stored
gradient checked finite before anything is written, and then every stored gradient written in
one step. A scalar edge contributes ``upstream * local_derivative``; a tensor edge's VJP
gives the contribution from the upstream adjoint.

Two differences from the scalar pass, both for speed on large tensors: no contribution is
computed for an untracked operand (the data of a layer, a constant), and finiteness is
checked per node, once its adjoint is complete (before it is passed on), not per edge: the
first node, from the output back, whose adjoint is not finite is reported with the element.
"""

from __future__ import annotations

from math import isfinite
from operator import add
from typing import Any

from .errors import NonFiniteAccumulatedGradient
from .node import NARY_OPERATIONS
from .node import write_gradients as _write_gradients
from .records import BackwardNode, BackwardPass
from .tensor_shapes import unravel
from .tensor_errors import NonFiniteAccumulatedTensorGradient, NonFiniteTensorAdjoint
from .tensor_operations import TENSOR_OPERATIONS


def compute_pass(order: list[Any], seed: float, commit: bool) -> TensorBackwardPass:
    """The pass from ``order[-1]`` (a tracked scalar node) seeded by ``seed``; the caller holds
    the walk lock and has checked the output and the seed."""
    adjoints = _propagate(order, seed)
    accumulated: list[Any] = [None] * len(order)
    for index, node in enumerate(order):
        stored = node._gradient
        if stored is not None:
            accumulated[index] = _accumulate(index, stored, adjoints[index])
    if commit:
        _write_gradients(order, accumulated)  # every check has passed; one step
    return TensorBackwardPass._of(seed, order, adjoints, accumulated)


def _propagate(order: list[Any], seed: float) -> list[Any]:
    count = len(order)
    adjoints: list[Any] = [None] * count  # made on a node's first contribution
    adjoints[count - 1] = seed
    for child in range(count - 1, -1, -1):
        node = order[child]
        if node._gradient is None:
            continue  # untracked: it neither receives nor passes on an adjoint
        upstream = adjoints[child]
        if upstream is None:  # (a tracked node always has a tracked consumer; kept safe)
            upstream = adjoints[child] = _zeros_like(node._gradient)
        _check_adjoint(child, node, upstream)
        left = node._left
        if left is None:
            continue
        operation = node._operation
        if operation in TENSOR_OPERATIONS:
            for operand, vjp in ((left, node._dleft), *node._dright):
                if operand._gradient is not None:
                    _add_into(adjoints, operand._index, vjp(upstream))
            continue
        if node._right is not None:
            edges: tuple = ((left, node._dleft), (node._right, node._dright))
        elif operation in NARY_OPERATIONS:
            edges = ((left, node._dleft), *node._dright)
        else:
            edges = ((left, node._dleft),)
        for operand, local in edges:
            if operand._gradient is not None:
                _add_into(adjoints, operand._index, upstream * local)
    return adjoints


def _add_into(adjoints: list[Any], parent: int, contribution: Any) -> None:
    previous = adjoints[parent]
    if previous is None:  # fresh: zero, plus the contribution
        adjoints[parent] = 0.0 + contribution if contribution.__class__ is float else contribution
    elif previous.__class__ is float:
        adjoints[parent] = previous + contribution
    else:
        adjoints[parent] = list(map(add, previous, contribution))


def _zeros_like(gradient: Any) -> Any:
    return 0.0 if gradient.__class__ is float else [0.0] * len(gradient)


def _check_adjoint(index: int, node: Any, adjoint: Any) -> None:
    if adjoint.__class__ is float:
        if adjoint - adjoint != 0.0:
            raise NonFiniteTensorAdjoint(index, node._operation, (), adjoint)
    elif not all(map(isfinite, adjoint)):
        at = next(at for at, value in enumerate(adjoint) if not isfinite(value))
        raise NonFiniteTensorAdjoint(index, node._operation, unravel(at, node._shape), adjoint[at])


def _accumulate(index: int, stored: Any, adjoint: Any) -> Any:
    """The prospective stored gradient, checked finite."""
    if adjoint is None:
        adjoint = _zeros_like(stored)
    if stored.__class__ is float:
        total = stored + adjoint
        if total - total != 0.0:
            raise NonFiniteAccumulatedGradient(index, stored, adjoint)
        return total
    totals = list(map(add, stored, adjoint))
    if not all(map(isfinite, totals)):
        at = next(at for at, value in enumerate(totals) if not isfinite(value))
        raise NonFiniteAccumulatedTensorGradient(index, at, stored[at], adjoint[at])
    return totals


class TensorBackwardPass(BackwardPass):
    """A pass over a graph holding tensor nodes: the seed, the topology, and per node its pass
    adjoint and prospective (after a commit, stored) gradient: floats for scalar nodes,
    tuples of floats (row major) for tensor nodes, None for untracked nodes.

    ``nodes`` gives one `BackwardNode` per topology entry, with tuples in place of floats for
    tensor nodes (``value`` too); ``edges`` is empty: a tensor edge stands for many scalar
    edges, and the pass keeps no per-edge record."""

    __slots__ = ("_mixed_adjoints",)

    _mixed_adjoints: list[Any]

    @classmethod
    def _of(cls, seed: float, order: list[Any], adjoints: list[Any], accumulated: list[Any]) -> TensorBackwardPass:
        made = object.__new__(cls)
        made.seed = seed
        made.topology = order
        made._mixed_adjoints = adjoints
        made._accumulated = accumulated
        made._edge_before = []  # type: ignore[assignment]
        made._edges = []  # type: ignore[assignment]
        made._walk = None
        made._positions = None
        return made

    def adjoint(self, index: int) -> float | tuple[float, ...] | None:
        """The pass adjoint of topology node ``index``; None when untracked."""
        node = self.topology[index]
        if node._gradient is None:
            return None
        adjoint = self._mixed_adjoints[index]
        if adjoint is None:
            adjoint = _zeros_like(node._gradient)
        return adjoint if adjoint.__class__ is float else tuple(adjoint)

    def _node(self, index: int) -> BackwardNode:
        node = self.topology[index]
        values = getattr(node, "_values", None)  # a tensor node's (a scalar node has none)
        value = node._value if values is None else tuple(values)
        if node._gradient is None:
            return BackwardNode(index, node._operation, value, False, None, None)  # type: ignore[arg-type]
        accumulated = self._accumulated[index]
        if accumulated.__class__ is list:
            accumulated = tuple(accumulated)
        return BackwardNode(index, node._operation, value, True, self.adjoint(index), accumulated)  # type: ignore[arg-type]

    def _edge(self, index: int) -> Any:
        raise IndexError("a pass over tensor nodes keeps no per-edge records")

    def __repr__(self) -> str:
        return f"TensorBackwardPass(seed={self.seed!r}, nodes=<{len(self.topology)}>)"
