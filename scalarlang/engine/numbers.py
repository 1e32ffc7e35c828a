"""The one number formatter: every number a person reads goes through here.

Two styles. The default reads as a person writes: whole numbers as integers (``12345``, ``8``,
``-3``), others with at most 12 significant digits and no trailing zeros (``0.5``,
``0.909364349205``, ``1.68790441705e-07``). With a number of decimals set (``--digits N``,
``:digits N``, ``digits=N``), N decimals fixed for ordinary magnitudes and Rust's exponent
style (``1.5e307``: no ``+``, no padded exponent) for the rest, as the seed chapter prints them
with N = 12.

The style is a context variable, so a front end sets it once around a run and its rendering
(`digits`), and the interpreter, the tables and the pictures all read the same setting.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

DECIMALS = 12  # the chapter's
SIGNIFICANT = 12  # the short style's
MAX_DIGITS = 17  # enough for every double
_FIXED_LOW = 1e-6
_FIXED_HIGH = 1e15

# None: the short style; a count: that many decimals, fixed.
_decimals: ContextVar[int | None] = ContextVar("scalarlang_decimals", default=None)


@contextmanager
def digits(decimals: int | None) -> Iterator[None]:
    """Numbers formatted inside the block print with ``decimals`` decimals (None: short)."""
    if decimals is not None and not 0 <= decimals <= MAX_DIGITS:
        raise ValueError(f"digits must be between 0 and {MAX_DIGITS}, not {decimals}")
    token = _decimals.set(decimals)
    try:
        yield
    finally:
        _decimals.reset(token)


def current_digits() -> int | None:
    return _decimals.get()


def format_number(value: float) -> str:
    """``8``, ``0.5``, ``0.909364349205``, ``1.68790441705e-07``; with N decimals set,
    ``8.000000000000`` for 0 and 1e-6 <= |v| < 1e15, else ``2.500000000000e-7``."""
    if not math.isfinite(value):
        return _non_finite(value)
    decimals = _decimals.get()
    magnitude = abs(value)
    if decimals is None:
        if value.is_integer() and magnitude < _FIXED_HIGH:
            return str(int(value)) if value or math.copysign(1.0, value) > 0 else "-0"
        return f"{value:.{SIGNIFICANT}g}"
    if magnitude == 0.0 or _FIXED_LOW <= magnitude < _FIXED_HIGH:
        return f"{value:.{decimals}f}"
    return _exponent(value, decimals)


def format_exponent(value: float) -> str:
    """A scaled error or a tolerance: short as any number (``1e-09``), or with N decimals set
    always in exponent style, as the seed prints them (``0.000000000000e0``)."""
    if not math.isfinite(value):
        return _non_finite(value)
    decimals = _decimals.get()
    if decimals is None:
        return format_number(value)
    return _exponent(value, decimals)


def _exponent(value: float, decimals: int) -> str:
    mantissa, exponent = f"{value:.{decimals}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _non_finite(value: float) -> str:
    if value != value:
        return "nan"
    return "inf" if value > 0 else "-inf"


def format_count(value: float) -> str:
    """A count (``len``, ``node_count``, a loop index) as a whole number: ``100``, whatever the
    style and however large (``1000000000000000``, not ``1e+15``); a value that is not whole
    (it cannot be, for a count) falls back to `format_number`."""
    if value.is_integer():
        return str(int(value))
    return format_number(value)


def format_whole(value: float) -> str:
    """A whole number a message names (an index, a dividend, a count of iterations): ``7``
    whatever the style, but the short style from 1e15 on, so a message stays short
    (``index 1e+300 is out of range``); not whole: `format_number`."""
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


def decimal_point(text: str) -> int:
    """Where a formatted number's decimal point is (or would be): the column tables align."""
    for index, character in enumerate(text):
        if character in ".e":
            return index
    return len(text)
