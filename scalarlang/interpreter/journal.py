"""The undo journal of an atomic run: what to put back when the input fails or is interrupted.

It keeps each name's FIRST old value and each node's FIRST saved gradient, nothing per
statement: a REPL line that loops a million times rebinding `loss` journals one old `loss`.
Everything is recorded before it is changed, so whatever point an interrupt stops the run
at, putting the journal back restores the state before the input.

Which gradients matter: those of the nodes the bindings the input started with can reach
(the old values the journal keeps, and the names the input has not bound). A node made by
the input is out of their reach (a node refers only to its operands, made before it), so
once the names are put back nothing can show it again. A pass does not say which of its nodes
are old, so the journal saves them all; when the saved table has doubled since it was last
looked at, it keeps only the nodes those bindings reach (one walk of their tracked nodes, at
most once per input). A loop of a million iterations so keeps at most a few iterations'
graphs alive, and the engine's nodes carry nothing for it (a weak reference to each would
cost every node 8 bytes: measured, 10-20% slower passes over graphs of 200,000 nodes and
more). The table is rebuilt, never emptied in place, so an interrupt leaves it whole.
"""

from __future__ import annotations

from typing import Any, Iterable, cast

from ..engine.gradients import restore_gradients
from ..engine.scalar import Scalar
from .reached import Reached
from .values import nodes_of

MISSING = object()
# The saved gradients are looked at when they have grown to twice their number after the
# last look, and never below this many.
PRUNE_MINIMUM = 1_024


class Journal:
    __slots__ = ("bindings", "names", "gradients", "prune_at", "older", "random", "random_state", "reached", "reached_ids")

    def __init__(self, bindings: dict, random: Any = None, reached: Reached | None = None) -> None:
        self.bindings = bindings  # the session's names, as the input changes them
        # The session's generator and its state before the input (about 2.5 KB, taken once):
        # draws and `random_seed` are undone with the rest.
        self.random = random
        self.random_state = random.getstate() if random is not None else None
        # Which variables passes reached (`descend`'s warning): an immutable set, kept as is.
        self.reached = reached
        self.reached_ids = reached.ids if reached is not None else None
        self.names: dict[str, object] = {}
        self.gradients: dict[Scalar, float] = {}
        self.prune_at = PRUNE_MINIMUM
        # The ids of the tracked nodes the starting bindings reach, once they are needed (the
        # nodes stay alive through the input: the bindings or the journal hold them).
        self.older: set[int] | None = None

    def remember_name(self, name: str) -> None:
        if name not in self.names:
            self.names[name] = self.bindings.get(name, MISSING)

    def remember_gradients(self, nodes: Iterable[Scalar]) -> None:
        saved = self.gradients
        for node in nodes:
            gradient = node.gradient
            if gradient is not None and node not in saved:
                saved[node] = gradient
        if len(saved) > self.prune_at:
            older = self._older()
            kept = {node: gradient for node, gradient in saved.items() if id(node) in older}
            self.gradients = kept
            self.prune_at = max(PRUNE_MINIMUM, 2 * len(kept))

    def _older(self) -> set[int]:
        if self.older is None:
            journaled = self.names
            roots = [value for name, value in self.bindings.items() if name not in journaled]
            roots.extend(journaled.values())
            self.older = tracked_reach(roots)
        return self.older

    def undo(self) -> None:
        """Put everything back. A second interrupt meanwhile does not stop it half-way: the
        undo starts again (each step puts a value back, so doing one twice is harmless) and
        the interrupt is raised once it is done."""
        interrupted: KeyboardInterrupt | None = None
        while True:
            try:
                self._put_back()
                break
            except KeyboardInterrupt as error:
                interrupted = error
        if interrupted is not None:
            raise interrupted

    def _put_back(self) -> None:
        bindings = self.bindings
        for name, previous in list(self.names.items()):
            if previous is MISSING:
                bindings.pop(name, None)
            else:
                bindings[name] = previous
        restore_gradients(list(self.gradients.items()))
        if self.random is not None:
            self.random.setstate(self.random_state)
        if self.reached is not None:
            self.reached.ids = cast(frozenset, self.reached_ids)
        self.names = {}
        self.gradients = {}


def tracked_reach(roots: Iterable[object]) -> set[int]:
    """The ids of the tracked nodes among ``roots`` (any values) and their operands, at any
    depth. An untracked node's operands are all untracked (the engine's rule), so the walk
    stops there."""
    reached: set[int] = set()
    stack = [node for root in roots for node, _ in nodes_of(root) if node.tracks_gradient]
    while stack:
        node = stack.pop()
        if id(node) not in reached:
            reached.add(id(node))
            stack.extend(edge.parent for edge in node.parents if edge.parent.tracks_gradient)
    return reached
