"""The tables of a backward pass (its nodes, then its operand edges in visiting order) and of
a graph, and a walk's forward graph: their headings, rows and counts. table_layout.py fits each
table to the console's width; huge graphs show their first rows and say how many more there
are (--json has all).
"""

from __future__ import annotations

from typing import Iterator

from rich.text import Text

from ..engine.numbers import format_count, format_number
from ..engine.tensor_shapes import show_shape
from ..engine.tensor_formulas import tensor_edges
from ..engine.tensor_node import TensorNode
from ..engine.tensor_operations import TensorOperation
from ..interpreter.outcomes import BackwardShown, GraphShown
from .styles import STYLES
from .table_layout import Column, align_on_point, titled_table
from .wrapping import sentence


def pass_tables(shown: BackwardShown, width: int, row_limit: int) -> Iterator[list[Text]]:
    """The pass in the order it is printed: its heading, the node table, the edge table and
    the counts, each made as the one before it is printed."""
    backward_pass = shown.backward_pass
    nodes, edges, labels = backward_pass.nodes, backward_pass.edges, shown.labels
    operations, counts = shown.operations, shown.counts
    yield sentence(["backward from ", Text(shown.label, STYLES["label"]), f" with seed {format_number(backward_pass.seed)}"],
                   width)
    topology = backward_pass.topology
    rows = [
        [
            str(record.topology_index),
            labels[record.topology_index],
            operations[record.topology_index],
            format_count(record.value) if record.topology_index in counts
            else value_cell(record.value, _shape(topology[record.topology_index])),
            _optional(record.pass_adjoint, _shape(topology[record.topology_index])),
            _optional(record.accumulated_gradient, _shape(topology[record.topology_index])),
        ]
        for record in _limited(nodes, row_limit)
    ]
    yield titled_table("nodes", _NODE_COLUMNS, rows, len(nodes), width)
    if not edges and topology and _holds_tensors(topology):
        # A pass over tensor nodes keeps no per-edge records: one tensor edge is many.
        yield [Text(_TENSOR_EDGES, STYLES["dim"])]
        yield [Text(node_and_edge_counts(len(nodes), _edge_count(topology)))]
        return
    shown_edges = _limited(edges, row_limit)
    # An untracked consumer gets no adjoint from the pass (the records say 0), so nothing
    # flows out along its edges: say so rather than show zeros (--json keeps the records).
    tracked = {edge.child: nodes[edge.child].tracked for edge in shown_edges}
    rows = [
        [
            str(edge.reverse_index),
            labels[edge.child],
            str(edge.operand),
            labels[edge.parent],
            format_number(edge.local_derivative),
            *(
                (format_number(edge.upstream), format_number(edge.contribution))
                if tracked[edge.child]
                else ("untracked", "untracked")
            ),
        ]
        for edge in shown_edges
    ]
    for row, adjoint in zip(rows, _adjoint_changes(shown_edges)):
        row.append(adjoint)
    table = titled_table("edges, in reverse order", _EDGE_COLUMNS, rows, len(edges), width)
    if not all(tracked.values()):
        table.append(Text(_UNTRACKED_LEGEND, STYLES["dim"]))
    yield table
    yield [Text(node_and_edge_counts(len(nodes), len(edges)))]


_TENSOR_EDGES = ("edges: a tensor operation's edge is one VJP standing for many scalar edges; "
                 "`explain(T)` shows each with its formula")


def _shape(node: object) -> tuple[int, ...]:
    return getattr(node, "_shape", ())  # a tensor node's; a scalar node has none


def _holds_tensors(topology) -> bool:
    return any(isinstance(node, TensorNode) for node in topology)


def _operands(node) -> list:
    """A node's operands in slot order: a tensor operation's (its edges are VJPs) too."""
    if isinstance(node, TensorNode) or node._operation.__class__ is TensorOperation:
        return [operand for operand, _ in tensor_edges(node)]
    return [edge.parent for edge in node.parents]


def _edge_count(topology) -> int:
    count = 0
    for node in topology:
        count += len(_operands(node))
    return count


# A tensor's cell in a table: its shape and its first values.
CELL_VALUES = 2


def value_cell(value: float | tuple[float, ...], shape: tuple[int, ...] = ()) -> str:
    """A number, or a tensor node's values in a cell: ``[2, 2] 1, 2, …``."""
    if not isinstance(value, tuple):
        return format_number(value)
    first = ", ".join(format_number(number) for number in value[:CELL_VALUES])
    return f"{show_shape(shape)} {first}" + (", …" if len(value) > CELL_VALUES else "")


_UNTRACKED_LEGEND = "untracked upstream: an untracked consumer (no variable below it) has no pass adjoint to send back"


