"""Text rendering with rich: value lines, pass tables, graphs and diagnostics.

The one place outcomes become text. Without a terminal, output depends only on the console's
width and colour choice (``make_console``), never on the environment, so golden files are
stable.
"""

from __future__ import annotations

import errno
import os
import sys
from dataclasses import dataclass
from typing import IO, Mapping, cast

from rich.console import Console
from rich.text import Text

from ..language.diagnostics import Diagnostic
from ..engine.numbers import format_count, format_exponent, format_number
from ..interpreter.outcomes import (
    BackwardShown,
    Bound,
    Defined,
    Drawn,
    Expected,
    Failed,
    GradcheckShown,
    GraphShown,
    NodeState,
    Outcome,
    Printed,
    ValueShown,
)

DEFAULT_WIDTH = 100
# Tables of huge graphs show their first rows and say how many more there are (--json has all).
DEFAULT_ROW_LIMIT = 200
LABEL_WIDTH = 24

STYLES = {
    "label": "bold cyan",
    "number": "",
    "dim": "dim",
    "error": "bold red",
    "arrow": "bold blue",
    "caret": "bold red",
    "note": "bold",
    "ok": "green",
    "header": "bold",
}


def make_console(
    file: IO[str] | None = None,
    *,
    width: int | None = DEFAULT_WIDTH,
    color: str = "auto",
    environ: Mapping[str, str] | None = None,
) -> Console:
    """The console for every front end and test.

    Without a terminal, output is exactly as golden files expect whatever the environment
    says: plain (unless ``color="always"``) and exactly ``width`` wide (``None``: the default).
    On a terminal, ``color="auto"`` honours NO_COLOR, FORCE_COLOR and TERM=dumb, and
    ``width=None`` follows the terminal (and COLUMNS); an explicit ``width`` always wins.
    ``environ`` is for tests (default: the process environment).
    """
    file = file if file is not None else sys.stdout
    is_terminal = _isatty(file)
    environ = os.environ if environ is None else environ
    if color == "always":
        colored = True
    elif color == "auto" and is_terminal:
        colored = _terminal_wants_color(environ)
    else:
        colored = False
    if width is None and not is_terminal:
        width = DEFAULT_WIDTH
    return _Console(
        file=file,
        width=width,
        # With both dimensions given, rich asks neither the terminal nor COLUMNS, LINES, TERM.
        height=_HEIGHT if width is not None else None,
        color_system="truecolor" if colored else None,
        force_terminal=colored,
        force_jupyter=False,
        force_interactive=False,
        no_color=not colored,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=False,
        legacy_windows=False,
        safe_box=False,
    )


_HEIGHT = 25  # unused by what we print; given so that a fixed width is fixed


def _terminal_wants_color(environ: Mapping[str, str]) -> bool:
    """force-color.org, then no-color.org, then a terminal that cannot show colour."""
    if environ.get("FORCE_COLOR", ""):
        return True
    if environ.get("NO_COLOR", ""):
        return False
    return environ.get("TERM", "").lower() not in ("dumb", "unknown")


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # rich would quietly exit with status 1; the command decides what a closed pipe means.
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def _isatty(file: IO[str]) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError):
        return False


