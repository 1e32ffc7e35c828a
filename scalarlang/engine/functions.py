"""The elementary functions of a `Scalar`: exp, log, tanh, sqrt, relu, sigmoid, abs, max, min,
logsumexp and the largest or smallest of any number (max_of, min_of), each its forward function (its value from plain floats) beside the operation that
computes its node's value with that very function and its local derivatives.

`Scalar` takes the operations here as its methods (`x.exp()`); `FORWARD` names each one's
forward function for the gradient check's replay (replay.py), so a graph is replayed with the
functions that computed it. A forward function never raises: a failure is inf or nan, which
the operation turns into its typed error.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from . import elementary
from .errors import NonFiniteDerivative, NonFiniteResult
from .node import Forward, Node, ScalarOperation
from .node import binary_node as _binary
from .node import is_number as _is_number
from .node import leaf_value as _leaf_value
from .node import nary_node as _nary
from .node import new_leaf as _new_leaf
from .node import unary_node as _unary

# What these functions take and give: a node of `Scalar`'s class (scalar.py, which takes
# them as its methods, so `x.exp()` is a Scalar to a type checker).
Scalar = TypeVar("Scalar", bound=Node)

_EXP = ScalarOperation.EXP
_LOG = ScalarOperation.LOG
_TANH = ScalarOperation.TANH
_SQRT = ScalarOperation.SQRT
_RELU = ScalarOperation.RELU
_SIGMOID = ScalarOperation.SIGMOID
_ABS = ScalarOperation.ABS
_MAX = ScalarOperation.MAX
_MIN = ScalarOperation.MIN
_LOGSUMEXP = ScalarOperation.LOGSUMEXP
_MAX_OF = ScalarOperation.MAX_OF
_MIN_OF = ScalarOperation.MIN_OF
_CONSTANT = ScalarOperation.CONSTANT

_INF = math.inf
_NAN = math.nan
# The engine's own exp, log and tanh (elementary.py): the same bits on every platform, where
# the C library's differ in the last ones. (sqrt is IEEE's, correctly rounded everywhere.)
_exp = elementary.exp
_log = elementary.log
_tanh = elementary.tanh
_sqrt = math.sqrt
_fabs = math.fabs
_largest = builtins.max  # (this module defines max and min of nodes)
_new = object.__new__


# ---- exp, log, tanh, sqrt -------------------------------------------------------------------


# The forward functions of exp and log are elementary's themselves (no call in between):
# exp is inf past the largest double (never OverflowError), log nan below 0 and -inf at 0.
exp_value = _exp
log_value = _log


def exp(node: Scalar) -> Scalar:
    value = exp_value(node._value)
    if value == _INF:
        raise NonFiniteResult(_EXP, value)
    return _unary(value, _EXP, node, value)  # d/da e^a = e^a, finite here


def log(node: Scalar) -> Scalar:
    argument = node._value
    value = log_value(argument)
    if value - value != 0.0:
        raise NonFiniteResult(_LOG, value)
    derivative = 1.0 / argument  # inf for a subnormal argument
    if derivative - derivative != 0.0:
        raise NonFiniteDerivative(_LOG, 0, derivative)
    return _unary(value, _LOG, node, derivative)


tanh_value = _tanh  # tanh's forward function: within 1 ulp, in [-1, 1], never raises


def tanh(node: Scalar) -> Scalar:
    # tanh of a finite value is in [-1, 1], so neither it nor 1 - tanh^2 needs a check.
    # Every neuron has one: its node is written inline (see Scalar's operators).
    value = _tanh(node._value)
    made = _new(node.__class__)
    made._value = value
    made._operation = _TANH
    made._left = node
    made._dleft = 1.0 - value * value
    made._right = None
    made._gradient = None if node._gradient is None else 0.0
    made._walk = None
    made.tag = None
    return made


def sqrt_value(a: float) -> float:
    if a < 0.0 or a != a:
        return _NAN
    return _sqrt(a)


def sqrt(node: Scalar) -> Scalar:
    value = sqrt_value(node._value)
    if value != value:
        raise NonFiniteResult(_SQRT, value)
    if value == 0.0:  # 1/(2*sqrt(0)); IEEE gives -inf for -0.0
        raise NonFiniteDerivative(_SQRT, 0, math.copysign(_INF, value))
    return _unary(value, _SQRT, node, 0.5 / value)  # finite: sqrt(5e-324) is 2.2e-162


# ---- relu, sigmoid, abs ---------------------------------------------------------------------


def relu_value(a: float) -> float:
    return a if a > 0.0 or a != a else 0.0


def relu(node: Scalar) -> Scalar:
    # PyTorch's convention: the derivative at 0 is 0.
    argument = node._value
    return _unary(relu_value(argument), _RELU, node, 1.0 if argument > 0.0 else 0.0)


def sigmoid_value(a: float) -> float:
    # exp of a non-positive number cannot overflow: pick the form that needs only that.
    if a >= 0.0:
        return 1.0 / (1.0 + _exp(-a))
    if a != a:
        return _NAN
    exponential = _exp(a)
    return exponential / (1.0 + exponential)


def sigmoid(node: Scalar) -> Scalar:
    value = sigmoid_value(node._value)
    return _unary(value, _SIGMOID, node, value * (1.0 - value))  # value is in [0, 1]: finite


def abs(node: Scalar) -> Scalar:  # noqa: A001 (the method's name)
    # PyTorch's convention: the derivative at 0 (either sign of zero) is 0.
    argument = node._value
    derivative = 1.0 if argument > 0.0 else -1.0 if argument < 0.0 else 0.0
    return _unary(_fabs(argument), _ABS, node, derivative)


# ---- max, min: two operands -----------------------------------------------------------------


def max_value(a: float, b: float) -> float:
    """The larger; the left one on a tie; nan when either is."""
    if a != a or b != b:
        return _NAN
    return b if b > a else a


def min_value(a: float, b: float) -> float:
    if a != a or b != b:
        return _NAN
    return b if b < a else a


def max(node: Scalar, other: Scalar | int | float) -> Scalar:  # noqa: A001
    """The larger operand; on a tie each operand gets local derivative 0.5 (PyTorch)."""
    right = _operand(other, node)
    a, b = node._value, right._value
    dleft = 1.0 if a > b else 0.0 if b > a else 0.5
    return _binary(max_value(a, b), _MAX, node, dleft, right, 1.0 - dleft)


def min(node: Scalar, other: Scalar | int | float) -> Scalar:  # noqa: A001
    """The smaller operand; on a tie each operand gets local derivative 0.5 (PyTorch)."""
    right = _operand(other, node)
    a, b = node._value, right._value
    dleft = 1.0 if a < b else 0.0 if b < a else 0.5
    return _binary(min_value(a, b), _MIN, node, dleft, right, 1.0 - dleft)


# ---- logsumexp: any number of operands ------------------------------------------------------


def logsumexp_value(values: Sequence[float]) -> float:
    """log(e^a + e^b + ...) without overflow: the largest is taken out first."""
    return _logsumexp(values)[0]


def _logsumexp(values: Sequence[float]) -> tuple[float, list[float], float]:
    """The value, each e^(v - largest) and their sum (the softmax is their ratio)."""
    top = _largest(values)  # (C's max: one pass, no Python loop)
    if top - top != 0.0:  # inf, -inf or nan: no weights
        for value in values:
            if value != value:
                return _NAN, [], 0.0
        return top, [], 0.0  # (max skips a nan only after a number, so nan was caught above)
    weights = [_exp(value - top) for value in values]
    # a left fold, never `sum()`: since Python 3.12 that is compensated, other bits than 3.11's
    total = 0.0
    for weight in weights:
        total += weight
    return top + _log(total), weights, total


def logsumexp(cls: type[Scalar], operands: Iterable[Scalar | int | float]) -> Scalar:
    """``log(e^a + e^b + ...)`` of one or more operands, one node with an edge to each; the
    local derivatives are the softmax of the operands, each in [0, 1]."""
    items = [item if type(item) is cls else _constant(cls, item) for item in operands]
    if not items:
        raise ValueError("logsumexp needs at least one operand")
    # finite: the largest operand plus the log of a sum in [1, n]
    value, weights, total = _logsumexp([item._value for item in items])
    return _nary(value, _LOGSUMEXP, items, [weight / total for weight in weights])


# ---- max_of, min_of: the largest or smallest of any number of operands ---------------------


def _chosen(values: Sequence[float], largest: bool) -> int:
    """The position of the first largest (smallest) value; -1 when one is nan."""
    best = 0
    top = values[0]
    for index, value in enumerate(values):
        if value != value:
            return -1
        if (value > top) if largest else (value < top):
            best, top = index, value
    return best


def max_of_value(values: Sequence[float]) -> float:
    """The largest; nan when any value is."""
    index = _chosen(values, True)
    return values[index] if index >= 0 else _NAN


def min_of_value(values: Sequence[float]) -> float:
    index = _chosen(values, False)
    return values[index] if index >= 0 else _NAN


def _extreme(cls: type[Scalar], operands: Iterable[Scalar | int | float], largest: bool) -> Scalar:
    items = [item if type(item) is cls else _constant(cls, item) for item in operands]
    if not items:
        raise ValueError(f"{'max_of' if largest else 'min_of'} needs at least one operand")
    index = _chosen([item._value for item in items], largest)  # node values are never nan
    derivatives = [0.0] * len(items)
    derivatives[index] = 1.0
    return _nary(items[index]._value, _MAX_OF if largest else _MIN_OF, items, derivatives)


def max_of(cls: type[Scalar], operands: Iterable[Scalar | int | float]) -> Scalar:
    """The largest of one or more operands, one node with an edge to each: local derivative 1
    on the chosen operand (the first of the largest, as PyTorch's max over a dimension) and 0
    on the others. `max` of two operands is a different operation: it shares a tie."""
    return _extreme(cls, operands, True)


def min_of(cls: type[Scalar], operands: Iterable[Scalar | int | float]) -> Scalar:
    """The smallest of one or more operands; as `max_of`, the first of the smallest chosen."""
    return _extreme(cls, operands, False)


# ---- numbers as operands --------------------------------------------------------------------


def _constant(cls: type[Any], value: object) -> Any:
    if not _is_number(value):
        raise TypeError(f"a scalar operand must be a Scalar or a real number, not {type(value).__name__}")
    return _new_leaf(cls, _leaf_value(value, _CONSTANT), _CONSTANT, None)


def _operand(value: object, node: Scalar) -> Scalar:
    return value if type(value) is type(node) else _constant(type(node), value)  # type: ignore[return-value]


FORWARD: dict[ScalarOperation, Forward] = {
    _EXP: Forward(exp_value, 1),
    _LOG: Forward(log_value, 1),
    _TANH: Forward(tanh_value, 1),
    _SQRT: Forward(sqrt_value, 1),
    _RELU: Forward(relu_value, 1),
    _SIGMOID: Forward(sigmoid_value, 1),
    _ABS: Forward(_fabs, 1),
    _MAX: Forward(max_value, 2),
    _MIN: Forward(min_value, 2),
    _LOGSUMEXP: Forward(logsumexp_value, None),
    _MAX_OF: Forward(max_of_value, None),
    _MIN_OF: Forward(min_of_value, None),
}
