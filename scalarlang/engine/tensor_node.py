"""What a tensor node is: a shape, row-major values, a stored gradient when tracked, and on
each operand edge a vector-Jacobian product (VJP).

A tensor node lives in the same graphs as scalar nodes and keeps the slots the walks read
(passes.py): its first operand in _left with its VJP in _dleft, the others in _dright as a
tuple of (operand, VJP) pairs, as n-ary scalar nodes keep theirs; _right is always None. A VJP
takes the adjoint of the node it leaves (a list of floats for a tensor node, a float for a
scalar node) and gives the operand's contribution, of the operand's shape. A scalar node made
by a tensor operation (a sum, an element, a dot) keeps its tensor operands the same way.

`Tensor` (tensor.py) is this class with the operations; the operations make their results
with `new_tensor` and `new_scalar` here, each computing its values and, beside them, the VJP
of each edge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import wraps
from math import isfinite
from typing import Any, Self

from .errors import NonFiniteResult
from .node import FREES_OPERANDS_FIRST, ScalarOperation, free_operands_first, new_leaf
from .scalar import Scalar
from .tensor_shapes import Shape, nested_shape, show_shape, size, unravel
from .tensor_errors import NonFiniteTensorLeaf, NonFiniteTensorResult
from .tensor_operations import TensorOperation

VJP = Callable[[Any], Any]  # the consumer's adjoint -> the operand's contribution
Edge = tuple[Any, VJP]  # (operand node, its VJP)

_new = object.__new__
_VARIABLE = ScalarOperation.VARIABLE
_CONSTANT = ScalarOperation.CONSTANT


class TensorNode:
    """A tensor node's state and its read-only view; `Tensor` adds the operations."""

    __slots__ = ("_shape", "_values", "_operation", "_left", "_dleft", "_right", "_dright",
                 "_gradient", "_walk", "_index", "tag")

    _shape: Shape
    _values: list[float]  # never changed once made: operations share them
    _operation: ScalarOperation | TensorOperation
    _left: Any
    _dleft: VJP
    _right: None
    _dright: tuple[Edge, ...]
    _gradient: list[float] | None  # replaced whole by a commit, never changed in place
    _walk: object
    _index: int
    tag: object

    # numpy's arrays and scalars defer to our reflected operators.
    __array_ufunc__ = None

    def __init__(self) -> None:
        raise TypeError("use Tensor.constant(L), Tensor.variable(L), Tensor.zeros(shape), ...")

    @property
    def shape(self) -> Shape:
        return self._shape

    @property
    def rank(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return len(self._values)

    @property
    def values(self) -> tuple[float, ...]:
        """The elements, row major."""
        return tuple(self._values)

    @property
    def operation(self) -> ScalarOperation | TensorOperation:
        return self._operation

    @property
    def tracks_gradient(self) -> bool:
        return self._gradient is not None

    @property
    def gradient(self) -> tuple[float, ...] | None:
        """The accumulated gradient of committed passes, row major; None when untracked."""
        return None if self._gradient is None else tuple(self._gradient)

    @property
    def label(self) -> str | None:
        return None if self.tag is None else str(self.tag)

    @property
    def edges(self) -> tuple[Edge, ...]:
        """The ordered operand edges, (operand, VJP), repeats included."""
        if self._left is None:
            return ()
        return ((self._left, self._dleft), *self._dright)

    def tolist(self) -> list[Any]:
        """The values as nested lists, one level per dimension."""
        return nest(self._values, self._shape)

    def is_same_node(self, other: object) -> bool:
        return self is other

    def __len__(self) -> int:
        return self._shape[0]

    def __repr__(self) -> str:
        return (f"Tensor(shape={show_shape(self._shape)}, operation={self._operation}, "
                f"values={self.tolist()!r})")

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict) -> Self:
        return self


def nest(values: Sequence[float], shape: Shape) -> list[Any]:
    """Row-major ``values`` as nested lists of ``shape``, innermost rows first (no recursion)."""
    level: list[Any] = list(values)
    for length in reversed(shape[1:]):
        level = [level[start:start + length] for start in range(0, len(level), length)]
    return level


# ---- making nodes ----------------------------------------------------------------------------