class Renderer:
    """Prints outcomes on one console."""

    def __init__(self, console: Console, *, row_limit: int = DEFAULT_ROW_LIMIT, echo_bindings: bool = False):
        self.console = console
        self.row_limit = row_limit
        self.echo_bindings = echo_bindings  # the REPL echoes `let`; scripts do not

    def outcome(self, outcome: Outcome) -> None:
        if isinstance(outcome, ValueShown):
            self.line(value_line(outcome.node))
        elif isinstance(outcome, Bound):
            if self.echo_bindings:
                self.line(value_line(outcome.node))
        elif isinstance(outcome, Defined):
            if self.echo_bindings:
                self.line(Text.assemble((outcome.name, STYLES["label"]), (f" {outcome.description}", STYLES["dim"])))
        elif isinstance(outcome, Printed):
            self.line(Text(outcome.text))
        elif isinstance(outcome, BackwardShown):
            self.backward(outcome)
        elif isinstance(outcome, GraphShown):
            self.graph(outcome)
        elif isinstance(outcome, GradcheckShown):
            self.line(gradcheck_line(outcome))
        elif isinstance(outcome, Drawn):
            self.drawn(outcome)
        elif isinstance(outcome, Expected):
            self.line(Text.assemble(("expected ", STYLES["ok"]), (outcome.kind, STYLES["ok"]), f": {outcome.message}"))
        elif isinstance(outcome, Failed):
            self.diagnostic(outcome.diagnostic)

    def line(self, text: Text) -> None:
        self.lines([text])

    def lines(self, texts: list[Text]) -> None:
        """Prose wraps at the console's width (at spaces; a word longer than a line is
        folded), so no line of output is wider than --width; trailing blanks go. All is
        printed at once: a call a line made printing 10 MB take three times longer, and a
        pass's tables print 400 lines. A line that fits (a table's) is taken as it is: the
        wrap would give it back unchanged, at a tenth of a table's time."""
        width = self.console.width
        pieces: list[Text] = []
        for text in texts:
            plain = text.plain
            if len(plain) <= width and "\n" not in plain and "\t" not in plain and text.cell_len <= width:
                text.rstrip()
                pieces.append(text)
                continue
            wrapped = text.wrap(self.console, width, overflow="fold")
            for piece in wrapped:
                piece.rstrip()
            pieces.extend(wrapped)
        if pieces:
            self.console.print(Text("\n").join(pieces), soft_wrap=True)

    # ---- passes and graphs ------------------------------------------------------------------

    def backward(self, shown: BackwardShown) -> None:
        backward_pass = shown.backward_pass
        nodes, edges, labels = backward_pass.nodes, backward_pass.edges, shown.labels
        operation_of = shown.operations or (lambda index: str(nodes[index].operation))
        value_of = shown.values or (lambda index: format_number(nodes[index].value))
        self.line(
            Text.assemble(
                "backward from ", (shown.label, STYLES["label"]), f" with seed {format_number(backward_pass.seed)}"
            )
        )
        rows = [
            [
                str(record.topology_index),
                labels(record.topology_index),
                operation_of(record.topology_index),
                value_of(record.topology_index),
                _optional(record.pass_adjoint),
                _optional(record.accumulated_gradient),
            ]
            for record in _limited(nodes, self.row_limit)
        ]
        self._table("nodes", _NODE_COLUMNS, rows, len(nodes))
        shown_edges = _limited(edges, self.row_limit)
        rows = [
            [
                str(edge.reverse_index),
                labels(edge.child),
                str(edge.operand),
                labels(edge.parent),
                format_number(edge.local_derivative),
                format_number(edge.upstream),
                format_number(edge.contribution),
            ]
            for edge in shown_edges
        ]
        for row, adjoint in zip(rows, _adjoint_changes(shown_edges)):
            row.append(adjoint)
        self._table("edges, in reverse order", _EDGE_COLUMNS, rows, len(edges))
        self.line(Text(_counts(len(nodes), len(edges))))

    def drawn(self, drawn: Drawn) -> None:
        """A picture written to a file is named; one without a file is printed as DOT text:
        code to copy into Graphviz (`dot -Tsvg`), so never wrapped; its lines are short, and
        fit the usual widths."""
        picture = drawn.picture
        counts = _counts(len(picture.nodes), len(picture.edges))
        if drawn.path is not None:
            self.line(Text.assemble("drew ", (drawn.label, STYLES["label"]), f" to {drawn.path} ({counts})"))
            return
        self.console.print(Text(drawn.dot.rstrip("\n")), soft_wrap=True)

    def graph(self, shown: GraphShown) -> None:
        self.line(Text.assemble("graph of ", (shown.label, STYLES["label"])))
        value_of = shown.values or (lambda index: format_number(shown.nodes[index].value))
        rows = [
            [
                str(node.index),
                shown.labels(node.index),
                node.operation,
                value_of(node.index),
                ", ".join(map(str, node.operands)) or "-",
                _optional(node.gradient),
            ]
            for node in _limited(shown.nodes, self.row_limit)
        ]
        self._table(None, _GRAPH_COLUMNS, rows, len(shown.nodes))
        self.line(Text(_counts(len(shown.nodes), shown.edge_count)))

    def _table(self, title: str | None, columns: list[_Column], rows: list[list[str]], total: int) -> None:
        texts = [] if title is None else [Text(title, STYLES["dim"])]
        texts += _table_lines(columns, rows, self.console.width)
        if total > len(rows):
            texts.append(Text(f"... {total - len(rows)} more rows not shown (--json lists them all)", STYLES["dim"]))
        self.lines(texts)

    # ---- diagnostics -------------------------------------------------------------------------

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        for text in diagnostic_lines(diagnostic, self.console.width):
            self.line(text)


def value_line(node: NodeState) -> Text:
    """``square = 4.000000000000 (mul, gradient 0.000000000000)``."""
    detail = f"gradient {format_number(cast(float, node.gradient))}" if node.tracked else "untracked"
    return Text.assemble(
        (_shorten(node.label, 60), STYLES["label"]),
        " = ",
        format_count(node.value) if node.count else format_number(node.value),
        (f" ({node.operation}, {detail})", STYLES["dim"]),
    )


def gradcheck_line(shown: GradcheckShown) -> Text:
    check = shown.check
    return Text.assemble(
        "gradcheck ",
        (shown.label, STYLES["label"]),
        " by ",
        (shown.variable, STYLES["label"]),
        f": analytic={format_number(check.analytic)} numerical={format_number(check.numerical)}"
        f" scaled_error={format_exponent(check.scaled_error)} tolerance={format_exponent(check.tolerance)}"
        f" pass={str(check.passed).lower()}",
    )


