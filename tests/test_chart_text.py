"""A chart as terminal text (pictures/chart_text.py, render/chart_text.py): goldens at two
widths with and without colour, the width and height exact for any chart, the dots where the
values are, the regions' signs where the score says, and rich's colours only with colour.

The goldens are tests/fixtures/charts/NAME-wWIDTH.txt (the colourless picture) and
NAME-wWIDTH-colour.txt (the colour picture's characters, then a mask of its styles, a letter
a character, and what each letter means); ``pytest --update-golden`` rewrites them."""

from __future__ import annotations

import io
import math
import random
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared import moons, score
from scalarlang.pictures.chart_text import chart_rows, chart_text
from scalarlang.pictures.charts import boundary_chart, line_chart
from scalarlang.pictures.errors import ChartError
from scalarlang.render.chart_text import chart_rich_text, chart_style, rows_text
from scalarlang.render.text import make_console

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "charts"
WIDTHS = (40, 80)
BRAILLE = range(0x2800, 0x2900)
# The dot bit of each (row, column) in a braille cell of 4 × 2 dots (Unicode's numbering).
DOT_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def losses(count: int = 100, scale: float = 1.0) -> list[float]:
    return [scale * (2.3 * math.exp(-step / 15) + 0.05 * math.sin(step) + 0.06) for step in range(count)]


CHARTS = {
    "loss": lambda: line_chart([losses()], title="loss"),
    "train_test_log": lambda: line_chart([losses(), losses(80, 1.4)], labels=["train", "test"], title="loss", log=True),
    "moons": lambda: boundary_chart(moons(), score, title="moons"),
}


def colour_golden(rows) -> str:
    """The characters, a blank line, the style mask (a letter a character, space: unstyled)
    and the letters' styles."""
    letters: dict[str, str] = {}
    pictures, masks = [], []
    for row in rows:
        pictures.append("".join(text for text, _ in row))
        mask = ""
        for text, style in row:
            letter = " " if not style else letters.setdefault(style, "abcdefghijklmnopqrstuvwxyz"[len(letters)])
            mask += letter * len(text)
        masks.append(mask.rstrip())
    legend = [f"{letter} {style}" for style, letter in letters.items()]
    return "\n".join(pictures + ["", "styles:"] + masks + [""] + legend) + "\n"


def check_golden(request, name: str, actual: str) -> None:
    path = FIXTURES / name
    if request.config.getoption("--update-golden"):
        FIXTURES.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path.name} is missing: run pytest {__file__} --update-golden and review it"
    assert actual == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(CHARTS))
def test_golden_without_colour(name, width, request):
    check_golden(request, f"{name}-w{width}.txt", chart_text(CHARTS[name](), width))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(CHARTS))
def test_golden_with_colour(name, width, request):
    check_golden(request, f"{name}-w{width}-colour.txt", colour_golden(chart_rows(CHARTS[name](), width, colour=True)))


# --- the shape of every picture -----------------------------------------------------------

series_values = st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=1, max_size=60)


def assert_shape(rows, width: int, height: int | None) -> None:
    lines = ["".join(text for text, _ in row) for row in rows]
    assert all(len(line) <= width for line in lines), lines
    assert all(line == line.rstrip() for line in lines)
    axis = [line for line in lines if "└" in line]
    assert len(axis) == 1 and len(axis[0]) == width
    if height is not None:
        assert len(lines) == height


@given(
    st.lists(series_values, min_size=1, max_size=4),
    st.integers(min_value=30, max_value=140),
    st.one_of(st.none(), st.integers(min_value=9, max_value=40)),
    st.booleans(),
    st.one_of(st.none(), st.text(max_size=60)),
)
def test_any_line_chart_is_exactly_the_width(ys, width, height, colour, title):
    chart = line_chart(ys, title=title)
    assert_shape(chart_rows(chart, width, height, colour=colour), width, height)


@given(
    st.lists(
        st.tuples(st.floats(-100, 100), st.floats(-100, 100), st.sampled_from([0.0, 1.0, 2.0])), min_size=1, max_size=30
    ),
    st.integers(min_value=2, max_value=60),
    st.integers(min_value=30, max_value=140),
    st.booleans(),
)
def test_any_boundary_is_exactly_the_width(points, grid, width, colour):
    chart = boundary_chart(points, lambda x, y: x * y - 1, grid=grid, title="b")
    assert_shape(chart_rows(chart, width, 20, colour=colour), width, 20)


def test_too_small_is_a_typed_error():
    chart = line_chart([[1, 2, 3]], title="t")
    with pytest.raises(ChartError) as caught:
        chart_rows(chart, 10)
    assert caught.value.kind == "chart-too-small" and caught.value.fields["width"] == 10
    with pytest.raises(ChartError) as caught:
        chart_rows(chart, 60, 4)
    assert caught.value.kind == "chart-too-small" and caught.value.fields["min_height"] == 5


# --- what the picture says ------------------------------------------------------------------


def plot_area(text: str) -> tuple[list[str], int]:
    """The plot's rows (between the title and the x axis) and the column where they start."""
    lines = text.splitlines()
    axis = next(number for number, line in enumerate(lines) if "└" in line)
    start = lines[axis].index("└") + 1
    rows = [line for line in lines[:axis] if len(line) > start - 1 and line[start - 1] in "│┤"]
    return [row[start:] for row in rows], start


