"""Reductions of tensors, each value beside its VJP: sum, mean, max, min and logsumexp over
every element (a scalar node) or along one axis (the axis removed; a scalar node when nothing
is left), softmax and argmax along an axis, and cross_entropy by rows.

Every sum is a left fold in index order (`kernels.fold`); max and min choose the first of the
largest (smallest), as the scalar engine's max_of does, and hand the whole adjoint to it.
"""

from __future__ import annotations

from operator import mul
from typing import Any, Callable

from .functions import exp_value, log_value
from .kernels import along, fibers, fold, from_fibers
from .tensor_shapes import axis_of, fibers as shape_fibers, index_in, nested_shape
from .tensor_errors import ShapeMismatch
from .tensor_node import TensorNode, constant_scalar, new_scalar, new_tensor, remakeable, tensor_leaf
from .tensor_operations import TensorOperation as Op
from .node import ScalarOperation

_exp = exp_value  # the engine's own (elementary.py), as the scalar engine's
_log = log_value


def _reduce(tensor: Any, axis: Any, operation: Op,
            value_of: Callable[[list[float]], tuple[float, Any]],
            vjp_of: Callable[[float, Any, int], list[float]]) -> Any:
    """The frame of every reduction: ``value_of(fiber)`` gives a fiber's value and what its VJP
    needs; ``vjp_of(adjoint, needs, length)`` gives the fiber's contribution."""
    if axis is None or len(tensor._shape) == 1:
        if axis is not None:
            axis_of(axis, 1)  # (an axis out of range is still an error)
        values = tensor._values
        value, needs = value_of(values)
        count = len(values)
        return new_scalar(value, operation, [(tensor, lambda upstream: vjp_of(upstream, needs, count))])
    shape = tensor._shape
    at = axis_of(axis, len(shape))
    outer, length, inner = shape_fibers(shape, at)
    results = along(tensor._values, outer, length, inner, value_of)
    values = [value for value, _ in results]

    def vjp(upstream: list[float]) -> list[float]:
        pieces = [vjp_of(adjoint, needs, length) for adjoint, (_, needs) in zip(upstream, results)]
        return from_fibers(pieces, outer, length, inner)
    return new_tensor(type(tensor), shape[:at] + shape[at + 1:], values, operation, [(tensor, vjp)])


def _spread(upstream: float, _: Any, length: int) -> list[float]:
    return [upstream] * length


@remakeable
def sum_(tensor: Any, axis: Any = None) -> Any:
    return _reduce(tensor, axis, Op.SUM, lambda fiber: (fold(fiber), None), _spread)


@remakeable
def mean(tensor: Any, axis: Any = None) -> Any:
    """The fold divided by the count (one division, as ``sum(L) / len(L)``)."""
    def value_of(fiber: list[float]) -> tuple[float, None]:
        return fold(fiber) / len(fiber), None

    def vjp_of(upstream: float, _: Any, length: int) -> list[float]:
        return [upstream * (1.0 / length)] * length  # the local derivative of x / n is 1/n
    return _reduce(tensor, axis, Op.MEAN, value_of, vjp_of)


def _first_extreme(fiber: list[float], largest: bool) -> int:
    best, top = 0, fiber[0]
    for at, value in enumerate(fiber):
        if (value > top) if largest else (value < top):
            best, top = at, value
    return best


def _to_one(upstream: float, chosen: int, length: int) -> list[float]:
    contribution = [0.0] * length
    contribution[chosen] = upstream
    return contribution


@remakeable
def max_(tensor: Any, axis: Any = None) -> Any:
    def value_of(fiber: list[float]) -> tuple[float, int]:
        chosen = _first_extreme(fiber, True)
        return fiber[chosen], chosen
    return _reduce(tensor, axis, Op.MAX, value_of, _to_one)


@remakeable
def min_(tensor: Any, axis: Any = None) -> Any:
    def value_of(fiber: list[float]) -> tuple[float, int]:
        chosen = _first_extreme(fiber, False)
        return fiber[chosen], chosen
    return _reduce(tensor, axis, Op.MIN, value_of, _to_one)


