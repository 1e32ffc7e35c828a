"""The tables of a backward pass (its nodes, then its operand edges in visiting order) and of
a graph, laid out to fit the console's width.

A table too wide for the width is split into narrower tables stacked one above the other,
each led by its key columns, instead of being wrapped; huge graphs show their first rows and
say how many more there are (--json has all).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

from rich.text import Text

from ..engine.numbers import current_digits, decimal_point, format_count, format_number
from ..engine.tensor_shapes import show_shape
from ..engine.tensor_formulas import tensor_edges
from ..engine.tensor_node import TensorNode
from ..engine.tensor_operations import TensorOperation
from ..interpreter.outcomes import BackwardShown, GraphShown
from .styles import STYLES

LABEL_WIDTH = 24


def pass_tables(shown: BackwardShown, width: int, row_limit: int) -> Iterator[list[Text]]:
    """The pass in the order it is printed: its heading, the node table, the edge table and
    the counts, each made as the one before it is printed."""
    backward_pass = shown.backward_pass
    nodes, edges, labels = backward_pass.nodes, backward_pass.edges, shown.labels
    operations, counts = shown.operations, shown.counts
    yield [
        Text.assemble(
            "backward from ", (shown.label, STYLES["label"]), f" with seed {format_number(backward_pass.seed)}"
        )
    ]
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
    yield _titled_table("nodes", _NODE_COLUMNS, rows, len(nodes), width)
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
    table = _titled_table("edges, in reverse order", _EDGE_COLUMNS, rows, len(edges), width)
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
    yield [Text.assemble("forward graph of ", (shown.label, STYLES["label"]), " (values only: the walk computes the rest)")]
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
    yield _titled_table(None, _FORWARD_COLUMNS, rows, len(nodes), width)
    yield [Text(node_and_edge_counts(len(nodes), edge_count))]


def graph_tables(shown: GraphShown, width: int, row_limit: int) -> Iterator[list[Text]]:
    """The graph in the order it is printed: its heading, its node table and the counts."""
    yield [Text.assemble("graph of ", (shown.label, STYLES["label"]))]
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
    yield _titled_table(None, _GRAPH_COLUMNS, rows, len(shown.nodes), width)
    yield [Text(node_and_edge_counts(len(shown.nodes), shown.edge_count))]


def node_and_edge_counts(nodes: int, edges: int) -> str:
    """``3 unique nodes, 4 operand edges``."""
    return f"{nodes} unique {'node' if nodes == 1 else 'nodes'}, {edges} operand {'edge' if edges == 1 else 'edges'}"


def _titled_table(title: str | None, columns: list[_Column], rows: list[list[str]], total: int, width: int) -> list[Text]:
    texts = [] if title is None else [Text(title, STYLES["dim"])]
    texts += _table_lines(columns, rows, width)
    if total > len(rows):
        texts.append(Text(f"... {total - len(rows)} more rows not shown (--json lists them all)", STYLES["dim"]))
    return texts


@dataclass(frozen=True, slots=True)
class _Column:
    header: str
    kind: str  # "label": shrinks to fit; "number": right-aligned, never cut; "text": left, never cut
    # A key column leads every block of a table split in two (default: `#` and the first label).
    key: bool = False
    # A cell's style from its text (a verdict's colour), instead of the kind's.
    style: Callable[[str], str] | None = None


# Labels up to this many characters are never cut: a table that does not fit with them whole
# is split into blocks instead. Only when a block alone cannot fit are they cut further.
_LABEL_KEEP = 12
_LABEL_MIN = 4


def _layout(columns: list[_Column], rows: list[list[str]], width: int, floor: int = _LABEL_MIN) -> tuple[list[int], int]:
    """Column widths and the gap between columns that fit ``width`` where possible.

    Numbers and headers are never cut: the gap narrows to one space first, then label columns
    longer than ``_LABEL_KEEP`` shrink to it (widest first), then, down to ``floor``, all labels.
    """
    widths = _natural_widths(columns, rows)
    for gap in (2, 1):
        if _total(widths, gap) <= width:
            return widths, gap
    excess = _total(widths, 1) - width
    labels = [i for i, column in enumerate(columns) if column.kind == "label"]
    for limit in (max(_LABEL_KEEP, floor), floor):
        while excess > 0:
            widest = max(labels, key=lambda i: widths[i], default=None)
            smallest = limit if widest is None else max(limit, len(columns[widest].header))
            if widest is None or widths[widest] <= smallest:
                break
            widths[widest] -= 1
            excess -= 1
    return widths, 1


def _total(widths: list[int], gap: int) -> int:
    return sum(widths) + gap * (len(widths) - 1)


def _natural_widths(columns: list[_Column], rows: list[list[str]]) -> list[int]:
    return [max([len(column.header)] + [len(row[i]) for row in rows]) for i, column in enumerate(columns)]


def _cell(text: str, width: int, column: _Column) -> str:
    if len(text) > width:
        text = text[: max(0, width - 1)] + "…"
    return text.rjust(width) if column.kind == "number" else text.ljust(width)


def _table_lines(columns: list[_Column], rows: list[list[str]], width: int, wrap: bool = False,
                 records: bool = False) -> list[Text]:
    """The table's lines. One too wide for ``width`` with its labels kept to ``_LABEL_KEEP``
    characters is split into narrower tables stacked one above the other, each led by the key
    columns, so no line is wider than ``width`` (unless the keys and one column alone are).
    With ``wrap``, a label longer than its column goes on over the row's next lines, whole,
    instead of being cut with `…`. With ``records``, a table that would split into a block of
    one column beside the keys (each block repeating every label for one value) is a record
    per row instead (`_record_lines`)."""
    plain_rows = rows
    rows = _aligned_numbers(columns, rows)
    widths, gap = _layout(columns, rows, width, floor=_LABEL_KEEP)
    if _total(widths, gap) <= width:
        return _block(columns, rows, widths, gap, wrap)
    groups = _column_groups(columns, rows, width)
    if records and any(len(group) - len(_keys(columns)) < 2 for group in groups):
        return _record_lines(columns, plain_rows, width)
    lines = []
    for group in groups:
        part_columns = [columns[i] for i in group]
        part_rows = [[row[i] for i in group] for row in rows]
        lines.extend(_block(part_columns, part_rows, *_layout(part_columns, part_rows, width), wrap))
    return lines


_NUMBER = re.compile(r"-?(\d+(\.\d*)?(e[-+]?\d+)?|inf|nan)")


def _aligned_numbers(columns: list[_Column], rows: list[list[str]]) -> list[list[str]]:
    """Rows whose number columns are padded so that the decimal points line up."""
    rows = [list(row) for row in rows]
    for index, column in enumerate(columns):
        if column.kind == "number":
            aligned = align_on_point([row[index] for row in rows])
            for row, text in zip(rows, aligned):
                row[index] = text
    return rows


def align_on_point(texts: list[str]) -> list[str]:
    """Numbers padded on both sides so their decimal points (or where one would be) share a
    column when right-aligned; other texts (``untracked``, ``-``) are left as they are. With a
    fixed number of decimals (``--digits``) right alignment does that already: unchanged, so
    ``--digits 12`` prints what the chapter's style always printed."""
    numbers = [text for text in texts if _NUMBER.fullmatch(text)]
    if not numbers:
        return texts
    if current_digits() is not None:
        widest = max(map(len, numbers))
        return [text.rjust(widest) if _NUMBER.fullmatch(text) else text for text in texts]
    before = max(decimal_point(text) for text in numbers)
    after = max(len(text) - decimal_point(text) for text in numbers)
    return [
        (" " * (before - decimal_point(text)) + text).ljust(before + after) if _NUMBER.fullmatch(text) else text
        for text in texts
    ]


