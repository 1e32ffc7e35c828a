"""The bridge from scalars to tensors: each tensor VJP of a loss's graph against the sum of its
scalar edges.

For every tensor node of the loss's graph (a node of a tensor operation that the pass reached:
a tensor node, or a scalar node of tensor operands such as a sum or a dot), `vjp_check`

1. rebuilds the operation from scalar nodes of the chapter's engine (scalar_rebuild.py): fresh
   leaves for the elements of each operand edge (variables where the operand is tracked), each
   output element a scalar node of them, with the kernels' left folds;
2. pushes the node's adjoint back through those scalar edges with the chapter's reverse pass:
   one output row at a time, from ``g0*y0 + g1*y1 + ...`` (each ``g`` a constant, the node's
   adjoint element; its edges hand each output element ``y`` exactly ``1 * g``), so each
   leaf's pass adjoint is what the scalar edges give that operand element, added over the rows
   in order;
3. compares it, element by element, with what the node's VJP gives each tracked operand from
   the same adjoint: the scaled error of the gradient check, ``|tensor - scalar| / max(1,
   |tensor|, |scalar|)``, against a tolerance.

The adjoints come from one fresh reverse pass of the loss (`reverse_pass`: it writes no stored
gradient); the rebuilt scalar graphs are new nodes, dropped when the check returns. Nothing of
the loss's graph changes but the marks every walk leaves.

The scalar pass adds an element's contributions in its own order, so the two sides agree to a
few units in the last place, not bit for bit (docs/engine.md); a wrong VJP differs by far more.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from math import isfinite
from operator import add
from typing import Any

from .errors import ScalarAutodiffError
from .gradcheck import GRADCHECK_TOLERANCE, InvalidGradcheckTolerance
from .node import NARY_OPERATIONS, real_number
from .scalar import Scalar
from .scalar_rebuild import NotRebuildable, Rebuilt, rebuild
from .tensor_shapes import Shape, unravel
from .tensor_node import TensorNode
from .tensor_operations import TENSOR_OPERATIONS, TensorOperation


@dataclass(frozen=True, slots=True)
class OperandVJPCheck:
    """One operand edge of a checked node: its slot, its shape (``()`` for a scalar node), the
    number of scalar edges that reach its elements, the two contributions (row major), the
    largest absolute difference and scaled error, and the element with that scaled error."""

    slot: int
    shape: Shape
    scalar_edges: int
    tensor: tuple[float, ...]  # what the node's VJP gave
    scalar: tuple[float, ...]  # what the scalar edges gave
    largest_difference: float
    scaled_error: float
    element: Shape
    passed: bool


@dataclass(frozen=True, slots=True)
class NodeVJPCheck:
    """One tensor node: its topology index in the loss's graph, label, operation, shape and
    operand shapes (each edge's), the scalar edges of its rebuilt operation (every edge of its
    scalar nodes, an element moved as it is, or the one element a sum of one gives back,
    counting as one edge of derivative 1), and the checks of its tracked operands.
    ``problem`` says why it could not be checked (then it fails)."""

    node: int
    label: str | None
    operation: TensorOperation
    shape: Shape
    operand_shapes: tuple[Shape, ...]
    scalar_edges: int
    operands: tuple[OperandVJPCheck, ...]
    largest_difference: float
    scaled_error: float
    tolerance: float
    passed: bool
    problem: str | None = None

    @property
    def name(self) -> str:
        """The node as a person names it: its label, else ``#index`` in the topology."""
        return self.label if self.label is not None else f"#{self.node}"


@dataclass(frozen=True, slots=True)
class VJPCheck:
    """Every tensor node's check, in topology order, and the verdict: passed when each did."""

    nodes: tuple[NodeVJPCheck, ...]
    tolerance: float

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.nodes)

    @property
    def failures(self) -> tuple[NodeVJPCheck, ...]:
        return tuple(check for check in self.nodes if not check.passed)

    @property
    def worst(self) -> NodeVJPCheck | None:
        """The node with the largest scaled error (a failure to check first); None when empty."""
        if not self.nodes:
            return None
        failures = self.failures
        return max(failures or self.nodes, key=lambda check: check.scaled_error)

    @property
    def scalar_edges(self) -> int:
        return reduce(add, [check.scalar_edges for check in self.nodes], 0)


def vjp_check(loss: Scalar, tolerance: float = GRADCHECK_TOLERANCE) -> VJPCheck:
    """Check every tensor VJP of ``loss``'s graph against its scalar edges (module docstring).
    ``loss`` is a tracked scalar node; the pass's own errors (an untracked loss, a non-finite
    adjoint) are raised as `reverse_pass` raises them."""
    tolerance = real_number(tolerance, "a vjp_check tolerance")
    if not (isfinite(tolerance) and tolerance > 0.0):
        raise InvalidGradcheckTolerance(tolerance)
    backward_pass = loss.reverse_pass()
    topology = backward_pass.topology
    adjoint_of = getattr(backward_pass, "adjoint", None)  # a pass over tensor nodes has one
    checks = []
    for index, node in enumerate(topology):
        if node._operation.__class__ is not TensorOperation or node._gradient is None or adjoint_of is None:
            continue
        checks.append(_check_node(index, node, adjoint_of(index), tolerance))
    return VJPCheck(tuple(checks), tolerance)


def _shape_of(node: Any) -> Shape:
    return node._shape if isinstance(node, TensorNode) else ()


def _values_of(node: Any) -> list[float]:
    return node._values if isinstance(node, TensorNode) else [node._value]


