"""Charts as data (scalarlang/pictures/charts.py, scales.py): round ticks for any range, the
constructors' checks as typed errors, the boundary's grid, the JSON event's fields, files."""

from __future__ import annotations

import json
import math
from decimal import Decimal

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from scalarlang.pictures import DrawingError
from scalarlang.pictures.chart_files import chart_format, write_chart
from scalarlang.pictures.charts import BoundaryChart, LineChart, boundary_chart, boundary_grid, line_chart
from scalarlang.pictures.errors import CHART_KINDS, ChartError
from scalarlang.pictures.scales import format_tick, linear_scale, log_scale
from scalarlang.render.chart_events import chart_fields

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


def step_of(labels: list[str]) -> Decimal:
    """The one difference between consecutive ticks, read from their labels."""
    values = [Decimal(label) for label in labels]
    steps = {after - before for before, after in zip(values, values[1:])}
    assert len(steps) == 1, labels
    return steps.pop()


def is_round(step: Decimal) -> bool:
    """1, 2 or 5 × 10^n."""
    digits = step.normalize().as_tuple().digits
    return step > 0 and digits in ((1,), (2,), (5,))


# --- scales -------------------------------------------------------------------------------


@given(finite, finite, st.booleans())
def test_linear_ticks_are_round_inside_and_exactly_labelled(a, b, extend):
    low, high = min(a, b), max(a, b)
    scale = linear_scale(low, high, extend=extend)
    labels = [tick.label for tick in scale.ticks]
    assert 2 <= len(labels) <= 12
    assert is_round(step_of(labels))
    assert scale.low < scale.high
    for tick in scale.ticks:
        assert scale.low <= tick.value <= scale.high
        # The label is the value, exactly as written, and short: no float noise.
        assert float(tick.label) == tick.value
        assert len(Decimal(tick.label).normalize().as_tuple().digits) <= 15, tick.label
    if extend:
        assert scale.ticks[0].value == scale.low and scale.ticks[-1].value == scale.high
    assert scale.low <= low and high <= scale.high or low == high


@given(st.floats(min_value=1e-200, max_value=1e200), st.floats(min_value=1e-200, max_value=1e200))
def test_log_ticks_are_powers_of_ten_covering_the_values(a, b):
    low, high = min(a, b), max(a, b)
    scale = log_scale(low, high)
    assert scale.low <= low and high <= scale.high
    powers = [tick for tick in scale.ticks if Decimal(tick.label).normalize().as_tuple().digits == (1,)]
    assert powers[0].value == scale.low and powers[-1].value == scale.high
    exponents = [Decimal(tick.label).adjusted() for tick in powers]
    assert len({after - before for before, after in zip(exponents, exponents[1:])}) == 1
    assert 2 <= len(powers) <= 7
    for tick in scale.ticks:
        assert float(tick.label) == tick.value


@pytest.mark.parametrize(
    ("low", "high", "labels"),
    [
        (0.0, 1.0, ["0", "0.2", "0.4", "0.6", "0.8", "1"]),
        (0.1, 0.3, ["0.1", "0.15", "0.2", "0.25", "0.3"]),
        (0.0, 99.0, ["0", "20", "40", "60", "80"]),
        (1e-7, 3e-6, ["5e-07", "1e-06", "1.5e-06", "2e-06", "2.5e-06", "3e-06"]),
        (1e6, 5e6, ["1e+06", "2e+06", "3e+06", "4e+06", "5e+06"]),
        (1.0, 1.000002, ["1", "1.0000005", "1.000001", "1.0000015", "1.000002"]),
    ],
)
def test_tick_labels_read_as_written(low, high, labels):
    assert [tick.label for tick in linear_scale(low, high).ticks] == labels


def test_tick_labels_come_from_the_step_not_from_float_sums():
    # 0.1 + 0.2 is 0.30000000000000004 as a float; the tick reads 0.3.
    assert format_tick(3, -1) == "0.3"
    assert "0.3" in [tick.label for tick in linear_scale(0.1, 0.5).ticks]
    assert format_tick(-25, 5) == "-2.5e+06" and format_tick(1, -6) == "1e-06" and format_tick(0, 9) == "0"


def test_a_constant_series_gets_a_range_around_it():
    for value in (0.0, 5.0, -1e-9, 1e12):
        scale = linear_scale(value, value)
        assert scale.low < value < scale.high


