"""The normal draw of `gauss`, `randn` and everything else that draws from N(mu, sigma): Python's
`random.Random.gauss` (its Box-Muller formula, step for step) with the engine's own log, sin and
cos in place of the C library's, so a seed gives the same bits on every platform.

log is elementary.py's pair rounded once, sin and cos circular.py's: each the nearest double
nearly always, so where glibc's are too (nearly always) the draws are exactly Python's on
Linux. The second number of a pair is kept where Python keeps it, the generator's `gauss_next`,
which `getstate`, `setstate` and `seed` save, restore and clear: an undone statement puts the
pair back with the rest of the generator's state, and a seed starts a new pair.
"""

from __future__ import annotations

import math
import random

from .circular import sin_cos
from .elementary import log_parts

_TWO_PI = float.fromhex("0x1.921fb54442d18p+2")  # random.TWOPI: 2.0 * math.pi
_sqrt = math.sqrt  # correctly rounded (IEEE), the same everywhere


def gauss(generator: random.Random, mu: float, sigma: float) -> float:
    """``generator.gauss(mu, sigma)``'s draw, the same bits on every platform."""
    z = generator.gauss_next  # type: ignore[attr-defined]
    generator.gauss_next = None  # type: ignore[attr-defined]
    if z is None:
        draw = generator.random
        angle = draw() * _TWO_PI
        radius = _sqrt(-2.0 * log_parts(1.0 - draw())[0])  # (the pair's rounding: the nearest log)
        sine, cosine = sin_cos(angle)
        z = cosine * radius
        generator.gauss_next = sine * radius  # type: ignore[attr-defined]
    return mu + z * sigma
