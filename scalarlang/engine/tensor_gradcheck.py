"""The numerical gradient check of a tensor variable, element by element.

Each checked element is moved by +-step in a constant copy of the tensor, the loss is computed
again from that copy, and `scalar_gradient_check` compares the central difference with the
element of the analytic gradient. Every element up to `EVERY_ELEMENT_LIMIT`; beyond,
`DRAWN_ELEMENTS` of them drawn with the caller's generator (the result says which).

The loss is computed again by the caller's function (`tensor_gradient_check`), or by replaying
the loss's graph (`graph_gradient_check`): each node that depends on the tensor made again from
its replayed operands, a tensor operation's by the operation itself (`RemakeableVJP.remake`), a
scalar operation's value by its forward function (`scalar.FORWARD`), as the scalar check's
replay does. No VJP and no local derivative is used on the numerical side.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ScalarAutodiffError
from .gradcheck import GRADCHECK_STEP, GRADCHECK_TOLERANCE, ScalarGradientCheck, scalar_gradient_check
from .node import ScalarOperation
from .scalar import FORWARD, Scalar
from .tensor_shapes import unravel
from .tensor_node import TensorNode, tensor_leaf
from .tensor_operations import TensorOperation

EVERY_ELEMENT_LIMIT = 1000
DRAWN_ELEMENTS = 100


@dataclass(frozen=True, slots=True)
class TensorGradientCheck:
    """The checks of the elements named by ``elements`` (each an index per dimension), in
    row-major order; ``drawn`` when they are a sample, not every element."""

    elements: tuple[tuple[int, ...], ...]
    checks: tuple[ScalarGradientCheck, ...]
    drawn: bool

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def worst(self) -> ScalarGradientCheck:
        """The check with the largest scaled error."""
        return max(self.checks, key=lambda check: check.scaled_error)


def tensor_gradient_check(
    function: Callable[[Any], Any],
    tensor: TensorNode,
    analytic: Sequence[float],
    generator: random.Random | None = None,
    step: float = GRADCHECK_STEP,
    tolerance: float = GRADCHECK_TOLERANCE,
) -> TensorGradientCheck:
    """Check ``analytic`` (row major, the tensor's size) against central differences of
    ``function(T)``, a scalar node (or a float) computed from a tensor ``T`` of ``tensor``'s
    shape. Beyond `EVERY_ELEMENT_LIMIT` elements, ``generator`` draws which to check."""
    values = list(tensor._values)
    count = len(values)
    if len(analytic) != count:
        raise ValueError(f"the analytic gradient has {len(analytic)} elements, the tensor {count}")
    if count <= EVERY_ELEMENT_LIMIT:
        chosen = list(range(count))
    else:
        if generator is None:
            raise ValueError(f"a tensor of more than {EVERY_ELEMENT_LIMIT} elements needs a generator")
        chosen = sorted(generator.sample(range(count), DRAWN_ELEMENTS))
    checks = []
    for at in chosen:
        def moved(value: float, at: int = at) -> float:
            copy = list(values)
            copy[at] = value
            result = function(tensor_leaf(type(tensor), tensor._shape, copy, ScalarOperation.CONSTANT))
            return result if isinstance(result, float) else result.value
        checks.append(scalar_gradient_check(values[at], analytic[at], step, tolerance, moved))
    return TensorGradientCheck(tuple(unravel(at, tensor._shape) for at in chosen), tuple(checks),
                               count > EVERY_ELEMENT_LIMIT)


def graph_gradient_check(
    loss: Scalar,
    tensor: TensorNode,
    generator: random.Random | None = None,
    step: float = GRADCHECK_STEP,
    tolerance: float = GRADCHECK_TOLERANCE,
) -> TensorGradientCheck:
    """Check the adjoint that a fresh reverse pass from ``loss`` gives ``tensor`` (a node of its
    graph) against central differences of the replayed graph. Writes no stored gradient."""
    topology = loss.topology()
    moved = next((at for at, node in enumerate(topology) if node is tensor), None)
    if moved is None:
        raise ValueError("the tensor is not a node of the loss's graph")
    analytic = loss.reverse_pass().adjoint(moved)  # type: ignore[attr-defined]
    if analytic is None:
        raise ValueError("the tensor is not tracked: it has no gradient to check")
    return tensor_gradient_check(lambda copy: _replayed(topology, moved, copy), tensor, analytic,
                                 generator, step, tolerance)


def graph_scalar_check(loss: Scalar, variable: Scalar, analytic: float, step: float = GRADCHECK_STEP,
                       tolerance: float = GRADCHECK_TOLERANCE) -> ScalarGradientCheck:
    """The check of a scalar variable of a graph that holds tensor nodes (``analytic``: its
    pass adjoint) against central differences of the replayed graph."""
    topology = loss.topology()
    moved = next((at for at, node in enumerate(topology) if node is variable), None)
    if moved is None:
        raise ValueError("the variable is not a node of the loss's graph")
    return scalar_gradient_check(variable._value, analytic, step, tolerance,
                                 lambda value: _replayed(topology, moved, Scalar.constant(value)))  # type: ignore[arg-type]


def _replayed(topology: list[Any], moved: int, copy: TensorNode) -> float:
    """The output's value with node ``moved`` replaced by ``copy``; nan when a replayed node
    is not finite (the check reports it)."""
    positions = {id(node): at for at, node in enumerate(topology)}
    made = list(topology)  # a node that does not depend on the moved one is itself
    changed = [False] * len(topology)
    made[moved], changed[moved] = copy, True
    try:
        for at, node in enumerate(topology):
            if at == moved or node._left is None:
                continue
            operands = [edge[0] for edge in (node.edges if isinstance(node, TensorNode) else node.parents)]
            places = [positions[id(operand)] for operand in operands]
            if not any(changed[place] for place in places):
                continue
            changed[at] = True
            replayed = [made[place] for place in places]
            if node._operation.__class__ is TensorOperation:
                made[at] = node._dleft.remake(replayed)
                continue
            forward = FORWARD[node._operation]
            values = [operand._value for operand in replayed]
            if forward.operands is None:
                value = forward.function(values)
            elif forward.takes_exponent:
                value = forward.function(values[0], node.exponent)
            else:
                value = forward.function(*values)
            made[at] = Scalar.constant(value)
    except ScalarAutodiffError:
        return float("nan")
    return made[-1].value