class RemakeableVJP:
    """The VJP of a tensor operation's first edge, which also knows how the node was made: the
    operation's function and its arguments, so that the gradient check's replay can make the
    node again from other operands (`remake`)."""

    __slots__ = ("vjp", "function", "arguments", "keywords")

    def __init__(self, vjp: VJP, function: Callable[..., Any], arguments: tuple[Any, ...],
                 keywords: dict[str, Any]):
        self.vjp, self.function, self.arguments, self.keywords = vjp, function, arguments, keywords

    def __call__(self, upstream: Any) -> Any:
        return self.vjp(upstream)

    def remake(self, operands: Sequence[Any]) -> Any:
        """The operation again, its node operands replaced, in edge order, by ``operands``
        (a tensor of scalar nodes: the nodes of its nested list)."""
        replacements = iter(operands)
        arguments = []
        for argument in self.arguments:
            if isinstance(argument, TensorNode) or argument.__class__ is Scalar:
                argument = next(replacements)
            elif isinstance(argument, (list, tuple)) and self.function.__name__ == "from_nested":
                shape, items = nested_shape(argument)
                argument = nest([next(replacements) if item.__class__ is Scalar else item for item in items], shape)
            arguments.append(argument)
        return self.function(*arguments, **self.keywords)


def remakeable(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (a tensor operation), its node's first VJP a `RemakeableVJP`."""
    @wraps(function)
    def operation(*arguments: Any, **keywords: Any) -> Any:
        node = function(*arguments, **keywords)
        if node._left is not None and node._operation.__class__ is TensorOperation:
            node._dleft = RemakeableVJP(node._dleft, function, arguments, keywords)
        return node
    return operation



def checked_finite(values: list[float], shape: Shape, operation: Any, leaf: bool = False) -> list[float]:
    """``values``, or the typed error naming the first element that is not finite."""
    if not all(map(isfinite, values)):
        for at, value in enumerate(values):
            if not isfinite(value):
                error = NonFiniteTensorLeaf if leaf else NonFiniteTensorResult
                raise error(operation, unravel(at, shape), value)
    return values


def tensor_leaf(cls: type[Any], shape: Shape, values: list[float], operation: ScalarOperation) -> Any:
    """A leaf of class ``cls``: a variable (gradient zeros), a constant or a detached node.
    ``values`` must be finite floats, ``size(shape)`` of them; the node keeps the list."""
    node = _new(cls)
    node._shape = shape
    node._values = values
    node._operation = operation
    node._left = None
    node._right = None
    node._dright = ()
    node._gradient = [0.0] * len(values) if operation is _VARIABLE else None
    node._walk = None
    node.tag = None
    return node


def new_tensor(cls: type[Any], shape: Shape, values: list[float], operation: TensorOperation,
               edges: Sequence[Edge]) -> Any:
    """A tensor node of ``operation`` with its (checked) ``values`` and one edge per operand;
    tracked when an operand is."""
    checked_finite(values, shape, operation)
    node = _new(cls)
    node._shape = shape
    node._values = values
    _link(node, operation, edges)
    node._gradient = [0.0] * len(values) if _any_tracked(edges) else None
    return node


def new_scalar(value: float, operation: TensorOperation, edges: Sequence[Edge]) -> Scalar:
    """A scalar node of a tensor operation (a reduction over every element, an element, a
    dot): a `Scalar` like any other, whose edges carry VJPs."""
    if value - value != 0.0:
        raise NonFiniteResult(operation, value)
    node = _new(Scalar)
    node._value = value
    _link(node, operation, edges)
    node._gradient = 0.0 if _any_tracked(edges) else None
    return node


def constant_scalar(value: float) -> Scalar:
    return new_leaf(Scalar, value, _CONSTANT, None)


def _link(node: Any, operation: TensorOperation, edges: Sequence[Edge]) -> None:
    node._operation = operation
    node._left, node._dleft = edges[0]
    node._right = None
    node._dright = tuple(edges[1:])
    node._walk = None
    node.tag = None


def _any_tracked(edges: Sequence[Edge]) -> bool:
    for operand, _ in edges:
        if operand._gradient is not None:
            return True
    return False


# Where CPython cannot measure its C stack (Pyodide), a dying tensor node hands its operands to
# the loop that frees them one at a time, as a scalar node does (see node.py).
if FREES_OPERANDS_FIRST:
    setattr(TensorNode, "__del__", free_operands_first)
