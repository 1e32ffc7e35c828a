"""Charts of extreme numbers (issue 40, item 1): values near the largest double, subnormals,
constants of either, on linear and log scales, for `plot` and `boundary`. Each draws a chart
whose scales hold every value with finite ends and round ticks, in text, SVG and the JSON
event; the only failure is a typed one (`range-too-wide` when the values' span is no double,
`log-non-positive`), never an internal error."""

from __future__ import annotations

import json
import math
import re
import sys

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from commands import command, needs_command
from shared import property_examples
from scalarlang.pictures.chart_svg import chart_svg
from scalarlang.pictures.chart_text import chart_rows, chart_text, min_width
from scalarlang.pictures.charts import boundary_chart, line_chart
from scalarlang.pictures.errors import ChartError
from scalarlang.render.chart_events import chart_fields

LARGEST = sys.float_info.max
SMALLEST = math.ulp(0.0)
EDGES = [
    0.0, 1.0, -1.0, LARGEST, -LARGEST, 1e308, -1e308, 1.5e308, 8.9e307, SMALLEST, -SMALLEST, 2 * SMALLEST,
    1e-320, 2.2250738585072014e-308, 1e-300, 1e-290, 1e300, 0.5, 3.0,
]
extreme = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=False, allow_infinity=False))
positive = st.one_of(
    st.sampled_from([value for value in EDGES if value > 0]),
    st.floats(min_value=SMALLEST, max_value=LARGEST, allow_nan=False, allow_infinity=False),
)
values = st.lists(extreme, min_size=1, max_size=6)


def check_drawn(chart) -> None:
    """Every value on its scale, finite ends and ticks; each renderer draws it."""
    for scale in (chart.x_scale, chart.y_scale):
        assert math.isfinite(scale.low) and math.isfinite(scale.high) and scale.low < scale.high
        assert scale.ticks and all(math.isfinite(tick.value) for tick in scale.ticks)
        for tick in scale.ticks:
            assert scale.low <= tick.value <= scale.high and math.isfinite(scale.fraction(tick.value))
    if hasattr(chart, "series"):
        pairs = [(x, y) for series in chart.series for x, y in zip(series.x, series.y)]
    else:
        pairs = [(point.x, point.y) for point in chart.points]
        assert all(math.isfinite(value) for value in chart.grid.x + chart.grid.y)
    for x, y in pairs:
        for scale, value in ((chart.x_scale, x), (chart.y_scale, y)):
            fraction = scale.fraction(value)
            assert math.isfinite(fraction) and -1e-9 <= fraction <= 1 + 1e-9, (value, scale)
    text = chart_text(chart, 80)
    assert text.count("\n") >= 7
    for width in (min_width(chart), 120):
        for colour in (False, True):
            rows = chart_rows(chart, max(width, min_width(chart)), colour=colour)
            assert max(sum(len(piece) for piece, _ in row) for row in rows) <= max(width, min_width(chart))
    svg = chart_svg(chart)
    assert "<polyline" in svg or "<circle" in svg
    assert not re.search(r'="[^"]*(nan|inf)', svg), "every coordinate a number"
    json.dumps(chart_fields(chart), allow_nan=False)


def drawn_or_too_wide(make, low: float, high: float) -> None:
    try:
        chart = make()
    except ChartError as error:
        assert error.kind == "range-too-wide" and not math.isfinite(high - low), (error.kind, low, high)
        return
    check_drawn(chart)


@settings(max_examples=property_examples(150, default_run=25), deadline=None)
@given(values, st.booleans())
def test_a_line_chart_of_any_finite_values_is_drawn(ys, against_themselves):
    x = ys if against_themselves else None
    spans = [max(ys) - min(ys)] + ([max(ys) - min(ys)] if x else [len(ys) - 1.0])
    drawn_or_too_wide(lambda: line_chart([ys], x), 0.0, max(spans))


