"""The scalar engine's node type: each operation computes its value and, right beside it,
the local derivative for each operand slot.

The derivative is stored on the edge at forward time, so the backward pass (passes.py) only
multiplies and adds. Nodes are immutable apart from their stored gradient, hold no closures
and no reference to their consumers, so graphs make no reference cycles. What a node holds
and shows is `Node` (node.py); this module is the operations.

Speed (see benchmarks/): a node is one object with its (at most two) operand edges in slots,
so building it is one allocation the cyclic garbage collector tracks, not three; the
operators build their node inline instead of through helper calls; a derivative that is
finite by construction (an operand's value, a constant, 1 - tanh^2) is not checked again.
"""

from __future__ import annotations

import math

from . import passes
from .arithmetic import divide_by_zero, power_and_derivative
from .errors import NonFiniteDerivative, NonFiniteResult
from .node import Node, ParentEdge, ScalarOperation, _is_number, _leaf_value, _new_leaf

__all__ = ["ParentEdge", "Scalar", "ScalarOperation"]

# Module globals: one dictionary look-up each, cheaper than an enum attribute look-up.
_CONSTANT = ScalarOperation.CONSTANT
_DETACHED = ScalarOperation.DETACHED
_ADD = ScalarOperation.ADD
_SUB = ScalarOperation.SUB
_MUL = ScalarOperation.MUL
_NEG = ScalarOperation.NEG
_EXP = ScalarOperation.EXP
_TANH = ScalarOperation.TANH
_DIV = ScalarOperation.DIV
_LOG = ScalarOperation.LOG
_POW = ScalarOperation.POW
_SQRT = ScalarOperation.SQRT
_RELU = ScalarOperation.RELU
_SIGMOID = ScalarOperation.SIGMOID
_ABS = ScalarOperation.ABS
_MAX = ScalarOperation.MAX
_MIN = ScalarOperation.MIN

_INF = math.inf
_NAN = math.nan
_new = object.__new__
_exp = math.exp
_tanh = math.tanh
_sqrt = math.sqrt
_fabs = math.fabs

_TRACKED_EXPONENT = (
    "the exponent of ** must be a number, not a Scalar: "
    "for a ** b with a Scalar b write exp(b * log(a))"
)


