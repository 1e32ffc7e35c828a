"""The scalar reverse-mode engine: nodes, operations, topology and reverse passes.

Every operation computes its value and, right beside it, the local derivative for each
operand slot; the derivative is stored on the edge at forward time, so the backward pass only
multiplies and adds. Nodes are immutable apart from their stored gradient, hold no closures
and no reference to their consumers, so graphs make no reference cycles.

Walks over a graph use explicit stacks: a chain a million nodes deep works.

Speed (see benchmarks/): a node is one object with its (at most two) operand edges in slots,
so building it is one allocation the cyclic garbage collector tracks, not three; the
operators build their node inline instead of through helper calls; a derivative that is
finite by construction (an operand's value, a constant, 1 - tanh^2) is not checked again.
The walks mark nodes with a per-walk token (one identity test per edge), and the pass checks
finiteness once at the end of its per-edge loop, walking again with every check in place
only when something was not finite (see ``_propagate``).

Threads and interrupts: a pass holds one lock from its walk through its commit, so passes
from several threads on one graph add up; every write of stored gradients is one C-level
step (``_write_gradients``), so a KeyboardInterrupt or a thread switch never splits it.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from enum import StrEnum
from itertools import repeat
from numbers import Real
from typing import Any, Callable, Iterable, NamedTuple, SupportsFloat

from .errors import (
    NonFiniteAccumulatedGradient,
    NonFiniteContribution,
    NonFiniteDerivative,
    NonFiniteLeaf,
    NonFinitePassAdjoint,
    NonFiniteResult,
    NonFiniteSeed,
    UntrackedOutput,
)
from .records import BackwardPass


class ScalarOperation(StrEnum):
    """The operation that made a node; ``str()`` is its stable name."""

    VARIABLE = "variable"
    CONSTANT = "constant"
    DETACHED = "detached"
    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    NEG = "neg"
    EXP = "exp"
    TANH = "tanh"
    DIV = "div"
    LOG = "log"
    POW = "pow"
    SQRT = "sqrt"
    RELU = "relu"
    SIGMOID = "sigmoid"
    ABS = "abs"
    MAX = "max"
    MIN = "min"


class ParentEdge(NamedTuple):
    """One operand slot of a node: the operand and d(node)/d(operand) at forward values."""

    parent: Scalar
    local_derivative: float


# Module globals: one dictionary look-up each, cheaper than an enum attribute look-up.
_VARIABLE = ScalarOperation.VARIABLE
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


def real_number(value: object, what: str) -> float:
    """``value`` as a float, for any real number (``numbers.Real``: int, float, Fraction,
    numpy's scalars) except bool; anything else, or a conversion that fails, is a TypeError.

    A number too large for a float (an int, a Fraction) becomes +-inf: the callers reject
    non-finite values with their own typed errors. One function for every entry point, so
    that all of them accept and reject alike."""
    if type(value) is float:
        return value
    number: SupportsFloat
    if type(value) is int:
        number = value
    elif isinstance(value, Real) and not isinstance(value, bool):
        number = value
    else:
        raise TypeError(
            f"{what} must be a real number (int, float, Fraction, numpy scalar), "
            f"not {type(value).__name__}"
        )
    try:
        return float(number)
    except OverflowError:
        return _overflowed(number, what)
    except Exception as error:  # a __float__ of its own that fails
        raise TypeError(f"{what}: float() of a {type(value).__name__} failed: {error}") from error


def _overflowed(value: SupportsFloat, what: str) -> float:
    """+-inf for a real number too large for a float, by its sign."""
    try:
        positive = bool(value > 0)  # type: ignore[operator]
    except Exception as error:
        raise TypeError(f"{what}: a {type(value).__name__} too large for a float has no sign") from error
    return _INF if positive else -_INF


def _leaf_value(value: object, operation: ScalarOperation) -> float:
    """A finite float from a real number, or the typed error; non-numbers are TypeErrors."""
    if type(value) is float:
        number = value
    elif type(value) is int:  # the common case inline: one call fewer for x * 3
        try:
            number = float(value)
        except OverflowError:
            raise NonFiniteLeaf(operation, _INF if value > 0 else -_INF) from None
    else:
        number = real_number(value, "a scalar value")
    if number - number != 0.0:  # inf - inf and nan - nan are nan
        raise NonFiniteLeaf(operation, number)
    return number


class Scalar:
    """One node of a scalar graph. Build leaves with `variable` and `constant`."""

    __slots__ = ("_value", "_operation", "_left", "_dleft", "_right", "_dright", "_gradient", "_walk", "_index", "tag")

    # _left/_right are the operands of slots 0 and 1 (None when absent: a leaf has neither, a
    # unary node no _right); _dleft/_dright are d(node)/d(operand) at forward values (unset
    # when the operand is absent).
    # A pow node keeps its exponent in _dright: it has one operand, so that slot is free.
    # A slot of its own would cost every node 8 bytes, and a write in every operation to set
    # it to None (an unset slot cannot be read, and __slots__ allows no class default);
    # `exponent` reads _dright only when the operation is pow.
    # _gradient is None for untracked nodes, a float for tracked ones.
    # _walk and _index are scratch for the topology walk: the token of the last walk that
    # finished this node and its position in that walk's order (_index is unset until then,
    # and only read when _walk is the current walk's token, so stale values are harmless).

    _value: float
    _operation: ScalarOperation
    _left: Scalar | None
    _dleft: float
    _right: Scalar | None
    _dright: float
    _gradient: float | None
    _walk: object
    _index: int
    # What the program that made the node says of it; the engine never reads it but for
    # `label`. A str (`Scalar.variable(2, label="w")`), or an object whose str() is the label:
    # the interpreter keeps where the node was made and makes the text only when it is shown.
    tag: object

    # numpy's scalars and arrays defer to our reflected operators (np.float32(2) * x is
    # Scalar.__rmul__), instead of wrapping the node in an object array.
    __array_ufunc__ = None

    def __init__(self) -> None:
        raise TypeError("use Scalar.variable(v) or Scalar.constant(v)")

    # ---- construction ----------------------------------------------------------------------

    @classmethod
    def variable(cls, value: int | float, label: str | None = None) -> Scalar:
        """A tracked leaf; its gradient starts at 0.0. ``label`` names it in tables and pictures."""
        node = _leaf(_leaf_value(value, _VARIABLE), _VARIABLE, 0.0)
        node.tag = _label_text(label)
        return node

    @classmethod
    def constant(cls, value: int | float, label: str | None = None) -> Scalar:
        """An untracked leaf; backpropagation treats it as a constant."""
        node = _leaf(_leaf_value(value, _CONSTANT), _CONSTANT, None)
        node.tag = _label_text(label)
        return node

    # ---- read-only state -------------------------------------------------------------------

    @property
    def value(self) -> float:
        return self._value

    @property
    def operation(self) -> ScalarOperation:
        return self._operation

    @property
    def tracks_gradient(self) -> bool:
        return self._gradient is not None

    @property
    def gradient(self) -> float | None:
        """The accumulated gradient of committed backward passes; None when untracked."""
        return self._gradient

    @property
    def label(self) -> str | None:
        """What tables and pictures call this node: the ``label=`` it was made with, or what the
        program that made it says (the interpreter: the first name bound to it, else the source
        text that made it); None when nothing does."""
        tag = self.tag
        return None if tag is None else str(tag)

    @property
    def exponent(self) -> float | None:
        """The exponent of a pow node (a parameter, not an operand); None for other nodes."""
        return self._dright if self._operation is _POW else None

    @property
    def parents(self) -> tuple[ParentEdge, ...]:
        """The ordered operand edges: one per operand slot, repeats included."""
        if self._left is None:
            return ()
        if self._right is None:
            return (ParentEdge(self._left, self._dleft),)
        return (ParentEdge(self._left, self._dleft), ParentEdge(self._right, self._dright))

    def is_same_node(self, other: Scalar) -> bool:
        """Whether both handles are the same graph node (equal values are not enough)."""
        return self is other

    def __repr__(self) -> str:
        return (
            f"Scalar(value={self._value!r}, operation={self._operation}, "
            f"gradient={self._gradient!r})"
        )

    def __copy__(self) -> Scalar:
        return self  # a node is its identity; copying would make a different node

    def __deepcopy__(self, memo: dict) -> Scalar:
        return self

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
            raise NonFiniteResult(_DIV, _divide_by_zero(left, right)) from None
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
        value, derivative = _power_and_derivative(self._value, power)
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
        return _leaf(self._value, _DETACHED, None)

    # ---- graph walks and passes ------------------------------------------------------------

    def topology(self) -> list[Scalar]:
        """Every node reachable from here once, operands before results (DFS post-order)."""
        with _WALK_LOCK:
            return _topology(self)

    def reverse_pass(self, seed: float = 1.0) -> BackwardPass:
        """Compute one fresh reverse pass from this node; writes no stored gradient."""
        return _compute_pass(self, seed, False)

    def backward(self) -> BackwardPass:
        """One fresh pass seeded by 1, then add its adjoints to the stored gradients."""
        return _compute_pass(self, 1.0, True)

    def backward_with_seed(self, seed: float) -> BackwardPass:
        """One fresh pass seeded by ``seed``, committed only when all of it is finite."""
        return _compute_pass(self, seed, True)

    def zero_grad(self) -> None:
        """Set every reachable tracked node's stored gradient to 0.0, all at once (see
        ``_write_gradients``): no pass in another thread commits into the middle of it."""
        with _WALK_LOCK:
            order = _topology(self)
            tracked = [node for node in order if node._gradient is not None]
            _write_gradients(tracked, repeat(0.0, len(tracked)))

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of this node's graph (the drawing package is imported lazily)."""
        from ..pictures.reprs import scalar_svg

        return scalar_svg(self)


