"""Tensor operations that move or combine elements without an element-wise function: making
tensors (from nested lists, of scalar nodes, zeros, ones, random draws), matrix products,
reshape, transpose, indexing (an element, a sub-tensor, the rows a list names) and one_hot.
Each computes its values and, beside them, the VJP of each edge.
"""

from __future__ import annotations

import random
from operator import itemgetter
from typing import Any

from .errors import NonFiniteLeaf
from .kernels import (
    dot,
    expand,
    gather_rows,
    matmul as matmul_kernel,
    matmul_transposed_left,
    matmul_transposed_right,
    outer,
    scatter_rows,
)
from .node import ScalarOperation, is_number, leaf_value
from .normal import gauss
from .scalar import Scalar
from .tensor_shapes import (
    Shape,
    checked_shape,
    index_in,
    matmul_hint,
    nested_shape,
    size,
    strides,
    unravel,
    whole_number,
    axis_of,
)
from .tensor_errors import NonFiniteTensorLeaf, ReshapeMismatch, ShapeMismatch
from .tensor_node import Edge, TensorNode, checked_finite, new_scalar, new_tensor, remakeable, tensor_leaf
from .tensor_operations import TensorOperation as Op

_VARIABLE = ScalarOperation.VARIABLE
_CONSTANT = ScalarOperation.CONSTANT


# ---- making tensors --------------------------------------------------------------------------


@remakeable
def from_nested(cls: type[Any], data: Any, variable: bool) -> Any:
    """A tensor of a rectangular nested list of numbers and scalar nodes. Of numbers only, or
    for a variable, a leaf holding their values; a constant holding scalar nodes is one
    stacking node with an edge to each node (in row-major order, a repeated node once per
    place), whose VJP hands each node its element of the adjoint."""
    shape, items = nested_shape(data)
    values: list[float] = []
    edges: list[Edge] = []
    for at, item in enumerate(items):
        if item.__class__ is Scalar:
            values.append(item._value)
            if not variable:
                edges.append((item, itemgetter(at)))
        elif is_number(item):
            values.append(_leaf_number(item, at, shape, variable))
        else:
            raise TypeError(f"a tensor holds numbers and scalar nodes, not {type(item).__name__}")
    if edges:
        return new_tensor(cls, shape, values, Op.STACK, edges)
    return tensor_leaf(cls, shape, values, _VARIABLE if variable else _CONSTANT)


def _leaf_number(item: Any, at: int, shape: Shape, variable: bool) -> float:
    try:
        return leaf_value(item, _VARIABLE if variable else _CONSTANT)
    except NonFiniteLeaf as error:
        raise NonFiniteTensorLeaf(error.fields["operation"], unravel(at, shape), error.fields["value"]) from None


def filled(cls: type[Any], shape: Any, value: float, variable: bool) -> Any:
    """zeros(shape), ones(shape): every element ``value``."""
    checked = checked_shape(shape)
    return tensor_leaf(cls, checked, [value] * size(checked), _VARIABLE if variable else _CONSTANT)


def drawn(cls: type[Any], shape: Any, generator: random.Random, normal: bool, variable: bool) -> Any:
    """randn (gauss(0, 1), normal.py's draw) or rand (uniform(0, 1)) from ``generator``, in
    row-major order: the numbers a comprehension of the same draws gives from the same state."""
    checked = checked_shape(shape)
    count = size(checked)
    if normal:
        values = [gauss(generator, 0.0, 1.0) for _ in range(count)]
    else:
        values = [generator.uniform(0, 1) for _ in range(count)]
    return tensor_leaf(cls, checked, [float(value) for value in values], _VARIABLE if variable else _CONSTANT)


def with_values(tensor: Any, values: list[float], operation: ScalarOperation) -> Any:
    """A leaf of ``tensor``'s class and shape holding ``values`` (checked finite)."""
    checked_finite(values, tensor._shape, operation, leaf=True)
    return tensor_leaf(type(tensor), tensor._shape, values, operation)


def detached(tensor: Any) -> Any:
    """A constant leaf with ``tensor``'s values (shared: they never change) and no edge."""
    return tensor_leaf(type(tensor), tensor._shape, tensor._values, ScalarOperation.DETACHED)


# ---- matrix products -------------------------------------------------------------------------


@remakeable
def matmul(left: Any, right: Any) -> Any:
    """left @ right: [n, k] @ [k, m] is [n, m]; [n, k] @ [k] is [n]; [k] @ [k, m] is [m];
    [k] @ [k] is their dot, a scalar node. The sums are left folds over k, in order."""
    if not isinstance(left, TensorNode) or not isinstance(right, TensorNode):
        raise TypeError("@ multiplies two tensors")
    a, b = left._values, right._values
    left_shape, right_shape = left._shape, right._shape
    if len(left_shape) > 2 or len(right_shape) > 2 or left_shape[-1] != right_shape[0]:
        raise ShapeMismatch("@", left_shape, right_shape, matmul_hint(left_shape, right_shape))
    k = right_shape[0]
    if len(left_shape) == 1 and len(right_shape) == 1:
        return new_scalar(dot(a, b), Op.DOT, [
            (left, lambda upstream: [upstream * value for value in b]),
            (right, lambda upstream: [upstream * value for value in a]),
        ])
    cls = type(left)
    if len(right_shape) == 1:  # [n, k] @ [k]: B as [k, 1]
        n = left_shape[0]
        return new_tensor(cls, (n,), matmul_kernel(a, n, k, b, 1), Op.MATMUL, [
            (left, lambda upstream: outer(upstream, b)),
            (right, lambda upstream: matmul_transposed_left(a, n, k, upstream, 1)),
        ])
    m = right_shape[1]
    if len(left_shape) == 1:  # [k] @ [k, m]: A as [1, k]
        return new_tensor(cls, (m,), matmul_kernel(a, 1, k, b, m), Op.MATMUL, [
            (left, lambda upstream: matmul_transposed_right(upstream, 1, m, b, k)),
            (right, lambda upstream: outer(a, upstream)),
        ])
    n = left_shape[0]
    return new_tensor(cls, (n, m), matmul_kernel(a, n, k, b, m), Op.MATMUL, [
        (left, lambda upstream: matmul_transposed_right(upstream, n, m, b, k)),  # dA = dC @ Bᵀ
        (right, lambda upstream: matmul_transposed_left(a, n, k, upstream, m)),  # dB = Aᵀ @ dC
    ])


