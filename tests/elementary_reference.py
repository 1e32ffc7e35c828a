"""The reference of the engine's elementary functions (scalarlang/engine/elementary.py): its
tables made again with mpmath at 300 bits, and the exact values with which tests compare.

Running this file prints the tables as elementary_tables.py writes them (how they were made).
"""

from __future__ import annotations

import math

import mpmath

PRECISION = 300  # bits: far past the 2^-106 a table entry needs


def _rounded_bits(value: mpmath.mpf, bits: int) -> float:
    significand, exponent = math.frexp(float(value))
    return math.ldexp(round(significand * 2**bits), exponent - bits)


def exp_table() -> list[tuple[float, float]]:
    """2^(j/64) = hi * (1 + tail), j = 0 .. 63."""
    with mpmath.workprec(PRECISION):
        rows = []
        for j in range(64):
            exact = mpmath.mpf(2) ** (mpmath.mpf(j) / 64)
            high = float(exact)
            rows.append((high, float((exact - high) / high)))
        return rows


def log_table() -> list[tuple[float, float, float]]:
    """For z in [i/128, (i+1)/128), i = 88 .. 175: invc (10 bits, 1 next to 1), and
    -log(invc) as hi (a multiple of 2^-42) + lo."""
    with mpmath.workprec(PRECISION):
        rows = []
        for i in range(88, 176):
            invc = 1.0 if i in (127, 128) else _rounded_bits(1 / ((mpmath.mpf(i) + 0.5) / 128), 10)
            exact = -mpmath.log(invc)
            high = float(mpmath.nint(exact * 2**42) / 2**42)
            rows.append((invc, high, float(exact - high)))
        return rows


def sin_cos_table() -> list[tuple[float, float, float, float]]:
    """sin(i/64) and cos(i/64), i = 0 .. 51 (past pi/4 * 64), each as hi (the nearest double)
    + lo (the rest, to 2^-106 of it)."""
    with mpmath.workprec(PRECISION):
        rows = []
        for i in range(52):
            sine, cosine = mpmath.sin(mpmath.mpf(i) / 64), mpmath.cos(mpmath.mpf(i) / 64)
            rows.append((float(sine), float(sine - float(sine)), float(cosine), float(cosine - float(cosine))))
        return rows


def half_pi_parts() -> tuple[float, float, float]:
    """pi/2 = P1 + P2 + P3 to 2^-120: P1 and P2 of 33 bits each (k P for k <= 4 is exact),
    P3 the nearest double to the rest."""
    with mpmath.workprec(PRECISION):
        half_pi = mpmath.pi / 2
        first = mpmath.nint(half_pi * 2**32) / 2**32
        rest = half_pi - first
        scale = 2 ** (32 - int(mpmath.floor(mpmath.log(abs(rest), 2))))
        second = mpmath.nint(rest * scale) / scale
        return float(first), float(second), float(half_pi - first - second)


def exact(name: str, *arguments: float) -> mpmath.mpf:
    """The function's true value at 50 significant digits (mpmath's own reduction)."""
    with mpmath.workdps(50):
        values = [mpmath.mpf(argument) for argument in arguments]
        if name == "exp":
            return mpmath.exp(values[0])
        if name == "log":
            return mpmath.log(values[0])
        if name == "tanh":
            return mpmath.tanh(values[0])
        if name == "sin":
            return mpmath.sin(values[0])
        if name == "cos":
            return mpmath.cos(values[0])
        base, exponent = values
        if base < 0:  # an integer exponent: the sign of an odd power
            magnitude = (-base) ** exponent
            return -magnitude if int(exponent) % 2 else magnitude
        return base**exponent


def ulps_off(got: float, true: mpmath.mpf) -> float:
    """|got - true| in units of the last place of the double nearest true (for a true value
    past the largest double: 0 when got is inf, of its sign)."""
    with mpmath.workdps(50):
        nearest = float(true)
        if math.isinf(nearest):
            return 0.0 if got == nearest else math.inf
        if math.isinf(got):
            return math.inf
        unit = math.ulp(nearest) if nearest != 0.0 else 5e-324
        return float(abs(mpmath.mpf(got) - true) / unit)


def correctly_rounded(true: mpmath.mpf) -> float:
    with mpmath.workdps(50):
        return float(true)


if __name__ == "__main__":
    print("EXP_TABLE = _table((")
    for high, tail in exp_table():
        print(f'    "{high.hex()}", "{tail.hex()}",')
    print("))")
    print("LOG_TABLE = _table((")
    for invc, high, low in log_table():
        print(f'    "{invc.hex()}", "{high.hex()}", "{low.hex()}",')
    print("))")
    print("SIN_COS_TABLE = _table((")
    for row in sin_cos_table():
        print("    " + " ".join(f'"{number.hex()}",' for number in row))
    print("))")
    print("HALF_PI_PARTS = _table((" + " ".join(f'"{part.hex()}",' for part in half_pi_parts()) + "))")
