"""Text rendering with rich: the console, and outcomes as lines of text (values, gradient
checks, diagnostics; the tables of passes and graphs are tables.py's).

The one place outcomes become text. Without a terminal, output depends only on the console's
width and colour choice (``make_console``), never on the environment, so golden files are
stable.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from typing import IO, Iterator, Mapping, assert_never, cast

from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.text import Text

from ..engine.numbers import format_count, format_exponent, format_number
from ..interpreter.outcomes import (
    BackwardShown,
    Bound,
    Charted,
    Defined,
    Drawn,
    Expected,
    Explained,
    Failed,
    GradcheckShown,
    GraphShown,
    JacobianShown,
    NodeState,
    Outcome,
    PathsShown,
    Printed,
    ListShown,
    TangentsShown,
    TextShown,
    ValueShown,
    WalkShown,
    Warned,
)
from ..engine.tensor_errors import show_shape
from ..engine.tensor_text import tensor_lines
from ..interpreter.tensor_outcomes import TensorExplained, TensorShown, TensorState, VJPCheckShown
from ..interpreter.values import formatted_value, quoted, shorten
from ..language.diagnostics import Diagnostic
from ..language.source import Source, Span
from .chain_rule import explain_lines, paths_lines
from .forward_mode import jacobian_lines, tangents_lines
from .messages import warning_message
from .styles import STYLES
from .tensor_chain_rule import tensor_explain_lines
from .tables import graph_tables, node_and_edge_counts, pass_tables
from .walks import walk_parts
from .wrapping import INDENT, hanging, sentence
from .vjp_check import vjp_check_lines

DEFAULT_WIDTH = 100
# Tables of huge graphs show their first rows and say how many more there are (--json has all).
DEFAULT_ROW_LIMIT = 200


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
        match outcome:
            case ValueShown():
                self.line(value_line(outcome.node))
            case ListShown():
                self.line(Text(formatted_value(outcome.value)))
            case TextShown():
                self.line(Text(quoted(outcome.text)))
            case TensorShown():
                self.lines(tensor_value_lines(outcome.tensor, self.console.width))
            case Bound():
                if self.echo_bindings:
                    self.line(value_line(outcome.node))
            case Defined():
                if self.echo_bindings:
                    self.line(Text.assemble((outcome.name, STYLES["label"]), (f" {outcome.description}", STYLES["dim"])))
            case Printed():
                self.printed(outcome.text)
            case BackwardShown():
                self.backward(outcome)
            case GraphShown():
                self.graph(outcome)
            case GradcheckShown():
                self.lines(gradcheck_lines(outcome, self.console.width))
            case Explained():
                self.lines(explain_lines(outcome, self.console.width, self.row_limit))
            case TensorExplained():
                self.lines(tensor_explain_lines(outcome, self.console.width))
            case VJPCheckShown():
                self.lines(vjp_check_lines(outcome, self.console.width))
            case PathsShown():
                self.lines(paths_lines(outcome, self.console.width))
            case WalkShown():
                for part in walk_parts(outcome, self.console.width, self.row_limit):
                    self.lines(part)
            case TangentsShown():
                self.lines(tangents_lines(outcome, self.console.width, self.row_limit))
            case JacobianShown():
                self.lines(jacobian_lines(outcome, self.console.width, self.row_limit))
            case Drawn():
                self.drawn(outcome)
            case Charted():
                self.charted(outcome)
            case Expected():
                self.line(Text.assemble(("expected ", STYLES["ok"]), (outcome.kind, STYLES["ok"]), f": {outcome.message}"))
            case Warned():
                self.lines(warning_lines(outcome, self.console.width))
            case Failed():
                self.diagnostic(outcome.diagnostic)
            case _:
                assert_never(outcome)

    def line(self, text: Text) -> None:
        self.lines([text])

    def printed(self, text: str) -> None:
        r"""`print`'s text as it is, a line of output for each of its lines: never wrapped at
        the width nor trimmed, its tabs kept (rich's `Text` would drop `\r`, `\v` and `\f`
        and expand tabs, so it is written as one segment). On a terminal, and in colour (the
        notebook's HTML), its control characters but tab and newline show as the escapes a
        value line writes (`\x1b`, `\r`), dimmed: raw, they would move the cursor or change
        the terminal's state. Anywhere else (a pipe, a file, a golden) it is the text's own
        characters."""
        self.console.print(_Verbatim(text, self.shows_escapes), soft_wrap=True)

    @property
    def shows_escapes(self) -> bool:
        console = self.console
        return console.color_system is not None or _isatty(console.file)

    def lines(self, texts: list[Text]) -> None:
        """Prose wraps at the console's width (at spaces; a word longer than a line is
        folded), so no line of output is wider than --width; a wrapped line's further lines
        are indented under it (its own indent and `INDENT` more, wrapping.py's `hanging`);
        trailing blanks go. All is printed at once: a call a line made printing 10 MB take
        three times longer, and a pass's tables print 400 lines. A line that fits (a table's)
        is taken as it is."""
        width = self.console.width
        pieces: list[Text] = []
        for text in texts:
            plain = text.plain
            if len(plain) <= width and "\n" not in plain and "\t" not in plain and text.cell_len <= width:
                text.rstrip()
                pieces.append(text)
                continue
            for line in text.split("\n", allow_blank=True):
                line.expand_tabs()
                line_plain = line.plain
                own_indent = " " * (len(line_plain) - len(line_plain.lstrip(" ")))
                pieces.extend(hanging(line, width, own_indent + INDENT))
        if pieces:
            self.console.print(Text("\n").join(pieces), soft_wrap=True)

    # ---- passes and graphs ------------------------------------------------------------------

    def backward(self, shown: BackwardShown) -> None:
        for part in pass_tables(shown, self.console.width, self.row_limit):
            self.lines(part)

    def drawn(self, drawn: Drawn) -> None:
        """A picture written to a file is named; one without a file is drawn as text, a tree
        from the output down (graph_tree.py), the same on a terminal and through a pipe; DOT
        only goes to a `.dot` file."""
        from .graph_tree import graph_tree_lines

        picture = drawn.picture
        counted = node_and_edge_counts(len(picture.nodes), len(picture.edges))
        if drawn.path is not None:
            self.line(Text.assemble("drew ", (drawn.label, STYLES["label"]), f" to {drawn.path} ({counted})"))
            return
        self.lines(graph_tree_lines(picture, self.console.width))
        self.line(Text(f"{counted}; draw({drawn.label}, \"graph.svg\") writes the picture", STYLES["dim"]))

    def charted(self, charted: Charted) -> None:
        """A chart written to a file is named; one without a file is drawn, exactly as wide as
        the console (in colour where the console has colour)."""
        from ..pictures.errors import ChartError
        from .chart_text import chart_rich_text

        if charted.path is not None:
            summary = chart_summary(charted)
            self.line(Text.assemble("plotted ", (charted.label, STYLES["label"]), f" to {charted.path} ({summary})"))
            return
        try:
            picture = chart_rich_text(charted.chart, self.console)
        except ChartError as error:  # (a console narrower than the session's width: a resized terminal)
            self.line(Text(f"({error.message})", STYLES["dim"]))
            return
        self.console.print(picture, soft_wrap=True)

    def graph(self, shown: GraphShown) -> None:
        for part in graph_tables(shown, self.console.width, self.row_limit):
            self.lines(part)

    # ---- diagnostics -------------------------------------------------------------------------

    def diagnostic(self, diagnostic: Diagnostic) -> None:
        for text in diagnostic_lines(diagnostic, self.console.width):
            self.line(text)


# The control characters a terminal acts on (ESC starts a sequence, `\r` returns the cursor,
# NUL, DEL and the C1 controls), all but the tab and the newline that lay a text out.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]+")


class _Verbatim:
    """A text written as it is, then a newline (a rich renderable of its own segments), its
    control characters as escapes when ``escaped``."""

    def __init__(self, text: str, escaped: bool):
        self.text = text
        self.escaped = escaped

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        text = self.text
        if not self.escaped:
            yield Segment(text)
            yield Segment.line()
            return
        style = console.get_style(STYLES["dim"])
        at = 0
        for controls in _CONTROLS.finditer(text):
            if controls.start() > at:
                yield Segment(text[at : controls.start()])
            yield Segment("".join(repr(char)[1:-1] for char in controls.group()), style)
            at = controls.end()
        if at < len(text):
            yield Segment(text[at:])
        yield Segment.line()


def value_line(node: NodeState) -> Text:
    """``square = 4.000000000000 (mul, gradient 0.000000000000)``."""
    detail = f"gradient {format_number(cast(float, node.gradient))}" if node.tracked else "untracked"
    return Text.assemble(
        (shorten(node.label), STYLES["label"]),
        " = ",
        format_count(node.value) if node.count else format_number(node.value),
        (f" ({node.operation}, {detail})", STYLES["dim"]),
    )


def tensor_value_lines(tensor: TensorState, width: int) -> list[Text]:
    """``W = tensor [2, 3] (variable, tracked)`` and the grid of its values under it, at the
    console's width."""
    detail = "tracked" if tensor.tracked else "untracked"
    head = Text.assemble(
        (shorten(tensor.label), STYLES["label"]),
        f" = tensor {show_shape(tensor.shape)}",
        (f" ({tensor.operation}, {detail})", STYLES["dim"]),
    )
    grid = tensor_lines(tensor.shape, tensor.values, width)[1:]
    return [head, *(Text(line) for line in grid)]


