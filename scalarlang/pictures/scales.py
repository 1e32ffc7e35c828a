"""The axes of a chart: a range of values, linear or logarithmic, and its round ticks.

Ticks are whole multiples of a step of 1, 2 or 5 × 10^n, computed and labelled exactly from
the step with `decimal` (ticks 0.1 apart read ``0.3``, never ``0.30000000000000004``): a
label shows as many decimals as the step has, in exponent form (``1e-06``, ``2e+06``) when
that makes an axis's labels shorter. A log scale's ticks are powers of ten.

No function of the C library: a tick, its label and a point's place are the same bits on every
platform. Decades are found with exact powers of ten (`decimal`), a log scale's fractions with
the engine's own log and exp (a ratio of natural logs is the ratio of base-10 logs).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from decimal import Decimal

from ..engine.elementary import exp, log

_LOG10_2 = 0.30102999566398120  # (a first guess of a decade from a double's binary exponent)
# Below this (relative to the values) a range is one value: its width is float noise.
_SAME_VALUE = 1e-12
_TINY = 1e-290
# The powers of ten a double holds (1e-323 is the last above 0); a log scale's ends stay
# inside, or at the largest and smallest doubles for data beyond them.
_LOWEST_DECADE, _HIGHEST_DECADE = -323, 308
_LARGEST = sys.float_info.max
_SMALLEST = math.ulp(0.0)


@dataclass(frozen=True)
class Tick:
    value: float
    label: str


@dataclass(frozen=True)
class Scale:
    """Values from ``low`` to ``high`` (low < high; both > 0 when ``log``) with round ticks
    inside, in increasing order."""

    low: float
    high: float
    log: bool
    ticks: tuple[Tick, ...]

    def fraction(self, value: float) -> float:
        """Where ``value`` lies: 0 at ``low``, 1 at ``high`` (outside for values outside)."""
        if self.log:
            low, high = log(self.low), log(self.high)
            return (log(value) - low) / (high - low) if value > 0 else -math.inf
        width, offset = self.high - self.low, value - self.low
        if math.isfinite(width) and math.isfinite(offset):
            return offset / width
        # (a range wider than the largest double: the same fraction of halves)
        return (value / 2 - self.low / 2) / (self.high / 2 - self.low / 2)

    def value_at(self, fraction: float) -> float:
        """The value at ``fraction`` of the way from ``low`` to ``high``."""
        if self.log:
            low, high = log(self.low), log(self.high)
            return _finite(exp(low + fraction * (high - low)))
        width = self.high - self.low
        if math.isfinite(width):
            return self.low + fraction * width
        half = fraction * (self.high / 2 - self.low / 2)
        return _finite(self.low + half + half)


def widen(low: float, high: float) -> tuple[float, float]:
    """A range of one value (or of float noise around one) made 10% of it wide on each side
    (1 when the value is 0), so a constant series still has an axis; never past the largest
    double."""
    if high - low > max(abs(low), abs(high)) * _SAME_VALUE and high - low > _TINY:
        return low, high
    centre = (low + high) / 2
    if not math.isfinite(centre):
        centre = low / 2 + high / 2
    pad = abs(centre) * 0.1 if abs(centre) > _TINY else 1.0
    return _finite(centre - pad), _finite(centre + pad)


def widen_by(low: float, high: float, share: float) -> tuple[float, float]:
    """[low, high] with ``share`` of its width added on each side, never past the largest double."""
    margin = (high - low) * share
    if not math.isfinite(margin):
        margin = high * share - low * share
    return _finite(low - margin), _finite(high + margin)


def linear_scale(
    low: float, high: float, *, count: int = 5, extend: bool = False, whole: bool = False
) -> Scale:
    """A linear scale over [low, high] (widened when they are one value) with about ``count``
    ticks; ``extend`` moves the ends out to the nearest ticks (an end that would pass the
    largest double stays); ``whole`` (whole-number data: steps, counts) ticks whole numbers
    only."""
    low, high = widen(low, high)
    raw = (high - low) / count
    if not math.isfinite(raw):
        raw = high / count - low / count
    mantissa, exponent = nice_step(raw)
    if whole and exponent < 0:
        mantissa, exponent = 1, 0
    step = _exact(mantissa, exponent)
    if extend:
        first, last = math.floor(low / step), math.ceil(high / step)
        # (a quotient that underflows or rounds inward must not cut a value off)
        first -= _exact(first * mantissa, exponent) > low
        last += _exact(last * mantissa, exponent) < high
        low_end, high_end = _exact(first * mantissa, exponent), _exact(last * mantissa, exponent)
        low = low_end if math.isfinite(low_end) else low
        high = high_end if math.isfinite(high_end) else high
    else:
        first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    values = [(k * mantissa, _exact(k * mantissa, exponent)) for k in range(first, last + 1)]
    inside = [(number, value) for number, value in values if low <= value <= high]
    # The form whose longest label is shorter: 0.25 and 250, but 2.5e-06 and 2.5e+07.
    forms = [[format_tick(number, exponent, exponent_form=form) for number, _ in inside] for form in (False, True)]
    labels = min(forms, key=lambda labels: max(map(len, labels)))
    ticks = tuple(Tick(value, label) for (_, value), label in zip(inside, labels))
    return Scale(low, high, False, ticks)


def log_scale(low: float, high: float, *, count: int = 5) -> Scale:
    """A log scale from the power of ten at or below ``low`` to the one at or above ``high``
    (both > 0), ticked at powers of ten: every one, or every 2nd, 5th, 10th, ... when there
    are more than ``count``, the ends ticked too; with 2 and 5 between them when the range is
    two decades or less."""
    first = _decade_at_or_below(low)
    last = _decade_at_or_below(high)
    if _exact(1, last) < high:
        last += 1
    last = max(last, first + 1)
    every = 1
    while (last - first) / every > count:
        every = _next_round(every)
    first = max(_LOWEST_DECADE, math.floor(first / every) * every)
    last = min(_HIGHEST_DECADE, math.ceil(last / every) * every)
    if last <= first:  # (one decade clamped at either end: the one next to it too)
        first, last = (last - 1, last) if last == _HIGHEST_DECADE else (first, first + 1)
    ticks = []
    for decade in range(first, last + 1):
        if decade % every == 0 or decade in (first, last):
            ticks.append(Tick(_exact(1, decade), format_tick(1, decade)))
        if last - first <= 2 and decade < last:
            ticks.extend(Tick(_exact(m, decade), format_tick(m, decade)) for m in (2, 5))
    # Data beyond the powers of ten a double holds (below 1e-323, above 1e308) still fits.
    bottom = _exact(1, first) if _exact(1, first) <= low else _SMALLEST
    top = _exact(1, last) if _exact(1, last) >= high else _LARGEST
    return Scale(bottom, top, True, tuple(tick for tick in ticks if bottom <= tick.value <= top))


def nice_step(raw: float) -> tuple[int, int]:
    """The round step (1, 2 or 5) × 10^exponent nearest ``raw`` (> 0), as (mantissa, exponent)."""
    exponent = _decade_at_or_below(raw)
    fraction = Decimal(raw).scaleb(-exponent)  # (exact: raw's binary value, in [1, 10))
    if fraction < Decimal("1.5"):
        return 1, exponent
    if fraction < Decimal("3.5"):
        return 2, exponent
    if fraction < Decimal("7.5"):
        return 5, exponent
    return 1, exponent + 1


def format_tick(number: int, exponent: int, *, exponent_form: bool | None = None) -> str:
    """``number`` × 10^``exponent`` written exactly: ``0``, ``0.5``, ``1``, ``250``, ``1e-06``,
    ``2.5e+07``. ``exponent_form`` says which form; None picks by the value (1e-4 ≤ |v| < 1e6
    is written out)."""
    if number == 0:
        return "0"
    value = Decimal(number).scaleb(exponent)
    if exponent_form is None:
        exponent_form = not Decimal("1e-4") <= abs(value) < Decimal("1e6")
    if not exponent_form:
        text = format(value, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    sign, digits, power = value.normalize().as_tuple()
    assert isinstance(power, int)
    shown = "".join(map(str, digits))
    mantissa = shown[0] + ("." + shown[1:] if len(shown) > 1 else "")
    magnitude = power + len(digits) - 1
    return f"{'-' if sign else ''}{mantissa}e{'-' if magnitude < 0 else '+'}{abs(magnitude):02d}"


def _exact(number: int, exponent: int) -> float:
    """The double nearest ``number`` × 10^``exponent``: 3 × 10^-1 is 0.3, as written."""
    return float(Decimal(number).scaleb(exponent))


def _finite(value: float) -> float:
    """``value`` held to the doubles: ±inf becomes the largest double of its sign."""
    return max(-_LARGEST, min(_LARGEST, value))


def _decade_at_or_below(value: float) -> int:
    """The largest n with 10^n (as a double) at or below ``value`` (finite, > 0)."""
    _, binary = math.frexp(value)  # value in [2^(binary-1), 2^binary)
    decade = math.floor((binary - 1) * _LOG10_2)
    # (the guess is off by at most one either way; the exact powers settle it)
    while _exact(1, decade + 1) <= value:
        decade += 1
    while _exact(1, decade) > value:
        decade -= 1
    return decade


def _next_round(every: int) -> int:
    """1, 2, 5, 10, 20, 50, ...: the next round count of decades between ticks."""
    exponent = len(str(every)) - 1
    leading = every // 10**exponent
    following = {1: 2, 2: 5, 5: 10}[leading]
    return following * 10**exponent
