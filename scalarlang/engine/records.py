"""The evidence of one reverse pass: per-node and per-edge records.

A pass over a large graph has millions of edges, so the pass keeps flat arrays and builds a
`BackwardNode` or `BackwardEdge` only when one is asked for. Everything that can be derived
exactly is derived: an edge's local derivative is read from its child node, its upstream is
the child's final pass adjoint, and its contribution and "after" value are recomputed with
the same float operations as in the pass, so they are bit-for-bit what the pass saw.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, overload

from .node import WALK_LOCK, NARY_OPERATIONS, write_gradients
from .reprs import BACKWARD_PASS_HTML, display

if TYPE_CHECKING:
    from .node import Node, ScalarOperation


# Records as named tuples, as node.Forward is: immutable, compared and shown by their fields,
# and made at import in a fraction of a dataclass's time (start-up makes these classes).
class BackwardNode(NamedTuple):
    topology_index: int
    operation: ScalarOperation
    value: float
    tracked: bool
    pass_adjoint: float | None
    accumulated_gradient: float | None


class BackwardEdge(NamedTuple):
    reverse_index: int
    child: int
    parent: int
    operand: int
    local_derivative: float
    upstream: float
    contribution: float
    parent_tracked: bool
    parent_adjoint_before: float | None
    parent_adjoint_after: float | None


class BackwardPass:
    """``BackwardPass(seed, nodes, edges)``: the seed, one record per topology entry and one
    per operand edge in visiting order. ``topology`` holds the nodes themselves."""

    __slots__ = (
        "seed",
        "topology",
        "_adjoints",
        "_accumulated",
        "_edge_before",
        "_edges",
        "_walk",
        "_positions",
    )

    seed: float
    topology: Sequence[Any]  # the pass's nodes, Scalars (scalar.py, above this module)
    _adjoints: array[float]
    _accumulated: list[float | None]
    _edge_before: array[float]
    _edges: array[int]
    _walk: object
    _positions: dict[int, int] | None

    def __init__(self) -> None:
        raise TypeError("a BackwardPass is made by Scalar.reverse_pass or Scalar.backward")

    @classmethod
    def _from_walk(cls, seed, order, adjoints, accumulated, edge_before, walk=None) -> BackwardPass:
        # Arrays keep 8 bytes a number instead of a list's 32. ``accumulated`` stays the
        # pass's list (None for untracked nodes): after a commit its floats are the nodes'
        # stored gradients themselves, so it costs 8 bytes a node as well.
        backward_pass = object.__new__(cls)
        backward_pass.seed = seed
        backward_pass.topology = order
        backward_pass._adjoints = array("d", adjoints)
        backward_pass._accumulated = accumulated
        backward_pass._edge_before = array("d", edge_before)
        backward_pass._edges = array("q")  # (child, slot, parent) of the edges indexed so far
        backward_pass._walk = walk
        backward_pass._positions = None
        return backward_pass

    @property
    def nodes(self) -> _PassNodes:
        return _PassNodes(self)

    @property
    def edges(self) -> _PassEdges:
        return _PassEdges(self)

    def _commit(self) -> None:
        """Write every tracked node's prospective gradient (all checked finite already).

        For callers that commit later than the pass; ``Scalar.backward`` commits itself.
        All the writes are one step nothing can split (see ``node.write_gradients``)."""
        with WALK_LOCK:
            write_gradients(self.topology, self._accumulated)  # None for untracked nodes

    def _node(self, index: int) -> BackwardNode:
        node = self.topology[index]
        if node._gradient is None:
            return BackwardNode(index, node._operation, node._value, False, None, None)
        return BackwardNode(
            index,
            node._operation,
            node._value,
            True,
            self._adjoints[index],
            self._accumulated[index],
        )

    def _edge_positions(self, index: int) -> array:
        """``(child, slot, parent)`` of each edge up to ``index`` at least, flat.

        The visiting order is fixed by the topology (children last to first, slots in order),
        so each edge's child, slot and parent index are rebuilt when first asked for, and
        only as far as asked: a table of a pass's first 200 edges indexes about 100 nodes,
        not the million of its graph. A node's edges are added in one step, so an interrupt
        leaves the index whole; the next node to look at follows from its last edge."""
        edges = self._edges
        if 3 * index < len(edges):
            return edges
        topology, position = self.topology, self._position
        child = edges[-3] - 1 if edges else len(topology) - 1
        with WALK_LOCK:  # no walk in another thread re-marks a node between its two reads
            while len(edges) <= 3 * index and child >= 0:
                node = topology[child]
                if node._left is not None:
                    if node._right is not None:
                        edges.extend((child, 0, position(node._left), child, 1, position(node._right)))
                    elif node._operation in NARY_OPERATIONS:  # (one extend: one step)
                        rest = node._dright  # the operands after the first: see Node
                        edges.extend([
                            item
                            for slot, operand in enumerate((node._left, *(edge[0] for edge in rest)))  # type: ignore[attr-defined]
                            for item in (child, slot, position(operand))
                        ])
                    else:
                        edges.extend((child, 0, position(node._left)))
                child -= 1
        return edges

    def _position(self, node: Node) -> int:
        """The node's topology index: the one its walk left on it while no later walk has
        marked it, else from a table of the whole topology, made once."""
        if node._walk is self._walk and self._walk is not None:
            return node._index
        positions = self._positions
        if positions is None:
            positions = self._positions = {id(member): at for at, member in enumerate(self.topology)}
        return positions[id(node)]

    def _edge(self, index: int) -> BackwardEdge:
        edges = self._edge_positions(index)
        at = 3 * index
        child, slot, parent = edges[at], edges[at + 1], edges[at + 2]
        node = self.topology[child]
        if not slot:
            local = node._dleft
        elif node._right is not None:
            local = node._dright
        else:  # an n-ary node's later operand: see Node
            local = node._dright[slot - 1][1]  # type: ignore[index]
        upstream = self._adjoints[child]
        contribution = upstream * local
        if self.topology[parent]._gradient is None:
            return BackwardEdge(index, child, parent, slot, local, upstream, contribution, False, None, None)
        before = self._edge_before[index]
        return BackwardEdge(
            index, child, parent, slot, local, upstream, contribution, True, before, before + contribution
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BackwardPass):
            return NotImplemented
        return (
            _same_float(self.seed, other.seed)
            and list(self.nodes) == list(other.nodes)
            and list(self.edges) == list(other.edges)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"BackwardPass(seed={self.seed!r}, nodes=<{len(self.topology)}>, edges=<{len(self._edge_before)}>)"

    def _repr_html_(self) -> str | None:
        """Jupyter's view: the pass's tables and picture; None until a display is registered."""
        return display(BACKWARD_PASS_HTML, self)


def _same_float(left: float, right: float) -> bool:
    return left == right or (left != left and right != right)


class _RecordView(Sequence):
    """A read-only sequence that builds its records on access."""

    __slots__ = ("_pass",)

    def __init__(self, backward_pass: BackwardPass):
        self._pass = backward_pass

    def _build(self, index: int):  # pragma: no cover - overridden
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int): ...
    @overload
    def __getitem__(self, index: slice) -> list: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._build(i) for i in range(*index.indices(len(self)))]
        length = len(self)
        if index < 0:
            index += length
        if not 0 <= index < length:
            raise IndexError("pass record index out of range")
        return self._build(index)

    def __iter__(self) -> Iterator:
        build = self._build
        return (build(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, _RecordView)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"[{', '.join(map(repr, self))}]"


class _PassNodes(_RecordView):
    __slots__ = ()

    def __len__(self) -> int:
        return len(self._pass.topology)

    def _build(self, index: int) -> BackwardNode:
        return self._pass._node(index)


class _PassEdges(_RecordView):
    __slots__ = ()

    def __len__(self) -> int:
        return len(self._pass._edge_before)

    def _build(self, index: int) -> BackwardEdge:
        return self._pass._edge(index)
