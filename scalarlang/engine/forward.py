"""Forward mode on the graph the engine records: tangents, the evaluation trace, and the
Jacobian computed both ways.

Each node keeps its operand edges with their local derivatives (node.py), so forward mode
needs nothing new: one pass walks the graph in topological order (operands before results:
the order of `topology`, the indices of a reverse pass's records) and gives each node the
tangent

    ṫ(node) = Σ over its edges  local derivative × ṫ(operand)

a left fold in edge order, repeated operands as separate terms: the chapter's sum over edges,
read the other way. A leaf's tangent is the direction's number when it is an input, else 0.

Nothing stored changes: no gradient, no value, no label (the walk leaves only its scratch
marks, as every walk does). `jvp` gives the output's tangent; `forward_trace` the whole pass
as records; `jacobian` the matrix by n forward passes and by m reverse passes (passes.py's
`reverse_pass`, which commits nothing), with what each cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .forward_errors import (
    DirectionLengthMismatch,
    ForwardInputNotVariable,
    JacobianTooLarge,
    NonFiniteDirection,
    NonFiniteTangent,
    TensorInForwardMode,
)
from .node import NARY_OPERATIONS, Node, ScalarOperation, real_number
from .passes import reverse_pass, topology
from .tensor_operations import TENSOR_OPERATIONS

_VARIABLE = ScalarOperation.VARIABLE


@dataclass(frozen=True, slots=True)
class ForwardTerm:
    """One term of a tangent's sum: an operand edge's local derivative times the operand's
    tangent (``operand``: its index in the trace)."""

    operand: int
    local_derivative: float
    operand_tangent: float
    product: float


@dataclass(frozen=True, slots=True)
class ForwardNode:
    """One node of the evaluation trace. A leaf has no terms; ``seeded``: an input, whose
    tangent is the direction's number."""

    index: int
    operation: ScalarOperation
    value: float
    tangent: float
    terms: tuple[ForwardTerm, ...]
    seeded: bool


class ForwardTrace:
    """One forward pass: the nodes in the order visited (``topology``: the nodes themselves),
    their tangents, each input's index in it (None: not in the graph) and the direction."""

    __slots__ = ("topology", "tangents", "inputs", "direction", "_positions")

    def __init__(self, topology: Sequence[Any], tangents: Sequence[float],
                 inputs: tuple[int | None, ...], direction: tuple[float, ...],
                 positions: dict[int, int]):
        self.topology = topology
        self.tangents = tangents
        self.inputs = inputs
        self.direction = direction
        self._positions = positions  # id(node) -> its index

    @property
    def tangent(self) -> float:
        """The output's tangent: the directional derivative."""
        return self.tangents[-1]

    @property
    def visited(self) -> int:
        """How many nodes the pass visited: every node of the output's graph, once."""
        return len(self.topology)

    def node(self, index: int) -> ForwardNode:
        """The record of node ``index``, its terms recomputed with the pass's float operations
        (so each product is, bit for bit, the one the pass added)."""
        node = self.topology[index]
        tangents = self.tangents
        positions = self._positions
        terms = []
        for operand, local in node.parents:
            at = positions[id(operand)]
            terms.append(ForwardTerm(at, local, tangents[at], local * tangents[at]))
        seeded = index in self.inputs
        return ForwardNode(index, node.operation, node.value, tangents[index], tuple(terms), seeded)

    @property
    def nodes(self) -> list[ForwardNode]:
        return [self.node(index) for index in range(len(self.topology))]

    def __repr__(self) -> str:
        return f"ForwardTrace(tangent={self.tangent!r}, visited={self.visited})"


@dataclass(frozen=True, slots=True)
class Jacobian:
    """d output_i / d input_j by both modes (rows: outputs, columns: inputs) and their costs:
    forward, one pass per input over the graph of all the outputs; reverse, one pass per
    output over that output's graph. ``largest_difference``: max |forward - reverse|."""

    forward: tuple[tuple[float, ...], ...]
    reverse: tuple[tuple[float, ...], ...]
    forward_passes: int
    forward_visits: int
    reverse_passes: int
    reverse_visits: int
    largest_difference: float


