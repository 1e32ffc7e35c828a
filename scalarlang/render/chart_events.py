"""A chart as the fields of its ``--json`` event (docs/json.md): ``kind`` (``line`` or
``boundary``), ``title``, ``xlabel`` and ``ylabel`` (the axes' titles, null without),
``series`` (each ``label``, ``x``, ``y``) or ``grid`` (``x``, ``y``, ``sign``: a row of signs
per y, one per x) and ``points`` (each ``x``, ``y``, ``label``), and ``path``, the file
written (null without one).

The event's own head (``event``, ``file`` as the source's name, ``line``, ``column``) is
added where every event gets it; the written file is ``path`` here, as in the ``draw``
event, since ``file`` names the source in every event.
"""

from __future__ import annotations

from typing import Any

from ..pictures.charts import Chart, LineChart
from .events import number


def chart_fields(chart: Chart, path: str | None = None) -> dict[str, Any]:
    """The event's fields; non-finite numbers are the strings ``inf``, ``-inf``, ``nan``."""
    fields: dict[str, Any] = {
        "kind": chart.kind, "title": chart.title, "xlabel": chart.x_label, "ylabel": chart.y_label,
    }
    if isinstance(chart, LineChart):
        fields["series"] = [
            {"label": series.label, "x": _numbers(series.x), "y": _numbers(series.y)} for series in chart.series
        ]
    else:
        grid = chart.grid
        fields["grid"] = {"x": _numbers(grid.x), "y": _numbers(grid.y), "sign": [list(row) for row in grid.signs]}
        fields["points"] = [
            {"x": number(point.x), "y": number(point.y), "label": number(point.label)} for point in chart.points
        ]
    fields["path"] = path
    return fields


def _numbers(values: tuple[float, ...]) -> list[float | str | None]:
    return [number(value) for value in values]
