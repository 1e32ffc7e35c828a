"""Saving and restoring stored gradients, for front ends that undo a failed line.

Besides a pass's commit and `zero_grad` (passes.py), the only writer of stored gradients.
"""

from __future__ import annotations

from typing import Iterable

from .node import WALK_LOCK, write_gradients
from .scalar import Scalar

SavedGradients = list[tuple[Scalar, float]]


def save_gradients(nodes: Iterable[Scalar]) -> SavedGradients:
    """The stored gradient of every tracked node among ``nodes``."""
    return [(node, node.gradient) for node in nodes if node.gradient is not None]


def restore_gradients(saved: SavedGradients) -> None:
    """Put back what `save_gradients` saw, latest save first, in one step that neither an
    interrupt nor another thread's pass can split (see ``node.write_gradients``)."""
    latest_first = saved[::-1]
    nodes = [node for node, _ in latest_first]
    gradients = [gradient for _, gradient in latest_first]
    with WALK_LOCK:
        write_gradients(nodes, gradients)
