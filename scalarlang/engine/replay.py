"""Replaying a graph forward with plain floats, one variable moved.

The gradient check needs the function a graph computes without its derivative rules: the
graph's operations are re-evaluated from its leaves, so nothing of the reverse pass is used.
Each node is replayed with its operation's forward function (`scalar.FORWARD`): the function
the operation computed the node's value with, so a replayed node gives the engine's bits.
Forward functions never raise: a failure is an IEEE value (inf, nan) for the check to reject.
"""

from __future__ import annotations

from typing import Sequence, cast

from .scalar import FORWARD, Scalar, ScalarOperation


class Replay:
    """The function ``v -> value of output`` when node ``moved`` of ``topology`` holds ``v``."""

    def __init__(self, topology: Sequence[Scalar], moved: int):
        self._moved = moved
        positions = {id(node): index for index, node in enumerate(topology)}
        # One step per node: (its forward function, how it takes its operands, their
        # positions, a pow's exponent); a leaf's step is its value.
        self._steps: list[tuple | float] = []
        for node in topology:
            operands = tuple(positions[id(edge.parent)] for edge in node.parents)
            if not operands:
                self._steps.append(node.value)  # leaves, detached nodes included, keep their values
                continue
            forward = FORWARD[cast(ScalarOperation, node.operation)]  # (a graph of scalar operations)
            self._steps.append((forward.function, forward.operands is None, operands, node.exponent))

    def __call__(self, value: float) -> float:
        values: list[float] = []
        append = values.append
        for index, step in enumerate(self._steps):
            if index == self._moved:
                append(value)
            elif step.__class__ is float:
                append(step)  # type: ignore[arg-type]
            else:
                function, many, operands, exponent = step  # type: ignore[misc]
                if many:
                    append(function([values[at] for at in operands]))
                elif exponent is not None:
                    append(function(values[operands[0]], exponent))
                else:
                    append(function(*[values[at] for at in operands]))
        return values[-1]
