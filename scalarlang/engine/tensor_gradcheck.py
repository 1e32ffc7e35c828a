"""The numerical gradient check of a tensor variable, element by element.

Each checked element is moved by +-step in a constant copy of the tensor, the loss is computed
again by the caller's function from that copy, and `scalar_gradient_check` compares the central
difference with the element of the analytic gradient. Every element up to `EVERY_ELEMENT_LIMIT`;
beyond, `DRAWN_ELEMENTS` of them drawn with the caller's generator (the result says which).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .gradcheck import GRADCHECK_STEP, GRADCHECK_TOLERANCE, ScalarGradientCheck, scalar_gradient_check
from .node import ScalarOperation
from .shapes import unravel
from .tensor_node import TensorNode, tensor_leaf

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
