"""The scalar reverse-mode engine: nodes, operations, topology and reverse passes.

Every operation computes its value and, right beside it, the local derivative for each
operand slot; the derivative is stored on the edge at forward time, so the backward pass only
multiplies and adds. Nodes are immutable apart from their stored gradient, hold no closures
and no reference to their consumers, so graphs make no reference cycles.

Walks over a graph use explicit stacks: a chain a million nodes deep works.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

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


class ParentEdge(NamedTuple):
    """One operand slot of a node: the operand and d(node)/d(operand) at forward values."""

    parent: Scalar
    local_derivative: float


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

_NO_OPERANDS: tuple = ()
_INF = math.inf


def _leaf_value(value: object, operation: ScalarOperation) -> float:
    """A finite float from a Python number, or the typed error; non-numbers are TypeErrors."""
    if type(value) is float:
        number = value
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"a scalar value must be an int or a float, not {type(value).__name__}")
    else:
        try:
            number = float(value)
        except OverflowError:
            # An int too large for a float: it would be +-inf.
            raise NonFiniteLeaf(operation, _INF if value > 0 else -_INF) from None
    if number - number != 0.0:  # inf - inf and nan - nan are nan
        raise NonFiniteLeaf(operation, number)
    return number


class Scalar:
    """One node of a scalar graph. Build leaves with `variable` and `constant`."""

    __slots__ = ("_value", "_operation", "_operands", "_derivatives", "_gradient", "_index")

    # _gradient is None for untracked nodes, a float for tracked ones.
    # _index is scratch for the topology walk: the node's position in the last walk that
    # reached it (checked by identity before use, so a stale index is harmless).

    def __init__(self) -> None:
        raise TypeError("use Scalar.variable(v) or Scalar.constant(v)")

    # ---- construction ----------------------------------------------------------------------

    @classmethod
    def variable(cls, value: int | float) -> Scalar:
        """A tracked leaf; its gradient starts at 0.0."""
        return _make(_leaf_value(value, _VARIABLE), _VARIABLE, _NO_OPERANDS, _NO_OPERANDS, 0.0)

    @classmethod
    def constant(cls, value: int | float) -> Scalar:
        """An untracked leaf; backpropagation treats it as a constant."""
        return _make(_leaf_value(value, _CONSTANT), _CONSTANT, _NO_OPERANDS, _NO_OPERANDS, None)

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
    def parents(self) -> tuple[ParentEdge, ...]:
        """The ordered operand edges: one per operand slot, repeats included."""
        return tuple(map(ParentEdge, self._operands, self._derivatives))

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

    def add(self, other: Scalar | int | float) -> Scalar:
        other = _operand(other)
        return _result(self._value + other._value, _ADD, (self, other), (1.0, 1.0))

    def sub(self, other: Scalar | int | float) -> Scalar:
        other = _operand(other)
        return _result(self._value - other._value, _SUB, (self, other), (1.0, -1.0))

    def mul(self, other: Scalar | int | float) -> Scalar:
        other = _operand(other)
        left, right = self._value, other._value
        return _result(left * right, _MUL, (self, other), (right, left))

    def div(self, other: Scalar | int | float) -> Scalar:
        other = _operand(other)
        left, right = self._value, other._value
        try:
            value = left / right
        except ZeroDivisionError:
            value = _divide_by_zero(left, right)
            raise NonFiniteResult(_DIV, value) from None
        # d/db (a/b) = -a/b^2, computed as -(a/b)/b so that b^2 cannot underflow to zero.
        return _result(value, _DIV, (self, other), (1.0 / right, -value / right))

    def neg(self) -> Scalar:
        return _result(-self._value, _NEG, (self,), (-1.0,))

    def exp(self) -> Scalar:
        try:
            value = math.exp(self._value)
        except OverflowError:
            raise NonFiniteResult(_EXP, _INF) from None
        return _result(value, _EXP, (self,), (value,))

    def tanh(self) -> Scalar:
        value = math.tanh(self._value)
        return _result(value, _TANH, (self,), (1.0 - value * value,))

    def log(self) -> Scalar:
        argument = self._value
        if argument <= 0.0:
            raise NonFiniteResult(_LOG, -_INF if argument == 0.0 else math.nan)
        return _result(math.log(argument), _LOG, (self,), (1.0 / argument,))

    def detach(self) -> Scalar:
        """A new untracked leaf with this node's value and no edge back to it."""
        return _make(self._value, _DETACHED, _NO_OPERANDS, _NO_OPERANDS, None)

    # ---- operators: a Python number becomes a constant in the slot where it was written ----

    def __add__(self, other: object) -> Scalar:
        return self.add(other) if _is_operand(other) else NotImplemented

    def __radd__(self, other: object) -> Scalar:
        return _constant_of(other).add(self) if _is_number(other) else NotImplemented

    def __sub__(self, other: object) -> Scalar:
        return self.sub(other) if _is_operand(other) else NotImplemented

    def __rsub__(self, other: object) -> Scalar:
        return _constant_of(other).sub(self) if _is_number(other) else NotImplemented

    def __mul__(self, other: object) -> Scalar:
        return self.mul(other) if _is_operand(other) else NotImplemented

    def __rmul__(self, other: object) -> Scalar:
        return _constant_of(other).mul(self) if _is_number(other) else NotImplemented

    def __truediv__(self, other: object) -> Scalar:
        return self.div(other) if _is_operand(other) else NotImplemented

    def __rtruediv__(self, other: object) -> Scalar:
        return _constant_of(other).div(self) if _is_number(other) else NotImplemented

    def __neg__(self) -> Scalar:
        return self.neg()

    # ---- graph walks and passes ------------------------------------------------------------

    def topology(self) -> list[Scalar]:
        """Every node reachable from here once, operands before results (DFS post-order)."""
        return _topology(self)

    def reverse_pass(self, seed: float = 1.0) -> BackwardPass:
        """Compute one fresh reverse pass from this node; writes no stored gradient."""
        return _compute_pass(self, seed)

    def backward(self) -> BackwardPass:
        """One fresh pass seeded by 1, then add its adjoints to the stored gradients."""
        return self.backward_with_seed(1.0)

    def backward_with_seed(self, seed: float) -> BackwardPass:
        """One fresh pass seeded by ``seed``, committed only when all of it is finite."""
        backward_pass = _compute_pass(self, seed)
        backward_pass._commit()
        return backward_pass

    def zero_grad(self) -> None:
        """Set every reachable tracked node's stored gradient to 0.0."""
        for node in _topology(self):
            if node._gradient is not None:
                node._gradient = 0.0


