"""What a graph node is: its slots, its leaves and what can be read from it.

`Scalar` (scalar.py) is this class with the operations that make new nodes; keeping the
state here leaves that module to the operations and their derivatives. A node changes only
in its stored gradient and in the marks a topology walk leaves on it; both change under one
lock, and a write of stored gradients is one step nothing can split (`write_gradients`).
"""

from __future__ import annotations

import math
import sys
import threading
from collections import deque
from collections.abc import Sequence
from enum import StrEnum
from itertools import repeat
from numbers import Real
from typing import Any, Callable, Generic, Iterable, NamedTuple, Self, SupportsFloat, TypeVar, cast

from .errors import NonFiniteLeaf
from .reprs import SCALAR_SVG, display
from .tensor_operations import TENSOR_OPERATIONS, TensorOperation


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
    LOGSUMEXP = "logsumexp"
    MAX_OF = "max_of"
    MIN_OF = "min_of"


# The operations whose nodes take any number of operands (`nary_node`): their operands after the
# first live in the _dright slot (see `Node`), which the walks read only for these.
NARY_OPERATIONS = frozenset({ScalarOperation.LOGSUMEXP, ScalarOperation.MAX_OF, ScalarOperation.MIN_OF})
# Nodes of tensor operations (tensor_node.py; scalar nodes of a tensor operand too) keep their
# operands as n-ary nodes do, with a VJP on each edge in place of a local derivative: the walks
# read _dright as a tuple for both.
OPERAND_TUPLE_OPERATIONS: frozenset[ScalarOperation | TensorOperation] = NARY_OPERATIONS | TENSOR_OPERATIONS


class Forward(NamedTuple):
    """How an operation computes its value from plain floats: the function its `Scalar`
    operation computes its value with, which never raises (a failure is inf or nan), and how
    it takes its operands. The gradient check's replay evaluates graphs with these."""

    function: Callable[..., float]
    # 1 or 2: ``function(a)``, ``function(a, b)``; None: any number, ``function([a, b, ...])``.
    operands: int | None
    # pow: ``function(base, exponent)``, the exponent a parameter of the node.
    takes_exponent: bool = False


_Parent = TypeVar("_Parent", bound="Node")


class ParentEdge(NamedTuple, Generic[_Parent]):
    """One operand slot of a node: the operand and d(node)/d(operand) at forward values."""

    parent: _Parent
    local_derivative: float


_VARIABLE = ScalarOperation.VARIABLE
_CONSTANT = ScalarOperation.CONSTANT
_POW = ScalarOperation.POW
_INF = math.inf
_new = object.__new__


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


def is_number(value: object) -> bool:
    """Whether ``value`` is a real number an operation takes as a constant (not bool)."""
    kind = type(value)
    if kind is float or kind is int:
        return True
    return isinstance(value, Real) and not isinstance(value, bool)


def leaf_value(value: object, operation: ScalarOperation) -> float:
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


class Node:
    """A graph node's state and its read-only view; `Scalar` adds the operations."""

    __slots__ = ("_value", "_operation", "_left", "_dleft", "_right", "_dright", "_gradient", "_walk", "_index", "tag")

    # _left/_right are the operands of slots 0 and 1 (None when absent: a leaf has neither, a
    # unary node no _right); _dleft/_dright are d(node)/d(operand) at forward values (unset
    # when the operand is absent).
    # A pow node keeps its exponent in _dright: it has one operand, so that slot is free; an
    # n-ary node (`NARY_OPERATIONS`) keeps there its operands after the first, as a tuple of
    # (operand, derivative) pairs, and has no _right.
    # A slot of its own would cost every node 8 bytes, and a write in every operation to set
    # it to None (an unset slot cannot be read, and __slots__ allows no class default);
    # `exponent` reads _dright only when the operation is pow.
    # _gradient is None for untracked nodes, a float for tracked ones.
    # _walk and _index are scratch for the topology walk: the token of the last walk that
    # finished this node and its position in that walk's order (_index is unset until then,
    # and only read when _walk is the current walk's token, so stale values are harmless).

    _value: float
    _operation: ScalarOperation | TensorOperation
    _left: Self | None
    _dleft: float
    _right: Self | None
    _dright: float
    _gradient: float | None
    _walk: object
    _index: int
    # What the program that made the node says of it; the engine never reads it but for
    # `label`. A str (`Scalar.variable(2, label="w")`), or an object whose str() is the label:
    # the interpreter keeps where the node was made and makes the text only when it is shown.
    tag: object

    def __init__(self) -> None:
        raise TypeError("use Scalar.variable(v) or Scalar.constant(v)")

    # ---- leaves ----------------------------------------------------------------------------

    @classmethod
    def variable(cls, value: int | float, label: str | None = None) -> Self:
        """A tracked leaf; its gradient starts at 0.0. ``label`` names it in tables and pictures."""
        return new_leaf(cls, leaf_value(value, _VARIABLE), _VARIABLE, 0.0, _label_text(label))

    @classmethod
    def constant(cls, value: int | float, label: str | None = None) -> Self:
        """An untracked leaf; backpropagation treats it as a constant."""
        return new_leaf(cls, leaf_value(value, _CONSTANT), _CONSTANT, None, _label_text(label))

    # ---- read-only state -------------------------------------------------------------------

    @property
    def value(self) -> float:
        return self._value

    @property
    def operation(self) -> ScalarOperation | TensorOperation:
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
    def parents(self) -> tuple[ParentEdge[Self], ...]:
        """The ordered operand edges: one per operand slot, repeats included."""
        if self._left is None:
            return ()
        if self._right is not None:
            return (ParentEdge(self._left, self._dleft), ParentEdge(self._right, self._dright))
        if self._operation in OPERAND_TUPLE_OPERATIONS:
            rest = cast(tuple, self._dright)
            return (ParentEdge(self._left, self._dleft), *(ParentEdge(*edge) for edge in rest))
        return (ParentEdge(self._left, self._dleft),)

    def is_same_node(self, other: Node) -> bool:
        """Whether both handles are the same graph node (equal values are not enough)."""
        return self is other

    def __repr__(self) -> str:
        label = self.label
        return (
            f"Scalar(value={self._value!r}, operation={self._operation}, "
            f"gradient={self._gradient!r}" + (f", label={label!r})" if label is not None else ")")
        )

    def __copy__(self) -> Self:
        return self  # a node is its identity; copying would make a different node

    def __deepcopy__(self, memo: dict) -> Self:
        return self

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of this node's graph; None (no picture) until one is registered."""
        return display(SCALAR_SVG, self)