def diagnostic_lines(diagnostic: Diagnostic, width: int = DEFAULT_WIDTH) -> list[Text]:
    """Rust-style: ``error[kind]: message``, `` --> file:line:col``, the line and a caret."""
    lines = [Text.assemble((f"error[{diagnostic.kind}]", STYLES["error"]), (f": {diagnostic.message}", "bold"))]
    span, source = diagnostic.span, diagnostic.source
    if span is None or source is None:
        lines.extend(Text(f"  = {note}", STYLES["note"]) for note in diagnostic.notes)
        return lines
    gutter = " " * len(str(span.line))
    lines.append(Text.assemble((f"{gutter}--> ", STYLES["arrow"]), f"{source.name}:{span.line}:{span.column}"))
    line_text = source.line_text(span.line).replace("\t", " ")
    start = span.column - 1
    length = (span.end_column - span.column) if span.end_line == span.line else len(line_text) - start
    shown, start = _window(line_text, start, max(1, length), max(8, width - len(gutter) - 3))
    length = max(1, min(length, len(shown) - start)) if shown else 1
    lines.append(Text(f"{gutter} |", STYLES["arrow"]))
    lines.append(Text.assemble((f"{span.line} | ", STYLES["arrow"]), _printable(shown)))
    lines.append(Text.assemble((f"{gutter} | ", STYLES["arrow"]), " " * start, ("^" * length, STYLES["caret"])))
    lines.extend(Text.assemble((f"{gutter} = ", STYLES["arrow"]), (note, STYLES["note"])) for note in diagnostic.notes)
    return lines


def _window(line: str, start: int, length: int, room: int) -> tuple[str, int]:
    """At most ``room`` characters of ``line`` around the span, marked with ``...``."""
    start = max(0, min(start, len(line)))
    if len(line) <= room:
        return line, start
    left = max(0, min(start - room // 3, len(line) - room))
    piece = line[left : left + room]
    if left > 0:
        piece = "..." + piece[3:]
    if left + room < len(line):
        piece = piece[:-3] + "..."
    return piece, start - left


def _printable(text: str) -> str:
    # Control characters (a NUL in a file) would garble the terminal; show them as escapes.
    return "".join(ch if ch.isprintable() or ch == " " else "\ufffd" for ch in text)


@dataclass(frozen=True, slots=True)
class _Column:
    header: str
    kind: str  # "label": shrinks to fit; "number": right-aligned, never cut; "text": left, never cut
    # A key column leads every block of a table split in two (default: `#` and the first label).
    key: bool = False


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


def _table_lines(columns: list[_Column], rows: list[list[str]], width: int) -> list[Text]:
    """The table's lines. One too wide for ``width`` with its labels kept to ``_LABEL_KEEP``
    characters is split into narrower tables stacked one above the other, each led by the key
    columns, so no line is wider than ``width`` (unless the keys and one column alone are)."""
    widths, gap = _layout(columns, rows, width, floor=_LABEL_KEEP)
    if _total(widths, gap) <= width:
        return _block(columns, rows, widths, gap)
    lines = []
    for group in _column_groups(columns, rows, width):
        part_columns = [columns[i] for i in group]
        part_rows = [[row[i] for i in group] for row in rows]
        lines.extend(_block(part_columns, part_rows, *_layout(part_columns, part_rows, width)))
    return lines


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


def _block(columns: list[_Column], rows: list[list[str]], widths: list[int], gap: int) -> list[Text]:
    spacer = " " * gap
    header = spacer.join(_cell(c.header, w, c) for c, w in zip(columns, widths)).rstrip()
    lines = [Text(header, STYLES["header"]), Text("─" * _total(widths, gap), STYLES["dim"])]
    for row in rows:
        line = Text()
        for index, (text, column, column_width) in enumerate(zip(row, columns, widths)):
            if index:
                line.append(spacer)
            cell = _cell(text, column_width, column)
            if index == len(columns) - 1:
                cell = cell.rstrip()
            line.append(cell, STYLES["label"] if column.kind == "label" else "")
        lines.append(line)
    return lines


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
    before_width = max((len(pair[0]) for pair in pairs if pair), default=0)
    after_width = max((len(pair[1]) for pair in pairs if pair), default=0)
    return [
        f"{pair[0].rjust(before_width)} → {pair[1].rjust(after_width)}" if pair else "untracked"
        for pair in pairs
    ]


def _limited(records, limit: int):
    return records[:limit] if len(records) > limit else records


def _optional(value: float | None) -> str:
    return "untracked" if value is None else format_number(value)


def _counts(nodes: int, edges: int) -> str:
    return f"{nodes} unique {'node' if nodes == 1 else 'nodes'}, {edges} operand {'edge' if edges == 1 else 'edges'}"


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
