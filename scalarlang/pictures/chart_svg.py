"""A chart as SVG: the same picture as the terminal's, for the notebook, the playground and
``.svg`` files. Self-contained and byte-stable (coordinates to 0.1 px, elements in the
chart's order), written with the standard library.

What a reader (or a test) can find in it:
- ``<rect class="plot-area">``: the box the scales map onto (x left to right, y upwards);
- ``<g class="axis" data-axis="x|y">``: one ``<line class="tick">`` and one
  ``<text class="tick-label">`` per tick, in increasing order;
- a line chart: one ``<g class="series" data-index data-label>`` per series, holding one
  ``<polyline>`` with one point per value, in order;
- a boundary: ``<g class="regions">`` with one ``<rect class="cell" data-sign>`` per grid cell
  (rows bottom to top, columns left to right), ``<path class="zero-line">``, and one
  ``<circle class="point" data-label>`` per point;
- ``<g class="legend">`` and ``<text class="title">``;
- ``<text class="axis-title" data-axis="x|y">``: an axis's title (`xlabel:`, `ylabel:`),
  under the x axis's labels, and up the left side (rotated) for y.
"""

from __future__ import annotations

from html import escape
from typing import Iterable, assert_never

from ..engine.numbers import format_parameter
from .charts import BoundaryChart, Chart, LineChart, SignGrid
from .scales import Scale
from .svg import FONT

WIDTH, HEIGHT = 640, 400
FONT_SIZE, TITLE_SIZE = 12, 14
CHAR_WIDTH = 7.2  # a monospace character at FONT_SIZE
TICK = 5.0
LEGEND_ROW = 18.0
AXIS_TITLE_ROOM = 18.0  # a row for the x axis's title, a column for the y axis's
SERIES_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
REGION_COLOURS = {1: "#c6dbef", -1: "#fdd0a2", 0: "#e0e0e0"}
REGION_CLASSES = {1: "positive", -1: "negative", 0: "zero"}
POINT_COLOURS = ("#d7301f", "#1f4e9c", "#238b45", "#6a51a3", "#8c510a", "#01665e")
AXIS_COLOUR, GRID_COLOUR, ZERO_LINE_COLOUR = "#555555", "#e8e8e8", "#222222"


