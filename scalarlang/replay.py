"""Replaying a graph forward with plain floats, one variable moved.

The gradient check needs the function a graph computes without its derivative rules: the
graph's operations are re-evaluated from its leaves, so nothing of the reverse pass is used.
Failures become IEEE values (inf, nan) for the check to reject.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from .engine import Scalar, ScalarOperation


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


_BINARY: dict[ScalarOperation, Callable[[float, float], float]] = {
    ScalarOperation.ADD: lambda a, b: a + b,
    ScalarOperation.SUB: lambda a, b: a - b,
    ScalarOperation.MUL: lambda a, b: a * b,
    ScalarOperation.DIV: _div,
}
_UNARY: dict[ScalarOperation, Callable[[float], float]] = {
    ScalarOperation.NEG: lambda a: -a,
    ScalarOperation.EXP: _exp,
    ScalarOperation.TANH: math.tanh,
    ScalarOperation.LOG: _log,
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
            elif len(operands) == 1:
                values.append(_UNARY[operation](values[operands[0]]))
            else:
                values.append(_BINARY[operation](values[operands[0]], values[operands[1]]))
        return values[-1]