def _column_groups(columns: list[_Column], rows: list[list[str]], width: int) -> list[list[int]]:
    """Column indices of each stacked table: the key columns, then as many others as fit in
    order (labels counted at most ``LABEL_WIDTH`` wide, columns one space apart)."""
    natural = [
        min(size, LABEL_WIDTH) if column.kind == "label" else size
        for column, size in zip(columns, _natural_widths(columns, rows))
    ]
    keys = _keys(columns)
    key_width = sum(natural[i] for i in keys) + len(keys) - 1
    groups: list[list[int]] = []
    current: list[int] = []
    used = key_width
    for index in range(len(columns)):
        if index in keys:
            continue
        if current and used + 1 + natural[index] > width:
            groups.append(sorted(keys + current))
            current, used = [], key_width
        current.append(index)
        used += 1 + natural[index]
    groups.append(sorted(keys + current))
    return groups


def _keys(columns: list[_Column]) -> list[int]:
    chosen = [i for i, column in enumerate(columns) if column.key]
    if chosen:
        return chosen
    first_label = next((i for i, column in enumerate(columns) if column.kind == "label"), 0)
    return sorted({0, first_label})


def _block(columns: list[_Column], rows: list[list[str]], widths: list[int], gap: int,
           wrap: bool = False) -> list[Text]:
    spacer = " " * gap
    header = spacer.join(_cell(c.header, w, c) for c, w in zip(columns, widths)).rstrip()
    lines = [Text(header, STYLES["header"]), Text("─" * _total(widths, gap), STYLES["dim"])]
    for row in rows:
        spilled = next((index for index, (text, column, column_width) in enumerate(zip(row, columns, widths))
                        if wrap and column.kind == "label" and len(text) > column_width), None)
        if spilled is not None:  # the label whole, on lines of its own, then the other cells
            lines.extend(_spilled(row, columns, widths, gap, spilled))
            row = [""] * (spilled + 1) + row[spilled + 1:]
        lines.append(_row_line(row, columns, widths, spacer))
    return lines