class SvgWriter:
    """Elements as lines of text: attributes in the order given, numbers to 0.1, texts and
    attribute values escaped."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def element(self, name: str, attributes: dict[str, object], text: str | None = None) -> None:
        head = f"<{name}{_attributes(attributes)}"
        self.lines.append(f"{head}/>" if text is None else f"{head}>{escape(text, quote=False)}</{name}>")

    def open(self, name: str, attributes: dict[str, object]) -> None:
        self.lines.append(f"<{name}{_attributes(attributes)}>")

    def close(self, name: str) -> None:
        self.lines.append(f"</{name}>")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def chart_svg(chart: Chart, *, width: float = WIDTH, height: float = HEIGHT) -> str:
    """The chart as an SVG document ``width`` × ``height`` px."""
    legend = _legend(chart)
    label_chars = max(len(tick.label) for tick in chart.y_scale.ticks)
    left = 10 + label_chars * CHAR_WIDTH + TICK + 4 + (AXIS_TITLE_ROOM if chart.y_label else 0.0)
    top = 34.0 if chart.title else 14.0
    legend_rows = _legend_rows(legend, width - 20)
    x_title_room = AXIS_TITLE_ROOM if chart.x_label else 0.0
    bottom = 34.0 + x_title_room + LEGEND_ROW * len(legend_rows)
    box = (left, top, max(20.0, width - left - 20), max(20.0, height - top - bottom))
    out = SvgWriter()
    out.lines.append('<?xml version="1.0" encoding="UTF-8"?>')
    out.open("svg", {
        "xmlns": "http://www.w3.org/2000/svg", "class": f"chart {chart.kind}", "width": width, "height": height,
        "viewBox": f"0 0 {_n(width)} {_n(height)}", "font-family": FONT, "font-size": FONT_SIZE,
    })
    out.element("rect", {"class": "background", "x": 0, "y": 0, "width": width, "height": height, "fill": "white"})
    if chart.title:
        out.element("text", {
            "class": "title", "x": width / 2, "y": 22, "text-anchor": "middle", "font-size": TITLE_SIZE,
            "font-weight": "bold",
        }, chart.title)
    match chart:
        case BoundaryChart():
            _regions(out, chart, box)
        case LineChart():
            _grid_lines(out, chart, box)
        case _:
            assert_never(chart)
    out.element("rect", {
        "class": "plot-area", "x": box[0], "y": box[1], "width": box[2], "height": box[3], "fill": "none",
        "stroke": AXIS_COLOUR,
    })
    _axes(out, chart, box)
    match chart:
        case LineChart():
            _series(out, chart, box)
        case BoundaryChart():
            _zero_line(out, chart, box)
            _points(out, chart, box)
        case _:
            assert_never(chart)
    _axis_titles(out, chart, box)
    _draw_legend(out, legend_rows, box[1] + box[3] + 34.0 + x_title_room)
    out.close("svg")
    return out.text()


def _grid_lines(out: SvgWriter, chart: LineChart, box) -> None:
    x0, y0, w, h = box
    out.open("g", {"class": "grid-lines", "stroke": GRID_COLOUR})
    for tick in chart.y_scale.ticks:
        y = _y(chart.y_scale, tick.value, box)
        out.element("line", {"x1": x0, "y1": y, "x2": x0 + w, "y2": y})
    for tick in chart.x_scale.ticks:
        x = _x(chart.x_scale, tick.value, box)
        out.element("line", {"x1": x, "y1": y0, "x2": x, "y2": y0 + h})
    out.close("g")


def _axes(out: SvgWriter, chart: Chart, box) -> None:
    x0, y0, w, h = box
    out.open("g", {"class": "axis", "data-axis": "x", "stroke": AXIS_COLOUR})
    for tick in chart.x_scale.ticks:
        x = _x(chart.x_scale, tick.value, box)
        out.element("line", {"class": "tick", "x1": x, "y1": y0 + h, "x2": x, "y2": y0 + h + TICK})
        out.element("text", {
            "class": "tick-label", "x": x, "y": y0 + h + TICK + FONT_SIZE + 2, "text-anchor": "middle",
            "stroke": "none", "fill": "black",
        }, tick.label)
    out.close("g")
    out.open("g", {"class": "axis", "data-axis": "y", "stroke": AXIS_COLOUR})
    for tick in chart.y_scale.ticks:
        y = _y(chart.y_scale, tick.value, box)
        out.element("line", {"class": "tick", "x1": x0 - TICK, "y1": y, "x2": x0, "y2": y})
        out.element("text", {
            "class": "tick-label", "x": x0 - TICK - 3, "y": y + FONT_SIZE * 0.35, "text-anchor": "end",
            "stroke": "none", "fill": "black",
        }, tick.label)
    out.close("g")


def _axis_titles(out: SvgWriter, chart: Chart, box) -> None:
    x0, y0, w, h = box
    if chart.x_label:
        out.element("text", {
            "class": "axis-title", "data-axis": "x", "x": x0 + w / 2, "y": y0 + h + TICK + 2 * FONT_SIZE + 10,
            "text-anchor": "middle",
        }, chart.x_label)
    if chart.y_label:
        x, y = 10 + FONT_SIZE * 0.5, y0 + h / 2
        out.element("text", {
            "class": "axis-title", "data-axis": "y", "x": x, "y": y, "text-anchor": "middle",
            "transform": f"rotate(-90 {_n(x)} {_n(y)})",
        }, chart.y_label)


def _series(out: SvgWriter, chart: LineChart, box) -> None:
    for index, series in enumerate(chart.series):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        attributes: dict[str, object] = {"class": "series", "data-index": index}
        if series.label is not None:
            attributes["data-label"] = series.label
        out.open("g", attributes)
        points = " ".join(
            f"{_n(_x(chart.x_scale, x, box))},{_n(_y(chart.y_scale, y, box))}" for x, y in zip(series.x, series.y)
        )
        out.element("polyline", {
            "points": points, "fill": "none", "stroke": colour, "stroke-width": 1.5, "stroke-linejoin": "round",
        })
        out.close("g")


def _regions(out: SvgWriter, chart: BoundaryChart, box) -> None:
    x0, y0, w, h = box
    grid = chart.grid
    # Cell edges rounded once and shared by neighbours, so no seam shows between them.
    xs = [round(x0 + column * w / len(grid.x), 1) for column in range(len(grid.x) + 1)]
    ys = [round(y0 + h - row * h / len(grid.y), 1) for row in range(len(grid.y) + 1)]
    out.open("g", {"class": "regions", "shape-rendering": "crispEdges"})
    for row, signs in enumerate(grid.signs):
        for column, sign in enumerate(signs):
            out.element("rect", {
                "class": f"cell {REGION_CLASSES[sign]}", "data-sign": sign, "x": xs[column], "y": ys[row + 1],
                "width": xs[column + 1] - xs[column], "height": ys[row] - ys[row + 1], "fill": REGION_COLOURS[sign],
            })
    out.close("g")


def _zero_line(out: SvgWriter, chart: BoundaryChart, box) -> None:
    x0, y0, w, h = box
    grid = chart.grid
    parts = []
    for (u0, v0), (u1, v1) in zero_segments(grid):
        # Grid units (cell centres at whole numbers) to pixels.
        parts.append(
            f"M{_n(x0 + (u0 + 0.5) / len(grid.x) * w)},{_n(y0 + h - (v0 + 0.5) / len(grid.y) * h)}"
            f" L{_n(x0 + (u1 + 0.5) / len(grid.x) * w)},{_n(y0 + h - (v1 + 0.5) / len(grid.y) * h)}"
        )
    out.element("path", {
        "class": "zero-line", "d": " ".join(parts), "fill": "none", "stroke": ZERO_LINE_COLOUR, "stroke-width": 1.5,
    })


# Marching squares: for each pattern of a square's corners above 0 (bits: bottom-left 1,
# bottom-right 2, top-right 4, top-left 8), the edges the zero line joins (b, r, t, l).
_CASES: dict[int, tuple[tuple[str, str], ...]] = {
    1: (("l", "b"),), 2: (("b", "r"),), 3: (("l", "r"),), 4: (("r", "t"),), 5: (("l", "t"), ("b", "r")),
    6: (("b", "t"),), 7: (("l", "t"),), 8: (("t", "l"),), 9: (("t", "b"),), 10: (("t", "r"), ("l", "b")),
    11: (("t", "r"),), 12: (("r", "l"),), 13: (("r", "b"),), 14: (("b", "l"),),
}
_EDGE_MIDDLES = {"b": (0.5, 0.0), "r": (1.0, 0.5), "t": (0.5, 1.0), "l": (0.0, 0.5)}


def zero_segments(grid: SignGrid) -> Iterable[tuple[tuple[float, float], tuple[float, float]]]:
    """The zero line between the cells' centres where the sign turns positive, as segments
    in grid units (column, row): each crosses a square's edge at its middle."""
    signs = grid.signs
    for row in range(len(signs) - 1):
        for column in range(len(signs[row]) - 1):
            case = (
                (signs[row][column] > 0) * 1 + (signs[row][column + 1] > 0) * 2
                + (signs[row + 1][column + 1] > 0) * 4 + (signs[row + 1][column] > 0) * 8
            )
            for start, end in _CASES.get(case, ()):
                (a, b), (c, d) = _EDGE_MIDDLES[start], _EDGE_MIDDLES[end]
                yield (column + a, row + b), (column + c, row + d)