def jvp(output: Node, inputs: Node | Sequence[Node], direction: Sequence[object] | None = None) -> float:
    """The tangent of ``output`` when each input moves by its number of ``direction`` (1 each
    when None): the directional derivative, by one forward pass. Changes nothing stored."""
    return forward_trace(output, inputs, direction).tangent


def forward_trace(output: Node, inputs: Node | Sequence[Node],
                  direction: Sequence[object] | None = None) -> ForwardTrace:
    """The forward pass of `jvp` as an evaluation trace: every node of ``output``'s graph in
    topological order with its value and tangent."""
    inputs = _as_inputs(inputs)
    numbers = _direction(inputs, direction)
    order, positions = _graph((output,))
    at = tuple(positions.get(id(node)) for node in inputs)
    tangents = _tangents(order, positions, _seeds(at, numbers))
    return ForwardTrace(order, tangents, at, numbers, positions)


def jacobian(outputs: Sequence[Node], inputs: Sequence[Node], max_visits: int | None = None) -> Jacobian:
    """The Jacobian of ``outputs`` with respect to ``inputs`` both ways, with the number of
    passes and node visits of each mode (n inputs: n forward passes; m outputs: m reverse).
    With ``max_visits``, a Jacobian whose passes would visit more nodes is `JacobianTooLarge`,
    found while the outputs' graphs are walked, before any pass."""
    outputs = tuple(outputs)
    inputs = _as_inputs(inputs)
    order, positions = _graph(outputs, len(inputs), max_visits)
    rows = [positions[id(output)] for output in outputs]
    columns: list[list[float]] = []
    for input in inputs:  # one forward pass per input: a column
        at = positions.get(id(input))
        tangents = _tangents(order, positions, {} if at is None else {at: 1.0})
        columns.append([tangents[row] for row in rows])
    forward = tuple(tuple(column[i] for column in columns) for i in range(len(outputs)))

    reverse_rows: list[tuple[float, ...]] = []
    reverse_visits = 0
    for output in outputs:  # one reverse pass per output: a row
        if not output.tracks_gradient:  # a constant output: no pass can start there
            reverse_visits += len(topology(output))
            reverse_rows.append(tuple(0.0 for _ in inputs))
            continue
        backward_pass = reverse_pass(output)
        reverse_visits += len(backward_pass.topology)
        where = {id(member): at for at, member in enumerate(backward_pass.topology)}
        adjoints = backward_pass.nodes
        reverse_rows.append(tuple(
            _adjoint(adjoints[where[id(input)]].pass_adjoint) if id(input) in where else 0.0
            for input in inputs
        ))
    reverse = tuple(reverse_rows)

    largest = 0.0
    for forward_row, reverse_row in zip(forward, reverse):
        for by_forward, by_reverse in zip(forward_row, reverse_row):
            largest = max(largest, abs(by_forward - by_reverse))
    return Jacobian(forward, reverse, len(inputs), len(inputs) * len(order), len(outputs),
                    reverse_visits, largest)


# ---- the pass --------------------------------------------------------------------------------


