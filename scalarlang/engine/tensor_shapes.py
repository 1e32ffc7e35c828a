"""Shapes: of nested lists, broadcasting (numpy's rules), axes, indices and element names.

A shape is a tuple of one or more whole numbers, each at least 1 (there are no rank-0 tensors
and no empty ones); values are kept row major, so the last index moves fastest. Nothing here
recurses: nested lists are read one level at a time.
"""

from __future__ import annotations

from functools import lru_cache
from numbers import Real
from typing import Any

from .tensor_errors import (
    AxisOutOfRange,
    BadShape,
    IndexOutOfRange,
    InvalidShape,
    NonWholeIndex,
    ShapeMismatch,
    show_shape,
)

Shape = tuple[int, ...]


def size(shape: Shape) -> int:
    count = 1
    for dimension in shape:
        count *= dimension
    return count


def checked_shape(dimensions: Any) -> Shape:
    """``dimensions`` (a sequence of whole numbers, ints or whole floats) as a shape."""
    try:
        items = tuple(dimensions)
    except TypeError:
        raise InvalidShape(dimensions) from None
    if not items:
        raise InvalidShape(items)
    shape = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, Real):
            raise InvalidShape(items)
        number = float(item)
        if not number.is_integer() or number < 1:
            raise InvalidShape(items)
        shape.append(int(number))
    return tuple(shape)


def _items(count: int) -> str:
    return "1 item" if count == 1 else f"{count} items"


def nested_shape(data: Any) -> tuple[Shape, list[Any]]:
    """The shape of a rectangular nested list (or tuple) and its items, row major.

    Level by level: every item of a level is a list of one length, or none is a list. The
    first row that differs is `BadShape`, named by its index in each dimension above it."""
    if not isinstance(data, (list, tuple)):
        raise InvalidShape(())
    shape: list[int] = []
    level: list[Any] = [data]
    while True:
        first = level[0]
        if not isinstance(first, (list, tuple)):
            for position, item in enumerate(level):
                if isinstance(item, (list, tuple)):
                    raise BadShape(unravel(position, tuple(shape)), "a number", _items(len(item)))
            return tuple(shape), level
        length = len(first)
        for position, item in enumerate(level):
            if not isinstance(item, (list, tuple)):
                raise BadShape(unravel(position, tuple(shape)) if shape else (), _items(length), "a number")
            if len(item) != length:
                raise BadShape(unravel(position, tuple(shape)), _items(length), _items(len(item)))
        if length == 0:
            raise InvalidShape((*shape, 0))
        shape.append(length)
        level = [item for row in level for item in row]


def unravel(flat: int, shape: Shape) -> Shape:
    """The index in each dimension of element ``flat`` (row major)."""
    index = []
    for dimension in reversed(shape):
        flat, at = divmod(flat, dimension)
        index.append(at)
    return tuple(reversed(index))


def strides(shape: Shape) -> Shape:
    step, result = 1, []
    for dimension in reversed(shape):
        result.append(step)
        step *= dimension
    return tuple(reversed(result))


# ---- broadcasting ----------------------------------------------------------------------------


def broadcast(operator: str, left: Shape, right: Shape) -> Shape:
    """numpy's result shape of ``left operator right``, or `ShapeMismatch` with a hint."""
    result = _broadcast(left, right)
    if result is None:
        raise ShapeMismatch(operator, left, right, _transpose_hint(operator, left, right))
    return result


def _broadcast(left: Shape, right: Shape) -> Shape | None:
    rank = max(len(left), len(right))
    padded_left = (1,) * (rank - len(left)) + left
    padded_right = (1,) * (rank - len(right)) + right
    result = []
    for a, b in zip(padded_left, padded_right):
        if a != b and a != 1 and b != 1:
            return None
        result.append(b if a == 1 else a)
    return tuple(result)


def _transpose_hint(operator: str, left: Shape, right: Shape) -> str:
    """`` (transpose the right operand? ...)`` when swapping a rank-2 operand's axes fits."""
    if len(right) == 2 and _broadcast(left, right[::-1]) is not None:
        return f" (transpose(right), of shape {show_shape(right[::-1])}?)"
    if len(left) == 2 and _broadcast(left[::-1], right) is not None:
        return f" (transpose(left), of shape {show_shape(left[::-1])}?)"
    return ""


def matmul_hint(left: Shape, right: Shape) -> str:
    """What would make ``left @ right`` multiply: a transposed operand, when one does."""
    inner = left[-1]
    if len(right) == 2 and right[1] == inner:
        return f" (transpose(right), of shape {show_shape(right[::-1])}?)"
    if len(left) == 2 and len(right) >= 1 and left[0] == right[0]:
        return f" (transpose(left), of shape {show_shape(left[::-1])}?)"
    return ""


@lru_cache(maxsize=256)
def expansion(source: Shape, target: Shape) -> tuple[int, ...] | None:
    """For each element of ``target`` (row major), the element of ``source`` that broadcasts to
    it; None when the shapes are equal (each element is its own). Kept for reuse: a model's
    layers broadcast the same shapes every step."""
    if source == target:
        return None
    padded = (1,) * (len(target) - len(source)) + source
    source_strides = strides(padded)
    positions = [0]
    for dimension, length, stride in zip(padded, target, source_strides):
        step = stride if dimension == length else 0
        positions = [base + at * step for base in positions for at in range(length)]
    return tuple(positions)


# ---- axes and indices ------------------------------------------------------------------------


def axis_of(axis: Any, rank: int) -> int:
    """A whole-number axis, negative counting from the end, as 0 .. rank-1."""
    whole = whole_number(axis)
    if not -rank <= whole < rank:
        raise AxisOutOfRange(whole, rank)
    return whole + rank if whole < 0 else whole


def fibers(shape: Shape, axis: int) -> tuple[int, int, int]:
    """(outer, length, inner): the elements along ``axis`` of fiber (o, i) are at
    ``o * length * inner + j * inner + i`` for j in order."""
    return size(shape[:axis]), shape[axis], size(shape[axis + 1:])


def whole_number(value: Any) -> int:
    """An int from an int or a whole float (a Real, not a bool); else `NonWholeIndex`."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, Real):
        raise NonWholeIndex(value)
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")) or not number.is_integer():
        raise NonWholeIndex(value)
    return int(number)


def index_in(value: Any, length: int) -> int:
    """A whole-number index into a dimension of ``length``; negative counts from the end."""
    index = whole_number(value)
    if not -length <= index < length:
        raise IndexOutOfRange(index, length)
    return index + length if index < 0 else index
