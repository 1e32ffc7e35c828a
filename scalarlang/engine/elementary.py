"""The engine's own exp, log, tanh and pow: the same bits on every platform.

The C library's exp, log, tanh and pow differ between platforms in the last bits (glibc,
musl in Pyodide, macOS, Windows; glibc's tanh is not correctly rounded), so a gradient would
too. These are computed from IEEE-754 basic operations only: + - * /, which IEEE rounds
correctly everywhere, and the exact frexp and ldexp (a power of two taken out or put back).
Each is a fixed argument reduction through a table of exact constants (elementary_tables.py)
and a polynomial, and stays within 1 ulp of the true value, almost always the correctly rounded
double. A function here never raises: a failure is inf or nan, as IEEE's, for the operations
(functions.py, arithmetic.py) to turn into their typed errors.

Extra precision where a result needs it is kept as a pair hi + lo ("double-double"): a
product's exact error is Dekker's, each factor split in two halves of 26 bits (`_SPLITTER`),
written out inline, as there is no fused multiply-add before Python 3.13.
"""

from __future__ import annotations

import math

from .elementary_tables import EXP_TABLE, LOG_TABLE

_INF = math.inf
_NAN = math.nan
_frexp = math.frexp  # exact: the significand and the exponent of a double
_ldexp = math.ldexp  # exact for a normal result: the exponent put back

# ---- exp -------------------------------------------------------------------------------------
# x = k ln2/64 + r, |r| <= ln2/128; e^x = 2^(k//64) * 2^((k%64)/64) * e^r.

_INV_LN2_64 = float.fromhex("0x1.71547652b82fep+6")  # 64 / ln 2
_LN2_64_HI = float.fromhex("0x1.62e42fef80000p-7")  # ln2/64 in 31 bits: k * this is exact
_LN2_64_LO = float.fromhex("0x1.1cf79abc9e3b4p-42")  # the rest of ln2/64
_ROUNDING = float.fromhex("0x1.8p52")  # (z + this) - this is z rounded to a whole number
# e^r - 1 - r = r^2 (E2 + E3 r + ... + E6 r^4) for |r| <= ln2/128, within 2^-69
_E2 = float.fromhex("0x1.0000000000000p-1")
_E3 = float.fromhex("0x1.5555555554dcdp-3")
_E4 = float.fromhex("0x1.5555555555191p-5")
_E5 = float.fromhex("0x1.111120b76a0aap-7")
_E6 = float.fromhex("0x1.6c16d1126fa59p-10")
_EXP_LARGEST = float.fromhex("0x1.62e42fefa39efp+9")  # 709.78...: e^x is finite up to here
_EXP_ZERO = float.fromhex("-0x1.74910d52d3052p+9")  # -745.13...: e^x rounds to 0 at and below
_TINY = float.fromhex("0x1p-1022")  # the smallest normal double
# EXP_TABLE's rows (2^(j/64) = high * (1 + tail)) as two tuples: one index each, no arithmetic
_EXP_HIGH = EXP_TABLE[0::2]
_EXP_TAIL = EXP_TABLE[1::2]
# 2^m for m in -1024 .. 1023 at index m, the negative m through Python's indexing from the
# end: one lookup and an exact product where ldexp would be a call (exp's normal range needs
# m from -1011 to 1022, where 2^(j/64) * 2^m is a normal double)
_SCALES = tuple(_ldexp(1.0, m) for m in range(1024)) + tuple(_ldexp(1.0, m) for m in range(-1024, 0))


def exp(x: float) -> float:
    """e^x; inf past the largest double, 0 where it rounds to 0."""
    if -700.0 < x < 709.0:  # a normal result, scale * small normal or too small to matter
        whole = x * _INV_LN2_64 + _ROUNDING - _ROUNDING
        r = x - whole * _LN2_64_HI - whole * _LN2_64_LO
        k = int(whole)
        at = k & 63
        r2 = r * r
        scale = _EXP_HIGH[at] * _SCALES[k >> 6]  # exact: 2^(j/64) * 2^m, a normal double
        return scale + scale * (_EXP_TAIL[at] + r + r2 * (_E2 + r * _E3 + r2 * (_E4 + r * _E5 + r2 * _E6)))
    return _exp_edges(x, 0.0)


