"""The typed errors of tensor nodes: shapes, indices, and non-finite elements.

As errors.py's: a kebab-case ``kind``, the fields as attributes, ``==`` by kind and fields, a
message from the fields. Shapes are tuples, shown as lists (``[32, 30]``); an element is
named by its index in each dimension (``[1, 2]``; ``[]`` for a scalar node).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import ScalarAutodiffError


def show_shape(shape: Sequence[int]) -> str:
    """``[2, 3]``, as `shape(T)` and the errors write a shape."""
    return "[" + ", ".join(map(str, shape)) + "]"


class TensorError(ScalarAutodiffError):
    """Base of the tensor errors; never raised itself."""

    def __str__(self) -> str:
        shown = {name: _show(value) for name, value in self.fields.items()}
        return self.template.format(**shown)


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return show_shape(value)
    return repr(value) if isinstance(value, float) else str(value)


class ShapeMismatch(TensorError):
    """Two shapes an operator cannot combine; ``hint`` says what would (or is empty)."""

    kind = "shape-mismatch"
    field_names = ("operator", "left", "right", "hint")
    template = "{operator} cannot combine shapes {left} and {right}{hint}"


class BadShape(TensorError):
    """A ragged list: the row at index ``row`` has ``found`` items where ``expected`` were."""

    kind = "bad-shape"
    field_names = ("row", "expected", "found")
    template = "ragged list: row {row} has {found} where the rows before it have {expected}"


class InvalidShape(TensorError):
    """A shape that is not one or more whole numbers of at least 1 (``shape``: as given)."""

    kind = "invalid-shape"
    field_names = ("shape",)
    template = "{shape} is not a shape: one or more whole numbers, each at least 1"


class ReshapeMismatch(TensorError):
    """A reshape to a shape of another size; ``requested`` as given (one -1 allowed)."""

    kind = "reshape-mismatch"
    field_names = ("shape", "requested")
    template = "cannot reshape {shape} to {requested}: not the same number of elements"


class AxisOutOfRange(TensorError):
    kind = "axis-out-of-range"
    field_names = ("axis", "rank")
    template = "axis {axis} is out of range for a tensor of rank {rank}"


class IndexOutOfRange(TensorError):
    kind = "index-out-of-range"
    field_names = ("index", "size")
    template = "index {index} is out of range for a dimension of size {size}"


class NonWholeIndex(TensorError):
    kind = "non-whole-index"
    field_names = ("index",)
    template = "index {index} is not a whole number"


class NonFiniteTensorLeaf(TensorError):
    kind = "non-finite-tensor-leaf"
    field_names = ("operation", "element", "value")
    template = "{operation} tensor value {value} at element {element} must be finite"


class NonFiniteTensorResult(TensorError):
    kind = "non-finite-tensor-result"
    field_names = ("operation", "element", "value")
    template = "{operation} produced non-finite value {value} at element {element}"


class NonFiniteTensorDerivative(TensorError):
    kind = "non-finite-tensor-derivative"
    field_names = ("operation", "operand", "element", "local_derivative")
    template = (
        "{operation} produced non-finite local derivative {local_derivative} "
        "for operand {operand} at element {element}"
    )


class NonFiniteTensorAdjoint(TensorError):
    """A pass over a graph with tensor nodes gave node ``node`` (a topology index) a non-finite
    pass adjoint; the pass checks each node's adjoint when it is complete, so this is the first
    node, from the output back, that the non-finite value reached."""

    kind = "non-finite-tensor-adjoint"
    field_names = ("node", "operation", "element", "value")
    template = "topology node {node} ({operation}) got non-finite pass adjoint {value} at element {element}"


class NonFiniteAccumulatedTensorGradient(TensorError):
    kind = "non-finite-accumulated-tensor-gradient"
    field_names = ("node", "element", "stored", "pass_adjoint")
    template = (
        "topology node {node} cannot accumulate stored gradient {stored} "
        "plus pass adjoint {pass_adjoint} at element {element}"
    )


TENSOR_ERRORS: tuple[type[TensorError], ...] = (
    ShapeMismatch,
    BadShape,
    InvalidShape,
    ReshapeMismatch,
    AxisOutOfRange,
    IndexOutOfRange,
    NonWholeIndex,
    NonFiniteTensorLeaf,
    NonFiniteTensorResult,
    NonFiniteTensorDerivative,
    NonFiniteTensorAdjoint,
    NonFiniteAccumulatedTensorGradient,
)