def chart_summary(charted: Charted) -> str:
    """``1 series of 100 points``, ``a 40 × 40 grid and 100 points``."""
    from ..pictures.charts import BoundaryChart, LineChart

    chart = charted.chart
    match chart:
        case LineChart():
            points = sum(len(series.y) for series in chart.series)
            count = len(chart.series)
            return f"{count} series of {points:,} point{'s' if points != 1 else ''}"
        case BoundaryChart():
            grid = chart.grid
            points = len(chart.points)
            return f"a {len(grid.x)} × {len(grid.y)} grid and {points:,} point{'s' if points != 1 else ''}"
        case _:
            assert_never(chart)


def gradcheck_lines(shown: GradcheckShown, width: int) -> list[Text]:
    """``gradcheck loss by x: analytic=… numerical=… scaled_error=… tolerance=… pass=true``,
    its labels whole, its further lines indented."""
    check = shown.check
    return sentence([
        "gradcheck ",
        Text(shown.label, STYLES["label"]),
        " by ",
        Text(shown.variable, STYLES["label"]),
        f": analytic={format_number(check.analytic)} numerical={format_number(check.numerical)}"
        f" scaled_error={format_exponent(check.scaled_error)} tolerance={format_exponent(check.tolerance)}"
        f" pass={str(check.passed).lower()}",
    ], width)


