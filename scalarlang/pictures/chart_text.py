"""A chart as terminal text: rows of (text, style name) segments, exactly ``width`` columns.

    for row in chart_rows(chart, 80, colour=True): ...   # render/chart_text.py colours them
    chart_text(chart, 80)                                # the colourless picture, for .txt

The picture: the title, the y axis's title (`ylabel:`) above its ticks, the plot with the y
axis's round ticks on its left, the x axis and its ticks, the x axis's title (`xlabel:`)
centred under them, and a legend (several series, or a boundary's regions and labels). The x axis row
is exactly ``width`` columns; no row is wider or ends in spaces. Lines are Unicode braille
(2 × 4 dots a cell). With colour each series has its colour, and a boundary's regions are
half blocks (two rows of the grid a cell); without colour the first series is braille and
the others markers (``x``, ``o``, ...), and regions read ``+``, ``-`` (``·`` where the score
is 0). Points are markers by label (``o``, ``x``, ...) everywhere.

Style names (render/chart_text.py maps them to colours): ``title``, ``axis``, ``axis-title``,
``series-N``, ``positive``, ``negative``, ``zero``, ``point-N``, and ``A/B`` for A's colour
on B's (a half block's two halves, a point on its region); ``""`` is unstyled.
"""

from __future__ import annotations

import math
import unicodedata
from typing import assert_never

from ..engine.numbers import format_parameter
from .charts import BoundaryChart, Chart, LineChart
from .errors import CHART_TOO_SMALL, ChartError
from .scales import Scale

Segment = tuple[str, str]
Row = tuple[Segment, ...]
Cell = tuple[str, str]

MIN_PLOT_WIDTH, MIN_PLOT_ROWS = 8, 2
MIN_DERIVED_ROWS, MAX_DERIVED_ROWS = 5, 20
SERIES_MARKERS = ("x", "o", "*", "#", "@", "%", "&", "$")
POINT_MARKERS = ("o", "x", "*", "#", "@", "%", "&", "$")
REGION_NAMES = {1: "positive", -1: "negative", 0: "zero"}
REGION_MARKS = {1: "+", -1: "-", 0: "·"}
LINE_KEY = "⠒⠒"
LEGEND_GAP = "   "
# Braille: the bit of the dot in each (row, column) of a cell's 4 × 2 dots.
_DOT_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
_BRAILLE = 0x2800


def chart_text(chart: Chart, width: int, height: int | None = None) -> str:
    """The colourless picture: its lines, each ending in a newline."""
    rows = chart_rows(chart, width, height, colour=False)
    return "".join("".join(text for text, _ in row) + "\n" for row in rows)


