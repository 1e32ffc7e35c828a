"""The numerical check of the seed's chapter 13: a central difference of a plain function.

It shares nothing with the reverse pass except the function, the input and IEEE arithmetic,
so agreement at a chosen smooth point is evidence, not proof.

Rounding noise: each evaluation of f is off by up to a few epsilons times |f|, so the
difference quotient is off by up to about that over the step. For a large-valued function
with a small derivative (``log(x + 1000000) * 1000``) that noise exceeds the tolerance, and a
correct gradient would fail; the check bounds the noise (``rounding_bound``, scaled like the
error) and passes an error within it, up to ``GRADCHECK_MAX_ROUNDING_BOUND``.
"""

from __future__ import annotations

import math
import sys
from typing import Callable, NamedTuple

from .node import real_number
from .errors import ScalarAutodiffError

# 2^-20 is exact in binary, so the seed's 2*x*x at 2 gives exactly 8 (made without pow).
GRADCHECK_STEP = math.ldexp(1.0, -20)
GRADCHECK_TOLERANCE = 1e-9
# Each evaluation of f is taken to be off by up to this many epsilons times |f|: a few
# correctly rounded operations' worth (log(x + 1e6) * 1000 shows about one).
GRADCHECK_ROUNDING_EPSILONS = 4.0
# Beyond this scaled noise the difference quotient cannot confirm a gradient (take a larger
# step): the bound relaxes the tolerance no further, though it is reported whole.
GRADCHECK_MAX_ROUNDING_BOUND = 1e-4
_EPSILON = sys.float_info.epsilon


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


class ScalarGradientCheck(NamedTuple):  # (as records.py's: made at start-up, cheaply)
    input: float
    analytic: float
    numerical: float
    step: float
    tolerance: float
    scaled_error: float
    passed: bool
    # The rounding noise the central difference may carry, scaled like scaled_error, when it
    # exceeds the tolerance (it then widens the check: passed is scaled_error <=
    # min(rounding_bound, GRADCHECK_MAX_ROUNDING_BOUND)); 0.0 when the tolerance covers it,
    # so a check the noise did not affect reads as before (the seed's 2*x*x at 2 among them).
    rounding_bound: float = 0.0


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
    scale = max(1.0, abs(analytic), abs(numerical))
    scaled_error = abs(analytic - numerical) / scale
    noise = _rounding_noise(above, below, above_at, below_at, step, numerical) / scale
    rounding_bound = noise if noise > tolerance else 0.0
    allowed = max(tolerance, min(rounding_bound, GRADCHECK_MAX_ROUNDING_BOUND))
    return ScalarGradientCheck(
        input, analytic, numerical, step, tolerance, scaled_error, scaled_error <= allowed,
        rounding_bound,
    )


def _rounding_noise(above: float, below: float, above_at: float, below_at: float,
                    step: float, numerical: float) -> float:
    """How far rounding alone may move the difference quotient from the derivative.

    Two terms: the evaluations' own error (up to k eps |f| each, so k eps max|f| / step for
    the quotient), and the points' rounding: when input +- step is not exact, the quotient
    divides by 2 step a difference taken over another spacing (0 when the points are exact).
    """
    evaluations = GRADCHECK_ROUNDING_EPSILONS * _EPSILON * max(abs(above), abs(below)) / step
    spacing = abs((above_at - below_at) - 2.0 * step) / (2.0 * step)
    return evaluations + abs(numerical) * spacing


def _number(value: object) -> float:
    """A float from any real number, as the engine takes them; too large becomes +-inf."""
    return real_number(value, "a gradient check number")


def _evaluate(function: Callable[[float], float], at: float) -> float:
    value = _number(function(at))
    if not math.isfinite(value):
        raise NonFiniteGradcheckValue(at, value)
    return value