def forward_tables(shown: BackwardShown, width: int, row_limit: int) -> Iterator[list[Text]]:
    """A walk's start: the graph as the forward pass left it (each node's value and its
    operands, by topology index), no adjoint and no gradient, which the walk's steps compute."""
    backward_pass = shown.backward_pass
    nodes, labels, counts = backward_pass.nodes, shown.labels, shown.counts
    topology = backward_pass.topology
    operands: dict[int, list[tuple[int, int]]] = {}
    for edge in backward_pass.edges:
        operands.setdefault(edge.child, []).append((edge.operand, edge.parent))
    edge_count = len(backward_pass.edges)
    if not backward_pass.edges and topology and _holds_tensors(topology):  # (no per-edge records)
        edge_count = _edge_count(topology)
        positions = {id(node): index for index, node in enumerate(topology)}
        for index, node in enumerate(topology):
            operands[index] = [(slot, positions[id(operand)]) for slot, operand in enumerate(_operands(node))]
    yield sentence(["forward graph of ", Text(shown.label, STYLES["label"]), " (values only: the walk computes the rest)"],
                   width)
    rows = [
        [
            str(record.topology_index),
            labels[record.topology_index],
            shown.operations[record.topology_index],
            format_count(record.value) if record.topology_index in counts
            else value_cell(record.value, _shape(topology[record.topology_index])),
            ", ".join(str(parent) for _, parent in sorted(operands.get(record.topology_index, []))) or "-",
        ]
        for record in _limited(nodes, row_limit)
    ]
    yield titled_table(None, _FORWARD_COLUMNS, rows, len(nodes), width)
    yield [Text(node_and_edge_counts(len(nodes), edge_count))]


def graph_tables(shown: GraphShown, width: int, row_limit: int) -> Iterator[list[Text]]:
    """The graph in the order it is printed: its heading, its node table and the counts."""
    yield sentence(["graph of ", Text(shown.label, STYLES["label"])], width)
    rows = [
        [
            str(node.index),
            node.label,
            node.operation,
            format_count(node.value) if node.count and not node.shape else value_cell(node.value, node.shape),
            ", ".join(map(str, node.operands)) or "-",
            _optional(node.gradient, node.shape),
        ]
        for node in _limited(shown.nodes, row_limit)
    ]
    yield titled_table(None, _GRAPH_COLUMNS, rows, len(shown.nodes), width)
    yield [Text(node_and_edge_counts(len(shown.nodes), shown.edge_count))]


def node_and_edge_counts(nodes: int, edges: int) -> str:
    """``3 unique nodes, 4 operand edges``."""
    return f"{nodes} unique {'node' if nodes == 1 else 'nodes'}, {edges} operand {'edge' if edges == 1 else 'edges'}"


_NODE_COLUMNS = [
    Column("#", "number"),
    Column("node", "label"),
    Column("operation", "text"),
    Column("value", "number"),
    Column("pass adjoint", "number"),
    Column("gradient", "number"),
]
# Split in two, the second block shows whose adjoint changes: `#`, the operand, its adjoint.
_EDGE_COLUMNS = [
    Column("#", "number", key=True),
    Column("consumer", "label"),
    Column("slot", "number"),
    Column("operand", "label", key=True),
    Column("local", "number"),
    Column("upstream", "number"),
    Column("contribution", "number"),
    Column("operand adjoint", "number"),
]
_FORWARD_COLUMNS = [
    Column("#", "number"),
    Column("node", "label"),
    Column("operation", "text"),
    Column("value", "number"),
    Column("operands", "text"),
]
_GRAPH_COLUMNS = [
    Column("#", "number"),
    Column("node", "label"),
    Column("operation", "text"),
    Column("value", "number"),
    Column("operands", "text"),
    Column("gradient", "number"),
]


def _adjoint_changes(edges) -> list[str]:
    """``before → after`` per edge, both sides aligned down the column; or ``untracked``."""
    pairs = [
        (format_number(edge.parent_adjoint_before), format_number(edge.parent_adjoint_after))
        if edge.parent_tracked
        else None
        for edge in edges
    ]
    befores = iter(align_on_point([pair[0] for pair in pairs if pair]))
    afters = iter(align_on_point([pair[1] for pair in pairs if pair]))
    return [f"{next(befores)} → {next(afters)}".rstrip() if pair else "untracked" for pair in pairs]


def _limited(records, limit: int):
    return records[:limit] if len(records) > limit else records


def _optional(value: float | tuple[float, ...] | None, shape: tuple[int, ...] = ()) -> str:
    return "untracked" if value is None else value_cell(value, shape)
