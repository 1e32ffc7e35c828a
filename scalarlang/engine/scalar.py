"""The scalar engine's node type: each operation computes its value and, right beside it,
the local derivative for each operand slot.

The derivative is stored on the edge at forward time, so the backward pass (passes.py) only
multiplies and adds. Nodes are immutable apart from their stored gradient, hold no closures
and no reference to their consumers, so graphs make no reference cycles. What a node holds
and shows is `Node` (node.py); this module is the arithmetic (+ - * / -a **) and the table of
every operation's forward function (`FORWARD`); the elementary functions (exp, tanh, max,
logsumexp, ...) are functions.py's, taken here as methods.

Speed (see benchmarks/): a node is one object with its (at most two) operand edges in slots,
so building it is one allocation the cyclic garbage collector tracks, not three; a derivative
that is finite by construction (an operand's value, a constant, 1 - tanh^2) is not checked
again.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

from . import functions, passes
from .arithmetic import divide, power, power_and_derivative
from .errors import NonFiniteDerivative, NonFiniteResult
from .node import (
    Forward,
    Node,
    ParentEdge,
    ScalarOperation,
    is_number,
    leaf_value,
    new_leaf,
    unary_node,
)

__all__ = ["FORWARD", "LEAVES", "ParentEdge", "Scalar", "ScalarOperation"]

# Module globals: one dictionary look-up each, cheaper than an enum attribute look-up.
_CONSTANT = ScalarOperation.CONSTANT
_DETACHED = ScalarOperation.DETACHED
_ADD = ScalarOperation.ADD
_SUB = ScalarOperation.SUB
_MUL = ScalarOperation.MUL
_NEG = ScalarOperation.NEG
_DIV = ScalarOperation.DIV
_POW = ScalarOperation.POW

_new = object.__new__

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
    # constant in the slot where it was written. + - * / and the square (and tanh, in
    # functions.py) write their node's slots inline: a call of `binary_node` costs about 25 ns,
    # a sixth of an addition (measured with timeit); every other operation uses `unary_node`,
    # `binary_node` or `nary_node` (node.py). The named methods reject non-numbers with a
    # TypeError where an operator returns NotImplemented.

    def __add__(self, other: object) -> Scalar:
        if type(other) is not Scalar:
            if not is_number(other):
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
            if not is_number(other):
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
            if not is_number(other):
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
            if not is_number(other):
                return NotImplemented
            other = _constant_of(other)
        right = other._value
        value = divide(self._value, right)
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
        return _constant_of(other).__add__(self) if is_number(other) else NotImplemented

    def __rsub__(self, other: object) -> Scalar:
        return _constant_of(other).__sub__(self) if is_number(other) else NotImplemented

    def __rmul__(self, other: object) -> Scalar:
        return _constant_of(other).__mul__(self) if is_number(other) else NotImplemented

    def __rtruediv__(self, other: object) -> Scalar:
        return _constant_of(other).__truediv__(self) if is_number(other) else NotImplemented

    def add(self, other: Scalar | int | float) -> Scalar:
        return self.__add__(_operand(other))

    def sub(self, other: Scalar | int | float) -> Scalar:
        return self.__sub__(_operand(other))

    def mul(self, other: Scalar | int | float) -> Scalar:
        return self.__mul__(_operand(other))

    def div(self, other: Scalar | int | float) -> Scalar:
        return self.__truediv__(_operand(other))

    def neg(self) -> Scalar:
        return unary_node(-self._value, _NEG, self, -1.0)  # negating a finite float is finite

    __neg__ = neg

    def __pow__(self, exponent: object, modulo: object = None) -> Scalar:
        kind = type(exponent)
        if (kind is int or kind is float) and exponent == 2 and modulo is None:
            # The square (every squared-error loss) first and inline; `power` gives the same
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
            node._dright = 2.0  # the exponent: see Node's slots
            node._gradient = None if self._gradient is None else 0.0
            node._walk = None
            node.tag = None
            return node
        if kind is Scalar:
            raise TypeError(_TRACKED_EXPONENT)
        if modulo is not None or (kind is not int and kind is not float and not is_number(exponent)):
            return NotImplemented
        number = leaf_value(exponent, _CONSTANT)  # NonFiniteLeaf for an inf or nan exponent
        value, derivative = power_and_derivative(self._value, number)
        node = unary_node(value, _POW, self, derivative)
        node._dright = number  # the exponent: see Node's slots
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
        if not is_number(exponent):
            raise TypeError(f"an exponent must be a real number, not {type(exponent).__name__}")
        return self.__pow__(exponent)

    # The elementary functions (functions.py): each beside its forward function.
    exp = functions.exp
    log = functions.log
    tanh = functions.tanh
    sqrt = functions.sqrt
    relu = functions.relu
    sigmoid = functions.sigmoid
    abs = functions.abs
    __abs__ = functions.abs
    max = functions.max
    min = functions.min

    @classmethod
    def logsumexp(cls, operands: Iterable[Scalar | int | float]) -> Scalar:
        return functions.logsumexp(cls, operands)

    @classmethod
    def max_of(cls, operands: Iterable[Scalar | int | float]) -> Scalar:
        return functions.max_of(cls, operands)

    @classmethod
    def min_of(cls, operands: Iterable[Scalar | int | float]) -> Scalar:
        return functions.min_of(cls, operands)

    def detach(self) -> Scalar:
        """A new untracked leaf with this node's value and no edge back to it."""
        return new_leaf(Scalar, self._value, _DETACHED, None)

    # ---- graph walks and passes (passes.py) ------------------------------------------------

    topology = passes.topology
    reverse_pass = passes.reverse_pass
    backward = passes.backward
    backward_with_seed = passes.backward_with_seed
    committed_topology = passes.committed_topology
    zero_grad = passes.zero_grad


def _constant_of(value: object) -> Scalar:
    return new_leaf(Scalar, leaf_value(value, _CONSTANT), _CONSTANT, None)


def _operand(value: object) -> Scalar:
    if type(value) is Scalar:
        return value
    if is_number(value):
        return _constant_of(value)
    raise TypeError(f"a scalar operand must be a Scalar or a real number, not {type(value).__name__}")


# Each operation's forward function (the elementary functions' are in functions.py): what its
# node's value is computed with, for the gradient check's replay (replay.py). `+ - * -a` compute
# inline with the Python operator whose function is listed; pow's square takes the same bits
# as `power` (a * a).
FORWARD: dict[ScalarOperation, Forward] = {
    _ADD: Forward(operator.add, 2),
    _SUB: Forward(operator.sub, 2),
    _MUL: Forward(operator.mul, 2),
    _DIV: Forward(divide, 2),
    _NEG: Forward(operator.neg, 1),
    _POW: Forward(power, 1, takes_exponent=True),
    **functions.FORWARD,
}
# Leaves have no forward function: a replay keeps their values.
LEAVES = frozenset({ScalarOperation.VARIABLE, _CONSTANT, _DETACHED})