# ---- reshape and transpose -------------------------------------------------------------------


@remakeable
def reshape(tensor: Any, requested: Any) -> Any:
    """The same elements in another shape; one dimension may be -1 (what the rest leaves)."""
    items = tuple(requested)
    count = len(tensor._values)
    if any(type(item) is not bool and item == -1 for item in items):
        known = [item for item in items if item != -1]
        rest = size(checked_shape(known)) if known else 1
        if len(known) != len(items) - 1 or count % rest:
            raise ReshapeMismatch(tensor._shape, items)
        items = tuple(count // rest if item == -1 else item for item in items)
    shape = checked_shape(items)
    if size(shape) != count:
        raise ReshapeMismatch(tensor._shape, tuple(requested))
    return new_tensor(type(tensor), shape, tensor._values, Op.RESHAPE,
                      [(tensor, lambda upstream: upstream)])  # row-major order is unchanged


@remakeable
def transpose(tensor: Any, first: Any = None, second: Any = None) -> Any:
    """Axes ``first`` and ``second`` swapped (negative from the end); without them, a rank-2
    tensor's two axes."""
    shape = tensor._shape
    if first is None and second is None:
        if len(shape) != 2:
            raise ShapeMismatch("transpose", shape, shape, " (transpose without axes is for rank 2: name two axes)")
        first, second = 0, 1
    a, b = axis_of(first, len(shape)), axis_of(second, len(shape))
    swapped = list(shape)
    swapped[a], swapped[b] = shape[b], shape[a]
    result = tuple(swapped)
    forward = _swap_positions(shape, a, b)
    back = _swap_positions(result, a, b)
    return new_tensor(type(tensor), result, expand(tensor._values, forward), Op.TRANSPOSE,
                      [(tensor, lambda upstream: expand(upstream, back))])


def _swap_positions(shape: Shape, a: int, b: int) -> list[int]:
    """For each element of ``shape`` with axes a and b swapped, row major, its position in a
    tensor of ``shape``."""
    source = strides(shape)
    order = list(range(len(shape)))
    order[a], order[b] = b, a
    positions = [0]
    for axis in order:
        step = source[axis]
        positions = [base + at * step for base in positions for at in range(shape[axis])]
    return positions


# ---- indexing --------------------------------------------------------------------------------


@remakeable
def index(tensor: Any, at: Any) -> Any:
    """T[i]: the sub-tensor at i along the first axis (rank one less); of a rank-1 tensor, the
    element, a scalar node. The VJP puts the adjoint back in its place, zeros elsewhere."""
    shape = tensor._shape
    row = index_in(at, shape[0])
    count = len(tensor._values)
    if len(shape) == 1:
        def element_vjp(upstream: float) -> list[float]:
            contribution = [0.0] * count
            contribution[row] = upstream
            return contribution
        return new_scalar(tensor._values[row], Op.INDEX, [(tensor, element_vjp)])
    width = count // shape[0]
    start = row * width

    def rows_vjp(upstream: list[float]) -> list[float]:
        contribution = [0.0] * count
        contribution[start:start + width] = upstream
        return contribution
    return new_tensor(type(tensor), shape[1:], tensor._values[start:start + width], Op.INDEX,
                      [(tensor, rows_vjp)])


@remakeable
def gather(tensor: Any, indices: Any) -> Any:
    """T[I]: for I a nested list (or a tensor) of whole numbers, the rows (along the first
    axis) that I names, stacked: shape I's shape + T's shape after the first (C[X], the
    embedding lookup). The VJP adds each row's adjoint into its row, a repeated row each time."""
    if isinstance(indices, TensorNode):
        index_shape, items = indices._shape, list(indices._values)
    else:
        index_shape, items = nested_shape(indices)
    shape = tensor._shape
    rows = [index_in(item, shape[0]) for item in items]
    count = shape[0]
    width = len(tensor._values) // count
    result = index_shape + shape[1:]
    return new_tensor(type(tensor), result, gather_rows(tensor._values, width, rows), Op.GATHER,
                      [(tensor, lambda upstream: scatter_rows(upstream, width, rows, count))])


def one_hot(cls: type[Any], indices: Any, classes: Any) -> Any:
    """A constant [len(I), N]: row r is 1.0 at I[r], 0.0 elsewhere."""
    if isinstance(indices, TensorNode):
        if len(indices._shape) != 1:
            raise ShapeMismatch("one_hot", indices._shape, (), " (one_hot takes a rank-1 tensor or a list)")
        items = list(indices._values)
    else:
        index_shape, items = nested_shape(indices)
        if len(index_shape) != 1:
            raise ShapeMismatch("one_hot", index_shape, (), " (one_hot takes a rank-1 tensor or a list)")
    count = whole_number(classes)
    shape = checked_shape((len(items), count))
    values = [0.0] * size(shape)
    for row, item in enumerate(items):
        values[row * count + index_in(item, count)] = 1.0
    return tensor_leaf(cls, shape, values, _CONSTANT)
