"""The passes a session has committed and the `zero_grad`s between them, for ``explain``.

A node's stored gradient is the sum of the pass adjoints committed since its last `zero_grad`;
``explain(X)`` shows that sum, so the session keeps the committed passes (their records hold
their graphs) and the nodes each `zero_grad` zeroed, newest last. Keeping a pass keeps its
graph alive, so the history holds at most `MAX_NODES` nodes of passes in all, dropping the
oldest; a pass larger than that is not kept (explain says so). A session keeps a history only
once something may ask for it (a program that mentions `explain`, the REPL, a notebook):
otherwise a training loop's passes are freed as soon as they are committed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..engine.records import BackwardPass
from ..engine.scalar import Scalar

# The most nodes the kept passes may hold in all (a graph of this size is about 15 MB).
MAX_NODES = 100_000


@dataclass(slots=True)
class KeptPass:
    number: int  # the session's count of committed passes, from 1
    output: str  # the output's label
    backward_pass: BackwardPass
    positions: dict[int, int] | None = None  # id of a node -> its topology index, when first asked

    def index_of(self, node: Scalar) -> int | None:
        if self.positions is None:
            self.positions = {id(member): index for index, member in enumerate(self.backward_pass.topology)}
        return self.positions.get(id(node))


@dataclass(slots=True)
class Zeroed:
    after: int  # the number of the last pass committed before it
    ids: frozenset[int]  # the nodes it zeroed (alive: a kept pass or a name holds them)


class History:
    """The committed passes and `zero_grad`s, newest last, within `MAX_NODES` nodes."""

    __slots__ = ("events", "count", "nodes", "dropped", "skipped")

    def __init__(self) -> None:
        self.events: deque[KeptPass | Zeroed] = deque()
        self.count = 0  # passes committed in the session, kept or not
        self.nodes = 0  # nodes held by the kept passes and zero_grads
        self.dropped = 0  # the number of the newest pass dropped for room (0: none)
        self.skipped: dict[int, int] = {}  # a pass too large to keep -> its size

    def committed(self, backward_pass: BackwardPass, output: str) -> None:
        self.count += 1
        size = len(backward_pass.topology)
        if size > MAX_NODES:
            self.skipped[self.count] = size
            return
        self.events.append(KeptPass(self.count, output, backward_pass))
        self._make_room(size)

    def zeroed(self, nodes: list[Scalar]) -> None:
        ids = frozenset(id(node) for node in nodes if node._gradient is not None)
        self.events.append(Zeroed(self.count, ids))
        self._make_room(len(ids))

    def _make_room(self, added: int) -> None:
        self.nodes += added
        events = self.events
        while self.nodes > MAX_NODES and len(events) > 1:
            oldest = events.popleft()
            if isinstance(oldest, KeptPass):
                self.nodes -= len(oldest.backward_pass.topology)
                self.dropped = max(self.dropped, oldest.number)
            else:
                self.nodes -= len(oldest.ids)

    def newest_first(self):
        return reversed(self.events)
