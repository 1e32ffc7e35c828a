"""A chart as the fields of its ``--json`` event (docs/json.md): ``kind`` (``line`` or
``boundary``), ``title``, ``xlabel`` and ``ylabel`` (the axes' titles, null without),
``series`` (each ``label``, ``x``, ``y``) or ``grid`` (``x``, ``y``, ``sign``: a row of signs
per y, one per x) and ``points`` (each ``x``, ``y``, ``label``), and ``path``, the file
written (null without one).

The event's own head (``event``, ``file`` as the source's name, ``line``, ``column``) is
added where every event gets it; the written file is ``path`` here, as in the ``draw``
event, since ``file`` names the source in every event.

`number` is how every event writes a float (the events of `events.py` too): JSON has no
infinities and no NaN.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, assert_never

if TYPE_CHECKING:
    from ..pictures.charts import Chart


def number(value: float | None) -> float | str | None:
    """A float as an event writes it: the non-finite ones as ``inf``, ``-inf``, ``nan``."""
    if value is None or not isinstance(value, float) or math.isfinite(value):
        return value
    if value != value:
        return "nan"
    return "inf" if value > 0 else "-inf"


def chart_fields(chart: Chart, path: str | None = None) -> dict[str, Any]:
    """The event's fields; non-finite numbers are the strings ``inf``, ``-inf``, ``nan``."""
    from ..pictures.charts import BoundaryChart, LineChart  # (a run that charts nothing never imports them)

    fields: dict[str, Any] = {
        "kind": chart.kind, "title": chart.title, "xlabel": chart.x_label, "ylabel": chart.y_label,
    }
    match chart:
        case LineChart():
            fields["series"] = [
                {"label": series.label, "x": _numbers(series.x), "y": _numbers(series.y)} for series in chart.series
            ]
        case BoundaryChart():
            grid = chart.grid
            fields["grid"] = {"x": _numbers(grid.x), "y": _numbers(grid.y), "sign": [list(row) for row in grid.signs]}
            fields["points"] = [
                {"x": number(point.x), "y": number(point.y), "label": number(point.label)} for point in chart.points
            ]
        case _:
            assert_never(chart)
    fields["path"] = path
    return fields


def _numbers(values: tuple[float, ...]) -> list[float | str | None]:
    return [number(value) for value in values]