def _exp_with_low(x: float, extra: float) -> float:
    """e^(x + extra) for pow's pair x + extra (|extra| <= ulp(x)): exp's steps with extra
    added to the reduced argument."""
    if -700.0 < x < 709.0:
        whole = x * _INV_LN2_64 + _ROUNDING - _ROUNDING
        r = x - whole * _LN2_64_HI - whole * _LN2_64_LO + extra
        k = int(whole)
        at = k & 63
        r2 = r * r
        scale = _EXP_HIGH[at] * _SCALES[k >> 6]
        return scale + scale * (_EXP_TAIL[at] + r + r2 * (_E2 + r * _E3 + r2 * (_E4 + r * _E5 + r2 * _E6)))
    return _exp_edges(x, extra)


def _exp_edges(x: float, extra: float) -> float:
    """e^x near overflow and in the subnormal range; nan, inf, 0 beyond."""
    if x != x:
        return x
    if x > _EXP_LARGEST:
        return _INF
    if x <= _EXP_ZERO:
        return 0.0
    whole = x * _INV_LN2_64 + _ROUNDING - _ROUNDING
    r = x - whole * _LN2_64_HI - whole * _LN2_64_LO + extra
    k = int(whole)
    at = (k & 63) << 1
    r2 = r * r
    small = EXP_TABLE[at + 1] + r + r2 * (_E2 + r * _E3 + r2 * (_E4 + r * _E5 + r2 * _E6))
    exponent = k >> 6
    if x > 0.0:  # 2^1024 is past the doubles: scale by half, then double exactly
        scale = _ldexp(EXP_TABLE[at], exponent - 1)
        return 2.0 * (scale + scale * small)
    # a subnormal result: computed at 2^1022 times its size, then scaled down by one rounding
    scale = _ldexp(EXP_TABLE[at], exponent + 1022)
    y = scale + scale * small
    if y < 1.0:
        # round y to the subnormal's precision in one step, not two (as ARM's exp does)
        low = scale - y + scale * small
        high = 1.0 + y
        low = 1.0 - high + y + low
        y = (high + low) - 1.0
    return y * _TINY


# ---- log -------------------------------------------------------------------------------------
# x = 2^k z, z in [0.6875, 1.375); log x = k ln2 - log(invc) + log(1 + r), r = z invc - 1
# computed exactly as a pair, |r| <= 2^-7.

_LN2_HI = float.fromhex("0x1.62e42ff000000p-1")  # ln 2 in 29 bits: k * this is exact
_LN2_LO = float.fromhex("-0x1.718432a1b0e26p-35")
_SPLIT_AT = 1536.0  # (z + this) - this keeps z's bits down to 2^-42
# log(1 + r) - r + r^2/2 = r^3 (L3 + L4 r + ... + L9 r^6) for |r| <= 2^-7, within 2^-69 |r|
_L3 = float.fromhex("0x1.5555555555555p-2")
_L4 = float.fromhex("-0x1.0000000000032p-2")
_L5 = float.fromhex("0x1.99999999999f5p-3")
_L6 = float.fromhex("-0x1.5555554935845p-3")
_L7 = float.fromhex("0x1.249249198ca17p-3")
_L8 = float.fromhex("-0x1.0005d39db9102p-3")
_L9 = float.fromhex("0x1.c72709cf5058bp-4")
_SPLITTER = 134217729.0  # 2^27 + 1: splits a double into two halves of 26 bits


