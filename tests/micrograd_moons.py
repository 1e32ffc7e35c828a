"""micrograd's classic demo, trained exactly as LANGUAGE.md's `.sad` program trains it
(section "Lists: models as data"), so that a test can compare the two bit for bit.

A helper module, no tests in it: `train` returns ``(loss, accuracy)`` for every step, on
micrograd 0.1.0's `Value`, from `examples/moons.csv` (rows ``x1, x2, y``, y -1 or 1). The
program it follows::

    random_seed(1337)
    let data = read_table("moons.csv")
    let W1 = [[var uniform(-1, 1) for j in 0..2] for i in 0..16]
    let b1 = [var 0 for i in 0..16]
    let W2 = [[var uniform(-1, 1) for j in 0..16] for i in 0..16]
    let b2 = [var 0 for i in 0..16]
    let W3 = [[var uniform(-1, 1) for j in 0..16]]
    let b3 = [var 0]
    fn layer(W, b, xs) = [relu(dot(W[i], xs) + b[i]) for i in 0..len(W)]
    fn score(x1, x2) = dot(W3[0], layer(W2, b2, layer(W1, b1, [x1, x2]))) + b3[0]
    for step in 0..100 {
      let scores = [score(row[0], row[1]) for row in data]
      let losses = [relu(1 - data[i][2] * scores[i]) for i in 0..len(data)]
      let reg = 1e-4 * sum([p * p for p in flatten(W1, b1, W2, b2, W3, b3)])
      let loss = sum(losses) * (1 / len(data)) + reg
      let accuracy = mean([(data[i][2] > 0) == (scores[i] > 0) for i in 0..len(data)])
      backward(loss)
      descend W1, b1, W2, b2, W3, b3 by 1 - 0.9 * step / 100
      if step % 10 == 0 { print "step {step} loss {loss} accuracy {accuracy}" }
    }

Where the order of floating-point operations must match, and how it is matched here:

1. Initialisation. ``random.Random(seed)`` draws ``uniform(-1, 1)`` (``-1 + 2*random()``)
   for each weight in the order of the program's comprehensions: W1 row by row (i outer, j
   inner), then W2, then W3; biases are 0 and draw nothing. This is also the order of
   micrograd's own ``MLP(2, [16, 16, 1])``, neuron by neuron.
2. Each operation's value is one IEEE operation, as in the engine: ``1 - t`` is micrograd's
   ``1 + (t * -1)``, which is the same number (negation is exact, and ``a - b`` is rounded
   ``a + (-b)``); ``1 / len(data)`` is the float ``1 / 100``.
3. Folds. ``dot(A, B)`` is ``A[0]*B[0] + A[1]*B[1] + ...`` folded from the left with no
   initial 0; ``layer`` adds the bias after the dot (micrograd's `Neuron` starts its sum
   from the bias, ``b + w0*x0 + ...``, a different rounding, so it is not used). `.sad`'s
   ``sum(L)`` is the left fold ``L[0] + L[1] + ...``; Python's ``sum`` starts from ``0``,
   which would add a node ``0 + L[0]`` (the same value, one more node), so `fold` starts at
   ``L[0]`` as `.sad` does. The regularisation sums ``p*p`` over the parameters in
   ``flatten(W1, b1, W2, b2, W3, b3)`` order (W1 row by row, b1, W2, ...), not micrograd's
   ``model.parameters()`` order (neuron by neuron, bias last). ``mean(L)`` is the left fold
   of the 1/0 accuracies, then one division by the count.
4. Operand order. Every node is made with its operands in the program's slot order
   (``y * score``: the constant y first; ``W[i][k] * xs[k]``: the weight first), numbers
   as fresh constant `Value` leaves where the program has a constant.
5. Gradients. A node's gradient is the sum of its contributions, which rounds differently
   in a different order once there are three or more (a first-layer weight gets 102 per
   step). The engine visits the topology (the post-order of a depth-first walk over operands
   in slot order) from last to first and each node's operands in slot order; micrograd's
   ``backward`` does the same walk, but over ``Value._prev``, a `set` whose order follows
   object ids and changes from run to run. `_ordered` replaces each node's ``_prev`` by the
   tuple of its operands in slot order (micrograd only iterates it), so micrograd's
   topological sort is the engine's. Contributions are ``local * upstream`` (the engine's
   ``upstream * local``: the same product); micrograd's adjoints start from the integer 0
   and the engine's pass adjoints from 0.0, which add alike.
6. Update. Gradients are zeroed before each ``backward``; ``p.data -= lr * p.grad`` is the
   engine's ``value - lr*gradient`` for `descend`'s fresh variable (a fresh variable's stored
   gradient is ``0.0 + pass adjoint``, the same number), with ``lr = 1 - 0.9 * step / 100``
   computed as ``1 - ((0.9 * step) / 100)``, left to right as the program writes it (100 is
   the program's literal, whatever ``steps`` is).
7. Accuracy compares ``y > 0`` with ``score > 0``, so a score of exactly 0 counts as
   negative, as in the program.

micrograd's ``backward`` builds its topology recursively; `train` raises the recursion limit
for the depth of its graph (about 350 for the 2-16-16-1 network) while it runs.
"""

from __future__ import annotations

import csv
import functools
import gc
import sys
from pathlib import Path
from random import Random
from typing import Sequence

from micrograd.engine import Value

MOONS = Path(__file__).resolve().parent.parent / "examples" / "moons.csv"
SIZES = (2, 16, 16, 1)
STEPS = 100
SEED = 1337
REGULARISATION = 1e-4