def _row_line(row: list[str], columns: list[_Column], widths: list[int], spacer: str) -> Text:
    line = Text()
    for index, (text, column, column_width) in enumerate(zip(row, columns, widths)):
        if index:
            line.append(spacer)
        cell = _cell(text, column_width, column)
        if index == len(columns) - 1:
            cell = cell.rstrip()
        style = column.style(text) if column.style is not None and text else ""
        line.append(cell, style or (STYLES["label"] if column.kind == "label" else ""))
    line.rstrip()
    return line


def _spilled(row: list[str], columns: list[_Column], widths: list[int], gap: int, at: int) -> list[Text]:
    """The lines that show the label in column ``at`` whole, as wide as the table allows from
    its column on (broken after a space where it must be), led by the cells before it: the row's
    other cells follow on a line of their own."""
    indent = sum(widths[:at]) + gap * at
    pieces = _wrapped(row[at], max(widths[at], _total(widths, gap) - indent))
    lines = []
    for number, piece in enumerate(pieces):
        line = _row_line(row[:at], columns[:at], widths[:at], " " * gap) if number == 0 and at else Text()
        line.append(" " * (indent - len(line.plain)))
        line.append(piece, STYLES["label"])
        lines.append(line)
    return lines


# A record's fields are indented under its key line; a value too long for its line goes on
# under the field, indented once more.
_FIELD_INDENT = "  "
_VALUE_INDENT = "    "


def _record_lines(columns: list[_Column], rows: list[list[str]], width: int) -> list[Text]:
    """A row per record, for a width too narrow for the table: its key cells on a line (``#2
    X @ W``, the label whole, wrapped under itself where it must be), then each other column
    on a line of its own, ``operation: matmul``."""
    keys = _keys(columns)
    lines = []
    for row in rows:
        lead = "".join(f"#{row[i]} " for i in keys if columns[i].kind == "number")
        label = " ".join(row[i] for i in keys if columns[i].kind != "number")
        for number, piece in enumerate(_wrapped(label, max(1, width - len(lead)))):
            lines.append(Text.assemble(lead if number == 0 else " " * len(lead), (piece, STYLES["label"])))
        for index, column in enumerate(columns):
            if index in keys:
                continue
            text = row[index]
            style = column.style(text) if column.style is not None and text else ""
            style = style or (STYLES["label"] if column.kind == "label" else "")
            name = f"{_FIELD_INDENT}{column.header}: "
            if len(name) + len(text) <= width:
                lines.append(Text.assemble((name, STYLES["header"]), (text, style)))
                continue
            lines.append(Text(name.rstrip(), STYLES["header"]))
            for piece in _wrapped(text, max(1, width - len(_VALUE_INDENT))):
                lines.append(Text.assemble(_VALUE_INDENT, (piece, style)))
    return lines


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` in pieces of at most ``width`` characters, broken after a space where there is
    one, else cut hard."""
    pieces = []
    while len(text) > width:
        at = text.rfind(" ", 1, width + 1)
        if at <= 0:
            pieces.append(text[:width])
            text = text[width:]
        else:
            pieces.append(text[:at])
            text = text[at + 1:]
    pieces.append(text)
    return pieces


_NODE_COLUMNS = [
    _Column("#", "number"),
    _Column("node", "label"),
    _Column("operation", "text"),
    _Column("value", "number"),
    _Column("pass adjoint", "number"),
    _Column("gradient", "number"),
]
# Split in two, the second block shows whose adjoint changes: `#`, the operand, its adjoint.
_EDGE_COLUMNS = [
    _Column("#", "number", key=True),
    _Column("consumer", "label"),
    _Column("slot", "number"),
    _Column("operand", "label", key=True),
    _Column("local", "number"),
    _Column("upstream", "number"),
    _Column("contribution", "number"),
    _Column("operand adjoint", "number"),
]
_FORWARD_COLUMNS = [
    _Column("#", "number"),
    _Column("node", "label"),
    _Column("operation", "text"),
    _Column("value", "number"),
    _Column("operands", "text"),
]
_GRAPH_COLUMNS = [
    _Column("#", "number"),
    _Column("node", "label"),
    _Column("operation", "text"),
    _Column("value", "number"),
    _Column("operands", "text"),
    _Column("gradient", "number"),
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