def log(x: float) -> float:
    """The natural logarithm; -inf at 0, nan below 0 and for nan, inf at inf."""
    if not 0.0 < x < _INF:
        return _log_edges(x)
    # log_parts without the pair: r^2/2 rounded is close enough for log alone
    z, k = _frexp(x)
    if z < 0.6875:
        z += z
        k -= 1
    at = (int(z * 128.0) - 88) * 3
    invc = LOG_TABLE[at]
    head = z + _SPLIT_AT - _SPLIT_AT
    r_head = head * invc - 1.0
    r_tail = (z - head) * invc
    r = r_head + r_tail
    whole = float(k)
    base = whole * _LN2_HI + LOG_TABLE[at + 1]
    high = base + r
    square = r * r
    polynomial = r * square * (_L3 + r * (_L4 + r * (_L5 + r * (_L6 + r * (_L7 + r * (_L8 + r * _L9))))))
    return high + ((base - high + r) + (r_tail - (r - r_head)) * (1.0 - r) - 0.5 * square + polynomial
                   + whole * _LN2_LO + LOG_TABLE[at + 2])


def _log_edges(x: float) -> float:
    if x == 0.0:
        return -_INF
    if x == _INF:
        return x
    return _NAN


def log_parts(x: float) -> tuple[float, float]:
    """log x of a positive finite x as high + low, |low| <= ulp(high), within 2^-68 relative:
    for pow's y * log x, and high alone, the pair rounded once, for the normal draw (normal.py),
    which needs the nearest double nearly always (log's own misses 1 argument in 5,000)."""
    z, k = _frexp(x)  # z in [0.5, 1)
    if z < 0.6875:
        z += z
        k -= 1
    at = (int(z * 128.0) - 88) * 3
    invc = LOG_TABLE[at]
    head = z + _SPLIT_AT - _SPLIT_AT  # z's leading 43 bits: head * invc is exact
    r_head = head * invc - 1.0  # exact: head * invc is within 2^-6 of 1
    r_tail = (z - head) * invc  # exact: few bits times few bits
    r = r_head + r_tail
    r_low = r_tail - (r - r_head)  # the rounding error of r
    whole = float(k)
    base = whole * _LN2_HI + LOG_TABLE[at + 1]  # exact: both are multiples of 2^-42
    high = base + r
    low = base - high + r  # exact: |base| >= |r| or base is 0
    # -r^2/2 as a pair, exactly (Dekker's product of r by itself)
    split = _SPLITTER * r
    r_hi = split - (split - r)
    r_lo = r - r_hi
    square = r * r
    square_low = (r_hi * r_hi - square + 2.0 * r_hi * r_lo) + r_lo * r_lo
    half = -0.5 * square
    sum_ = high + half
    low += high - sum_ + half  # exact: |high| >= r^2/2
    polynomial = r * square * (_L3 + r * (_L4 + r * (_L5 + r * (_L6 + r * (_L7 + r * (_L8 + r * _L9))))))
    low += (r_low - r_low * r) - 0.5 * square_low + polynomial + whole * _LN2_LO + LOG_TABLE[at + 2]
    high = sum_ + low
    return high, sum_ - high + low


# ---- tanh ------------------------------------------------------------------------------------
# tanh(a) = E / (E + 2), E = e^(2a) - 1 = expm1(2a), with E and the quotient kept as pairs,
# below 0.55; 1 - 2/(e^(2a) + 1) above, its quotient corrected as a pair below 4 (from 4 on
# e^(2a) is large enough for plain rounding not to matter).

_TANH_ONE = 22.0  # tanh rounds to 1 from here on (from 19.06)
_TANH_SMALL = float.fromhex("0x1p-27")  # tanh x rounds to x below this
_TANH_PAIRS = 4.0  # below this E and the quotient need pairs
_TANH_HALF = 0.55  # from here on tanh >= 1/2: 1 - 2/(e^(2a) + 1), the quotient as a pair


