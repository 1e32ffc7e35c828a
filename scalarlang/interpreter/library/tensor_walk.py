"""``walk(OUT[, SEED])``: `backward`'s pass and commit (graphs.py), shown edge by edge over a
graph of scalar nodes and node by node over a graph holding tensor nodes.

A tensor edge is one VJP standing for many scalar edges, and the pass over such a graph keeps
no per-edge records, so its walk goes through the nodes the pass visits (tracked, with operand
edges), from the output back: each with the adjoint that reached it and each operand edge as
`explain(T)` shows it (the VJP's formula, the shapes, the scalar edges it stands for), with
the contribution it adds to its operand (the VJP applied again to the node's adjoint from the
pass: a pure function of it) and the operand's adjoint after it, added in the pass's order, so
that the last contribution leaves each adjoint as the pass's tables show it, bit for bit.
"""

from __future__ import annotations

from operator import add
from typing import TYPE_CHECKING, Any, Sequence

from ...engine.tensor_node import TensorNode
from ...engine.tensor_operations import TensorOperation
from ...engine.tensor_passes import TensorBackwardPass
from ...language import tree
from ..outcomes import WalkShown
from ..tensor_outcomes import TensorEdge
from ..tensor_outcomes import TensorWalkEdge, TensorWalkStep
from .graphs import backward_outcome, compile_backward, unique_labels, walk_outcome
from .tensor_chain_rule import edge_of, summarised

if TYPE_CHECKING:
    from ..context import Running


def compile_walk(run: Running, statement: tree.ExprStatement, call: tree.Call):
    return compile_backward(run, statement, call, walk=any_walk_outcome)


def any_walk_outcome(span, label: str, backward_pass) -> WalkShown:
    if isinstance(backward_pass, TensorBackwardPass):
        return tensor_walk_outcome(span, label, backward_pass)
    return walk_outcome(span, label, backward_pass)


def walked_nodes(topology: Sequence[Any]) -> list[int]:
    """The topology indices of the nodes a pass visits with edges to pass an adjoint on (tracked,
    with operands), from the output back: a tensor walk's steps."""
    return [index for index in range(len(topology) - 1, -1, -1)
            if topology[index]._gradient is not None and topology[index]._left is not None]


def tensor_walk_outcome(span, label: str, backward_pass: TensorBackwardPass) -> WalkShown:
    topology = backward_pass.topology
    labels = unique_labels(topology)
    last = len(topology) - 1
    position = {id(node): index for index, node in enumerate(topology)}
    running: dict[int, Any] = {}  # each operand's adjoint so far, summed in the pass's order
    counts: dict[int, int] = {}
    steps = []
    for number, index in enumerate(walked_nodes(topology)):
        node = topology[index]
        upstream = backward_pass.adjoint(index)
        edges = []
        for slot, (operand, local, contribution) in enumerate(_edges(node, upstream)):
            parent = position[id(operand)]
            after = None
            if contribution is not None:
                previous = running.get(parent)
                if previous is None:
                    running[parent] = 0.0 + contribution if contribution.__class__ is float else list(contribution)
                elif previous.__class__ is float:
                    running[parent] = previous + contribution
                else:
                    running[parent] = list(map(add, previous, contribution))
                counts[parent] = counts.get(parent, 0) + 1
                after = _summary(running[parent], operand)
            edge = _edge(node, slot, labels[index], labels[parent], local, _summary(contribution, operand))
            edges.append(TensorWalkEdge(edge, parent, local, after, counts.get(parent, 0)))
        steps.append(TensorWalkStep(
            number, index, labels[index], str(node.operation), getattr(node, "_shape", ()),
            _summary(upstream, node), index == last, tuple(edges),
        ))
    return WalkShown(span, backward_outcome(span, label, backward_pass), (), tuple(steps))


def _edges(node: Any, upstream: Any) -> list[tuple[Any, float | None, Any]]:
    """Each operand edge of ``node``: (operand, local derivative or None for a VJP, the
    contribution it passes on, None to an untracked operand: the pass computes none)."""
    if node._operation.__class__ is TensorOperation:
        given = upstream if upstream.__class__ is float else list(upstream)
        return [(operand, None, vjp(given) if operand._gradient is not None else None)
                for operand, vjp in ((node._left, node._dleft), *node._dright)]
    return [(edge.parent, edge.local_derivative,
             upstream * edge.local_derivative if edge.parent._gradient is not None else None)
            for edge in node.parents]


def _edge(node: Any, slot: int, label: str, operand: str, local: float | None, contribution) -> TensorEdge:
    """The edge as `explain(T)` shows it, with the walk's labels (a label two nodes share gets
    the topology index); a scalar operation's edge is one scalar edge (no shapes, no formula:
    upstream × local)."""
    if local is None:
        made = edge_of(node, slot, contribution)
        return TensorEdge(label, slot, operand, made.shapes, made.formula, made.scalar_edges, made.edge_kind,
                          made.operand_tracked, contribution)
    tracked = contribution is not None
    return TensorEdge(label, slot, operand, "", "upstream × local", 1, "scalar", tracked, contribution)


def _summary(value: Any, node: Any):
    if value is None:
        return None
    if isinstance(node, TensorNode):
        return summarised(list(value), node._shape)
    return summarised([float(value)], ())