class Scalar(Node):
    """One node of a scalar graph. Build leaves with `variable` and `constant`."""

    __slots__ = ()

    # numpy's scalars and arrays defer to our reflected operators (np.float32(2) * x is
    # Scalar.__rmul__), instead of wrapping the node in an object array.
    __array_ufunc__ = None

    # ---- operations ------------------------------------------------------------------------
    # The operators hold the bodies (they are the hot path); a Python number becomes a
    # constant in the slot where it was written. The named methods reject non-numbers with a
    # TypeError where an operator returns NotImplemented.

    def __add__(self, other: object) -> Scalar:
        if type(other) is not Scalar:
            if not _is_number(other):
                return NotImplemented
            other = _constant_of(other)
        value = self._value + other._value
        if value - value != 0.0:
            raise NonFiniteResult(_ADD, value)
        node = _new(Scalar)
        node._value = value
        node._operation = _ADD
        node._left = self
        node._dleft = 1.0
        node._right = other
        node._dright = 1.0
        node._gradient = None if self._gradient is None and other._gradient is None else 0.0
        node._walk = None
        node.tag = None
        return node

    def __sub__(self, other: object) -> Scalar:
        if type(other) is not Scalar:
            if not _is_number(other):
                return NotImplemented
            other = _constant_of(other)
        value = self._value - other._value
        if value - value != 0.0:
            raise NonFiniteResult(_SUB, value)
        node = _new(Scalar)
        node._value = value
        node._operation = _SUB
        node._left = self
        node._dleft = 1.0
        node._right = other
        node._dright = -1.0
        node._gradient = None if self._gradient is None and other._gradient is None else 0.0
        node._walk = None
        node.tag = None
        return node

    def __mul__(self, other: object) -> Scalar:
        if type(other) is not Scalar:
            if not _is_number(other):
                return NotImplemented
            other = _constant_of(other)
        left = self._value
        right = other._value
        value = left * right
        if value - value != 0.0:
            raise NonFiniteResult(_MUL, value)
        node = _new(Scalar)
        node._value = value
        node._operation = _MUL
        node._left = self
        node._dleft = right  # operand values are finite: no derivative check needed
        node._right = other
        node._dright = left
        node._gradient = None if self._gradient is None and other._gradient is None else 0.0
        node._walk = None
        node.tag = None
        return node

    def __truediv__(self, other: object) -> Scalar:
        if type(other) is not Scalar:
            if not _is_number(other):
                return NotImplemented
            other = _constant_of(other)
        left = self._value
        right = other._value
        try:
            value = left / right
        except ZeroDivisionError:
            raise NonFiniteResult(_DIV, divide_by_zero(left, right)) from None
        if value - value != 0.0:
            raise NonFiniteResult(_DIV, value)
        # d/db (a/b) = -a/b^2, computed as -(a/b)/b so that b^2 cannot underflow to zero.
        dleft = 1.0 / right
        dright = -value / right
        if dleft - dleft != 0.0:
            raise NonFiniteDerivative(_DIV, 0, dleft)
        if dright - dright != 0.0:
            raise NonFiniteDerivative(_DIV, 1, dright)
        node = _new(Scalar)
        node._value = value
        node._operation = _DIV
        node._left = self
        node._dleft = dleft
        node._right = other
        node._dright = dright
        node._gradient = None if self._gradient is None and other._gradient is None else 0.0
        node._walk = None
        node.tag = None
        return node

    def __radd__(self, other: object) -> Scalar:
        return _constant_of(other).__add__(self) if _is_number(other) else NotImplemented

    def __rsub__(self, other: object) -> Scalar:
        return _constant_of(other).__sub__(self) if _is_number(other) else NotImplemented

    def __rmul__(self, other: object) -> Scalar:
        return _constant_of(other).__mul__(self) if _is_number(other) else NotImplemented

    def __rtruediv__(self, other: object) -> Scalar:
        return _constant_of(other).__truediv__(self) if _is_number(other) else NotImplemented

    def add(self, other: Scalar | int | float) -> Scalar:
        return self.__add__(_operand(other))

    def sub(self, other: Scalar | int | float) -> Scalar:
        return self.__sub__(_operand(other))

    def mul(self, other: Scalar | int | float) -> Scalar:
        return self.__mul__(_operand(other))

    def div(self, other: Scalar | int | float) -> Scalar:
        return self.__truediv__(_operand(other))

    def neg(self) -> Scalar:
        return _unary(-self._value, _NEG, self, -1.0)  # negating a finite float is finite

    __neg__ = neg

    def exp(self) -> Scalar:
        try:
            value = _exp(self._value)
        except OverflowError:
            raise NonFiniteResult(_EXP, _INF) from None
        return _unary(value, _EXP, self, value)  # finite when exp did not overflow

    def tanh(self) -> Scalar:
        # tanh of a finite value is in [-1, 1], so neither it nor 1 - tanh^2 needs a check.
        value = _tanh(self._value)
        node = _new(Scalar)
        node._value = value
        node._operation = _TANH
        node._left = self
        node._dleft = 1.0 - value * value
        node._right = None
        node._gradient = None if self._gradient is None else 0.0
        node._walk = None
        node.tag = None
        return node

    def log(self) -> Scalar:
        argument = self._value
        if argument <= 0.0:
            raise NonFiniteResult(_LOG, -_INF if argument == 0.0 else _NAN)
        derivative = 1.0 / argument  # inf for a subnormal argument
        if derivative - derivative != 0.0:
            raise NonFiniteDerivative(_LOG, 0, derivative)
        return _unary(math.log(argument), _LOG, self, derivative)

    def __pow__(self, exponent: object, modulo: object = None) -> Scalar:
        kind = type(exponent)
        if (kind is int or kind is float) and exponent == 2 and modulo is None:
            # The square (every squared-error loss) first and inline; _power gives the same
            # bits. Its derivative 2a is finite: |a| < 1.4e154 when a*a is finite.
            base = self._value
            value = base * base
            if value - value != 0.0:
                raise NonFiniteResult(_POW, value)
            node = _new(Scalar)
            node._value = value
            node._operation = _POW
            node._left = self
            node._dleft = 2.0 * base
            node._right = None
            node._dright = 2.0  # the exponent: see __slots__
            node._gradient = None if self._gradient is None else 0.0
            node._walk = None
            node.tag = None
            return node
        if kind is Scalar:
            raise TypeError(_TRACKED_EXPONENT)
        if modulo is not None or (kind is not int and kind is not float and not _is_number(exponent)):
            return NotImplemented
        power = _leaf_value(exponent, _CONSTANT)  # NonFiniteLeaf for an inf or nan exponent
        value, derivative = power_and_derivative(self._value, power)
        node = _new(Scalar)
        node._value = value
        node._operation = _POW
        node._left = self
        node._dleft = derivative
        node._right = None
        node._dright = power  # the exponent: see __slots__
        node._gradient = None if self._gradient is None else 0.0
        node._walk = None
        node.tag = None
        return node

    def __rpow__(self, base: object) -> Scalar:
        raise TypeError(
            "a number raised to a Scalar is not an operation: "
            "for a ** b with a Scalar b write exp(b * log(a))"
        )

    def pow(self, exponent: int | float) -> Scalar:
        """``self ** exponent`` for a number exponent (a parameter of the node, not an operand)."""
        if type(exponent) is Scalar:
            raise TypeError(_TRACKED_EXPONENT)
        if not _is_number(exponent):
            raise TypeError(f"an exponent must be a real number, not {type(exponent).__name__}")
        return self.__pow__(exponent)

    def sqrt(self) -> Scalar:
        argument = self._value
        if argument < 0.0:
            raise NonFiniteResult(_SQRT, _NAN)
        value = _sqrt(argument)
        if value == 0.0:  # 1/(2*sqrt(0)); IEEE gives -inf for -0.0
            raise NonFiniteDerivative(_SQRT, 0, math.copysign(_INF, value))
        return _unary(value, _SQRT, self, 0.5 / value)  # finite: sqrt(5e-324) is 2.2e-162

    def relu(self) -> Scalar:
        # PyTorch's convention: the derivative at 0 is 0.
        argument = self._value
        node = _new(Scalar)
        if argument > 0.0:
            node._value = argument
            node._dleft = 1.0
        else:
            node._value = 0.0
            node._dleft = 0.0
        node._operation = _RELU
        node._left = self
        node._right = None
        node._gradient = None if self._gradient is None else 0.0
        node._walk = None
        node.tag = None
        return node

    def sigmoid(self) -> Scalar:
        # exp of a non-positive number cannot overflow: pick the form that needs only that.
        argument = self._value
        if argument >= 0.0:
            value = 1.0 / (1.0 + _exp(-argument))
        else:
            exponential = _exp(argument)
            value = exponential / (1.0 + exponential)
        node = _new(Scalar)
        node._value = value
        node._operation = _SIGMOID
        node._left = self
        node._dleft = value * (1.0 - value)  # value is in [0, 1]: finite
        node._right = None
        node._gradient = None if self._gradient is None else 0.0
        node._walk = None
        node.tag = None
        return node

    def abs(self) -> Scalar:
        # PyTorch's convention: the derivative at 0 (either sign of zero) is 0.
        argument = self._value
        derivative = 1.0 if argument > 0.0 else -1.0 if argument < 0.0 else 0.0
        return _unary(_fabs(argument), _ABS, self, derivative)

    __abs__ = abs

    def max(self, other: Scalar | int | float) -> Scalar:
        """The larger operand; on a tie each operand gets local derivative 0.5 (PyTorch)."""
        other = _operand(other)
        left = self._value
        right = other._value
        if left > right:
            return _binary(left, _MAX, self, 1.0, other, 0.0)
        if right > left:
            return _binary(right, _MAX, self, 0.0, other, 1.0)
        return _binary(left, _MAX, self, 0.5, other, 0.5)

    def min(self, other: Scalar | int | float) -> Scalar:
        """The smaller operand; on a tie each operand gets local derivative 0.5 (PyTorch)."""
        other = _operand(other)
        left = self._value
        right = other._value
        if left < right:
            return _binary(left, _MIN, self, 1.0, other, 0.0)
        if right < left:
            return _binary(right, _MIN, self, 0.0, other, 1.0)
        return _binary(left, _MIN, self, 0.5, other, 0.5)

    def detach(self) -> Scalar:
        """A new untracked leaf with this node's value and no edge back to it."""
        return _new_leaf(Scalar, self._value, _DETACHED, None)

    # ---- graph walks and passes (passes.py) ------------------------------------------------

    topology = passes.topology
    reverse_pass = passes.reverse_pass
    backward = passes.backward
    backward_with_seed = passes.backward_with_seed
    zero_grad = passes.zero_grad


def _unary(value: float, operation: ScalarOperation, operand: Scalar, derivative: float) -> Scalar:
    """A one-operand node; the caller has checked its value and derivative."""
    node = _new(Scalar)
    node._value = value
    node._operation = operation
    node._left = operand
    node._dleft = derivative
    node._right = None
    node._gradient = None if operand._gradient is None else 0.0
    node._walk = None
    node.tag = None
    return node


def _binary(value: float, operation: ScalarOperation, left: Scalar, dleft: float,
            right: Scalar, dright: float) -> Scalar:
    """A two-operand node; the caller has checked its value and derivatives."""
    node = _new(Scalar)
    node._value = value
    node._operation = operation
    node._left = left
    node._dleft = dleft
    node._right = right
    node._dright = dright
    node._gradient = None if left._gradient is None and right._gradient is None else 0.0
    node._walk = None
    node.tag = None
    return node


def _constant_of(value: object) -> Scalar:
    return _new_leaf(Scalar, _leaf_value(value, _CONSTANT), _CONSTANT, None)


def _operand(value: object) -> Scalar:
    if type(value) is Scalar:
        return value
    if _is_number(value):
        return _constant_of(value)
    raise TypeError(f"a scalar operand must be a Scalar or a real number, not {type(value).__name__}")
