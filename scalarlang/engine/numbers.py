"""The one number formatter: every number a person reads goes through here.

Twelve decimals, fixed for ordinary magnitudes and in Rust's exponent style (``1.5e307``: no
``+``, no padded exponent) for the rest, as the seed chapter prints them.
"""

from __future__ import annotations

import math

DECIMALS = 12
_FIXED_LOW = 1e-6
_FIXED_HIGH = 1e15


def format_number(value: float) -> str:
    """``8.000000000000`` for 0 and 1e-6 <= |v| < 1e15, else ``2.500000000000e-7``."""
    if not math.isfinite(value):
        return _non_finite(value)
    magnitude = abs(value)
    if magnitude == 0.0 or _FIXED_LOW <= magnitude < _FIXED_HIGH:
        return f"{value:.{DECIMALS}f}"
    return format_exponent(value)


def format_exponent(value: float) -> str:
    """Always exponent style, as scaled errors and tolerances are shown: ``0.000000000000e0``."""
    if not math.isfinite(value):
        return _non_finite(value)
    mantissa, exponent = f"{value:.{DECIMALS}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _non_finite(value: float) -> str:
    if value != value:
        return "nan"
    return "inf" if value > 0 else "-inf"


def format_count(value: float) -> str:
    """A count (``len``, ``node_count``, a loop index) as a whole number: ``100``; a value
    that is not whole (it cannot be, for a count) falls back to `format_number`."""
    if value.is_integer() and abs(value) < _FIXED_HIGH:
        return str(int(value))
    return format_number(value)


def format_parameter(value: float) -> str:
    """An operation's number parameter, as written in a program: ``pow 2``, ``pow 0.5``."""
    if not math.isfinite(value):
        return _non_finite(value)
    if value.is_integer() and abs(value) < _FIXED_HIGH:
        return str(int(value))
    return repr(value)
