"""What `walk` shows of a graph holding tensor nodes: plain data, as every outcome
(outcomes.py's `WalkShown` holds these steps in place of `WalkStep`s).

A tensor edge is one VJP standing for many scalar edges, so such a walk goes a node at a time,
from the output back, as the pass visits them: the node, the adjoint that reached it, and each
of its operand edges with the contribution it adds to its operand (many numbers summarised as
`explain(T)` summarises them: shape, first values, the largest magnitude and where it is).
"""

from __future__ import annotations

from ..language.plain_data import PlainData
from .tensor_outcomes import TensorEdge, TensorSummary


class TensorWalkEdge(PlainData):
    """One operand edge of a walked node: ``edge`` as `explain(T)` shows it (the VJP's formula,
    the shapes, the scalar edges it stands for; its ``contribution`` None when the operand is
    untracked), ``operand_index`` the operand's topology index; a scalar operation's edge has
    its ``local`` derivative (its contribution is upstream × local); ``after``: the operand's
    pass adjoint once this edge has added to it, the ``count``-th contribution it received."""

    __slots__ = __match_args__ = ("edge", "operand_index", "local", "after", "count")

    def __init__(self, edge: TensorEdge, operand_index: int, local: float | None, after: TensorSummary | None,
                 count: int) -> None:
        self.edge = edge
        self.operand_index = operand_index
        self.local = local
        self.after = after
        self.count = count


class TensorWalkStep(PlainData):
    """One node of a walked pass over a graph holding tensors, in the pass's order (from the
    output back): its topology index (``position``), label, operation and shape (``()`` for a
    scalar node), the adjoint that reached it (``seeded``: it is the output, its adjoint is the
    seed) and its operand edges, slot by slot."""

    __slots__ = __match_args__ = ("index", "position", "node", "operation", "shape", "adjoint", "seeded", "edges")

    def __init__(self, index: int, position: int, node: str, operation: str, shape: tuple[int, ...],
                 adjoint: TensorSummary, seeded: bool, edges: tuple[TensorWalkEdge, ...]) -> None:
        self.index = index
        self.position = position
        self.node = node
        self.operation = operation
        self.shape = shape
        self.adjoint = adjoint
        self.seeded = seeded
        self.edges = edges
