"""One layer, tanh(X @ W + b) for X [32, 30], W [30, 200], b [200], summed to a loss, forward
and backward: tensor nodes against the same layer built from scalar nodes (192,000 products,
each a node). ``python benchmarks/tensor_layer.py [--repeat N]``.

Both build the same sums in the same order (each entry of X @ W a left fold over the 30
products, then + b, tanh, then the loss a left fold over the 6,400 outputs), so their losses
agree bit for bit: the script checks it. It prints the median seconds per step of each (a step:
build the graph, one backward, zero_grad) and their ratio.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import struct
import time
from functools import reduce
from operator import add

from scalarlang.engine import Scalar, Tensor

BATCH, INPUTS, OUTPUTS = 32, 30, 200


def data(seed: int = 0):
    generator = random.Random(seed)
    x = [[generator.gauss(0, 1) for _ in range(INPUTS)] for _ in range(BATCH)]
    w = [[generator.gauss(0, 1) * 0.2 for _ in range(OUTPUTS)] for _ in range(INPUTS)]
    b = [generator.gauss(0, 1) * 0.1 for _ in range(OUTPUTS)]
    return x, w, b


def tensor_step(x, w, b):
    loss = (x @ w + b).tanh().sum()
    loss.backward()
    loss.zero_grad()
    return loss


def scalar_step(x, w, b):
    outputs = []
    for row in x:
        for j in range(OUTPUTS):
            products = [row[p] * w[p][j] for p in range(INPUTS)]
            outputs.append((reduce(add, products) + b[j]).tanh())
    loss = reduce(add, outputs)
    loss.backward()
    loss.zero_grad()
    return loss


def timed(step, arguments, repeat: int) -> tuple[float, object]:
    times = []
    result = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = step(*arguments)
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    x, w, b = data()
    tensors = (Tensor.constant(x), Tensor.variable(w), Tensor.variable(b))
    scalars = ([[Scalar.constant(v) for v in row] for row in x],
               [[Scalar.variable(v) for v in row] for row in w],
               [Scalar.variable(v) for v in b])
    tensor_time, tensor_loss = timed(tensor_step, tensors, arguments.repeat)
    scalar_time, scalar_loss = timed(scalar_step, scalars, max(1, arguments.repeat // 2))
    same = struct.pack("<d", tensor_loss.value) == struct.pack("<d", scalar_loss.value)  # type: ignore[attr-defined]
    print(f"[{BATCH}, {INPUTS}] @ [{INPUTS}, {OUTPUTS}] + bias, tanh, sum; forward + backward + zero_grad")
    print(f"tensor nodes: {tensor_time * 1000:.1f} ms per step")
    print(f"scalar nodes: {scalar_time * 1000:.1f} ms per step")
    print(f"ratio:        {scalar_time / tensor_time:.1f}x")
    print(f"losses equal bit for bit: {same}")


if __name__ == "__main__":
    main()
