"""micrograd's classic demo, as examples/moons.sad trains it, on micrograd 0.1.0: for timing
the `.sad` program against (issue 24: the demo at most 0.5x this script's time, peak memory
flat from step 10 to step 100).

A 2-16-16-1 relu network on the 100 points of ``examples/moons.csv``, max-margin loss with L2
regularisation, 100 steps of gradient descent, the same starting weights
(``random.Random(1337)``), data and order of floating-point operations as the program, so
that it prints what the program prints::

    python benchmarks/moons_micrograd.py                  # step 0 loss ... accuracy ... every 10 steps
    python benchmarks/moons_micrograd.py --memory         # also tracemalloc peaks, on standard error
    python benchmarks/moons_micrograd.py --steps 11 --collect-each-step

Where the order of operations matters and how it is matched is written down in
``tests/micrograd_moons.py``, which trains the same way for the tests; this script is the same
training standing alone. In short: folds from the left with no initial 0 (``dot``, `.sad`'s
``sum``), the bias added after the dot, the program's parameter order for the L2 sum, operands
in the program's slot order, and each node's ``_prev`` replaced by the tuple of its operands
(micrograd keeps a `set`, whose order changes from run to run), so that ``backward`` adds each
gradient's contributions in the engine's order.

The garbage collector is on, as a user has it; ``--collect-each-step`` turns it off and
collects once after each step instead (each step's graph is cyclic garbage, and the collector
left on spends most of the time; the numbers are the same either way). ``--memory`` traces
allocations with tracemalloc (several times slower) and reports the peak after 10 steps and
after the last.
"""

from __future__ import annotations

import argparse
import csv
import gc
import random
import sys
import tracemalloc
from pathlib import Path

from micrograd.engine import Value

DATA = Path(__file__).resolve().parent.parent / "examples" / "moons.csv"


def ordered(out, *operands):
    out._prev = operands
    return out


def add(a, b):
    return ordered(a + b, a, b)


def mul(a, b):
    return ordered(a * b, a, b)


def relu(a):
    return ordered(a.relu(), a)


def sub(a, b):
    return add(a, mul(b, Value(-1.0)))  # micrograd's a - b: a + (b * -1)


def total(items):
    result = items[0]
    for item in items[1:]:
        result = add(result, item)
    return result


def dot(ws, xs):
    return total([mul(w, x) for w, x in zip(ws, xs)])


def layer(W, b, xs):
    return [relu(add(dot(W[i], xs), b[i])) for i in range(len(W))]


def number(value: float) -> str:
    """As the program prints a finite number: scalarlang's format_number in its default style
    (whole numbers as integers, others with 12 significant digits)."""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.12g}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--memory", action="store_true", help="report tracemalloc peaks on standard error")
    parser.add_argument("--collect-each-step", action="store_true", help="collector off, one collection a step")
    options = parser.parse_args(argv)
    if options.memory:
        tracemalloc.start()
    if options.collect_each_step:
        gc.disable()
    sys.setrecursionlimit(10_000)  # micrograd's topological sort is recursive: about 350 deep here

    with open(DATA, newline="", encoding="utf-8") as file:
        data = [tuple(float(cell) for cell in row) for row in list(csv.reader(file))[1:]]

    rng = random.Random(1337)
    W1 = [[Value(rng.uniform(-1, 1)) for j in range(2)] for i in range(16)]
    b1 = [Value(0.0) for i in range(16)]
    W2 = [[Value(rng.uniform(-1, 1)) for j in range(16)] for i in range(16)]
    b2 = [Value(0.0) for i in range(16)]
    W3 = [[Value(rng.uniform(-1, 1)) for j in range(16)]]
    b3 = [Value(0.0)]
    # flatten(W1, b1, W2, b2, W3, b3): each W row by row, then its b
    parameters = [w for W, b in ((W1, b1), (W2, b2), (W3, b3)) for w in [*(w for row in W for w in row), *b]]

    def score(x1, x2):
        return add(dot(W3[0], layer(W2, b2, layer(W1, b1, [Value(x1), Value(x2)]))), b3[0])

    for step in range(options.steps):
        scores = [score(row[0], row[1]) for row in data]
        losses = [relu(sub(Value(1.0), mul(Value(row[2]), s))) for row, s in zip(data, scores)]
        reg = mul(Value(1e-4), total([mul(p, p) for p in parameters]))
        loss = add(mul(total(losses), Value(1 / len(data))), reg)
        hits = [1.0 if (row[2] > 0) == (s.data > 0) else 0.0 for row, s in zip(data, scores)]
        accuracy = hits[0]
        for hit in hits[1:]:
            accuracy += hit
        accuracy /= len(hits)
        for p in parameters:
            p.grad = 0
        loss.backward()
        rate = 1 - 0.9 * step / 100
        for p in parameters:
            p.data -= rate * p.grad
        if step % 10 == 0:
            print(f"step {step} loss {number(loss.data)} accuracy {number(accuracy)}", flush=True)
        del scores, losses, reg, loss
        if options.collect_each_step:
            gc.collect()
        if options.memory and step + 1 in (10, options.steps):
            current, peak = tracemalloc.get_traced_memory()
            print(f"memory after {step + 1} steps: peak {peak:,} bytes, current {current:,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