def _check_node(index: int, node: Any, adjoint: Any, tolerance: float) -> NodeVJPCheck:
    edges = ((node._left, node._dleft), *node._dright)
    shapes = tuple(_shape_of(operand) for operand, _ in edges)
    label = None if node.tag is None else str(node.tag)
    upstream: Any = list(adjoint) if isinstance(adjoint, tuple) else adjoint

    def failed(problem: str) -> NodeVJPCheck:
        return NodeVJPCheck(index, label, node._operation, _shape_of(node), shapes, 0, (), 0.0,
                            0.0, tolerance, False, problem)

    # fresh leaves per edge: variables where the pass sends a contribution (a tracked operand)
    leaves = [[Scalar.variable(value) if operand._gradient is not None else Scalar.constant(value)
               for value in _values_of(operand)] for operand, _ in edges]
    try:
        rebuilt = rebuild(node, leaves)
        scalar, edge_counts, total_edges = _pushed_back(rebuilt, leaves, upstream)
    except NotRebuildable:
        return failed(f"no scalar rebuild of a {node._operation} node made outside the engine's operations")
    except ScalarAutodiffError as error:
        return failed(f"the scalar rebuild failed: {error}")
    operands = []
    for slot, (operand, vjp) in enumerate(edges):
        if operand._gradient is None:
            continue  # the pass computes no contribution for an untracked operand
        given = vjp(upstream)
        tensor = [given] if given.__class__ is float else list(given)
        operands.append(_compare(slot, shapes[slot], edge_counts[slot], tensor, scalar[slot], tolerance))
    worst = max(operands, key=lambda check: check.scaled_error) if operands else None
    return NodeVJPCheck(
        index, label, node._operation, _shape_of(node), shapes, total_edges, tuple(operands),
        max((check.largest_difference for check in operands), default=0.0),
        worst.scaled_error if worst is not None else 0.0, tolerance,
        all(check.passed for check in operands),
    )


def _pushed_back(rebuilt: Rebuilt, leaves: list[list[Scalar]], upstream: Any) -> tuple[list[list[float]], list[int], int]:
    """Each leaf's adjoint from the rebuilt scalar graph, one output row at a time; the scalar
    edges that reach each slot's leaves, and every edge of the rebuilt scalar nodes."""
    owners: dict[int, tuple[int, int]] = {}
    for slot, elements in enumerate(leaves):
        for at, leaf in enumerate(elements):
            owners[id(leaf)] = (slot, at)
    totals = [[0.0] * len(elements) for elements in leaves]
    edge_counts = [0] * len(leaves)
    total_edges = 0
    seeds = upstream if isinstance(upstream, list) else [upstream]
    for part in rebuilt.parts:
        outputs = rebuilt.outputs(part)
        terms = [Scalar.constant(seeds[at]) * output for at, output in zip(part, outputs)]
        harness = {id(term) for term in terms}  # the seeding nodes: not edges of the rebuild
        seeded = terms[0]
        for term in terms[1:]:  # (the left fold, written out to know its nodes)
            seeded = seeded + term
            harness.add(id(seeded))
        # an output element that is an operand element (moved, or the one element a fold of
        # one summed: its rebuild is that element) is one edge of derivative 1
        for output in outputs:
            owner = owners.get(id(output))
            if owner is not None:
                edge_counts[owner[0]] += 1
                total_edges += 1
        if seeded._gradient is None:
            continue  # nothing in this row reaches a tracked operand
        backward_pass = seeded.reverse_pass()
        adjoints = backward_pass._adjoints
        counting = not rebuilt.moves
        owner_of = owners.get
        for at, node in enumerate(backward_pass.topology):
            left = node._left
            if left is None:
                if node._gradient is not None:
                    owner = owner_of(id(node))
                    if owner is not None:
                        totals[owner[0]][owner[1]] += adjoints[at]
                continue
            if not counting or id(node) in harness:
                continue
            right = node._right
            operands = (left, right) if right is not None else _operands_of(node)
            total_edges += len(operands)
            for parent in operands:
                owner = owner_of(id(parent))
                if owner is not None:
                    edge_counts[owner[0]] += 1
    return totals, edge_counts, total_edges


def _operands_of(node: Any) -> list[Any]:
    """The operands of a node with no second slot: an n-ary node's, or its one."""
    if node._operation in NARY_OPERATIONS or node._operation in TENSOR_OPERATIONS:
        return [node._left, *(operand for operand, _ in node._dright)]
    return [node._left]


def _compare(slot: int, shape: Shape, edges: int, tensor: list[float], scalar: list[float],
             tolerance: float) -> OperandVJPCheck:
    largest_difference = 0.0
    worst_error, worst_at = 0.0, 0
    if len(tensor) != len(scalar):  # a VJP of the wrong size: wrong at every element
        return OperandVJPCheck(slot, shape, edges, tuple(tensor), tuple(scalar), float("inf"),
                               float("inf"), (), False)
    for at, (mine, theirs) in enumerate(zip(tensor, scalar)):
        difference = abs(mine - theirs)
        error = difference / max(1.0, abs(mine), abs(theirs))
        if difference > largest_difference or difference != difference:
            largest_difference = difference
        if error > worst_error or error != error:
            worst_error, worst_at = error, at
            if error != error:
                break
    passed = worst_error <= tolerance
    return OperandVJPCheck(slot, shape, edges, tuple(tensor), tuple(scalar), largest_difference,
                           worst_error, unravel(worst_at, shape) if shape else (), passed)