def _graph(outputs: Sequence[Node], forward_passes: int = 0,
           max_visits: int | None = None) -> tuple[list[Any], dict[int, int]]:
    """Every node of the outputs' graphs once, operands before results, and each one's index
    (by identity): the first output's topology, then what each later one adds to it, in its
    own order (so operands still come first). A tensor anywhere is an error. With
    ``max_visits``: the visits counted so far (``forward_passes`` × the nodes found, and each
    output's graph for its reverse pass) past it are `JacobianTooLarge`, as soon as they are."""
    order: list[Any] = []
    positions: dict[int, int] = {}
    sizes: dict[int, int] = {}  # an output given again: its graph is not walked again
    reverse_visits = 0
    for at, output in enumerate(outputs):
        _check_node(output, "an output")
        size = sizes.get(id(output))
        if size is None:
            nodes = topology(output)
            size = sizes[id(output)] = len(nodes)
            for node in nodes:
                key = id(node)
                if key not in positions:
                    positions[key] = len(order)
                    order.append(node)
        reverse_visits += size
        if max_visits is not None and forward_passes * len(order) + reverse_visits > max_visits:
            raise JacobianTooLarge(forward_passes * len(order) + reverse_visits, len(order),
                                   at == len(outputs) - 1, max_visits)
    for index, node in enumerate(order):
        if node._operation in TENSOR_OPERATIONS or _is_tensor(node):
            raise TensorInForwardMode(index, str(node._operation))
    return order, positions


def _tangents(order: list[Any], positions: dict[int, int], seeds: dict[int, float]) -> list[float]:
    """Each node's tangent in order: a leaf's from ``seeds`` (its index -> number; 0 when
    absent), any other node's the left fold over its edges of local derivative × tangent."""
    tangents = [0.0] * len(order)
    index = 0
    for node in order:
        left = node._left
        if left is None:
            seed = seeds.get(index)
            if seed is not None:
                tangents[index] = seed
            index += 1
            continue
        tangent = node._dleft * tangents[positions[id(left)]]
        right = node._right
        if right is not None:
            tangent = tangent + node._dright * tangents[positions[id(right)]]
        elif node._operation in NARY_OPERATIONS:
            for operand, local in node._dright:  # the operands after the first: see Node
                tangent = tangent + local * tangents[positions[id(operand)]]
        if tangent - tangent != 0.0:  # inf - inf and nan - nan are nan
            raise NonFiniteTangent(index, str(node._operation), tangent)
        tangents[index] = tangent
        index += 1
    return tangents


def _seeds(at: tuple[int | None, ...], numbers: tuple[float, ...]) -> dict[int, float]:
    """Each input leaf's tangent; an input given twice gets the left fold of its numbers (the
    direction is linear: moving x by a and again by b moves it by a + b)."""
    seeds: dict[int, float] = {}
    for index, number in zip(at, numbers):
        if index is not None:
            seeds[index] = seeds[index] + number if index in seeds else number
    return seeds


# ---- checks ----------------------------------------------------------------------------------


def _as_inputs(inputs: Node | Sequence[Node]) -> tuple[Any, ...]:
    given: tuple[Any, ...] = (inputs,) if isinstance(inputs, Node) or _is_tensor(inputs) else tuple(inputs)
    for position, node in enumerate(given):
        _check_node(node, "an input")
        if _is_tensor(node):
            raise ForwardInputNotVariable(position, f"a tensor {node._operation}")
        if node._operation is not _VARIABLE:
            raise ForwardInputNotVariable(position, f"a {node._operation} node")
    return given


def _direction(inputs: tuple[Node, ...], direction: Sequence[object] | None) -> tuple[float, ...]:
    if direction is None:
        return tuple(1.0 for _ in inputs)
    numbers = tuple(real_number(number, "a direction's number") for number in direction)
    if len(numbers) != len(inputs):
        raise DirectionLengthMismatch(len(inputs), len(numbers))
    for position, number in enumerate(numbers):
        if number - number != 0.0:
            raise NonFiniteDirection(position, number)
    return numbers


def _check_node(node: object, what: str) -> None:
    if not (isinstance(node, Node) or _is_tensor(node)):
        raise TypeError(f"{what} of forward mode must be a node, not {type(node).__name__}")


def _is_tensor(node: object) -> bool:
    return hasattr(type(node), "_shape")  # (tensor nodes' class: tensor_node.py, above this one)


def _adjoint(value: float | None) -> float:
    return 0.0 if value is None else value

