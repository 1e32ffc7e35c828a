"""Writes examples/moons.csv: 100 points of the two-moons data set, for examples/moons.sad.

Made once, by running from the repository root (any Python 3.11 or newer, nothing installed)::

    python examples/make_moons.py

which writes ``examples/moons.csv`` next to this script; ``python examples/make_moons.py
PATH`` writes the same bytes to PATH instead. Running it again rewrites the same bytes
(tests/test_moons_csv.py checks it): the points come from ``random.Random(SEED)`` and
``math`` only, whose results do not depend on the platform.

The points mimic scikit-learn's ``make_moons(n_samples=100, noise=0.1)``, which micrograd's
demo trains on: two interleaving half circles, the upper one (label -1) centred at (0, 0)
and the lower one (label 1) centred at (1, 0.5), 50 points each at evenly spaced angles from
0 to pi, shuffled, then moved by Gaussian noise of standard deviation 0.1 in each coordinate.
Labels are -1 and 1, as micrograd's demo makes them with ``y*2 - 1``.

The file has a header line ``x1,x2,y``, then one point a line, LF line ends. Coordinates are
rounded to 6 decimals and written with ``repr``, so the file is short and every number reads
back exactly as written; labels are written as the whole numbers ``-1`` and ``1``.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

SEED = 1337
SAMPLES = 100
NOISE = 0.1
DECIMALS = 6
OUTPUT = Path(__file__).with_name("moons.csv")


def moons(samples: int = SAMPLES, noise: float = NOISE, seed: int = SEED) -> list[tuple[float, float, int]]:
    """The points ``(x1, x2, y)``, in the order they are written."""
    rng = random.Random(seed)
    outer = samples // 2
    inner = samples - outer
    points: list[tuple[float, float, int]] = []
    for i in range(outer):
        angle = math.pi * i / (outer - 1)
        points.append((math.cos(angle), math.sin(angle), -1))
    for i in range(inner):
        angle = math.pi * i / (inner - 1)
        points.append((1 - math.cos(angle), 1 - math.sin(angle) - 0.5, 1))
    rng.shuffle(points)
    return [(x1 + rng.gauss(0, noise), x2 + rng.gauss(0, noise), y) for x1, x2, y in points]


def number(value: float) -> str:
    """``value`` rounded to DECIMALS places, as ``repr`` writes it (never ``-0.0``)."""
    return repr(round(value, DECIMALS) + 0.0)


def csv_text(points: list[tuple[float, float, int]]) -> str:
    lines = ["x1,x2,y"]
    lines += [f"{number(x1)},{number(x2)},{y}" for x1, x2, y in points]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print("usage: python examples/make_moons.py [PATH]", file=sys.stderr)
        return 2
    path = Path(argv[0]) if argv else OUTPUT
    path.write_bytes(csv_text(moons()).encode("ascii"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
