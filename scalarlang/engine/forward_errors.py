"""The typed errors of forward mode (forward.py): a graph it cannot walk, an input it cannot
seed, a direction that does not fit, a tangent that overflowed.

As errors.py's: a kebab-case ``kind``, the fields as attributes, ``==`` by kind and fields,
a message from the fields. Nodes are named by their index in the pass's topological order.
"""

from __future__ import annotations

from .errors import ScalarAutodiffError


class ForwardModeError(ScalarAutodiffError):
    """Base of forward mode's errors; never raised itself."""


class TensorInForwardMode(ForwardModeError):
    """A tensor node, or a scalar node of a tensor operation, in the graph of an output."""

    kind = "tensor-in-forward-mode"
    field_names = ("node", "operation")
    node: int
    operation: str
    template = (
        "forward mode is for scalar graphs: topology node {node} ({operation}) is a tensor "
        "or takes one"
    )


class ForwardInputNotVariable(ForwardModeError):
    """An input (counted from 0) that is not a scalar variable: only variables get a tangent
    from the direction; ``operation`` says what it is (``constant``, ``add``, ``tensor
    variable``)."""

    kind = "forward-input-not-variable"
    field_names = ("input", "operation")
    input: int
    operation: str
    template = "input {input} is {operation}, not a scalar variable: forward mode seeds variables"


class DirectionLengthMismatch(ForwardModeError):
    kind = "direction-length-mismatch"
    field_names = ("inputs", "direction")
    inputs: int
    direction: int
    template = "a direction of {direction} numbers for {inputs} inputs: give one number per input"


class NonFiniteDirection(ForwardModeError):
    kind = "non-finite-direction"
    field_names = ("input", "value")
    input: int
    value: float
    template = "direction {value} for input {input} must be finite"


class NonFiniteTangent(ForwardModeError):
    """A tangent that overflowed (each local derivative and each seed is finite, but a product
    or a sum of them need not be)."""

    kind = "non-finite-tangent"
    field_names = ("node", "operation", "tangent")
    node: int
    operation: str
    tangent: float
    template = "topology node {node} ({operation}) got non-finite tangent {tangent}"


class JacobianTooLarge(ForwardModeError):
    """A Jacobian whose passes would visit more nodes than the caller's ``max_visits``: n
    forward passes over the union of the outputs' graphs (``nodes`` of it counted so far) and
    a reverse pass per output over its own graph. ``visits`` is what was counted when the limit
    was passed (the outputs' graphs are walked one by one, so it is a lower bound, exact when
    ``complete``: the last output's was); no pass has run."""

    kind = "jacobian-too-large"
    field_names = ("visits", "nodes", "complete", "limit")
    visits: int
    nodes: int
    complete: bool  # every output's graph was walked: ``visits`` and ``nodes`` are exact
    limit: int
    template = "the Jacobian needs {visits} node visits or more (a graph of {nodes} nodes or more); the limit is {limit}"


FORWARD_ERRORS: tuple[type[ForwardModeError], ...] = (
    TensorInForwardMode,
    ForwardInputNotVariable,
    DirectionLengthMismatch,
    NonFiniteDirection,
    NonFiniteTangent,
    JacobianTooLarge,
)