def _make(value, operation, operands, derivatives, gradient) -> Scalar:
    node = object.__new__(Scalar)
    node._value = value
    node._operation = operation
    node._operands = operands
    node._derivatives = derivatives
    node._gradient = gradient
    node._index = -1
    return node


def _result(value: float, operation: ScalarOperation, operands: tuple, derivatives: tuple) -> Scalar:
    """An operation node after checking its value and local derivatives are finite."""
    if value - value != 0.0:
        raise NonFiniteResult(operation, value)
    for slot, derivative in enumerate(derivatives):
        if derivative - derivative != 0.0:
            raise NonFiniteDerivative(operation, slot, derivative)
    tracked = False
    for operand in operands:
        if operand._gradient is not None:
            tracked = True
            break
    return _make(value, operation, operands, derivatives, 0.0 if tracked else None)


def _divide_by_zero(numerator: float, denominator: float) -> float:
    """The IEEE quotient Python refuses to compute: +-inf, or nan for 0/0."""
    if numerator == 0.0:
        return math.nan
    return math.copysign(_INF, numerator) * math.copysign(1.0, denominator)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_operand(value: object) -> bool:
    return type(value) is Scalar or _is_number(value)


def _constant_of(value: object) -> Scalar:
    return Scalar.constant(value)  # type: ignore[arg-type]


def _operand(value: object) -> Scalar:
    if type(value) is Scalar:
        return value  # type: ignore[return-value]
    if _is_number(value):
        return Scalar.constant(value)  # type: ignore[arg-type]
    raise TypeError(f"a scalar operand must be a Scalar, int or float, not {type(value).__name__}")


def _topology(output: Scalar) -> list[Scalar]:
    """Iterative post-order DFS from ``output`` visiting operands in slot order.

    It gives the order of the recursive walk. Because nodes never change their operands the
    graph is acyclic, so a node is never reached again while it is still on the stack and
    "visited" only needs marking when a node is finished.
    """
    order: list[Scalar] = []
    append = order.append
    stack: list[tuple[Scalar, int]] = [(output, 0)]
    push = stack.append
    pop = stack.pop
    while stack:
        node, slot = pop()
        operands = node._operands
        count = len(operands)
        while slot < count:
            operand = operands[slot]
            slot += 1
            index = operand._index
            if index < len(order) and index >= 0 and order[index] is operand:
                continue  # already finished
            if not operand._operands:
                operand._index = len(order)  # a leaf finishes at once
                append(operand)
                continue
            push((node, slot))
            push((operand, 0))
            break
        else:
            node._index = len(order)
            append(node)
    return order


def _finite_seed(seed: object) -> float:
    if isinstance(seed, bool) or not isinstance(seed, (int, float)):
        raise TypeError(f"a backward seed must be an int or a float, not {type(seed).__name__}")
    try:
        value = float(seed)
    except OverflowError:
        value = _INF if seed > 0 else -_INF  # type: ignore[operator]
    if value - value != 0.0:
        raise NonFiniteSeed(value)
    return value


def _compute_pass(output: Scalar, seed: object) -> BackwardPass:
    """The fresh pass of ENGINE.md: checks in order, nothing written.

    Stored gradients are only read in the last step (prospective sums). The edge records keep
    just what cannot be derived afterwards: each edge's parent index and the parent's adjoint
    before the edge was added (see ``records``).
    """
    if output._gradient is None:
        raise UntrackedOutput(output._operation)
    seed = _finite_seed(seed)
    order = _topology(output)
    count = len(order)
    adjoints = [0.0] * count
    adjoints[count - 1] = seed
    edge_parents: list[int] = []
    edge_before: list[float] = []
    add_parent = edge_parents.append
    add_before = edge_before.append

    for child in range(count - 1, -1, -1):
        node = order[child]
        operands = node._operands
        if not operands:
            continue
        upstream = adjoints[child]
        derivatives = node._derivatives
        for slot in range(len(operands)):
            operand = operands[slot]
            local = derivatives[slot]
            contribution = upstream * local
            parent = operand._index
            if contribution - contribution != 0.0:
                raise NonFiniteContribution(child, parent, slot, upstream, local)
            add_parent(parent)
            if operand._gradient is None:
                add_before(0.0)  # untracked: no adjoint; the record reports None
                continue
            previous = adjoints[parent]
            total = previous + contribution
            if total - total != 0.0:
                raise NonFinitePassAdjoint(parent, previous, contribution)
            adjoints[parent] = total
            add_before(previous)

    accumulated: list[float | None] = [None] * count
    for index in range(count):
        stored = order[index]._gradient
        if stored is None:
            continue
        adjoint = adjoints[index]
        total = stored + adjoint
        if total - total != 0.0:
            raise NonFiniteAccumulatedGradient(index, stored, adjoint)
        accumulated[index] = total

    return BackwardPass._from_walk(seed, order, adjoints, accumulated, edge_parents, edge_before)