def warning_lines(warned: Warned, width: int = DEFAULT_WIDTH) -> list[Text]:
    """``warning[no-backward]: `descend` at 9:3 steps w, b by zero gradients: ...``: one line,
    wrapped at the console's width like any prose."""
    return heading("warning", warned.kind, STYLES["warning"], Text(f" {warning_message(warned)}"), width)


def heading(word: str, kind: str, style: str, rest: Text, width: int) -> list[Text]:
    """``error[kind]:`` then ``rest``, wrapped later at ``width`` like any prose. Where
    ``error[kind]:`` is wider than a line, it breaks before the ``[`` (and, for a kind wider
    than a line itself, after its hyphens), never inside a word of the kind (`chart-too-smal`)."""
    whole = f"{word}[{kind}]:"
    if len(whole) <= width:
        return [Text.assemble((whole[:-1], style), ":", rest)]
    tail = f"[{kind}]:"
    pieces = [word, *([tail] if len(tail) <= width else re.findall(r"[^-]*-|[^-]+$", tail))]
    lines, line = [], ""
    for piece in pieces:
        if line and len(line) + len(piece) > width:
            lines.append(Text(line, style))
            line = ""
        line += piece
    lines.append(Text.assemble((line[:-1], style), ":", rest))
    return lines


def diagnostic_lines(diagnostic: Diagnostic, width: int = DEFAULT_WIDTH) -> list[Text]:
    """Rust-style: ``error[kind]: message``, `` --> file:line:col``, the line and a caret, the
    notes (``= help: ...``); then each related note (``note: ...``) with its own excerpt. The
    excerpts share one gutter, as wide as the longest line number."""
    lines = heading("error", diagnostic.kind, STYLES["error"], Text(f" {diagnostic.message}", "bold"), width)
    span, source = diagnostic.span, diagnostic.source
    if span is None or source is None:
        lines.extend(Text(f"  = {note}", STYLES["note"]) for note in diagnostic.notes)
        lines.extend(
            Text(f"  = note: {related.message} (line {related.span.line}, column {related.span.column})", STYLES["note"])
            for related in diagnostic.related
        )
        return lines
    gutter = " " * max(len(str(where.line)) for where in (span, *(related.span for related in diagnostic.related)))
    lines.extend(_excerpt(source, span, gutter, width))
    lines.extend(Text.assemble((f"{gutter} = ", STYLES["arrow"]), (note, STYLES["note"])) for note in diagnostic.notes)
    for related in diagnostic.related:
        lines.append(Text.assemble(("note", STYLES["note"]), f": {related.message}"))
        lines.extend(_excerpt(source, related.span, gutter, width))
    return lines


def _excerpt(source: Source, span: Span, gutter: str, width: int) -> list[Text]:
    """`` --> file:line:col``, the span's line (a window of it when too long) and carets."""
    line_text = source.line_text(span.line).replace("\t", " ")
    start = span.column - 1
    length = (span.end_column - span.column) if span.end_line == span.line else len(line_text) - start
    room = max(8, width - len(gutter) - 3)
    if start >= len(line_text):  # a caret past the line's end (end of input) takes a column too
        room = max(8, room - 1)
    shown, start = _window(line_text, start, max(1, length), room)
    length = max(1, min(length, len(shown) - start)) if shown else 1
    number = str(span.line).rjust(len(gutter))
    return [
        Text.assemble((f"{gutter}--> ", STYLES["arrow"]), f"{source.name}:{span.line}:{span.column}"),
        Text(f"{gutter} |", STYLES["arrow"]),
        Text.assemble((f"{number} | ", STYLES["arrow"]), _printable(shown)),
        Text.assemble((f"{gutter} | ", STYLES["arrow"]), " " * start, ("^" * length, STYLES["caret"])),
    ]


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