def _logsumexp(fiber: list[float]) -> tuple[float, list[float]]:
    """log(e^a + e^b + ...) with the largest taken out first; the local derivatives, each
    e^(v - largest) over the left-folded sum of them (the softmax)."""
    top = fiber[_first_extreme(fiber, True)]
    weights = [_exp(value - top) for value in fiber]
    total = fold(weights)
    return top + _log(total), [weight / total for weight in weights]


@remakeable
def logsumexp(tensor: Any, axis: Any = None) -> Any:
    def vjp_of(upstream: float, local: list[float], length: int) -> list[float]:
        return [upstream * weight for weight in local]
    return _reduce(tensor, axis, Op.LOGSUMEXP, _logsumexp, vjp_of)


def _softmax(fiber: list[float]) -> list[float]:
    top = fiber[_first_extreme(fiber, True)]
    exponentials = [exp_value(value - top) for value in fiber]
    total = fold(exponentials)
    return [value / total for value in exponentials]


@remakeable
def softmax(tensor: Any, axis: Any = -1) -> Any:
    """exp(x - max) over the left-folded sum of them, along ``axis`` (default the last). VJP
    of each fiber: s * (g - fold(g * s))."""
    shape = tensor._shape
    outer, length, inner = shape_fibers(shape, axis_of(axis, len(shape)))
    results = along(tensor._values, outer, length, inner, _softmax)

    def vjp(upstream: list[float]) -> list[float]:
        pieces = []
        for adjoint, probabilities in zip(fibers(upstream, outer, length, inner), results):
            weighted = fold(list(map(mul, adjoint, probabilities)))
            pieces.append([p * (g - weighted) for p, g in zip(probabilities, adjoint)])
        return from_fibers(pieces, outer, length, inner)
    return new_tensor(type(tensor), shape, from_fibers(results, outer, length, inner), Op.SOFTMAX,
                      [(tensor, vjp)])


def argmax(tensor: Any, axis: Any = -1, largest: bool = True) -> Any:
    """The position of the first largest element along ``axis``: constant indices (a constant
    scalar node for a rank-1 tensor)."""
    shape = tensor._shape
    at = axis_of(axis, len(shape))
    outer, length, inner = shape_fibers(shape, at)
    positions = [float(_first_extreme(fiber, largest)) for fiber in fibers(tensor._values, outer, length, inner)]
    if len(shape) == 1:
        return constant_scalar(positions[0])
    return tensor_leaf(type(tensor), shape[:at] + shape[at + 1:], positions, ScalarOperation.CONSTANT)


@remakeable
def cross_entropy(logits: Any, targets: Any) -> Any:
    """Z of shape [B, V] and B whole-number targets (a list or a rank-1 tensor): the rank-1
    tensor of row losses logsumexp(Z[b]) - Z[b][Y[b]]. VJP of row b: g_b (softmax(Z[b]) -
    one_hot(Y[b]))."""
    shape = logits._shape
    if isinstance(targets, TensorNode):
        target_shape, items = targets._shape, list(targets._values)
    else:
        target_shape, items = nested_shape(targets)
    if len(shape) != 2 or target_shape != shape[:1]:
        raise ShapeMismatch("cross_entropy", shape, target_shape,
                            " (cross_entropy takes logits [B, V] and B whole-number targets)")
    rows, classes = shape
    chosen = [index_in(item, classes) for item in items]
    row_values = fibers(logits._values, rows, classes, 1)
    losses, local = [], []
    for row, target in zip(row_values, chosen):
        total, probabilities = _logsumexp(row)
        losses.append(total - row[target])
        local.append(probabilities)

    def vjp(upstream: list[float]) -> list[float]:
        contribution: list[float] = []
        for adjoint, probabilities, target in zip(upstream, local, chosen):
            piece = [adjoint * p for p in probabilities]
            piece[target] = piece[target] - adjoint  # the - Z[b][Y[b]] edge, added after
            contribution.extend(piece)
        return contribution
    return new_tensor(type(logits), (rows,), losses, Op.CROSS_ENTROPY, [(logits, vjp)])