def _label_text(label: object) -> str | None:
    if label is None or type(label) is str:
        return label
    raise TypeError(f"a label must be a str, not {type(label).__name__}")


def _leaf(value: float, operation: ScalarOperation, gradient: float | None) -> Scalar:
    node = _new(Scalar)
    node._value = value
    node._operation = operation
    node._left = None
    node._right = None
    node._gradient = gradient
    node._walk = None
    node.tag = None
    return node


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


def _odd_integer(number: float) -> bool:
    return number % 2.0 == 1.0  # also for negative numbers: -3.0 % 2.0 is 1.0


def _power(base: float, exponent: float) -> float:
    """IEEE pow(base, exponent) of two finite floats, never a Python exception or a complex.

    Shared with the gradient check's replay, so that a replayed pow gives the same bits."""
    if exponent == 2.0:
        return base * base  # correctly rounded (libm's pow is not always), as in __pow__
    if base < 0.0 and exponent % 1.0 != 0.0:
        return _NAN  # a negative base with a fractional exponent (Python: a complex number)
    try:
        return base**exponent
    except ZeroDivisionError:  # a zero base, a negative exponent: inf, signed as the zero
        negative = _odd_integer(exponent) and math.copysign(1.0, base) < 0.0
        return -_INF if negative else _INF
    except OverflowError:
        return -_INF if base < 0.0 and _odd_integer(exponent) else _INF


