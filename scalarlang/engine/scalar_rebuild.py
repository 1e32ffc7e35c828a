"""A tensor operation made again from scalar nodes of the chapter's engine, for `vjp_check`.

Each output element of a tensor node is rebuilt as a `Scalar` node of the operand elements
(fresh leaves, one list per operand edge), with the same operations and the same left folds
the tensor kernels use: an entry of ``A @ B`` is ``a0*b0 + a1*b1 + ...`` folded from the left,
a sum along an axis the fold of its fiber, a row of ``cross_entropy`` ``logsumexp(row) -
row[target]``, softmax ``exp(x - max_of(row))`` over their folded sum. An operation that only
moves elements (reshape, transpose, an index, the rows of an embedding lookup, a stack of
scalar nodes) gives back the operand's leaf itself: the output element *is* that element.

The operation and its arguments (numbers, an axis, the indices of a lookup) are read from the
node's first edge, the `RemakeableVJP` that every tensor operation leaves there; nothing of
the node's VJPs is used. `rebuild(node, leaves)` gives a `Rebuilt`: the output elements, made
a part at a time (`outputs(part)`, the flat positions of one output row) so that a large
operation never holds all its scalar nodes at once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from functools import reduce
from operator import add
from typing import Any

from .scalar import Scalar
from .tensor_shapes import Shape, axis_of, expansion, fibers, index_in, nested_shape, size, strides
from .tensor_node import RemakeableVJP, TensorNode
from .tensor_operations import TensorOperation as Op

Elements = Callable[[range], list[Scalar]]  # output positions -> their scalar nodes


class NotRebuildable(Exception):
    """The node's first edge does not say how it was made (not made by a tensor operation of
    this engine): it cannot be rebuilt from scalars."""


class Rebuilt:
    """The output elements of one tensor node as scalar nodes: ``shape`` (``()`` for a scalar
    node), ``parts`` (ranges of flat output positions, one output row each) and ``outputs``."""

    __slots__ = ("shape", "parts", "outputs", "moves")

    def __init__(self, shape: Shape, outputs: Elements, moves: bool):
        self.shape = shape
        count = size(shape) if shape else 1
        width = shape[-1] if len(shape) >= 2 else count
        self.parts = [range(start, min(start + width, count)) for start in range(0, count, width)]
        self.outputs = outputs
        self.moves = moves  # the outputs are operand leaves themselves (no scalar operation)


def fold(items: Sequence[Scalar]) -> Scalar:
    """``items[0] + items[1] + ...``: the left fold of the kernels, on scalar nodes."""
    return reduce(add, items)


def rebuild(node: Any, leaves: Sequence[Sequence[Scalar]]) -> Rebuilt:
    """``node`` (of a tensor operation) rebuilt on ``leaves``: for each operand edge, in edge
    order, its elements as scalar leaves (row major; one for a scalar operand)."""
    made = node._dleft
    if not isinstance(made, RemakeableVJP):
        raise NotRebuildable(node._operation)
    bound = inspect.signature(made.function).bind(*made.arguments, **made.keywords)
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    operation = node._operation
    shape: Shape = node._shape if isinstance(node, TensorNode) else ()
    slots = iter(leaves)
    if operation is Op.STACK:
        return _stack(arguments["data"], slots, shape)
    builder = _BUILDERS.get(operation)
    if builder is None:
        raise NotRebuildable(operation)
    # each node argument that is an operand edge takes the next edge's leaves, in argument order
    # (X * X: two slots); a node that is no edge is data, read by its builder (C[I]'s indices
    # and cross_entropy's targets as a constant tensor)
    edge_operands = [node._left, *(operand for operand, _ in node._dright)]
    operands = {}
    for name, value in arguments.items():
        if (isinstance(value, TensorNode) or value.__class__ is Scalar) and edge_operands \
                and edge_operands[0] is value:
            operands[name] = _Operand(value, slots)
            edge_operands.pop(0)
    return builder(operation, shape, operands, arguments)


class _Operand:
    """A node argument as scalar nodes: the leaves of its edge; a number (a side of + - * /
    that is no node) as a constant, made where the operation would make it."""

    __slots__ = ("shape", "elements")

    def __init__(self, value: Any, slots: Any):
        if isinstance(value, TensorNode):
            self.shape: Shape = value._shape
            self.elements: Sequence[Scalar] = next(slots)
        elif value.__class__ is Scalar:
            self.shape, self.elements = (), next(slots)
        else:
            self.shape, self.elements = (), [Scalar.constant(value)]


# ---- element-wise ----------------------------------------------------------------------------

_BINARY: dict[Op, Callable[[Scalar, Scalar], Scalar]] = {
    Op.ADD: add,
    Op.SUB: lambda a, b: a - b,
    Op.MUL: lambda a, b: a * b,
    Op.DIV: lambda a, b: a / b,
    Op.MAXIMUM: lambda a, b: a.max(b),
    Op.MINIMUM: lambda a, b: a.min(b),
}
_UNARY: dict[Op, Callable[[Scalar], Scalar]] = {
    Op.NEG: lambda a: -a,
    Op.EXP: Scalar.exp,
    Op.LOG: Scalar.log,
    Op.TANH: Scalar.tanh,
    Op.SQRT: Scalar.sqrt,
    Op.RELU: Scalar.relu,
    Op.SIGMOID: Scalar.sigmoid,
    Op.ABS: Scalar.abs,
}


def _binary(operation: Op, shape: Shape, operands: dict[str, _Operand], arguments: dict[str, Any]) -> Rebuilt:
    left, right = (operands.get(name) or _Operand(arguments[name], None) for name in ("left", "right"))
    apply = _BINARY[operation]

    def picked(operand: _Operand) -> Callable[[int], Scalar]:
        if not operand.shape:
            only = operand.elements[0]
            return lambda at: only
        positions = expansion(operand.shape, shape)
        elements = operand.elements
        if positions is None:
            return elements.__getitem__
        return lambda at: elements[positions[at]]
    a, b = picked(left), picked(right)
    return Rebuilt(shape, lambda part: [apply(a(at), b(at)) for at in part], False)


def _unary(operation: Op, shape: Shape, operands: dict[str, _Operand], arguments: dict[str, Any]) -> Rebuilt:
    if operation is Op.POW:
        elements = operands["base"].elements
        exponent = arguments["exponent"]
        return Rebuilt(shape, lambda part: [elements[at] ** exponent for at in part], False)
    elements = operands["operand"].elements
    apply = _UNARY[operation]
    return Rebuilt(shape, lambda part: [apply(elements[at]) for at in part], False)


# ---- matrix products -------------------------------------------------------------------------


def _matmul(operation: Op, shape: Shape, operands: dict[str, _Operand], _: dict[str, Any]) -> Rebuilt:
    left, right = operands["left"], operands["right"]
    a, b = left.elements, right.elements
    k = right.shape[0]
    m = right.shape[1] if len(right.shape) == 2 else 1
    # output (i, j): the fold over p of A[i, p] * B[p, j] (a rank-1 operand: one row, one column)

    def entry(at: int) -> Scalar:
        i, j = divmod(at, m)
        return fold([a[i * k + p] * b[p * m + j] for p in range(k)])
    return Rebuilt(shape, lambda part: [entry(at) for at in part], False)


# ---- reductions ------------------------------------------------------------------------------


def _fibers_of(operand: _Operand, axis: Any) -> tuple[Callable[[int], list[Scalar]], int]:
    """The fiber behind each output position of a reduction along ``axis`` (None: all)."""
    elements = operand.elements
    if axis is None or len(operand.shape) == 1:
        return lambda at: list(elements), len(elements)
    outer, length, inner = fibers(operand.shape, axis_of(axis, len(operand.shape)))

    def fiber(at: int) -> list[Scalar]:
        o, i = divmod(at, inner)
        base = o * length * inner + i
        return [elements[base + j * inner] for j in range(length)]
    return fiber, length


_REDUCTIONS: dict[Op, Callable[[list[Scalar]], Scalar]] = {
    Op.SUM: fold,
    Op.MEAN: lambda fiber: fold(fiber) / len(fiber),
    Op.MAX: Scalar.max_of,
    Op.MIN: Scalar.min_of,
    Op.LOGSUMEXP: Scalar.logsumexp,
}


def _reduction(operation: Op, shape: Shape, operands: dict[str, _Operand], arguments: dict[str, Any]) -> Rebuilt:
    fiber, _ = _fibers_of(operands["tensor"], arguments["axis"])
    apply = _REDUCTIONS[operation]
    return Rebuilt(shape, lambda part: [apply(fiber(at)) for at in part], False)


def _softmax(operation: Op, shape: Shape, operands: dict[str, _Operand], arguments: dict[str, Any]) -> Rebuilt:
    operand = operands["tensor"]
    axis = axis_of(arguments["axis"], len(shape))
    outer, length, inner = fibers(shape, axis)

    def outputs(part: range) -> list[Scalar]:
        made: dict[int, list[Scalar]] = {}  # each fiber once per part: exp(x - max) / total
        result = []
        for at in part:
            o, rest = divmod(at, length * inner)
            j, i = divmod(rest, inner)
            key = o * inner + i
            if key not in made:
                base = o * length * inner + i
                fiber = [operand.elements[base + p * inner] for p in range(length)]
                top = Scalar.max_of(fiber)
                exponentials = [(x - top).exp() for x in fiber]
                total = fold(exponentials)
                made[key] = [value / total for value in exponentials]
            result.append(made[key][j])
        return result
    rebuilt = Rebuilt(shape, outputs, False)
    if axis != len(shape) - 1:  # each fiber crosses the output rows: one part, so that each
        rebuilt.parts = [range(size(shape))]  # fiber is made, pushed back and counted once
    return rebuilt


def _cross_entropy(operation: Op, shape: Shape, operands: dict[str, _Operand], arguments: dict[str, Any]) -> Rebuilt:
    logits = operands["logits"]
    rows, classes = logits.shape
    targets = arguments["targets"]
    items = list(targets._values) if isinstance(targets, TensorNode) else nested_shape(targets)[1]
    chosen = [index_in(item, classes) for item in items]
    elements = logits.elements

    def row_loss(b: int) -> Scalar:
        row = list(elements[b * classes:(b + 1) * classes])
        return Scalar.logsumexp(row) - row[chosen[b]]
    return Rebuilt(shape, lambda part: [row_loss(b) for b in part], False)


# ---- moving elements -------------------------------------------------------------------------


def _moved(shape: Shape, elements: Sequence[Scalar], positions: Sequence[int]) -> Rebuilt:
    return Rebuilt(shape, lambda part: [elements[positions[at]] for at in part], True)


def _reshape(operation: Op, shape: Shape, operands: dict[str, _Operand], _: dict[str, Any]) -> Rebuilt:
    elements = operands["tensor"].elements
    return _moved(shape, elements, range(len(elements)))


def _transpose(operation: Op, shape: Shape, operands: dict[str, _Operand], arguments: dict[str, Any]) -> Rebuilt:
    operand = operands["tensor"]
    source = operand.shape
    first, second = arguments["first"], arguments["second"]
    a, b = (0, 1) if first is None and second is None else (axis_of(first, len(source)), axis_of(second, len(source)))
    source_strides = strides(source)
    positions = []
    for at in range(size(shape)):  # output index, axes a and b swapped back: the source's
        index = list(_unravel(at, shape))
        index[a], index[b] = index[b], index[a]
        positions.append(reduce(add, [i * step for i, step in zip(index, source_strides)]))
    return _moved(shape, operand.elements, positions)


def _unravel(flat: int, shape: Shape) -> list[int]:
    index = []
    for dimension in reversed(shape):
        flat, at = divmod(flat, dimension)
        index.append(at)
    return index[::-1]


def _index(operation: Op, shape: Shape, operands: dict[str, _Operand], arguments: dict[str, Any]) -> Rebuilt:
    operand = operands["tensor"]
    row = index_in(arguments["at"], operand.shape[0])
    width = len(operand.elements) // operand.shape[0]
    return _moved(shape, operand.elements, range(row * width, (row + 1) * width))


def _gather(operation: Op, shape: Shape, operands: dict[str, _Operand], arguments: dict[str, Any]) -> Rebuilt:
    operand = operands["tensor"]
    indices = arguments["indices"]
    items = list(indices._values) if isinstance(indices, TensorNode) else nested_shape(indices)[1]
    width = len(operand.elements) // operand.shape[0]
    rows = [index_in(item, operand.shape[0]) for item in items]
    return _moved(shape, operand.elements, [row * width + at for row in rows for at in range(width)])


def _stack(data: Any, slots: Any, shape: Shape) -> Rebuilt:
    """A tensor of scalar nodes: each place holds its edge's leaf (a number, a constant)."""
    _, items = nested_shape(data)
    elements = [next(slots)[0] if item.__class__ is Scalar else Scalar.constant(item) for item in items]
    return _moved(shape, elements, range(len(elements)))


_BUILDERS: dict[Op, Callable[[Op, Shape, dict[str, _Operand], dict[str, Any]], Rebuilt]] = {
    **{operation: _binary for operation in _BINARY},
    **{operation: _unary for operation in _UNARY},
    Op.POW: _unary,
    Op.MATMUL: _matmul,
    Op.DOT: _matmul,
    **{operation: _reduction for operation in _REDUCTIONS},
    Op.SOFTMAX: _softmax,
    Op.CROSS_ENTROPY: _cross_entropy,
    Op.RESHAPE: _reshape,
    Op.TRANSPOSE: _transpose,
    Op.INDEX: _index,
    Op.GATHER: _gather,
}
