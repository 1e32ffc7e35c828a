"""Element-wise tensor operations, each value beside the VJP of each edge: + - * / ** with
numpy's broadcasting, the element-wise functions of the scalar engine, comparisons.

An operand is a tensor node, a scalar node or a number. Values are computed with the scalar
engine's own forward functions and float operations (functions.py, arithmetic.py), so each
element has the bits the same scalar operation gives. A local derivative is computed at
forward time, as a scalar node's is; an edge's VJP multiplies the adjoint by it and, for an
operand that was broadcast, adds the products into the operand's shape (`kernels.sum_into`,
a left fold in index order; a scalar node's contribution is the fold of all of them). A number
is folded into the values: it has no node, so no edge.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from operator import add, eq, ge, gt, le, lt, mul, ne, neg, sub
from typing import Any

from . import functions
from .arithmetic import divide, power_and_derivative
from .errors import NonFiniteDerivative, NonFiniteResult
from .kernels import dot, expand, fold, sum_into, sum_tiled
from .node import ScalarOperation, is_number, leaf_value
from .scalar import Scalar
from .tensor_shapes import Shape, broadcast, expansion, unravel
from .tensor_errors import NonFiniteTensorDerivative, NonFiniteTensorResult
from .tensor_node import Edge, TensorNode, checked_finite, new_tensor, remakeable, tensor_leaf
from .tensor_operations import TensorOperation as Op

_CONSTANT = ScalarOperation.CONSTANT


class _Operand:
    """One side of a binary operation: its node (None for a number), its values as the result
    sees them (broadcast), and how to bring a contribution back to its shape."""

    __slots__ = ("node", "expanded", "positions", "count", "tiled")

    node: Any  # a TensorNode, a Scalar, or None for a number

    def __init__(self, value: Any, result: Shape, count: int):
        self.tiled = False
        if isinstance(value, TensorNode):
            self.node = value
            self.positions = expansion(value._shape, result)
            self.expanded = expand(value._values, self.positions)
            self.count = len(value._values)
            if self.positions is not None:  # broadcast along leading axes only: `sum_tiled`
                shape = value._shape
                while shape and shape[0] == 1:
                    shape = shape[1:]
                self.tiled = result[len(result) - len(shape):] == shape
        else:
            self.node = value if value.__class__ is Scalar else None
            number = value._value if self.node is not None else value
            self.expanded = [number] * count
            self.positions = None
            self.count = 0  # a scalar: its contribution is the fold of all

    def back(self, contributions: list[float]) -> Any:
        """A contribution of the result's shape, brought to this operand's."""
        if self.count == 0:
            return fold(contributions)
        if self.tiled:
            return sum_tiled(contributions, self.count)
        return sum_into(contributions, self.positions, self.count)

    def back_scaled(self, upstream: list[float], local: list[float]) -> Any:
        if self.count == 0:
            return dot(upstream, local)
        if self.tiled:
            return sum_tiled(list(map(mul, upstream, local)), self.count)
        return sum_into(list(map(mul, upstream, local)), self.positions, self.count)


def _prepare(symbol: str, left: Any, right: Any) -> tuple[type, Shape, _Operand, _Operand]:
    left, right = _node_or_number(left), _node_or_number(right)
    left_shape = left._shape if isinstance(left, TensorNode) else ()
    right_shape = right._shape if isinstance(right, TensorNode) else ()
    result = broadcast(symbol, left_shape, right_shape)
    count = 1
    for dimension in result:
        count *= dimension
    cls = type(left) if isinstance(left, TensorNode) else type(right)
    return cls, result, _Operand(left, result, count), _Operand(right, result, count)


def _node_or_number(value: Any) -> Any:
    if isinstance(value, TensorNode) or value.__class__ is Scalar:
        return value
    if is_number(value):
        return leaf_value(value, _CONSTANT)
    raise TypeError(f"a tensor operand must be a Tensor, a Scalar or a real number, not {type(value).__name__}")


def _edges(pairs: list[tuple[_Operand, Callable[[Any], Any]]]) -> list[Edge]:
    return [(operand.node, vjp) for operand, vjp in pairs if operand.node is not None]


# ---- + - * / ---------------------------------------------------------------------------------


@remakeable
def add_(left: Any, right: Any) -> Any:
    cls, shape, a, b = _prepare("+", left, right)
    values = list(map(add, a.expanded, b.expanded))
    return new_tensor(cls, shape, values, Op.ADD, _edges([(a, a.back), (b, b.back)]))


@remakeable
def sub_(left: Any, right: Any) -> Any:
    cls, shape, a, b = _prepare("-", left, right)
    values = list(map(sub, a.expanded, b.expanded))
    return new_tensor(cls, shape, values, Op.SUB, _edges([
        (a, a.back),
        (b, lambda upstream: b.back(list(map(neg, upstream)))),
    ]))


@remakeable
def mul_(left: Any, right: Any) -> Any:
    cls, shape, a, b = _prepare("*", left, right)
    values = list(map(mul, a.expanded, b.expanded))
    return new_tensor(cls, shape, values, Op.MUL, _edges([
        (a, lambda upstream: a.back_scaled(upstream, b.expanded)),  # d(a*b)/da = b
        (b, lambda upstream: b.back_scaled(upstream, a.expanded)),
    ]))


@remakeable
def div_(left: Any, right: Any) -> Any:
    cls, shape, a, b = _prepare("/", left, right)
    values = list(map(divide, a.expanded, b.expanded))
    checked_finite(values, shape, Op.DIV)
    # as the scalar engine: 1/b, and -(a/b)/b, so that b*b cannot underflow
    dleft = [1.0 / denominator for denominator in b.expanded]
    dright = [-value / denominator for value, denominator in zip(values, b.expanded)]
    _checked_derivatives(dleft, shape, Op.DIV, 0)
    _checked_derivatives(dright, shape, Op.DIV, 1)
    return new_tensor(cls, shape, values, Op.DIV, _edges([
        (a, lambda upstream: a.back_scaled(upstream, dleft)),
        (b, lambda upstream: b.back_scaled(upstream, dright)),
    ]))


def _checked_derivatives(local: list[float], shape: Shape, operation: Op, operand: int) -> None:
    if not all(map(math.isfinite, local)):
        at = next(at for at, value in enumerate(local) if not math.isfinite(value))
        raise NonFiniteTensorDerivative(operation, operand, unravel(at, shape), local[at])


@remakeable
def pow_(base: Any, exponent: Any) -> Any:
    """``base ** exponent`` for a number exponent (a parameter, as in the scalar engine)."""
    if isinstance(exponent, (TensorNode, Scalar)) or not is_number(exponent):
        raise TypeError("the exponent of a tensor ** must be a number: for a ** b write exp(b * log(a))")
    number = leaf_value(exponent, _CONSTANT)
    values, local = [], []
    for at, element in enumerate(base._values):
        try:
            value, derivative = power_and_derivative(element, number)
        except NonFiniteResult as error:
            raise NonFiniteTensorResult(Op.POW, unravel(at, base._shape), error.fields["value"]) from None
        except NonFiniteDerivative as error:
            raise NonFiniteTensorDerivative(Op.POW, 0, unravel(at, base._shape), error.fields["local_derivative"]) from None
        values.append(value)
        local.append(derivative)
    return new_tensor(type(base), base._shape, values, Op.POW,
                      [(base, lambda upstream: list(map(mul, upstream, local)))])


@remakeable
def neg_(operand: Any) -> Any:
    return new_tensor(type(operand), operand._shape, list(map(neg, operand._values)), Op.NEG,
                      [(operand, lambda upstream: list(map(neg, upstream)))])


# ---- the element-wise functions of the scalar engine -----------------------------------------


def _unary(operand: Any, operation: Op, values: list[float], local: list[float], check: bool) -> Any:
    if check:
        _checked_derivatives(local, operand._shape, operation, 0)
    return new_tensor(type(operand), operand._shape, values, operation,
                      [(operand, lambda upstream: list(map(mul, upstream, local)))])


@remakeable
def exp(operand: Any) -> Any:
    values = list(map(functions.exp_value, operand._values))
    checked_finite(values, operand._shape, Op.EXP)
    return _unary(operand, Op.EXP, values, values, False)  # d/da e^a = e^a


@remakeable
def log(operand: Any) -> Any:
    values = list(map(functions.log_value, operand._values))
    checked_finite(values, operand._shape, Op.LOG)
    local = [1.0 / argument for argument in operand._values]  # inf for a subnormal argument
    return _unary(operand, Op.LOG, values, local, True)


@remakeable
def tanh(operand: Any) -> Any:
    values = list(map(functions.tanh_value, operand._values))
    return _unary(operand, Op.TANH, values, [1.0 - value * value for value in values], False)


@remakeable
def sqrt(operand: Any) -> Any:
    values = list(map(functions.sqrt_value, operand._values))
    checked_finite(values, operand._shape, Op.SQRT)
    if 0.0 in values:  # 1/(2*sqrt(0)), as the scalar engine reports it
        at = values.index(0.0)
        raise NonFiniteTensorDerivative(Op.SQRT, 0, unravel(at, operand._shape), math.copysign(math.inf, values[at]))
    return _unary(operand, Op.SQRT, values, [0.5 / value for value in values], False)


@remakeable
def relu(operand: Any) -> Any:
    arguments = operand._values
    # (functions.relu_value inline: a tensor's values are finite, so no nan to pass through)
    values = [argument if argument > 0.0 else 0.0 for argument in arguments]
    return _unary(operand, Op.RELU, values, [1.0 if argument > 0.0 else 0.0 for argument in arguments], False)


@remakeable
def sigmoid(operand: Any) -> Any:
    values = list(map(functions.sigmoid_value, operand._values))
    return _unary(operand, Op.SIGMOID, values, [value * (1.0 - value) for value in values], False)


@remakeable
def abs_(operand: Any) -> Any:
    arguments = operand._values
    local = [1.0 if argument > 0.0 else -1.0 if argument < 0.0 else 0.0 for argument in arguments]
    return _unary(operand, Op.ABS, list(map(math.fabs, arguments)), local, False)


@remakeable
def maximum(left: Any, right: Any) -> Any:
    """The larger of each pair of elements (broadcast); on a tie each gets local derivative
    0.5, as the scalar engine's max."""
    return _extreme("maximum", Op.MAXIMUM, left, right, functions.max_value, gt)


