"""The numerical check of the seed's chapter 13: a central difference of a plain function.

It shares nothing with the reverse pass except the function, the input and IEEE arithmetic,
so agreement at a chosen smooth point is evidence, not proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .engine import real_number
from .errors import ScalarAutodiffError

# 2**-20 is exact in binary, so the seed's 2*x*x at 2 gives exactly 8.
GRADCHECK_STEP = 2.0**-20
GRADCHECK_TOLERANCE = 1e-9


class GradientCheckError(ScalarAutodiffError):
    """Base of the gradient check's own rejections."""


class InvalidGradcheckStep(GradientCheckError):
    kind = "invalid-gradcheck-step"
    field_names = ("step",)
    template = "gradient check step {step} must be finite and positive"


class InvalidGradcheckTolerance(GradientCheckError):
    kind = "invalid-gradcheck-tolerance"
    field_names = ("tolerance",)
    template = "gradient check tolerance {tolerance} must be finite and positive"


class NonFiniteGradcheckInput(GradientCheckError):
    kind = "non-finite-gradcheck-input"
    field_names = ("input", "analytic")
    template = "gradient check needs a finite input and analytic gradient, got input {input} and analytic {analytic}"


class NonFiniteGradcheckValue(GradientCheckError):
    kind = "non-finite-gradcheck-value"
    field_names = ("at", "value")
    template = "gradient check function gave non-finite value {value} at {at}"


@dataclass(frozen=True, slots=True)
class ScalarGradientCheck:
    input: float
    analytic: float
    numerical: float
    step: float
    tolerance: float
    scaled_error: float
    passed: bool


def scalar_gradient_check(
    input: float,
    analytic: float,
    step: float = GRADCHECK_STEP,
    tolerance: float = GRADCHECK_TOLERANCE,
    function: Callable[[float], float] | None = None,
) -> ScalarGradientCheck:
    """Compare ``analytic`` with ``(f(input+step) - f(input-step)) / (2*step)``."""
    if function is None:
        raise TypeError("scalar_gradient_check needs the function to differentiate")
    input, analytic = _number(input), _number(analytic)
    step, tolerance = _number(step), _number(tolerance)
    if not (math.isfinite(step) and step > 0.0):
        raise InvalidGradcheckStep(step)
    if not (math.isfinite(tolerance) and tolerance > 0.0):
        raise InvalidGradcheckTolerance(tolerance)
    if not (math.isfinite(input) and math.isfinite(analytic)):
        raise NonFiniteGradcheckInput(input, analytic)
    above_at, below_at = input + step, input - step
    for at in (above_at, below_at):
        if not math.isfinite(at):  # a huge step can carry a finite input past the float range
            raise NonFiniteGradcheckInput(at, analytic)
    above = _evaluate(function, above_at)
    below = _evaluate(function, below_at)
    numerical = (above - below) / (2.0 * step)
    if not math.isfinite(numerical):
        raise NonFiniteGradcheckValue(input, numerical)
    scaled_error = abs(analytic - numerical) / max(1.0, abs(analytic), abs(numerical))
    return ScalarGradientCheck(
        input, analytic, numerical, step, tolerance, scaled_error, scaled_error <= tolerance
    )


def _number(value: object) -> float:
    """A float from any real number, as the engine takes them; too large becomes +-inf."""
    return real_number(value, "a gradient check number")


def _evaluate(function: Callable[[float], float], at: float) -> float:
    value = _number(function(at))
    if not math.isfinite(value):
        raise NonFiniteGradcheckValue(at, value)
    return value
