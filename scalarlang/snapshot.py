"""Saving and restoring stored gradients, for front ends that undo a failed line.

Part of the engine layer: the only place outside ``engine`` that writes a stored gradient.
"""

from __future__ import annotations

from typing import Iterable

from .engine import Scalar

SavedGradients = list[tuple[Scalar, float]]


def save_gradients(nodes: Iterable[Scalar]) -> SavedGradients:
    """The stored gradient of every tracked node among ``nodes``."""
    return [(node, node.gradient) for node in nodes if node.gradient is not None]


def restore_gradients(saved: SavedGradients) -> None:
    """Put back what `save_gradients` saw, latest save first."""
    for node, gradient in reversed(saved):
        node._gradient = gradient
