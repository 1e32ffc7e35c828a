"""The undo journal of an atomic run: what to put back when the input fails or is interrupted.

It keeps each name's FIRST old value and each node's FIRST saved gradient, nothing per
statement: a REPL line that loops a million times rebinding `loss` journals one old `loss`.
Everything is recorded before it is changed, so whatever point an interrupt stops the run
at, putting the journal back restores the state before the input.
"""

from __future__ import annotations

from typing import Iterable

from ..engine.scalar import Scalar
from .labels import survivors
from ..engine.gradients import restore_gradients

MISSING = object()


class Journal:
    __slots__ = ("names", "gradients")

    def __init__(self) -> None:
        self.names: dict[str, object] = {}
        self.gradients: dict[Scalar, float] = {}

    def remember_name(self, name: str, current: dict) -> None:
        if name not in self.names:
            self.names[name] = current.get(name, MISSING)

    def remember_gradients(self, nodes: Iterable[Scalar]) -> None:
        saved = self.gradients
        for node in nodes:
            gradient = node.gradient
            if gradient is not None and node not in saved:
                saved[node] = gradient

    def prune(self, labels) -> None:
        """Forget the saved gradients of nodes nothing can reach any more (the graphs of
        earlier iterations): putting them back would change nothing anyone can see."""
        self.gradients = survivors(self.gradients, (labels.entries, labels.middle, labels.old))

    def undo(self, names: dict) -> None:
        for name, previous in self.names.items():
            if previous is MISSING:
                names.pop(name, None)
            else:
                names[name] = previous
        restore_gradients(list(self.gradients.items()))
        self.names.clear()
        self.gradients.clear()