def tanh(x: float) -> float:
    """Odd by construction: the value of |x|, its sign put back. The branches in the order of
    how often a network's units meet them: 0.55 <= |x| < 4 most, then below 0.55."""
    a = -x if x < 0.0 else x
    if _TANH_HALF <= a < _TANH_PAIRS:
        # tanh(a) = 1 - u, u = 2/(e^(2a) + 1) <= 1/2: u's error counts only against
        # ulp(tanh) = 2^-53, so e^(2a) as exp's pair (scale, scale * small) is enough; the
        # quotient is corrected with its exact remainder
        t = a + a
        whole = t * _INV_LN2_64 + _ROUNDING - _ROUNDING
        r = t - whole * _LN2_64_HI - whole * _LN2_64_LO
        k = int(whole)
        at = k & 63
        r2 = r * r
        scale = _EXP_HIGH[at] * _SCALES[k >> 6]  # exact
        low = scale * (_EXP_TAIL[at] + r + r2 * (_E2 + r * _E3 + r2 * (_E4 + r * _E5 + r2 * _E6)))
        d_sum = scale + 1.0  # e^t + 1 as a pair
        d_high = d_sum + low
        d_low = d_sum - d_high + low + (scale - d_sum + 1.0)
        quotient = 2.0 / d_high
        # 2 - quotient * d_high exactly (Dekker's product), for the quotient's correction;
        # written out here and below, as a function call would add a tenth to tanh
        split = _SPLITTER * quotient
        q_hi = split - (split - quotient)
        q_lo = quotient - q_hi
        split = _SPLITTER * d_high
        d_hi = split - (split - d_high)
        d_lo = d_high - d_hi
        p = quotient * d_high
        u_low = (2.0 - p - (((q_hi * d_hi - p) + q_hi * d_lo + q_lo * d_hi) + q_lo * d_lo) - quotient * d_low) / d_high
        value = 1.0 - quotient
        value += (1.0 - value - quotient) - u_low  # (1 - quotient's rounding error, exact)
        return -value if x < 0.0 else value
    if not _TANH_SMALL <= a < _TANH_HALF:
        if a >= _TANH_ONE:
            return -1.0 if x < 0.0 else 1.0
        if a < _TANH_SMALL or a != a:
            return x  # (and -0.0, nan)
        value = 1.0 - 2.0 / (exp(a + a) + 1.0)
        return -value if x < 0.0 else value
    t = a + a  # e^t = 2^m 2^(j/64) e^r, as exp's
    whole = t * _INV_LN2_64 + _ROUNDING - _ROUNDING
    r_exact = t - whole * _LN2_64_HI  # exact
    low_part = whole * _LN2_64_LO
    r = r_exact - low_part
    k = int(whole)
    at = k & 63
    power = _SCALES[k >> 6]  # 2^m, 0 <= m <= 1 here
    r2 = r * r
    rest = (_EXP_TAIL[at] * (1.0 + r) + r2 * (_E2 + r * _E3 + r2 * (_E4 + r * _E5 + r2 * _E6))
            + (r_exact - r - low_part))  # (r's rounding error: E is small, so it counts)
    # E = e^t - 1 = (2^m T - 1) + 2^m T r + 2^m T rest, T = high + low (26 bits each), as a pair
    r_head = r + HEAD_27 - HEAD_27  # r's leading 27 bits: high * r_head is exact
    high = _EXP_HIGH[at]
    head = _EXP_HEAD[at]
    below = high * power - 1.0  # exact
    product = head * r_head * power  # exact
    e_sum = below + product
    e_low = below - e_sum + product + (_EXP_REST[at] * r + head * (r - r_head) + high * rest) * power
    e_high = e_sum + e_low  # the pair normalised: |e_low| <= ulp(e_high)
    e_low = e_sum - e_high + e_low
    d_high = e_high + 2.0  # E + 2 as a pair
    if e_high < 2.0:
        d_low = 2.0 - d_high + e_high + e_low
    else:
        d_low = e_high - d_high + 2.0 + e_low
    quotient = e_high / d_high
    # e_high - quotient * d_high exactly (Dekker's product), for the quotient's correction
    split = _SPLITTER * quotient
    q_hi = split - (split - quotient)
    q_lo = quotient - q_hi
    split = _SPLITTER * d_high
    d_hi = split - (split - d_high)
    d_lo = d_high - d_hi
    p = quotient * d_high
    remainder = e_high - p - (((q_hi * d_hi - p) + q_hi * d_lo + q_lo * d_hi) + q_lo * d_lo) + e_low - quotient * d_low
    value = quotient + remainder / d_high
    return -value if x < 0.0 else value