def _power_and_derivative(base: float, exponent: float) -> tuple[float, float]:
    """The value and local derivative of pow, or the typed error; exponent 0 gives 0 exactly."""
    value = _power(base, exponent)
    if value - value != 0.0:
        raise NonFiniteResult(_POW, value)
    if exponent == 0.0:
        return value, 0.0
    derivative = exponent * _power(base, exponent - 1.0)
    if derivative - derivative != 0.0 and base != 0.0:
        # base^(c-1) overflowed, though c * base^c / base need not (a tiny base and exponent)
        derivative = exponent * value / base
    if derivative - derivative != 0.0:
        raise NonFiniteDerivative(_POW, 0, derivative)
    return value, derivative


def _divide_by_zero(numerator: float, denominator: float) -> float:
    """The IEEE quotient Python refuses to compute: +-inf, or nan for 0/0."""
    if numerator == 0.0:
        return _NAN
    return math.copysign(_INF, numerator) * math.copysign(1.0, denominator)


def _is_number(value: object) -> bool:
    """Whether ``value`` is a real number an operation takes as a constant (not bool)."""
    kind = type(value)
    if kind is float or kind is int:
        return True
    return isinstance(value, Real) and not isinstance(value, bool)


def _constant_of(value: object) -> Scalar:
    return _leaf(_leaf_value(value, _CONSTANT), _CONSTANT, None)


