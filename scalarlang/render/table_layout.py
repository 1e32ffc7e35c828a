"""A table laid out to fit a width: its columns (`Column`: a label shrinks to fit, a number is
right-aligned on its decimal point and never cut), its rows, and what it becomes where it is too
wide: narrower tables stacked one above the other, each led by its key columns, or (``records``)
a record per row, its fields a line each. tables.py, chain_rule.py, forward_mode.py and
vjp_check.py lay their tables out with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from rich.text import Text

from ..engine.numbers import current_digits, decimal_point
from .styles import STYLES
from .wrapping import wrapped

# A label column counts at most this wide when a table is split into blocks.
LABEL_WIDTH = 24


def titled_table(title: str | None, columns: list[Column], rows: list[list[str]], total: int, width: int) -> list[Text]:
    """The table under its title (if any), then how many rows were left out (if any)."""
    texts = [] if title is None else [Text(title, STYLES["dim"])]
    texts += table_lines(columns, rows, width)
    if total > len(rows):
        texts.append(Text(f"... {total - len(rows)} more rows not shown (--json lists them all)", STYLES["dim"]))
    return texts


@dataclass(frozen=True, slots=True)
class Column:
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


def _layout(columns: list[Column], rows: list[list[str]], width: int, floor: int = _LABEL_MIN) -> tuple[list[int], int]:
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


def _natural_widths(columns: list[Column], rows: list[list[str]]) -> list[int]:
    return [max([len(column.header)] + [len(row[i]) for row in rows]) for i, column in enumerate(columns)]


def _cell(text: str, width: int, column: Column) -> str:
    if len(text) > width:
        text = text[: max(0, width - 1)] + "…"
    return text.rjust(width) if column.kind == "number" else text.ljust(width)


def table_lines(columns: list[Column], rows: list[list[str]], width: int, wrap: bool = False,
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


def _aligned_numbers(columns: list[Column], rows: list[list[str]]) -> list[list[str]]:
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


def _column_groups(columns: list[Column], rows: list[list[str]], width: int) -> list[list[int]]:
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


def _keys(columns: list[Column]) -> list[int]:
    chosen = [i for i, column in enumerate(columns) if column.key]
    if chosen:
        return chosen
    first_label = next((i for i, column in enumerate(columns) if column.kind == "label"), 0)
    return sorted({0, first_label})


def _block(columns: list[Column], rows: list[list[str]], widths: list[int], gap: int,
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


def _row_line(row: list[str], columns: list[Column], widths: list[int], spacer: str) -> Text:
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


def _spilled(row: list[str], columns: list[Column], widths: list[int], gap: int, at: int) -> list[Text]:
    """The lines that show the label in column ``at`` whole, as wide as the table allows from
    its column on (broken after a space where it must be), led by the cells before it: the row's
    other cells follow on a line of their own."""
    indent = sum(widths[:at]) + gap * at
    pieces = wrapped(row[at], max(widths[at], _total(widths, gap) - indent))
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


def _record_lines(columns: list[Column], rows: list[list[str]], width: int) -> list[Text]:
    """A row per record, for a width too narrow for the table: its key cells on a line (``#2
    X @ W``, the label whole, wrapped under itself where it must be), then each other column
    on a line of its own, ``operation: matmul``."""
    keys = _keys(columns)
    lines = []
    for row in rows:
        lead = "".join(f"#{row[i]} " for i in keys if columns[i].kind == "number")
        label = " ".join(row[i] for i in keys if columns[i].kind != "number")
        for number, piece in enumerate(wrapped(label, max(1, width - len(lead)))):
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
            for piece in wrapped(text, max(1, width - len(_VALUE_INDENT))):
                lines.append(Text.assemble(_VALUE_INDENT, (piece, style)))
    return lines