@settings(max_examples=property_examples(80), deadline=None)
@given(st.lists(values, min_size=1, max_size=3), st.one_of(st.none(), values))
def test_several_series_against_any_x_are_drawn(series, x):
    assume(x is None or all(len(ys) == len(x) for ys in series))
    every = [value for ys in series for value in ys] + (x or [])
    drawn_or_too_wide(lambda: line_chart(series, x), 0.0, max(every) - min(every))


@settings(max_examples=property_examples(100), deadline=None)
@given(st.lists(positive, min_size=1, max_size=6))
def test_a_log_chart_of_any_positive_values_is_drawn(ys):
    check_drawn(line_chart([ys], log=True))


@settings(max_examples=property_examples(60, default_run=10), deadline=None)
@given(st.lists(st.tuples(extreme, extreme, st.sampled_from([0.0, 1.0])), min_size=1, max_size=5))
def test_a_boundary_of_any_finite_points_is_drawn(points):
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    span = max(max(xs) - min(xs), max(ys) - min(ys))
    drawn_or_too_wide(lambda: boundary_chart(points, lambda x, y: x - y, grid=4), 0.0, span)
    # A score of ±inf or huge has a sign too.
    drawn_or_too_wide(lambda: boundary_chart(points, lambda x, y: x * 1e308, grid=3), 0.0, span)


def test_constants_at_the_largest_doubles_get_a_range_around_them():
    for value in (1e308, -1e308, LARGEST, -LARGEST):
        chart = line_chart([[value, value]])
        assert chart.y_scale.low < value < chart.y_scale.high or value in (LARGEST, -LARGEST)
        check_drawn(chart)


def test_a_log_scale_below_the_smallest_power_of_ten_reaches_the_smallest_double():
    chart = line_chart([[SMALLEST * number for number in range(1, 6)]], log=True)
    assert chart.y_scale.low == SMALLEST and chart.y_scale.ticks[0].label == "1e-323"
    check_drawn(chart)


@needs_command
def test_the_issues_reproductions_draw_through_the_command(tmp_path):
    programs = [
        "plot([1e308, 1e308])",
        "plot([1e308, 1e308], [1, 2])",
        "plot([1, 2], [1e308, 1e308])",
        "plot([5e-324 * u for u in 1..6], log: 1)",
        "fn f(a, b) = a - b\nboundary(f, [[1e308, 0, 1], [1e308, 1, 0]])",
        "fn f(a, b) = a - b\nboundary(f, [[0, 1e308, 1], [1, 1e308, 0]])",
    ]
    names = []
    for number, program in enumerate(programs):
        (tmp_path / f"p{number}.sad").write_text(program + "\n", encoding="utf-8")
        names.append(f"p{number}.sad")
    result = command("--width", "80", *names, cwd=tmp_path, text=True)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout.count("└") == len(programs) and "error" not in result.stdout

def test_whole_number_data_gets_whole_number_ticks():
    """Issue 45, item 4: steps 0, 1, 2 are not ticked at 0.5 and 1.5, on either axis, nor in a
    boundary of whole-number points; other data keeps its finer round steps."""
    chart = line_chart([[0, 1, 2]])
    assert [tick.label for tick in chart.x_scale.ticks] == ["0", "1", "2"]
    assert [tick.label for tick in chart.y_scale.ticks] == ["0", "1", "2"]
    assert [tick.label for tick in line_chart([[5, 5]]).y_scale.ticks] == ["4", "5", "6"]
    boundary = boundary_chart([(0, 0, 1), (1, 2, 0)], lambda x, y: x - y, grid=4)
    assert all(float(tick.label).is_integer() for tick in boundary.x_scale.ticks + boundary.y_scale.ticks)
    assert not all(float(tick.label).is_integer() for tick in line_chart([[0.5, 1, 2]]).y_scale.ticks)
    assert "0.5" in [tick.label for tick in line_chart([[1, 2]], x=[0, 0.5]).x_scale.ticks]