def heads(highs: tuple[float, ...]) -> tuple[float, ...]:
    """Each table value's leading 26 bits (Dekker's split): head * a 27-bit number is exact
    (this module's 2^(j/64), circular.py's sines and cosines)."""
    heads: list[float] = []
    for high in highs:
        split = _SPLITTER * high
        heads.append(split - (split - high))
    return tuple(heads)


_EXP_HEAD = heads(_EXP_HIGH)
_EXP_REST = tuple(high - head for high, head in zip(_EXP_HIGH, _EXP_HEAD))  # exact
HEAD_27 = float.fromhex("0x1.8p18")  # (x + this) - this keeps x's bits down to 2^-34: 27 where |x| < 2^-7


# ---- pow -------------------------------------------------------------------------------------

_POW_BEYOND = 746.0  # |y log x| past this: e^t is beyond the doubles or rounds to 0


def _odd_integer(number: float) -> bool:
    return number % 2.0 == 1.0  # also for negative numbers: -3.0 % 2.0 is 1.0


def power(base: float, exponent: float) -> float:
    """IEEE pow(base, exponent): e^(exponent log base) with log kept as a pair, so within 1 ulp;
    exact where the result is a double (3.0 ** 3 is 27.0), x * x for a square, sqrt for 0.5."""
    if exponent == 2.0:
        return base * base  # correctly rounded
    if exponent == 0.0 or base == 1.0:
        return 1.0
    if base != base or exponent != exponent:
        return _NAN
    negative = False
    if base <= 0.0:
        if base == 0.0:
            negative = _odd_integer(exponent) and math.copysign(1.0, base) < 0.0
            if exponent < 0.0:
                return -_INF if negative else _INF
            return -0.0 if negative else 0.0
        if exponent % 1.0 != 0.0:
            return _NAN  # a negative base with a fractional exponent (Python: a complex number)
        negative = _odd_integer(exponent)
        base = -base
    if exponent == 1.0:
        value = base
    elif exponent == 0.5:
        value = math.sqrt(base)  # correctly rounded (IEEE)
    elif exponent == -1.0:
        value = 1.0 / base  # correctly rounded; inf past the doubles (Python does not raise)
    elif base == _INF:
        value = _INF if exponent > 0.0 else 0.0
    else:
        value = _exp_of_product(exponent, base)
    return -value if negative else value


def _exp_of_product(exponent: float, base: float) -> float:
    """e^(exponent * log base) for a positive finite base other than 1."""
    if exponent == _INF or exponent == -_INF:
        return _INF if (exponent > 0.0) == (base > 1.0) else 0.0
    high, low = log_parts(base)
    t = exponent * high
    if t > _POW_BEYOND:
        return _INF
    if t < -_POW_BEYOND:
        return 0.0
    # exponent * high as a pair, exactly, plus exponent * low
    split = _SPLITTER * exponent
    y_hi = split - (split - exponent)
    y_lo = exponent - y_hi
    split = _SPLITTER * high
    h_hi = split - (split - high)
    h_lo = high - h_hi
    t_low = ((y_hi * h_hi - t) + y_hi * h_lo + y_lo * h_hi) + y_lo * h_lo + exponent * low
    return _exp_with_low(t, t_low)