@remakeable
def minimum(left: Any, right: Any) -> Any:
    return _extreme("minimum", Op.MINIMUM, left, right, functions.min_value, lt)


def _extreme(symbol: str, operation: Op, left: Any, right: Any,
             value_of: Callable[[float, float], float], wins: Callable[[float, float], bool]) -> Any:
    cls, shape, a, b = _prepare(symbol, left, right)
    values = list(map(value_of, a.expanded, b.expanded))
    dleft = [1.0 if wins(x, y) else 0.0 if wins(y, x) else 0.5 for x, y in zip(a.expanded, b.expanded)]
    dright = [1.0 - local for local in dleft]
    return new_tensor(cls, shape, values, operation, _edges([
        (a, lambda upstream: a.back_scaled(upstream, dleft)),
        (b, lambda upstream: b.back_scaled(upstream, dright)),
    ]))


# ---- comparisons: constant 0/1 tensors -------------------------------------------------------

COMPARISONS: dict[str, Callable[[float, float], bool]] = {"<": lt, "<=": le, ">": gt, ">=": ge, "==": eq, "!=": ne}


def compare(symbol: str, left: Any, right: Any) -> Any:
    """``left symbol right`` element by element: a constant tensor of 1.0 where it holds, else 0.0."""
    cls, shape, a, b = _prepare(symbol, left, right)
    values = [1.0 if holds else 0.0 for holds in map(COMPARISONS[symbol], a.expanded, b.expanded)]
    return tensor_leaf(cls, shape, values, _CONSTANT)