def new_leaf(cls: type[Any], value: float, operation: ScalarOperation, gradient: float | None,
              tag: object = None) -> Any:
    """A leaf of class ``cls`` (a Scalar): no operand, gradient 0.0 when tracked, else None."""
    node = _new(cls)
    node._value = value
    node._operation = operation
    node._left = None
    node._right = None
    node._gradient = gradient
    node._walk = None
    node.tag = tag
    return node


def unary_node(value: float, operation: ScalarOperation, operand: Any, derivative: float) -> Any:
    """A one-operand node of ``operand``'s class; the caller has checked value and derivative."""
    node = _new(operand.__class__)
    node._value = value
    node._operation = operation
    node._left = operand
    node._dleft = derivative
    node._right = None
    node._gradient = None if operand._gradient is None else 0.0
    node._walk = None
    node.tag = None
    return node


def binary_node(value: float, operation: ScalarOperation, left: Any, dleft: float, right: Any, dright: float) -> Any:
    """A two-operand node; the caller has checked its value and derivatives."""
    node = _new(left.__class__)
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


def nary_node(value: float, operation: ScalarOperation, operands: Sequence[Any], derivatives: Sequence[float]) -> Any:
    """A node of an operation of `NARY_OPERATIONS` over one or more operands (one edge each,
    in order); the caller has checked its value and derivatives."""
    first = operands[0]
    node = _new(first.__class__)
    node._value = value
    node._operation = operation
    node._left = first
    node._dleft = derivatives[0]
    node._right = None
    node._dright = tuple(zip(operands[1:], derivatives[1:]))  # type: ignore[assignment]
    node._gradient = None
    for operand in operands:  # (a loop that stops at the first tracked one: cheaper than any())
        if operand._gradient is not None:
            node._gradient = 0.0
            break
    node._walk = None
    node.tag = None
    return node


def _label_text(label: object) -> str | None:
    if label is None or type(label) is str:
        return label
    raise TypeError(f"a label must be a str, not {type(label).__name__}")


# ---- the lock and the one-step write ---------------------------------------------------------

# Walks keep their marks (_walk, _index) on the nodes, which graphs in other threads may share:
# one walk at a time, from the walk until the pass has read the indices. A pass also holds it
# while it reads the stored gradients and commits, so that concurrent passes on one graph add
# up (no update is lost, as in PyTorch). Under the GIL this costs nothing in throughput.
WALK_LOCK = threading.Lock()

_GRADIENT = "_gradient"
_consume: Callable[[Iterable[Any]], None] = deque(maxlen=0).extend  # runs an iterator to its end in C, keeping nothing


def write_gradients(nodes: Iterable[Node], values: Iterable[float | None]) -> None:
    """Store ``values`` as the gradients of ``nodes`` in one step nothing can split.

    The writes run inside one C call (deque.extend over map(setattr, ...): setting a slot and
    freeing the old float run no Python code), so the interpreter reaches no point where it
    runs a signal handler or switches threads: a KeyboardInterrupt arrives before or after
    all the writes, never between two of them, and no other thread sees half of them."""
    _consume(map(setattr, nodes, repeat(_GRADIENT), values))


# ---- freeing a deep graph where CPython cannot measure its stack ----------------------------

# Freeing a node frees each operand that only it holds inside its own free, so a chain (an
# unrolled loop; `sum` of many terms, a left fold) is freed nested as deep as it is long.
# CPython bounds that nesting (its "trashcan" defers frees when the C stack runs low), but where
# the C stack is the JavaScript engine's (Emscripten and WASI builds: Pyodide in a browser) it
# cannot measure it, and freeing a chain of some thousands of nodes ended Python there. There,
# and only there, a dying node hands its operands to `_dying`, and the outermost free lets them
# go one at a time: no free nests more than a level or two. (A finalizer on every node costs a
# training step about a tenth natively, where CPython needs no help: measured, 0.29 s -> 0.32 s
# for five steps of benchmarks/workloads.py's MLP.)
_dying: list[object] = []
_draining = False


def free_operands_first(node: Any) -> None:
    global _draining
    left = node._left
    if left is None:  # a leaf holds no node
        return
    _dying.append(left)
    node._left = None
    right = node._right
    if right is not None:
        _dying.append(right)
        node._right = None
    elif node._operation in OPERAND_TUPLE_OPERATIONS:
        _dying.append(node._dright)  # its other (operand, derivative) pairs
        node._dright = 0.0
        _dying.append(node._dleft)  # a tensor edge's VJP may hold its operands too
        node._dleft = 0.0
    del left, right  # (a name would keep an operand alive past its turn below)
    if _draining:
        return  # a free inside the loop below: the loop lets these go
    _draining = True
    try:
        while _dying:
            _dying.pop()
    finally:
        _draining = False


FREES_OPERANDS_FIRST = sys.platform in ("emscripten", "wasi")
if FREES_OPERANDS_FIRST:
    setattr(Node, "__del__", free_operands_first)