def _operand(value: object) -> Scalar:
    if type(value) is Scalar:
        return value
    if _is_number(value):
        return _constant_of(value)
    raise TypeError(f"a scalar operand must be a Scalar or a real number, not {type(value).__name__}")


# Walks keep their marks (_walk, _index) on the nodes, which graphs in other threads may share:
# one walk at a time, from the walk until the pass has read the indices. A pass also holds it
# while it reads the stored gradients and commits, so that concurrent passes on one graph add
# up (no update is lost, as in PyTorch). Under the GIL this costs nothing in throughput.
_WALK_LOCK = threading.Lock()

_GRADIENT = "_gradient"
_consume: Callable[[Iterable[Any]], None] = deque(maxlen=0).extend  # runs an iterator to its end in C, keeping nothing


def _write_gradients(nodes: Iterable[Scalar], values: Iterable[float | None]) -> None:
    """Store ``values`` as the gradients of ``nodes`` in one step nothing can split.

    The writes run inside one C call (deque.extend over map(setattr, ...): setting a slot and
    freeing the old float run no Python code), so the interpreter reaches no point where it
    runs a signal handler or switches threads: a KeyboardInterrupt arrives before or after
    all the writes, never between two of them, and no other thread sees half of them."""
    _consume(map(setattr, nodes, repeat(_GRADIENT), values))


def _topology(output: Scalar) -> list[Scalar]:
    """Iterative post-order DFS from ``output`` visiting operands in slot order.

    It gives the order of the recursive walk: ``node`` descends into its first unfinished
    operand, saving itself on ``path``; with none left it finishes and the walk climbs back.
    Because nodes never change their operands the graph is acyclic, so a node is never
    reached again while it is on the path, and "visited" only needs marking when a node is
    finished. The mark is a token made for this walk: one identity test, and marks left by
    earlier walks (or by a walk that was interrupted) can never be mistaken for this one's.
    """
    walk = object()
    order: list[Scalar] = []
    append = order.append
    path: list[Scalar] = []
    push = path.append
    pop = path.pop
    finished = 0  # len(order)
    node = output
    while True:
        left = node._left
        if left is not None:
            if left._walk is not walk:
                if left._left is None:  # a leaf finishes at once
                    left._walk = walk
                    left._index = finished
                    append(left)
                    finished += 1
                else:
                    push(node)
                    node = left
                    continue
            right = node._right
            if right is not None and right._walk is not walk:
                if right._left is None:
                    right._walk = walk
                    right._index = finished
                    append(right)
                    finished += 1
                else:
                    push(node)
                    node = right
                    continue
        node._walk = walk
        node._index = finished
        append(node)
        finished += 1
        if not path:
            return order
        node = pop()


def _finite_seed(seed: object) -> float:
    value = real_number(seed, "a backward seed")
    if value - value != 0.0:
        raise NonFiniteSeed(value)
    return value


