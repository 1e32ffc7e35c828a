"""The SVG of a chart, parsed with xml.etree: a polyline with one point per value, in order,
where the axes' own ticks say it belongs; one region cell per grid point coloured by the sign
a score gives there (computed here, independently of the chart); the points by label."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ElementTree

import pytest

from shared import moons, score
from scalarlang.pictures.chart_svg import chart_svg
from scalarlang.pictures.charts import boundary_chart, line_chart

SVG = "{http://www.w3.org/2000/svg}"
# Coordinates are written to 0.1 px: a position read back is within half of that, and a
# map fitted through two rounded ticks adds as much again.
TOLERANCE = 0.15


def parse(text: str) -> ElementTree.Element:
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    return ElementTree.fromstring(text.encode("utf-8"))


def axis_map(root: ElementTree.Element, axis: str, log: bool = False):
    """The pixel of a value on ``axis``, fitted through the first and last ticks' marks and
    the numbers their labels say."""
    (group,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "axis" and g.get("data-axis") == axis]
    lines = [line for line in group.iter(f"{SVG}line") if line.get("class") == "tick"]
    labels = [text for text in group.iter(f"{SVG}text") if text.get("class") == "tick-label"]
    assert len(lines) == len(labels) >= 2
    coordinate = "x1" if axis == "x" else "y1"
    marks = [(float(label.text), float(line.get(coordinate))) for line, label in zip(lines, labels)]
    transform = math.log10 if log else (lambda value: value)
    (v0, p0), (v1, p1) = marks[0], marks[-1]
    assert v0 < v1

    def pixel(value: float) -> float:
        return p0 + (transform(value) - transform(v0)) / (transform(v1) - transform(v0)) * (p1 - p0)

    for value, position in marks:  # every tick sits where the map puts it
        assert pixel(value) == pytest.approx(position, abs=TOLERANCE * 2)
    return pixel


def polyline_points(group: ElementTree.Element) -> list[tuple[float, float]]:
    (polyline,) = group.iter(f"{SVG}polyline")
    return [tuple(map(float, pair.split(","))) for pair in polyline.get("points").split()]


@pytest.mark.parametrize("log", [False, True])
def test_one_point_per_value_in_order_and_scaled(log):
    generator = random.Random(7)
    train = [2.0 * math.exp(-step / 30) + 0.05 * generator.random() for step in range(200)]
    test = [value * 1.2 for value in train[:150]]
    x = [float(step) for step in range(200)]
    chart = line_chart([train, test + [0.5] * 50], x=x, labels=["train", "test & <more>"], log=log)
    root = parse(chart_svg(chart))
    to_x, to_y = axis_map(root, "x"), axis_map(root, "y", log)
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "series"]
    assert [g.get("data-label") for g in groups] == ["train", "test & <more>"]
    for group, ys in zip(groups, (train, test + [0.5] * 50)):
        points = polyline_points(group)
        assert len(points) == len(ys)
        for (px, py), xv, yv in zip(points, x, ys):
            assert px == pytest.approx(to_x(xv), abs=TOLERANCE)
            assert py == pytest.approx(to_y(yv), abs=TOLERANCE)
    # Up the page is up the scale.
    assert polyline_points(groups[0])[0][1] < polyline_points(groups[0])[-1][1]


def test_the_plot_area_holds_the_line_and_the_texts_are_escaped():
    chart = line_chart([[1, 5, 3]], title='a <b> & "c"')
    text = chart_svg(chart, width=300, height=200)
    root = parse(text)
    assert root.get("width") == "300" and root.get("height") == "200"
    (title,) = [t for t in root.iter(f"{SVG}text") if t.get("class") == "title"]
    assert title.text == 'a <b> & "c"'
    (area,) = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "plot-area"]
    left, top = float(area.get("x")), float(area.get("y"))
    right, bottom = left + float(area.get("width")), top + float(area.get("height"))
    (group,) = [g for g in root.iter(f"{SVG}g") if g.get("class") == "series"]
    for px, py in polyline_points(group):
        assert left - TOLERANCE <= px <= right + TOLERANCE and top - TOLERANCE <= py <= bottom + TOLERANCE
    assert not [g for g in root.iter(f"{SVG}g") if g.get("class") == "legend"]  # one series: no legend


def test_the_same_chart_is_the_same_bytes():
    def make():
        return chart_svg(line_chart([[0.1 * k for k in range(50)], [1, 2]], labels=["a", "b"], title="t"))

    assert make() == make()


@pytest.mark.parametrize("grid", [2, 17, 40])
def test_one_cell_per_grid_point_with_the_scores_sign(grid):
    points = moons()
    root = parse(chart_svg(boundary_chart(points, score, grid=grid, title="moons")))
    to_x, to_y = axis_map(root, "x"), axis_map(root, "y")
    cells = [r for r in root.iter(f"{SVG}rect") if (r.get("class") or "").startswith("cell ")]
    assert len(cells) == grid * grid
    # Back from pixels to data: invert the fitted maps (they are linear).
    x0, x1 = to_x(0.0), to_x(1.0)
    y0, y1 = to_y(0.0), to_y(1.0)
    centres = set()
    checked = 0
    for cell in cells:
        cx = float(cell.get("x")) + float(cell.get("width")) / 2
        cy = float(cell.get("y")) + float(cell.get("height")) / 2
        x, y = (cx - x0) / (x1 - x0), (cy - y0) / (y1 - y0)
        centres.add((round(cx), round(cy)))
        value = score(x, y)
        expected = (value > 0) - (value < 0)
        colour = {1: "positive", -1: "negative", 0: "zero"}[int(cell.get("data-sign"))]
        assert cell.get("class") == f"cell {colour}"
        if abs(value) > 0.02:  # clear of the rounding of the cell's pixels
            assert int(cell.get("data-sign")) == expected, (x, y, value)
            checked += 1
    assert len(centres) == grid * grid  # no two cells on one spot
    assert checked >= grid * grid * 0.8


def test_points_are_circles_where_the_data_is_coloured_by_label():
    points = moons(40)
    root = parse(chart_svg(boundary_chart(points, score, grid=20)))
    to_x, to_y = axis_map(root, "x"), axis_map(root, "y")
    circles = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "point"]
    assert len(circles) == len(points)
    fills = {}
    for circle, (x, y, label) in zip(circles, points):
        assert float(circle.get("cx")) == pytest.approx(to_x(x), abs=TOLERANCE)
        assert float(circle.get("cy")) == pytest.approx(to_y(y), abs=TOLERANCE)
        assert float(circle.get("data-label")) == label
        fills.setdefault(label, set()).add(circle.get("fill"))
    assert all(len(colours) == 1 for colours in fills.values())
    assert len({colour for colours in fills.values() for colour in colours}) == 2


def test_the_zero_line_runs_between_cells_of_opposite_sign():
    grid = 20
    root = parse(chart_svg(boundary_chart(moons(), score, grid=grid)))
    (path,) = [p for p in root.iter(f"{SVG}path") if p.get("class") == "zero-line"]
    parts = path.get("d").split()
    assert parts and len(parts) % 2 == 0
    cells = [r for r in root.iter(f"{SVG}rect") if (r.get("class") or "").startswith("cell ")]

    def sign_at(px: float, py: float) -> int:
        for cell in cells:
            x, y = float(cell.get("x")), float(cell.get("y"))
            if x <= px < x + float(cell.get("width")) and y <= py < y + float(cell.get("height")):
                return int(cell.get("data-sign"))
        raise AssertionError((px, py))

    width = float(cells[0].get("width"))
    for move, line in zip(parts[::2], parts[1::2]):
        assert move.startswith("M") and line.startswith("L")
        (ax, ay), (bx, by) = (tuple(map(float, part[1:].split(","))) for part in (move, line))
        mx, my = (ax + bx) / 2, (ay + by) / 2
        # Across the segment, a quarter cell either side, the signs differ.
        nx, ny = -(by - ay), bx - ax
        norm = math.hypot(nx, ny)
        nx, ny = nx / norm * width / 4, ny / norm * width / 4
        assert {sign_at(mx + nx, my + ny), sign_at(mx - nx, my - ny)} == {-1, 1}


def test_one_sign_everywhere_has_no_zero_line():
    root = parse(chart_svg(boundary_chart(moons(10), lambda x, y: 1.0, grid=5)))
    (path,) = [p for p in root.iter(f"{SVG}path") if p.get("class") == "zero-line"]
    assert path.get("d") == ""
