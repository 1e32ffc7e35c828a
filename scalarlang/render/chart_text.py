"""A chart's terminal picture as rich `Text`: the style names of pictures/chart_text.py
given colours. Only a console with colour shows them; build the rows with ``colour=True``
for such a console (half blocks, every series in braille) and ``colour=False`` otherwise
(``+``/``-`` regions, markers), as `chart_rich_text` does from ``console.no_color``."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from ..pictures.chart_text import Row, chart_rows
from ..pictures.charts import Chart

# Series: distinct on dark and light terminals. Regions: light, so that the points' darker
# colours (by label, lower labels red like the negative region, higher blue) stand out on both.
SERIES_COLOURS = ("cyan", "magenta", "yellow", "green", "blue", "red")
POINT_COLOURS = ("red3", "blue3", "green4", "purple4", "dark_orange3", "dark_cyan")
CHART_STYLES = {
    "title": "bold",
    "axis": "dim",
    "axis-title": "italic",
    "positive": "sky_blue2",
    "negative": "light_salmon1",
    "zero": "grey70",
}


def chart_rich_text(chart: Chart, console: Console, height: int | None = None) -> Text:
    """The chart ``console.width`` wide, in colour when the console has colour."""
    colour = not console.no_color and console.color_system is not None
    return rows_text(chart_rows(chart, console.width, height, colour=colour))


def rows_text(rows: list[Row]) -> Text:
    """The rows as one `Text`, a line each (user texts stay text: no markup)."""
    text = Text(end="\n")
    for number, row in enumerate(rows):
        if number:
            text.append("\n")
        for segment, name in row:
            text.append(segment, style=chart_style(name))
    return text


def chart_style(name: str) -> str:
    """The rich style of a style name: ``series-2`` is its colour, ``point-0/positive`` the
    point's colour on the region's."""
    if "/" in name:
        front, back = name.split("/", 1)
        return f"bold {_colour(front)} on {_colour(back)}"
    if name.startswith("point-"):
        return f"bold {_colour(name)}"
    return _colour(name)


def _colour(name: str) -> str:
    kind, _, number = name.rpartition("-")
    if kind == "series" and number.isdigit():
        return SERIES_COLOURS[int(number) % len(SERIES_COLOURS)]
    if kind == "point" and number.isdigit():
        return POINT_COLOURS[int(number) % len(POINT_COLOURS)]
    return CHART_STYLES.get(name, "")
