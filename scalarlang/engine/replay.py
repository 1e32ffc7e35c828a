"""Replaying a graph forward with plain floats, one variable moved.

The gradient check needs the function a graph computes without its derivative rules: the
graph's operations are re-evaluated from its leaves, so nothing of the reverse pass is used.
Failures become IEEE values (inf, nan) for the check to reject.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

# the engine's own IEEE pow (it never raises, also for an inf or nan base), so that a
# replayed pow gives the engine's bits
from .arithmetic import power
from .node import ScalarOperation
from .scalar import Scalar


def _exp(value: float) -> float:
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def _log(value: float) -> float:
    if value < 0.0 or value != value:
        return math.nan
    if value == 0.0:
        return -math.inf
    return math.log(value)


def _div(left: float, right: float) -> float:
    try:
        return left / right
    except ZeroDivisionError:
        if left == 0.0 or left != left:
            return math.nan
        return math.copysign(math.inf, left) * math.copysign(1.0, right)


def _sqrt(value: float) -> float:
    if value < 0.0 or value != value:
        return math.nan
    return math.sqrt(value)


def _sigmoid(value: float) -> float:
    # the engine's two forms, so neither overflows and the bits are the engine's
    if value >= 0.0:
        return 1.0 / (1.0 + _exp(-value))
    if value != value:
        return math.nan
    exponential = math.exp(value)
    return exponential / (1.0 + exponential)


def _relu(value: float) -> float:
    return value if value > 0.0 or value != value else 0.0


def _max(left: float, right: float) -> float:
    # the engine's choice on a tie (the left operand), nan propagated
    if left != left or right != right:
        return math.nan
    return right if right > left else left


def _min(left: float, right: float) -> float:
    if left != left or right != right:
        return math.nan
    return right if right < left else left


_BINARY: dict[ScalarOperation, Callable[[float, float], float]] = {
    ScalarOperation.ADD: lambda a, b: a + b,
    ScalarOperation.SUB: lambda a, b: a - b,
    ScalarOperation.MUL: lambda a, b: a * b,
    ScalarOperation.DIV: _div,
    ScalarOperation.MAX: _max,
    ScalarOperation.MIN: _min,
}
_UNARY: dict[ScalarOperation, Callable[[float], float]] = {
    ScalarOperation.NEG: lambda a: -a,
    ScalarOperation.EXP: _exp,
    ScalarOperation.TANH: math.tanh,
    ScalarOperation.LOG: _log,
    ScalarOperation.SQRT: _sqrt,
    ScalarOperation.RELU: _relu,
    ScalarOperation.SIGMOID: _sigmoid,
    ScalarOperation.ABS: abs,
}


class Replay:
    """The function ``v -> value of output`` when node ``moved`` of ``topology`` holds ``v``."""

    def __init__(self, topology: Sequence[Scalar], moved: int):
        self._topology = topology
        self._moved = moved
        positions = {id(node): index for index, node in enumerate(topology)}
        self._operands = [
            tuple(positions[id(edge.parent)] for edge in node.parents) for node in topology
        ]
        # pow's exponent is a parameter of its node, not an operand
        self._exponents = [node.exponent for node in topology]

    def __call__(self, value: float) -> float:
        values: list[float] = []
        for index, node in enumerate(self._topology):
            if index == self._moved:
                values.append(value)
                continue
            operands = self._operands[index]
            operation = node.operation
            if not operands:
                values.append(node.value)  # leaves, detached nodes included, keep their values
            elif operation is ScalarOperation.POW:
                exponent = self._exponents[index]
                assert exponent is not None  # every pow node has one
                values.append(power(values[operands[0]], exponent))
            elif len(operands) == 1:
                values.append(_UNARY[operation](values[operands[0]]))
            else:
                values.append(_BINARY[operation](values[operands[0]], values[operands[1]]))
        return values[-1]