def _points(out: SvgWriter, chart: BoundaryChart, box) -> None:
    out.open("g", {"class": "points", "stroke": "white", "stroke-width": 1})
    for point in chart.points:
        number = chart.classes.index(point.label)
        out.element("circle", {
            "class": "point", "data-label": format_parameter(point.label), "cx": _x(chart.x_scale, point.x, box),
            "cy": _y(chart.y_scale, point.y, box), "r": 3.5, "fill": POINT_COLOURS[number % len(POINT_COLOURS)],
        })
    out.close("g")


def _legend(chart: Chart) -> list[tuple[str, str, str]]:
    """(shape, colour, text) of each entry: none for a single series."""
    match chart:
        case LineChart():
            if len(chart.series) < 2:
                return []
            return [
                ("line", SERIES_COLOURS[index % len(SERIES_COLOURS)], series.label or "")
                for index, series in enumerate(chart.series)
            ]
        case BoundaryChart():
            signs = {sign for row in chart.grid.signs for sign in row}
            entries = [
                ("square", REGION_COLOURS[sign], text)
                for sign, text in ((1, "score > 0"), (-1, "score < 0"), (0, "score = 0"))
                if sign in signs
            ]
            for number, label in enumerate(chart.classes):
                entries.append(("circle", POINT_COLOURS[number % len(POINT_COLOURS)], f"label {format_parameter(label)}"))
            return entries
        case _:
            assert_never(chart)


def _legend_rows(entries: list[tuple[str, str, str]], width: float) -> list[list[tuple[str, str, str, float]]]:
    """Entries placed left to right (each with its x), in as many rows as the width needs."""
    rows: list[list[tuple[str, str, str, float]]] = []
    x = width
    for shape, colour, text in entries:
        size = 22 + len(text) * CHAR_WIDTH
        if x + size > width and (not rows or rows[-1]):
            rows.append([])
            x = 0.0
        rows[-1].append((shape, colour, text, x))
        x += size + 16
    return rows


def _draw_legend(out: SvgWriter, rows, top: float) -> None:
    if not rows:
        return
    out.open("g", {"class": "legend"})
    for number, row in enumerate(rows):
        y = top + number * LEGEND_ROW + 4
        for shape, colour, text, x in row:
            left = 10 + x
            if shape == "line":
                out.element("line", {"x1": left, "y1": y, "x2": left + 16, "y2": y, "stroke": colour, "stroke-width": 2})
            elif shape == "square":
                out.element("rect", {"x": left + 3, "y": y - 5, "width": 10, "height": 10, "fill": colour, "stroke": AXIS_COLOUR})
            else:
                out.element("circle", {"cx": left + 8, "cy": y, "r": 4, "fill": colour})
            out.element("text", {"x": left + 22, "y": y + FONT_SIZE * 0.35}, text)
    out.close("g")


def _x(scale: Scale, value: float, box) -> float:
    return box[0] + _clamped(scale.fraction(value)) * box[2]


def _y(scale: Scale, value: float, box) -> float:
    return box[1] + (1.0 - _clamped(scale.fraction(value))) * box[3]


def _clamped(fraction: float) -> float:
    return 0.0 if fraction < 0 else 1.0 if fraction > 1 else fraction


def _attributes(attributes: dict[str, object]) -> str:
    parts = []
    for name, value in attributes.items():
        shown = _n(value) if isinstance(value, float) else str(value)
        parts.append(f' {name}="{escape(shown, quote=True)}"')
    return "".join(parts)


def _n(value: float) -> str:
    text = f"{value:.1f}"
    text = text[:-2] if text.endswith(".0") else text
    return "0" if text == "-0" else text
