"""IEEE results of pow and division where Python raises or goes complex.

Pow and division are the operations whose float arithmetic Python refuses for some finite
operands (ZeroDivisionError, OverflowError, a complex power); here they give the IEEE value
(inf, -inf, nan) for the engine's typed errors to carry. `power` and `divide` are the forward
functions of pow and div: `Scalar` computes its values with them, and the gradient check's
replay too, so a replayed node gives the engine's bits.
"""

from __future__ import annotations

import math

from . import elementary
from .errors import NonFiniteDerivative, NonFiniteResult
from .node import ScalarOperation

_POW = ScalarOperation.POW
_INF = math.inf
_NAN = math.nan


# IEEE pow(base, exponent) of two finite floats, never a Python exception or a complex: the
# engine's own (elementary.py), the same bits on every platform, where the C library's `**`
# differs in the last ones. Shared with the gradient check's replay, so that a replayed pow
# gives the same bits; a square is base * base, as in Scalar.__pow__.
power = elementary.power


def power_and_derivative(base: float, exponent: float) -> tuple[float, float]:
    """The value and local derivative of pow, or the typed error; exponent 0 gives 0 exactly."""
    value = power(base, exponent)
    if value - value != 0.0:
        raise NonFiniteResult(_POW, value)
    if exponent == 0.0:
        return value, 0.0
    derivative = exponent * power(base, exponent - 1.0)
    if derivative - derivative != 0.0 and base != 0.0:
        # base^(c-1) overflowed, though c * base^c / base need not (a tiny base and exponent)
        derivative = exponent * value / base
    if derivative - derivative != 0.0:
        raise NonFiniteDerivative(_POW, 0, derivative)
    return value, derivative


def divide(numerator: float, denominator: float) -> float:
    """IEEE numerator / denominator, never a Python exception."""
    try:
        return numerator / denominator
    except ZeroDivisionError:
        return divide_by_zero(numerator, denominator)


def divide_by_zero(numerator: float, denominator: float) -> float:
    """The IEEE quotient Python refuses to compute: +-inf, or nan for 0/0 (and nan/0)."""
    if numerator == 0.0 or numerator != numerator:
        return _NAN
    return math.copysign(_INF, numerator) * math.copysign(1.0, denominator)