def test_log_scale_of_a_few_decades_has_intermediate_ticks():
    assert [tick.label for tick in log_scale(2, 8).ticks] == ["1", "2", "5", "10"]
    assert [tick.label for tick in log_scale(0.01, 2.3).ticks] == ["0.01", "0.1", "1", "10"]


# --- constructors -----------------------------------------------------------------------


def test_line_chart_against_the_index_or_shared_x():
    chart = line_chart([[3, 1, 2]], title="loss")
    assert isinstance(chart, LineChart) and chart.kind == "line" and chart.title == "loss"
    (series,) = chart.series
    assert series.x == (0.0, 1.0, 2.0) and series.y == (3.0, 1.0, 2.0) and series.label is None
    chart = line_chart([[1, 2], [3, 4]], x=[10, 20], labels=["train", "test"])
    assert [s.label for s in chart.series] == ["train", "test"]
    assert all(s.x == (10.0, 20.0) for s in chart.series)
    assert [s.label for s in line_chart([[1], [2], [3]]).series] == ["series 0", "series 1", "series 2"]


def test_line_chart_scales_hold_every_value():
    chart = line_chart([[0.5, 2.3, -0.2], [4, 0, 1]])
    values = [y for s in chart.series for y in s.y]
    assert chart.y_scale.low <= min(values) and max(values) <= chart.y_scale.high
    assert (chart.x_scale.low, chart.x_scale.high) == (0.0, 2.0)
    log = line_chart([[0.003, 20]], log=True)
    assert log.y_scale.log and log.y_scale.low == 0.001 and log.y_scale.high == 100


def kind_and_fields(call):
    with pytest.raises(ChartError) as caught:
        call()
    error = caught.value
    assert isinstance(error, DrawingError) and error.kind in CHART_KINDS and error.message == str(error)
    return error.kind, error.fields


@pytest.mark.parametrize(
    ("call", "kind", "fields"),
    [
        (lambda: line_chart([]), "no-series", {}),
        (lambda: line_chart([[1], []]), "empty-series", {"series": 1}),
        (lambda: line_chart([[1, math.inf]]), "non-finite-value", {"series": 0, "axis": "y", "index": 1, "value": math.inf}),
        (lambda: line_chart([[1, 2]], x=[0, math.nan]), "non-finite-value", {"series": 0, "axis": "x", "index": 1}),
        (lambda: line_chart([[1, 2, 3]], x=[0, 1]), "length-mismatch", {"series": 0, "x_length": 2, "y_length": 3}),
        (lambda: line_chart([[1], [2]], labels=["a"]), "label-count", {"labels": 1, "series": 2}),
        (lambda: line_chart([[1, 0.5, 0]], log=True), "log-non-positive", {"series": 0, "index": 2, "value": 0.0}),
        (lambda: line_chart([[-1e308, 1e308]]), "range-too-wide", {"axis": "y"}),
        (lambda: boundary_chart([], lambda x, y: x), "no-points", {}),
        (lambda: boundary_chart([(0, 1)], lambda x, y: x), "point-shape", {"index": 0, "length": 2}),
        (lambda: boundary_chart([(0, math.nan, 1)], lambda x, y: x), "non-finite-value", {"axis": "y", "index": 0}),
        (lambda: boundary_chart([(0, 0, 1)], lambda x, y: x, grid=1000), "grid-out-of-range", {"grid": 1000, "low": 2, "high": 200}),
        (lambda: boundary_chart([(0, 0, 1)], lambda x, y: x, grid=1), "grid-out-of-range", {"grid": 1}),
        (lambda: boundary_chart([(0, 0, 1)], lambda x, y: x, grid=2.5), "grid-out-of-range", {"grid": 2.5}),
        (lambda: boundary_chart([(0, 0, 1)], lambda x, y: math.nan), "undefined-score", {}),
        (lambda: boundary_chart([(0, 0, 1)], signs=[[1, 1]] * 3, grid=2), "sign-grid-shape", {"rows": 3, "grid": 2}),
    ],
)
def test_bad_input_is_a_typed_error(call, kind, fields):
    actual_kind, actual_fields = kind_and_fields(call)
    assert actual_kind == kind
    assert {name: actual_fields[name] for name in fields} == fields


