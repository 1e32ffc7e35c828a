"""The engine's own sine and cosine of an angle in [0, 2 pi], for the normal draw (normal.py):
the same bits on every platform, within 1 ulp, almost always the nearest double.

Python's `random.gauss` takes cos and sin from the C library, whose last bits differ between
glibc, musl (Pyodide), macOS and Windows. These are computed as elementary.py's functions are,
from IEEE-754 basic operations and exact constants (elementary_tables.py):

- x = k pi/2 + r, |r| <= pi/4 (k <= 4), with pi/2 in three parts (Cody and Waite's split:
  k times each of the first two is exact), r kept as a pair r + r_low: the nearest double to a
  multiple of pi/2 is 2^-54 from it, so the reduction needs pi/2 to about 2^-120.
- r = a + t, a = i/64 the nearest, |t| <= 1/128: sin(a + t) = sin a cos t + cos a sin t and
  cos(a + t) = cos a cos t - sin a sin t, with sin a and cos a from the table as pairs and
  sin t - t, cos t - 1 as their Taylor polynomials (to 2^-70 of the result). The leading
  product cos a * t is exact (a 26-bit half of the table's double times t's leading 27 bits),
  so the result's error is its last rounding plus about 2^-13 ulp at most.
"""

from __future__ import annotations

from .elementary import HEAD_27, heads
from .elementary_tables import HALF_PI_PARTS, SIN_COS_TABLE

_TWO_OVER_PI = float.fromhex("0x1.45f306dc9c883p-1")  # only picks the quadrant: need not be exact
_HALF_PI_1, _HALF_PI_2, _HALF_PI_3 = HALF_PI_PARTS
# sin t - t = t^3 (S3 + S5 t^2 + S7 t^4) and cos t - 1 = t^2 (C2 + C4 t^2 + C6 t^4), |t| <= 1/128,
# within 2^-70 (Taylor's coefficients: the next terms are below that)
_S3, _S5, _S7 = -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0
_C2, _C4, _C6 = -0.5, 1.0 / 24.0, -1.0 / 720.0


def _split_rows(table: tuple[float, ...]) -> tuple[float, ...]:
    """Rows (sin hi, sin lo, cos hi, cos lo) with each hi split in two halves of 26 bits:
    (sin hi, sin lo, cos hi, cos lo, sin head, sin rest, cos head, cos rest)."""
    sin_heads, cos_heads = heads(table[0::4]), heads(table[2::4])
    rows: list[float] = []
    for row, sin_head, cos_head in zip(range(0, len(table), 4), sin_heads, cos_heads):
        sin_hi, sin_lo, cos_hi, cos_lo = table[row:row + 4]
        rows += [sin_hi, sin_lo, cos_hi, cos_lo, sin_head, sin_hi - sin_head, cos_head, cos_hi - cos_head]
    return tuple(rows)


_ROWS = _split_rows(SIN_COS_TABLE)


def sin_cos(x: float) -> tuple[float, float]:
    """(sin x, cos x) for 0 <= x <= 2 pi (gauss's angle, 2 pi times a draw from [0, 1))."""
    k = int(x * _TWO_OVER_PI + 0.5)
    if k == 0:
        r, r_low = x, 0.0
    else:
        whole = float(k)
        start = x - whole * _HALF_PI_1  # exact (Sterbenz: x is within a factor 2 of k P1)
        step = whole * _HALF_PI_2  # exact: 3 bits times 33
        r = start - step  # r + error = start - step exactly (Knuth's two-sum)
        back = r - start
        error = (start - (r - back)) - (step + back)
        low = error - whole * _HALF_PI_3
        high = r + low  # normalised: |low| is far below |r| (|r| >= 2^-54 here)
        r_low = r - high + low
        r = high
    negative = r < 0.0
    if negative:
        r, r_low = -r, -r_low
    i = int(r * 64.0 + 0.5)
    t = r - i * 0.015625  # exact: within a factor 2 of i/64, or r itself
    at = i << 3
    sin_hi, sin_lo, cos_hi, cos_lo, sin_head, sin_rest, cos_head, cos_rest = _ROWS[at:at + 8]
    t_head = t + HEAD_27 - HEAD_27  # t's leading 27 bits
    t_tail = t - t_head
    t2 = t * t
    sin_t = t * t2 * (_S3 + t2 * (_S5 + t2 * _S7))  # sin t - t
    cos_t = t2 * (_C2 + t2 * (_C4 + t2 * _C6))  # cos t - 1
    t_t_low = t * r_low  # (what r's low part adds to cos t - 1 and sin t)
    # sin(a + t) = sin a + cos a t + the rest, the first sum exact as a pair: |cos a t| <= sin a
    product = cos_head * t_head
    first = sin_hi + product
    sine = first + (sin_hi - first + product + sin_lo + cos_head * t_tail + (cos_rest + cos_lo) * t
                    + cos_hi * r_low + sin_hi * cos_t + cos_hi * sin_t - sin_hi * t_t_low)
    # cos(a + t) = cos a - sin a t + the rest, likewise
    product = sin_head * t_head
    first = cos_hi - product
    cosine = first + (cos_hi - first - product + cos_lo - sin_head * t_tail - (sin_rest + sin_lo) * t
                      - sin_hi * r_low + cos_hi * cos_t - sin_hi * sin_t - cos_hi * t_t_low)
    if negative:
        sine = -sine
    quadrant = k & 3
    if quadrant == 0:
        return sine, cosine
    if quadrant == 1:
        return cosine, -sine
    if quadrant == 2:
        return -sine, -cosine
    return -cosine, sine
