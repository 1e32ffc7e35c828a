"""The undo journal of an atomic run: what to put back when the input fails or is interrupted.

It keeps each name's FIRST old value and each node's FIRST saved gradient, nothing per
statement: a REPL line that loops a million times rebinding `loss` journals one old `loss`.
Everything is recorded before it is changed, so whatever point an interrupt stops the run
at, putting the journal back restores the state before the input.
"""

from __future__ import annotations

import sys
from typing import Iterable

from ..engine.gradients import restore_gradients
from ..engine.scalar import Scalar

MISSING = object()
# The saved gradients are pruned when they have grown to twice their size after the last
# pruning, and never below this many.
PRUNE_MINIMUM = 1_024


class Journal:
    __slots__ = ("names", "gradients", "prune_at")

    def __init__(self) -> None:
        self.names: dict[str, object] = {}
        self.gradients: dict[Scalar, float] = {}
        self.prune_at = PRUNE_MINIMUM

    def remember_name(self, name: str, current: dict) -> None:
        if name not in self.names:
            self.names[name] = current.get(name, MISSING)

    def remember_gradients(self, nodes: Iterable[Scalar]) -> None:
        saved = self.gradients
        for node in nodes:
            gradient = node.gradient
            if gradient is not None and node not in saved:
                saved[node] = gradient
        if len(saved) > self.prune_at:
            self.gradients = survivors(saved)
            self.prune_at = max(PRUNE_MINIMUM, 2 * len(self.gradients))

    def undo(self, names: dict) -> None:
        for name, previous in self.names.items():
            if previous is MISSING:
                names.pop(name, None)
            else:
                names[name] = previous
        restore_gradients(list(self.gradients.items()))
        self.names.clear()
        self.gradients.clear()


def survivors(table: dict) -> dict:
    """Empty ``table``; return its entries whose keys something else refers to, in order:
    the saved gradients of nodes nothing can reach any more (the graphs of earlier
    iterations) are dropped, since putting them back would change nothing anyone can see."""
    if not table:
        return {}
    table[object()] = None
    key, entry = table.popitem()
    baseline = sys.getrefcount(key)
    keys: list = []
    values: list = []
    while table:
        key, entry = table.popitem()
        if sys.getrefcount(key) > baseline:
            keys.append(key)
            values.append(entry)
    key = entry = None
    keys.reverse()
    values.reverse()
    return dict(zip(keys, values))