def test_boundary_grid_cells_tile_the_range_with_a_margin():
    points = [(0.0, 10.0, 1), (4.0, 30.0, -1), (2.0, 20.0, 1)]
    chart = boundary_chart(points, lambda x, y: x - 1, grid=8, title="b")
    assert isinstance(chart, BoundaryChart) and chart.kind == "boundary"
    # 10% of each range on each side.
    assert chart.x_scale.low == pytest.approx(-0.4) and chart.x_scale.high == pytest.approx(4.4)
    assert chart.y_scale.low == pytest.approx(8.0) and chart.y_scale.high == pytest.approx(32.0)
    assert len(chart.grid.x) == len(chart.grid.y) == 8 and len(chart.grid.signs) == 8
    assert chart.grid.x[0] == pytest.approx(-0.4 + 4.8 / 16) and chart.grid.y[-1] == pytest.approx(32 - 24 / 16)
    for row, y in zip(chart.grid.signs, chart.grid.y):
        assert list(row) == [(x > 1) - (x < 1) for x in chart.grid.x]
    assert chart.classes == (-1.0, 1.0)
    assert [(p.x, p.y, p.label) for p in chart.points] == [(0.0, 10.0, 1.0), (4.0, 30.0, -1.0), (2.0, 20.0, 1.0)]


def test_boundary_from_signs_the_caller_computed():
    points = [(0, 0, 0), (1, 1, 1)]
    grid = boundary_grid(points, grid=5)
    scores = [[x * y - 0.2 for x in grid.x] for y in grid.y]
    from_signs = boundary_chart(points, signs=scores, grid=5)
    from_score = boundary_chart(points, lambda x, y: x * y - 0.2, grid=5)
    assert from_signs == from_score
    assert boundary_chart(points, lambda x, y: -math.inf, grid=2).grid.signs == ((-1, -1), (-1, -1))
    with pytest.raises(TypeError):
        boundary_chart(points)


def test_a_single_point_still_has_a_range():
    chart = boundary_chart([(3.0, 3.0, 1.0)], lambda x, y: x - 3, grid=4)
    assert chart.x_scale.low < 3.0 < chart.x_scale.high
    assert {sign for row in chart.grid.signs for sign in row} == {-1, 1}


# --- the JSON event's fields -------------------------------------------------------------


def test_line_event_fields():
    fields = chart_fields(line_chart([[3, 1], [2, 2]], labels=["a", "b"], title="t"), "loss.svg")
    assert fields == {
        "kind": "line",
        "title": "t",
        "xlabel": None,
        "ylabel": None,
        "series": [{"label": "a", "x": [0.0, 1.0], "y": [3.0, 1.0]}, {"label": "b", "x": [0.0, 1.0], "y": [2.0, 2.0]}],
        "path": "loss.svg",
    }
    json.dumps(fields, allow_nan=False)


def test_boundary_event_fields():
    points = [(0, 0, -1), (1, 2, 1)]
    chart = boundary_chart(points, lambda x, y: y - x, grid=3)
    fields = chart_fields(chart)
    assert set(fields) == {"kind", "title", "xlabel", "ylabel", "grid", "points", "path"}
    assert fields["kind"] == "boundary" and fields["title"] is None and fields["path"] is None
    grid = fields["grid"]
    assert len(grid["x"]) == len(grid["y"]) == 3
    assert grid["sign"] == [[(y > x) - (y < x) for x in grid["x"]] for y in grid["y"]]
    assert fields["points"] == [{"x": 0.0, "y": 0.0, "label": -1.0}, {"x": 1.0, "y": 2.0, "label": 1.0}]
    json.dumps(fields, allow_nan=False)


# --- files ------------------------------------------------------------------------------


def test_write_chart_as_svg_or_text(tmp_path):
    chart = line_chart([[1, 2, 3]], title="up")
    svg = write_chart(chart, tmp_path / "up.svg")
    assert svg.read_text(encoding="utf-8").startswith("<?xml") and "<polyline" in svg.read_text(encoding="utf-8")
    text = write_chart(chart, tmp_path / "up.txt", width=50).read_text(encoding="utf-8")
    assert max(len(line) for line in text.splitlines()) == 50 and "up" in text
    assert chart_format("A.SVG") == "svg"


def test_write_chart_errors(tmp_path):
    chart = line_chart([[1, 2]])
    with pytest.raises(ChartError) as caught:
        write_chart(chart, tmp_path / "x.png")
    assert caught.value.kind == "unknown-picture-format" and caught.value.fields["extension"] == ".png"
    assert not (tmp_path / "x.png").exists()
    with pytest.raises(ChartError) as caught:
        write_chart(chart, tmp_path / "missing" / "x.svg")
    assert caught.value.kind == "io-error"
