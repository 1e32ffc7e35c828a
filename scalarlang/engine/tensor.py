"""`Tensor`: a tensor node with its operations as methods and operators.

Build leaves with `Tensor.constant(L)`, `Tensor.variable(L)` (nested lists of numbers; a
constant of a list holding `Scalar` nodes is a stacking node with an edge to each),
`Tensor.zeros`, `Tensor.ones`, `Tensor.randn`, `Tensor.rand`. Operations take tensors, scalar
nodes and numbers (broadcast by numpy's rules). A reduction over every element, a dot of two
rank-1 tensors and an element are `Scalar` nodes: `backward()` starts from one of them, as in
the scalar engine. The operations live by job in tensor_elementwise.py, tensor_linear.py and
tensor_reductions.py, each with its VJPs; the pass over a graph holding tensor nodes is
tensor_passes.py's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any, cast

from . import tensor_elementwise as elementwise
from . import tensor_linear as linear
from . import tensor_reductions as reductions
from .node import ScalarOperation
from .passes import zero_grad
from .scalar import Scalar
from .tensor_node import TensorNode


class Tensor(TensorNode):
    """One tensor node of a graph; see the module's docstring."""

    __slots__ = ()

    # ---- leaves --------------------------------------------------------------------------------

    @classmethod
    def constant(cls, data: Any) -> Tensor:
        """A constant of a rectangular nested list; holding Scalar nodes, a stacking node."""
        return linear.from_nested(cls, data, variable=False)

    @classmethod
    def variable(cls, data: Any) -> Tensor:
        """A tracked leaf (its gradient starts at zeros) of a nested list of numbers."""
        return linear.from_nested(cls, data, variable=True)

    @classmethod
    def zeros(cls, shape: Sequence[int], variable: bool = False) -> Tensor:
        return linear.filled(cls, shape, 0.0, variable)

    @classmethod
    def ones(cls, shape: Sequence[int], variable: bool = False) -> Tensor:
        return linear.filled(cls, shape, 1.0, variable)

    @classmethod
    def randn(cls, shape: Sequence[int], generator: random.Random, variable: bool = False) -> Tensor:
        """gauss(0, 1) for each element, in row-major order: ``generator.gauss(0, 1)``'s draws,
        computed by the engine (normal.py), the same bits on every platform."""
        return linear.drawn(cls, shape, generator, True, variable)

    @classmethod
    def rand(cls, shape: Sequence[int], generator: random.Random, variable: bool = False) -> Tensor:
        """``generator.uniform(0, 1)`` for each element, in row-major order."""
        return linear.drawn(cls, shape, generator, False, variable)

    @classmethod
    def one_hot(cls, indices: Any, classes: int) -> Tensor:
        return linear.one_hot(cls, indices, classes)

    def detach(self) -> Tensor:
        """A constant leaf with these values and no edge back."""
        return linear.detached(self)

    # ---- element-wise --------------------------------------------------------------------------

    def __add__(self, other: object) -> Tensor:
        return elementwise.add_(self, other)

    def __radd__(self, other: object) -> Tensor:
        return elementwise.add_(other, self)

    def __sub__(self, other: object) -> Tensor:
        return elementwise.sub_(self, other)

    def __rsub__(self, other: object) -> Tensor:
        return elementwise.sub_(other, self)

    def __mul__(self, other: object) -> Tensor:
        return elementwise.mul_(self, other)

    def __rmul__(self, other: object) -> Tensor:
        return elementwise.mul_(other, self)

    def __truediv__(self, other: object) -> Tensor:
        return elementwise.div_(self, other)

    def __rtruediv__(self, other: object) -> Tensor:
        return elementwise.div_(other, self)

    def __pow__(self, exponent: object) -> Tensor:
        return elementwise.pow_(self, exponent)

    def __neg__(self) -> Tensor:
        return elementwise.neg_(self)

    exp = elementwise.exp
    log = elementwise.log
    tanh = elementwise.tanh
    sqrt = elementwise.sqrt
    relu = elementwise.relu
    sigmoid = elementwise.sigmoid
    abs = elementwise.abs_
    __abs__ = elementwise.abs_

    def maximum(self, other: object) -> Tensor:
        """The larger of each pair of elements (broadcast); a tie shares the adjoint."""
        return elementwise.maximum(self, other)

    def minimum(self, other: object) -> Tensor:
        return elementwise.minimum(self, other)

    # Comparisons give constant 0/1 tensors. == and != stay identity (a node is its identity,
    # and `in` and dictionaries rely on it): use eq and ne.
    def __lt__(self, other: object) -> Tensor:
        return elementwise.compare("<", self, other)

    def __le__(self, other: object) -> Tensor:
        return elementwise.compare("<=", self, other)

    def __gt__(self, other: object) -> Tensor:
        return elementwise.compare(">", self, other)

    def __ge__(self, other: object) -> Tensor:
        return elementwise.compare(">=", self, other)

    def eq(self, other: object) -> Tensor:
        return elementwise.compare("==", self, other)

    def ne(self, other: object) -> Tensor:
        return elementwise.compare("!=", self, other)

    # ---- products, shapes, indexing ------------------------------------------------------------

    def __matmul__(self, other: Tensor) -> Tensor | Scalar:
        return linear.matmul(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor | Scalar:
        return linear.matmul(other, self)

    def reshape(self, *shape: int) -> Tensor:
        return linear.reshape(self, shape)

    def transpose(self, first: int | None = None, second: int | None = None) -> Tensor:
        return linear.transpose(self, first, second)

    def __getitem__(self, key: Any) -> Tensor | Scalar:
        """T[i] (a sub-tensor, or an element: a scalar node), T[i, j] (T[i][j]), T[I] for a list
        or tensor I of whole numbers (the rows it names, stacked)."""
        if isinstance(key, tuple):
            result: Any = self
            for item in key:
                result = linear.index(result, item)
            return result
        if isinstance(key, (list, TensorNode)):
            return linear.gather(self, key)
        return linear.index(self, key)

    def __iter__(self) -> Iterator[Tensor | Scalar]:
        """The sub-tensors along the first axis (the elements of a rank-1 tensor), as T[i]."""
        return (linear.index(self, at) for at in range(self._shape[0]))

    # ---- reductions ----------------------------------------------------------------------------

    def sum(self, axis: int | None = None) -> Tensor | Scalar:
        return reductions.sum_(self, axis)

    def mean(self, axis: int | None = None) -> Tensor | Scalar:
        return reductions.mean(self, axis)

    def max(self, axis: int | None = None) -> Tensor | Scalar:
        return reductions.max_(self, axis)

    def min(self, axis: int | None = None) -> Tensor | Scalar:
        return reductions.min_(self, axis)

    def logsumexp(self, axis: int | None = None) -> Tensor | Scalar:
        return reductions.logsumexp(self, axis)

    def softmax(self, axis: int = -1) -> Tensor:
        return reductions.softmax(self, axis)

    def argmax(self, axis: int = -1) -> Tensor | Scalar:
        return reductions.argmax(self, axis)

    def argmin(self, axis: int = -1) -> Tensor | Scalar:
        return reductions.argmax(self, axis, largest=False)

    def cross_entropy(self, targets: Any) -> Tensor:
        """This [B, V] tensor of logits against B whole-number targets: the B row losses."""
        return reductions.cross_entropy(self, targets)

    # ---- stored gradients ----------------------------------------------------------------------

    def gradient_tensor(self) -> Tensor | None:
        """The stored gradient as a constant tensor of this shape; None when untracked."""
        if self._gradient is None:
            return None
        return linear.with_values(self, list(self._gradient), ScalarOperation.CONSTANT)

    def descended(self, step: float) -> Tensor:
        """A new variable of each element's ``value - step * gradient`` (what `descend` makes of
        a scalar variable, element by element); `NonFiniteTensorLeaf` names an element that
        overflows."""
        if self._gradient is None:
            raise TypeError("only a tracked tensor has a gradient to descend along")
        values = [value - step * gradient for value, gradient in zip(self._values, self._gradient)]
        return linear.with_values(self, values, ScalarOperation.VARIABLE)

    def zero_grad(self) -> None:
        """Every tracked node reachable from this one (tensor or scalar) to zero, at once."""
        zero_grad(cast(Any, self))  # (passes.py types its nodes as scalar nodes)

    @property
    def is_variable(self) -> bool:
        return self._operation is ScalarOperation.VARIABLE
