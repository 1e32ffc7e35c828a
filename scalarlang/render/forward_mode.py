"""``tangents`` and ``jacobian`` as text: forward mode beside reverse mode.

The trace is one line per node in the order the forward pass visited it, operands first:

    tangents of y along x: one forward pass, operands before results
      [0] x       variable   3  ṫ = 1 (input)
      [1] square  mul        9  ṫ = 3 × 1 + 3 × 1 = 6
      [2] y       add       18  ṫ = 1 × 6 + 1 × 6 = 12
    dy/dx = 12 (1 forward pass: 3 nodes visited)

each non-leaf tangent the sum over its edges of local derivative × operand tangent (a repeated
operand is a term per edge), wrapped before a `+` when it does not fit. Every number goes
through the one formatter.
"""

from __future__ import annotations

from rich.text import Text

from ..engine.numbers import format_number
from ..interpreter.outcomes import JacobianShown, TangentNode, TangentsShown
from .chain_rule import _label, _name
from .wrapping import INDENT, Piece, flow, sentence
from .table_layout import Column, titled_table


# ---- tangents -----------------------------------------------------------------------------------


def tangents_lines(shown: TangentsShown, width: int, row_limit: int = 200) -> list[Text]:
    """The header, a line (or more) per node, at most ``row_limit`` nodes (then how many are
    left out), and the result with the count of nodes visited."""
    lines = sentence(["tangents of ", _name(_label(shown.label)), " along ", *_direction(shown),
                      ": one forward pass, operands before results"], width)
    rows = shown.nodes[:row_limit]
    index_width = len(str(len(shown.nodes) - 1)) + 2
    label_width = max((len(_label(node.label)) for node in rows), default=0)
    operation_width = max((len(node.operation) for node in rows), default=0)
    value_width = max((len(format_number(node.value)) for node in rows), default=0)
    for node in rows:
        lead = Text.assemble(
            INDENT, f"[{node.index}]".ljust(index_width), " ", _name(_label(node.label).ljust(label_width)), "  ",
            node.operation.ljust(operation_width), "  ", format_number(node.value).rjust(value_width), "  ",
        )
        lines += flow(lead, _tangent_pieces(node), width, " " * min(len(lead.plain) + 4, max(0, width // 2)))
    if len(shown.nodes) > len(rows):
        lines.append(Text(f"{INDENT}… {len(shown.nodes) - len(rows):,} more nodes (--json lists them all)"))
    visited = len(shown.nodes)
    result = f" = {format_number(shown.tangent)} (1 forward pass: {visited:,} {'node' if visited == 1 else 'nodes'} visited)"
    if shown.along_one:
        lines += sentence([_name(f"d{_label(shown.label)}/d{_label(shown.inputs[0])}"), result], width)
    else:
        lines += sentence(["d", _name(_label(shown.label)), " along ", *_direction(shown), result], width)
    return lines


def _direction(shown: TangentsShown) -> list[str | Text]:
    """``x`` (moved by 1), or ``(x: 1, w: 0.5)``."""
    if shown.along_one:
        return [_name(_label(shown.inputs[0]))]
    parts: list[str | Text] = ["("]
    for position, (label, number) in enumerate(zip(shown.inputs, shown.direction)):
        parts += [", " if position else "", _name(_label(label)), f": {format_number(number)}"]
    return [*parts, ")"]


def _tangent_pieces(node: TangentNode) -> list[Piece]:
    """``ṫ = 3 × 1 + 3 × 1 = 6``; a leaf: ``ṫ = 1 (input)`` or ``ṫ = 0``."""
    tangent = format_number(node.tangent)
    if not node.terms:
        return [("", Text(f"ṫ = {tangent}" + (" (input)" if node.input else "")))]
    pieces: list[Piece] = [("", Text("ṫ ="))]
    for position, term in enumerate(node.terms):
        product = Text(f"{_factor(term.local)} × {_factor(term.operand_tangent)}")
        pieces.append((" " if position == 0 else " + ", product))
    pieces.append((" = ", Text(tangent)))
    return pieces


def _factor(number: float) -> str:
    """A factor of a product: a negative one in parentheses (``2 × (-0.5)``)."""
    text = format_number(number)
    return f"({text})" if text.startswith("-") else text


# ---- jacobian -----------------------------------------------------------------------------------


def jacobian_lines(shown: JacobianShown, width: int, row_limit: int = 200) -> list[Text]:
    """The matrix (rows: outputs, columns: inputs) as forward mode computed it, then the costs
    of each mode and the largest difference between them; reverse mode's matrix too when it
    differs in any bit."""
    outputs, inputs = len(shown.outputs), len(shown.inputs)
    lines = sentence([
        "jacobian of ", *_listed(shown.outputs), " by ", *_listed(shown.inputs),
        f": {outputs} {_plural(outputs, 'output')}, {inputs} {_plural(inputs, 'input')}",
    ], width)
    same = shown.forward == shown.reverse
    lines += _matrix("by forward mode" + (" and by reverse mode (the same numbers)" if same else ""),
                     shown, shown.forward, width, row_limit)
    if not same:
        lines += _matrix("by reverse mode", shown, shown.reverse, width, row_limit)
    lines += sentence([
        f"forward mode: {shown.forward_passes:,} {_plural(shown.forward_passes, 'pass')} (one per input), "
        f"{shown.forward_visits:,} node {_plural(shown.forward_visits, 'visit')}"
    ], width)
    lines += sentence([
        f"reverse mode: {shown.reverse_passes:,} {_plural(shown.reverse_passes, 'pass')} (one per output), "
        f"{shown.reverse_visits:,} node {_plural(shown.reverse_visits, 'visit')}"
    ], width)
    lines += sentence([f"largest difference between the two: {format_number(shown.largest_difference)}"], width)
    return lines


def _matrix(title: str, shown: JacobianShown, matrix: tuple[tuple[float, ...], ...], width: int,
            row_limit: int) -> list[Text]:
    columns = [Column("output", "label", key=True), *(Column(_label(label), "number") for label in shown.inputs)]
    rows = [[label, *map(format_number, row)] for label, row in zip(shown.outputs, matrix)][:row_limit]
    return [Text.assemble(INDENT, line) for line in titled_table(title, columns, rows, len(matrix), width - len(INDENT))]


def _listed(labels: tuple[str, ...]) -> list[str | Text]:
    parts: list[str | Text] = ["["]
    for position, label in enumerate(labels[:8]):
        parts += [", " if position else "", _name(_label(label))]
    if len(labels) > 8:
        parts.append(f", … {len(labels) - 8:,} more")
    return [*parts, "]"]


def _plural(count: int, word: str) -> str:
    return word if count == 1 else (word + "es" if word.endswith("s") else word + "s")