def _compute_pass(output: Scalar, seed: object, commit: bool) -> BackwardPass:
    """The fresh pass of docs/engine.md: checks in order, nothing written until ``commit``.

    Stored gradients are only read in the prospective-sum step. The walk allocates no object
    the cyclic garbage collector tracks (floats and ints only), so it triggers no collection.
    """
    if output._gradient is None:
        raise UntrackedOutput(output._operation)
    seed = _finite_seed(seed)
    # The lock covers the walk (its marks and indices live on the nodes until propagation
    # ends) through the commit: the stored gradients read below are still the stored ones
    # when the sums are written.
    with _WALK_LOCK:
        order = _topology(output)
        adjoints, edge_before = _propagate(order, seed)
        count = len(order)

        # None marks the untracked nodes: the gradient they keep at the commit, and what
        # their records report.
        accumulated: list[float | None] = [None] * count
        index = 0
        for node in order:
            stored = node._gradient
            if stored is not None:
                adjoint = adjoints[index]
                total = stored + adjoint
                if total - total != 0.0:
                    raise NonFiniteAccumulatedGradient(index, stored, adjoint)
                accumulated[index] = total
            index += 1

        if commit:
            # Every check has passed: now, and only now, write the stored gradients, every
            # node in one step (an untracked one gets the None it has).
            _write_gradients(order, accumulated)

    return BackwardPass._from_walk(seed, order, adjoints, accumulated, edge_before, output._walk)


def _propagate(order: list[Scalar], seed: float) -> tuple[list[float], list[float]]:
    """Step 3 of the pass: the fresh adjoints, and each edge's parent adjoint before it.

    The edge record keeps only what cannot be derived afterwards, the "before" adjoint (see
    ``records``); 0.0 stands for an untracked parent, whose record reports None.

    This walk leaves the finiteness checks out of the per-edge loop: IEEE arithmetic keeps a
    non-finite value non-finite (inf + x is inf or nan, nan + x is nan), so a non-finite
    contribution or sum leaves its mark in the final adjoints or in the sum of the discarded
    contributions to untracked parents. When the marks are all finite, no check of step 3
    could have failed; otherwise ``_propagate_checked`` walks again with every check in
    place, to raise the first failing one with its fields (or, when only a finite sum
    overflowed, to return the same figures).
    """
    count = len(order)
    adjoints = [0.0] * count
    adjoints[count - 1] = seed
    edge_before: list[float] = []
    add_before = edge_before.append
    discarded = 0.0  # contributions to untracked parents, summed only to be checked
    child = count
    for node in reversed(order):
        child -= 1
        operand = node._left
        if operand is None:
            continue  # a leaf: no edges
        upstream = adjoints[child]
        # Slot 0, then slot 1 (written out twice: a loop over slots would allocate per node).
        if operand._gradient is None:
            discarded += upstream * node._dleft
            add_before(0.0)
        else:
            parent = operand._index
            previous = adjoints[parent]
            adjoints[parent] = previous + upstream * node._dleft
            add_before(previous)
        operand = node._right
        if operand is None:
            continue
        if operand._gradient is None:
            discarded += upstream * node._dright
            add_before(0.0)
        else:
            parent = operand._index
            previous = adjoints[parent]
            adjoints[parent] = previous + upstream * node._dright
            add_before(previous)
    marks = sum(adjoints, discarded)
    if marks - marks != 0.0:
        return _propagate_checked(order, seed)
    return adjoints, edge_before


def _propagate_checked(order: list[Scalar], seed: float) -> tuple[list[float], list[float]]:
    """Step 3 exactly as docs/engine.md states it, each check at its edge, in visiting order."""
    count = len(order)
    adjoints = [0.0] * count
    adjoints[count - 1] = seed
    edge_before: list[float] = []
    for child in range(count - 1, -1, -1):
        node = order[child]
        upstream = adjoints[child]
        for slot, operand, local in _edges_of(node):
            contribution = upstream * local
            if contribution - contribution != 0.0:
                raise NonFiniteContribution(child, operand._index, slot, upstream, local)
            if operand._gradient is None:
                edge_before.append(0.0)
                continue
            parent = operand._index
            previous = adjoints[parent]
            total = previous + contribution
            if total - total != 0.0:
                raise NonFinitePassAdjoint(parent, previous, contribution)
            adjoints[parent] = total
            edge_before.append(previous)
    return adjoints, edge_before


def _edges_of(node: Scalar) -> tuple:
    """(slot, operand, local derivative) for each operand edge of ``node``, in slot order."""
    if node._left is None:
        return ()
    if node._right is None:
        return ((0, node._left, node._dleft),)
    return ((0, node._left, node._dleft), (1, node._right, node._dright))
