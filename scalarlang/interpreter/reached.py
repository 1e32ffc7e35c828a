"""Which variables a committed backward pass reached since they were made or zeroed, so that
`descend` can warn when it steps by gradients no pass wrote (a training loop that forgot
`backward` prints the same loss forever).

A gradient of 0 says nothing by itself: a pass may reach a variable and add 0 to it (`w * 0`).
So the session keeps the identities of the tracked leaves (variables) in the graphs of the
passes it committed, taken from each pass's topology after its commit (one scan of nodes the
pass has just walked: measured, about 3% of a pass over a graph of 24,000 nodes). Forgotten
again when the variable is zeroed (`zero_grad`, which walks the graph it zeroes only while the
set holds something) or stepped by `descend` (its old variables; its fresh ones no pass has
reached), so a training loop keeps about one step's variables. Identities, not nodes: the set keeps nothing alive,
and the engine's nodes carry nothing for it. An identity freed and reused by a new variable
could hide a warning, never make a false one; the set is emptied when it grows past `LIMIT`
(a loop making fresh variables that it never steps nor zeroes), which could at worst make one.
"""

from __future__ import annotations

from typing import Iterable

from ..engine.scalar import Scalar

# The most identities kept; past it the set starts again empty.
LIMIT = 1 << 20


class Reached:
    """``ids`` is a frozenset, replaced at each change, never changed in place: an undo journal
    keeps the one it started with and puts it back (a REPL input that ran `backward` and then
    failed reached nothing), at no cost per statement."""

    __slots__ = ("ids",)

    def __init__(self) -> None:
        self.ids: frozenset[int] = frozenset()

    def committed(self, topology: Iterable[Scalar]) -> None:
        """A pass over ``topology`` was committed: its variables were reached."""
        ids = self.ids if len(self.ids) <= LIMIT else frozenset()
        self.ids = ids.union([id(node) for node in topology if node._left is None and node._gradient is not None])

    def forget(self, nodes: Iterable[Scalar]) -> None:
        """``nodes`` were zeroed, stepped or are new: no pass has reached them since."""
        if self.ids:
            self.ids = self.ids.difference([id(node) for node in nodes])

    def clear(self) -> None:
        """Every node a name reaches was zeroed (`zero_grad` alone)."""
        self.ids = frozenset()

    def __contains__(self, node: Scalar) -> bool:
        return id(node) in self.ids