@pytest.mark.parametrize("width", [40, 77, 120])
def test_every_value_is_a_dot_where_it_belongs(width):
    generator = random.Random(width)
    ys = [generator.uniform(-3, 5) for _ in range(37)]
    chart = line_chart([ys])
    rows, start = plot_area(chart_text(chart, width))
    plot_width, plot_rows = width - start, len(rows)
    x_scale, y_scale = chart.x_scale, chart.y_scale
    for x, y in enumerate(ys):
        u = min(2 * plot_width - 1, math.floor((x - x_scale.low) / (x_scale.high - x_scale.low) * 2 * plot_width))
        v = min(4 * plot_rows - 1, math.floor((y_scale.high - y) / (y_scale.high - y_scale.low) * 4 * plot_rows))
        line = rows[v // 4].ljust(plot_width)
        char = line[u // 2]
        assert ord(char) in BRAILLE and ord(char) - 0x2800 & DOT_BITS[v % 4][u % 2], (x, y, char)


def test_y_tick_labels_are_the_scales_ticks_and_x_labels_sit_under_marks():
    chart = line_chart([[0.1 * k * k for k in range(30)]], x=[0.5 * k for k in range(30)])
    lines = chart_text(chart, 70).splitlines()
    rows, start = plot_area("\n".join(lines))
    shown = [line[: start - 2].strip() for line in lines if line[start - 1 : start] == "┤"]
    assert shown == [tick.label for tick in reversed(chart.y_scale.ticks)]
    axis = next(line for line in lines if "└" in line)
    labels = lines[lines.index(axis) + 1]
    marks = [column for column, char in enumerate(axis) if char == "┬"]
    words = [(match.start(), match.group()) for match in re.finditer(r"\S+", labels)]
    assert len(marks) == len(words) >= 2
    for column, (left, word) in zip(marks, words):
        assert left <= column < left + len(word)
        assert word in [tick.label for tick in chart.x_scale.ticks]


def test_several_series_apart_without_colour():
    chart = line_chart([[1, 2, 3, 4], [4, 3, 2, 1], [2, 2, 2, 2]], labels=["up", "down", "flat"])
    text = chart_text(chart, 50)
    rows, _ = plot_area(text)
    plot = "".join(rows)
    assert any(ord(char) in BRAILLE for char in plot) and "x" in plot and "o" in plot
    assert text.splitlines()[-1] == "⠒⠒ up   x down   o flat"
    coloured = chart_rows(chart, 50, colour=True)
    styles = {style for row in coloured for _, style in row}
    assert {"series-0", "series-1", "series-2"} <= styles
    assert "x" not in "".join(text for row in coloured[:-3] for text, _ in row)


def test_regions_read_plus_and_minus_by_the_scores_sign():
    points = moons()
    chart = boundary_chart(points, score, grid=200)
    rows, start = plot_area(chart_text(chart, 90, 30))
    plot_width, plot_rows = 90 - start, len(rows)
    x_scale, y_scale = chart.x_scale, chart.y_scale
    checked = 0
    for row_number, row in enumerate(rows):
        for column, char in enumerate(row.ljust(plot_width)):
            if char in "ox":
                continue
            x = x_scale.low + (column + 0.5) / plot_width * (x_scale.high - x_scale.low)
            y = y_scale.high - (row_number + 0.5) / plot_rows * (y_scale.high - y_scale.low)
            value = score(x, y)
            if abs(value) > 0.05:  # clear of the grid's cells around the zero line
                assert char == ("+" if value > 0 else "-"), (x, y, value)
                checked += 1
    assert checked > plot_width * plot_rows * 0.8
    assert "o" in "".join(rows) and "x" in "".join(rows)


def test_colour_regions_are_half_blocks_and_points_sit_on_their_region():
    chart = boundary_chart(moons(), score, grid=40)
    rows = chart_rows(chart, 60, colour=True)
    characters = {char for row in rows for text, _ in row for char in text}
    assert {"█", "▀"} <= characters and "+" not in characters
    styles = {style for row in rows for _, style in row}
    assert {"positive", "negative", "axis"} <= styles
    assert any(re.fullmatch(r"point-[01]/(positive|negative)", style) for style in styles)
    assert any(re.fullmatch(r"(positive|negative)/(positive|negative)", style) for style in styles)


# --- rich ---------------------------------------------------------------------------------


def printed(chart, color: str, width: int) -> str:
    stream = io.StringIO()
    console = make_console(stream, width=width, color=color)
    console.print(chart_rich_text(chart, console))
    return stream.getvalue()


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_rich_without_colour_is_the_plain_picture(name):
    chart = CHARTS[name]()
    assert printed(chart, "never", 60) == chart_text(chart, 60)


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_rich_with_colour_is_the_colour_picture_coloured(name):
    chart = CHARTS[name]()
    output = printed(chart, "always", 60)
    assert "\x1b[" in output
    plain = re.sub(r"\x1b\[[0-9;]*m", "", output)
    assert plain == "".join("".join(text for text, _ in row) + "\n" for row in chart_rows(chart, 60, colour=True))


def test_style_names_become_colours():
    assert chart_style("") == ""
    assert chart_style("series-0") != chart_style("series-1") and chart_style("series-0")
    assert chart_style("series-6") == chart_style("series-0")  # the palette repeats
    assert " on " in chart_style("positive/negative") and " on " in chart_style("point-1/positive")
    text = rows_text([(("[b]", ""), ("⠁", "series-0")), (("x", "point-0"),)])
    assert text.plain == "[b]⠁\nx"  # user text stays text
    # (rich 13.0 keeps an empty span for the unstyled piece; later releases drop it)
    styled = [str(span.style) for span in text.spans if str(span.style)]
    assert styled == [chart_style("series-0"), chart_style("point-0")]
