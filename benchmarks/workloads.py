"""The graphs of the benchmark, written once and built by every peer.

Each peer is a small adapter (``variable``, ``constant``, ``backward``, ``value``) over its
own node type; the graph code below uses only the operators ``+`` and ``*`` and the method
``.tanh()``, which scalarlang's ``Scalar``, micrograd's ``Value`` (given a ``tanh`` in its own
style, see ``worker.py``) and PyTorch's 0-d tensors all have. So every peer builds the same
graph, operation for operation, in the same order.

Convention, for every case: parameters (tracked leaves) exist before the clock starts; data
enters the graph as constants while it is built, as in a training step.
"""

from __future__ import annotations

import random

MLP_SIZES = (2, 16, 16, 1)


def mlp_parameters(variable, seed: int = 0) -> list[list[list]]:
    """Layers of neurons; each neuron is its weights followed by its bias."""
    rng = random.Random(seed)
    layers = []
    for fan_in, fan_out in zip(MLP_SIZES, MLP_SIZES[1:]):
        layers.append(
            [[variable(rng.uniform(-1.0, 1.0)) for _ in range(fan_in + 1)] for _ in range(fan_out)]
        )
    return layers


def mlp_points(count: int, seed: int = 1) -> list[tuple[list[float], float]]:
    """Fixed (input, target) pairs."""
    rng = random.Random(seed)
    return [([rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)], rng.uniform(-1.0, 1.0)) for _ in range(count)]


def parameter_count(layers) -> int:
    return sum(len(neuron) for layer in layers for neuron in layer)


def mlp_loss(constant, layers, points):
    """Squared-error loss of a tanh MLP over all points: one graph, micrograd's neuron shape."""
    loss = constant(0.0)
    for inputs, target in points:
        activations = [constant(x) for x in inputs]
        for layer in layers:
            outputs = []
            for neuron in layer:
                total = neuron[-1]  # bias first, then w*x terms: sum((w*x ...), b) in micrograd
                for weight, activation in zip(neuron, activations):
                    total = total + weight * activation
                outputs.append(total.tanh())
            activations = outputs
        difference = activations[0] + (-target)
        loss = loss + difference * difference
    return loss


def wide_data(count: int, seed: int = 2) -> tuple[list[float], list[float]]:
    rng = random.Random(seed)
    return [rng.uniform(-1.0, 1.0) for _ in range(count)], [rng.uniform(-1.0, 1.0) for _ in range(count)]


def wide_sum(constant, weights, xs):
    """sum_i w_i * x_i, added pairwise (a tree about 18 levels deep, not a 200,000-long chain)."""
    level = [weight * constant(x) for weight, x in zip(weights, xs)]
    while len(level) > 1:
        paired = [left + right for left, right in zip(level[0::2], level[1::2])]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def deep_chain(start, depth: int):
    """tanh(tanh(...tanh(start))): ``depth`` operations in a single chain."""
    node = start
    for _ in range(depth):
        node = node.tanh()
    return node


def interpreter_program(statements: int) -> str:
    """A `.sad` program of exactly ``statements`` simple statements (lets of small expressions)."""
    lines = ["let w = var 0.5", "let b = var 0.25", "let s = const 0"]
    index = 0
    while len(lines) < statements:
        group = [
            f"let x{index} = var {index % 7 + 1}",
            f"let y{index} = x{index} * w + b",
            f"let z{index} = tanh(y{index})",
            f"let s = s + z{index}",
        ]
        lines.extend(group[: statements - len(lines)])
        index += 1
    return "\n".join(lines) + "\n"