def chart_rows(chart: Chart, width: int, height: int | None = None, *, colour: bool = False) -> list[Row]:
    """The picture as rows of styled segments, ``width`` columns, ``height`` rows in all (by
    default a plot a quarter as tall as wide, 5 to 20 rows, and the rows around it)."""
    label_width = _label_width(chart)
    plot_width = width - label_width - 2
    legend = _legend_rows(_legend(chart, colour), width)
    title = _one_line(chart.title or "").strip()
    x_title, y_title = (_one_line(text or "").strip() for text in (chart.x_label, chart.y_label))
    around = (1 if title else 0) + (1 if y_title else 0) + 2 + (1 if x_title else 0) + len(legend)
    plot_rows = height - around if height is not None else max(MIN_DERIVED_ROWS, min(MAX_DERIVED_ROWS, width // 4))
    if plot_width < MIN_PLOT_WIDTH or plot_rows < MIN_PLOT_ROWS:
        raise ChartError(
            CHART_TOO_SMALL,
            f"a chart this size ({width} × {height}) has no room to plot: it needs at least "
            f"{label_width + 2 + MIN_PLOT_WIDTH} columns and {around + MIN_PLOT_ROWS} rows",
            width=width, height=height, min_width=label_width + 2 + MIN_PLOT_WIDTH, min_height=around + MIN_PLOT_ROWS,
        )
    match chart:
        case LineChart():
            cells = _line_cells(chart, plot_width, plot_rows, colour)
        case BoundaryChart():
            cells = _boundary_cells(chart, plot_width, plot_rows, colour)
        case _:
            assert_never(chart)
    rows: list[list[Segment]] = []
    if title:
        title = _fit(title, width)
        rows.append([(" " * ((width - _cells(title)) // 2), ""), (title, "title")])
    if y_title:
        rows.append([(_fit(y_title, width), "axis-title")])
    tick_labels: dict[int, str] = {}
    for tick in chart.y_scale.ticks:
        tick_labels.setdefault(_row_of(chart.y_scale, tick.value, plot_rows), tick.label)
    for number, line in enumerate(cells):
        label = tick_labels.get(number)
        axis = "┤" if label is not None else "│"
        rows.append([(_pad_left(label or "", label_width) + " ", ""), (axis, "axis"), *line])
    rows.extend(_x_axis(chart.x_scale, label_width, plot_width))
    if x_title:
        x_title = _fit(x_title, width)
        left = min(label_width + 2 + (plot_width - _cells(x_title)) // 2, width - _cells(x_title))
        rows.append([(" " * max(0, left), ""), (x_title, "axis-title")])
    rows.extend(legend)
    return [_tidy(row) for row in rows]


def min_width(chart: Chart) -> int:
    """The fewest columns `chart_rows` draws the chart in (its y tick labels, the axis and the
    smallest plot): a front end checks its width against it before asking for the rows."""
    return _label_width(chart) + 2 + MIN_PLOT_WIDTH


def _label_width(chart: Chart) -> int:
    return max(_cells(tick.label) for tick in chart.y_scale.ticks)


def _line_cells(chart: LineChart, plot_width: int, plot_rows: int, colour: bool) -> list[list[Cell]]:
    dot_columns, dot_rows = 2 * plot_width, 4 * plot_rows
    bits = [[0] * plot_width for _ in range(plot_rows)]
    owner = [[-1] * plot_width for _ in range(plot_rows)]  # the last series with a dot there
    marked = [[-1] * plot_width for _ in range(plot_rows)]  # without colour: the marker series
    for index, series in enumerate(chart.series):
        u = [_clamp(chart.x_scale.fraction(x), 0.0, 1.0) * dot_columns for x in series.x]
        v = [(1.0 - _clamp(chart.y_scale.fraction(y), 0.0, 1.0)) * dot_rows for y in series.y]
        for column, spans in _column_spans(u, v, dot_columns, dot_rows).items():
            cell_column, bit_column = divmod(column, 2)
            for low, high in _merged(spans):
                for dot_row in range(low, high + 1):
                    cell_row, bit_row = divmod(dot_row, 4)
                    if colour or index == 0:
                        bits[cell_row][cell_column] |= _DOT_BITS[bit_row][bit_column]
                        owner[cell_row][cell_column] = index
                    else:
                        marked[cell_row][cell_column] = index
    cells = []
    for cell_row in range(plot_rows):
        line = []
        for cell_column in range(plot_width):
            mark = marked[cell_row][cell_column]
            if mark > 0:
                line.append((SERIES_MARKERS[(mark - 1) % len(SERIES_MARKERS)], f"series-{mark}"))
            elif bits[cell_row][cell_column]:
                line.append((chr(_BRAILLE + bits[cell_row][cell_column]), f"series-{owner[cell_row][cell_column]}"))
            else:
                line.append((" ", ""))
        cells.append(line)
    return cells


def _column_spans(u: list[float], v: list[float], columns: int, rows: int) -> dict[int, list[tuple[int, int]]]:
    """The dots a polyline through (u, v) (dot coordinates, continuous) passes: for each dot
    column it crosses, the dot rows of each segment's stretch in that column."""
    spans: dict[int, list[tuple[int, int]]] = {}

    def add(column: int, v_from: float, v_to: float) -> None:
        low, high = sorted((_dot(v_from, rows), _dot(v_to, rows)))
        spans.setdefault(column, []).append((low, high))

    if len(u) == 1:
        add(_dot(u[0], columns), v[0], v[0])
    for (u0, v0), (u1, v1) in zip(zip(u, v), zip(u[1:], v[1:])):
        if u1 < u0:
            u0, v0, u1, v1 = u1, v1, u0, v0
        first, last = _dot(u0, columns), _dot(u1, columns)
        if first == last:
            add(first, v0, v1)
            continue
        slope = (v1 - v0) / (u1 - u0)
        for column in range(first, last + 1):
            start, end = max(u0, column), min(u1, column + 1)
            add(column, v0 + (start - u0) * slope, v0 + (end - u0) * slope)
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def _boundary_cells(chart: BoundaryChart, plot_width: int, plot_rows: int, colour: bool) -> list[list[Cell]]:
    grid = chart.grid
    size_x, size_y = len(grid.x), len(grid.y)

    def sign_at(x_fraction: float, y_fraction: float) -> int:
        column = min(size_x - 1, max(0, math.floor(x_fraction * size_x)))
        row = min(size_y - 1, max(0, math.floor(y_fraction * size_y)))
        return grid.signs[row][column]

    cells = []
    for cell_row in range(plot_rows):
        line = []
        for cell_column in range(plot_width):
            x_fraction = (cell_column + 0.5) / plot_width
            if not colour:
                sign = sign_at(x_fraction, 1.0 - (cell_row + 0.5) / plot_rows)
                line.append((REGION_MARKS[sign], REGION_NAMES[sign]))
                continue
            top = sign_at(x_fraction, 1.0 - (2 * cell_row + 0.5) / (2 * plot_rows))
            bottom = sign_at(x_fraction, 1.0 - (2 * cell_row + 1.5) / (2 * plot_rows))
            if top == bottom:
                line.append(("█", REGION_NAMES[top]))
            else:
                line.append(("▀", f"{REGION_NAMES[top]}/{REGION_NAMES[bottom]}"))
        cells.append(line)
    for point in chart.points:
        x_fraction, y_fraction = chart.x_scale.fraction(point.x), chart.y_scale.fraction(point.y)
        cell_row, cell_column = _row_of(chart.y_scale, point.y, plot_rows), _cell(x_fraction, plot_width)
        number = chart.classes.index(point.label)
        style = f"point-{number}"
        if colour:
            style += "/" + REGION_NAMES[sign_at(x_fraction, y_fraction)]
        cells[cell_row][cell_column] = (POINT_MARKERS[number % len(POINT_MARKERS)], style)
    return cells


def _legend(chart: Chart, colour: bool) -> list[tuple[str, str, str]]:
    """(key, key's style, text) of each entry: none for a single series."""
    entries: list[tuple[str, str, str]] = []
    match chart:
        case LineChart():
            if len(chart.series) < 2:
                return []
            for index, series in enumerate(chart.series):
                key = LINE_KEY if colour or index == 0 else SERIES_MARKERS[(index - 1) % len(SERIES_MARKERS)]
                entries.append((key, f"series-{index}", series.label or ""))
            return entries
        case BoundaryChart():
            signs = {sign for row in chart.grid.signs for sign in row}
            for sign, text in ((1, "score > 0"), (-1, "score < 0"), (0, "score = 0")):
                if sign in signs:
                    entries.append(("█" if colour else REGION_MARKS[sign], REGION_NAMES[sign], text))
            for number, label in enumerate(chart.classes):
                entries.append((POINT_MARKERS[number % len(POINT_MARKERS)], f"point-{number}", f"label {format_parameter(label)}"))
            return entries
        case _:
            assert_never(chart)


def _legend_rows(entries: list[tuple[str, str, str]], width: int) -> list[list[Segment]]:
    rows: list[list[Segment]] = []
    used = width  # forces a first row
    for key, style, text in entries:
        text = _fit(_one_line(text), width - _cells(key) - 1)
        size = _cells(key) + 1 + _cells(text)
        if used + len(LEGEND_GAP) + size > width:
            rows.append([])
            used = -len(LEGEND_GAP)
        if rows[-1]:
            rows[-1].append((LEGEND_GAP, ""))
        rows[-1].extend([(key, style), (" " + text, "")])
        used += len(LEGEND_GAP) + size
    return rows


def _x_axis(scale: Scale, label_width: int, plot_width: int) -> list[list[Segment]]:
    """The axis line with a mark at each labelled tick, and the labels centred under them:
    every tick's when they fit, else every 2nd, 3rd, ... tick's."""
    start = label_width + 2
    width = start + plot_width
    placed = [(start + _cell(scale.fraction(tick.value), plot_width), tick.label) for tick in scale.ticks]
    spans: list[tuple[int, int, str]] = []
    for every in range(1, len(placed) + 1):
        chosen = placed[::every]
        spans = []
        for column, label in chosen:
            left = min(max(0, column - _cells(label) // 2), width - _cells(label))
            spans.append((left, column, label))
        if all(after[0] > before[0] + _cells(before[2]) for before, after in zip(spans, spans[1:])):
            break
    axis = ["─"] * plot_width
    labels = [" "] * width
    for left, column, label in spans:
        axis[column - start] = "┬"
        labels[left:left + len(label)] = list(label)
    axis_row = [(" " * (label_width + 1), ""), ("└" + "".join(axis), "axis")]
    return [axis_row, [("".join(labels), "")]]


def _row_of(scale: Scale, value: float, rows: int) -> int:
    """The text row (0 at the top) of a value on a vertical scale."""
    return _cell(1.0 - scale.fraction(value), rows)


def _cell(fraction: float, count: int) -> int:
    return min(count - 1, max(0, math.floor(fraction * count)))


def _dot(coordinate: float, count: int) -> int:
    return min(count - 1, max(0, math.floor(coordinate)))


def _clamp(value: float, low: float, high: float) -> float:
    return low if value < low else high if value > high else value


def _tidy(row: list[Segment]) -> Row:
    """Neighbours of one style joined; no trailing unstyled spaces."""
    joined: list[Segment] = []
    for text, style in row:
        if not text:
            continue
        if joined and joined[-1][1] == style:
            joined[-1] = (joined[-1][0] + text, style)
        else:
            joined.append((text, style))
    while joined and joined[-1][1] == "" and not joined[-1][0].strip(" "):
        joined.pop()
    if joined and joined[-1][1] == "":
        joined[-1] = (joined[-1][0].rstrip(" "), "")
    return tuple(joined)


def _cells(text: str) -> int:
    """Terminal columns of ``text``: wide (East Asian) characters take two, combining none."""
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text
    )


def _fit(text: str, width: int) -> str:
    if _cells(text) <= width:
        return text
    while text and _cells(text) > width - 1:
        text = text[:-1]
    return text + "…"


def _one_line(text: str) -> str:
    """Control characters (a newline in a title) as spaces, runs of blanks as one."""
    return " ".join("".join(char if char.isprintable() else " " for char in text).split())


def _pad_left(text: str, width: int) -> str:
    return " " * (width - _cells(text)) + text