def load_moons(path: Path = MOONS) -> list[tuple[float, ...]]:
    """The rows of a CSV file with a header line, as floats (what ``read_table`` gives)."""
    with open(path, newline="", encoding="utf-8") as file:
        lines = list(csv.reader(file))
    return [tuple(float(cell) for cell in line) for line in lines[1:] if line]


def _ordered(out: Value, *operands: Value) -> Value:
    out._prev = operands  # slot order, for backward's topological sort (docstring, point 5)
    return out


def add(a: Value, b: Value) -> Value:
    return _ordered(a + b, a, b)


def mul(a: Value, b: Value) -> Value:
    return _ordered(a * b, a, b)


def sub(a: Value, b: Value) -> Value:
    """``a - b`` as micrograd computes it, ``a + b * -1``, with ordered operands."""
    return add(a, mul(b, Value(-1.0)))


def relu(a: Value) -> Value:
    return _ordered(a.relu(), a)


def constant(x: float) -> Value:
    return Value(float(x))


def fold(items: Sequence[Value]) -> Value:
    """`.sad`'s ``sum(L)``: ``L[0] + L[1] + ...`` from the left, no initial 0."""
    total = items[0]
    for item in items[1:]:
        total = add(total, item)
    return total


def dot(a: Sequence[Value], b: Sequence[Value]) -> Value:
    """`.sad`'s ``dot(A, B)``: ``A[0]*B[0] + A[1]*B[1] + ...`` from the left."""
    assert len(a) == len(b)
    return fold([mul(x, y) for x, y in zip(a, b)])


def layer(W: list[list[Value]], b: list[Value], xs: list[Value]) -> list[Value]:
    return [relu(add(dot(W[i], xs), b[i])) for i in range(len(W))]


class Model:
    """The parameters, made as the program makes them: for each layer, W then b."""

    def __init__(self, sizes: Sequence[int] = SIZES, seed: int = SEED):
        if len(sizes) < 2 or sizes[-1] != 1:
            raise ValueError(f"sizes must end in 1 (one score): {tuple(sizes)}")
        rng = Random(seed)
        self.layers = []
        for fan_in, fan_out in zip(sizes, sizes[1:]):
            W = [[Value(rng.uniform(-1, 1)) for _j in range(fan_in)] for _i in range(fan_out)]
            b = [Value(0.0) for _i in range(fan_out)]
            self.layers.append((W, b))

    def parameters(self) -> list[Value]:
        """``flatten(W1, b1, W2, b2, ...)``: each W row by row, then its b."""
        return [p for W, b in self.layers for p in [*(w for row in W for w in row), *b]]

    def score(self, inputs: Sequence[float]) -> Value:
        xs = [constant(x) for x in inputs]
        for W, b in self.layers[:-1]:
            xs = layer(W, b, xs)
        W, b = self.layers[-1]
        return add(dot(W[0], xs), b[0])


def learning_rate(step: int) -> float:
    return 1 - 0.9 * step / 100


def train(
    sizes: Sequence[int] = SIZES, steps: int = STEPS, seed: int = SEED, data: Sequence[Sequence[float]] | None = None
) -> list[tuple[float, float]]:
    """``(loss, accuracy)`` at each step 0, 1, ..., steps - 1, before that step's update."""
    rows = load_moons() if data is None else [tuple(map(float, row)) for row in data]
    model = Model(sizes, seed)
    parameters = model.parameters()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 2 * (len(parameters) + len(rows) + sum(sizes)) + 1000))
    collecting = gc.isenabled()
    # Each step's graph is cyclic garbage (micrograd's closures refer to their node); the
    # collector left on runs many full collections a step (ten times the step's time), so
    # it is off and each step's graph is collected once. The numbers are the same either way.
    gc.disable()
    try:
        history = []
        for step in range(steps):
            history.append(_step(model, parameters, rows, sizes[0], step))
            gc.collect()
    finally:
        sys.setrecursionlimit(limit)
        if collecting:
            gc.enable()
    return history


@functools.lru_cache(maxsize=None)
def trained(steps: int) -> tuple[tuple[float, float], ...]:
    """`train(steps=steps)` on the moons, kept for the process: test_moons.py and
    test_micrograd_moons.py both compare with the first steps (micrograd takes 0.15 s a step)."""
    return tuple(train(steps=steps))


def _step(model: Model, parameters: list[Value], rows: list[tuple[float, ...]], width: int, step: int) -> tuple[float, float]:
    scores = [model.score(row[:width]) for row in rows]
    losses = [relu(sub(constant(1), mul(constant(row[-1]), s))) for row, s in zip(rows, scores)]
    reg = mul(constant(REGULARISATION), fold([mul(p, p) for p in parameters]))
    loss = add(mul(fold(losses), constant(1 / len(rows))), reg)
    hits = [1.0 if (row[-1] > 0) == (s.data > 0) else 0.0 for row, s in zip(rows, scores)]
    accuracy = _left_sum(hits) / len(hits)
    for p in parameters:
        p.grad = 0
    loss.backward()
    rate = learning_rate(step)
    for p in parameters:
        p.data -= rate * p.grad
    return loss.data, accuracy


def _left_sum(values: list[float]) -> float:
    total = values[0]
    for value in values[1:]:
        total += value
    return total


def format_line(step: int, loss: float, accuracy: float) -> str:
    """The program's ``print`` line, numbers as `scalarlang.format_number` writes them."""
    from scalarlang import format_number

    return f"step {step} loss {format_number(loss)} accuracy {format_number(accuracy)}"
