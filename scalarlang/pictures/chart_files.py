"""Charts as files: ``.svg`` (the SVG picture) or ``.txt`` (the terminal's picture, without
colour). The format is checked before anything is written, and every failure is a
`ChartError` (`unknown-picture-format`, `io-error`), so nothing is half-written."""

from __future__ import annotations

import os
from pathlib import Path

from .chart_svg import chart_svg
from .chart_text import chart_text
from .charts import Chart
from .errors import IO_ERROR, UNKNOWN_PICTURE_FORMAT, ChartError

CHART_FORMATS = {".svg": "svg", ".txt": "txt"}
TEXT_WIDTH = 100  # as render.text.DEFAULT_WIDTH; callers pass --width


def chart_format(path: str | os.PathLike) -> str:
    """``svg`` or ``txt`` from a file name, else `unknown-picture-format`."""
    suffix = Path(path).suffix.lower()
    output_format = CHART_FORMATS.get(suffix)
    if output_format is None:
        shown = f"`{suffix}`" if suffix else "no extension"
        raise ChartError(
            UNKNOWN_PICTURE_FORMAT,
            f"cannot tell the chart format of {os.fspath(path)!r} ({shown}); use .svg or .txt",
            path=os.fspath(path),
            extension=suffix,
        )
    return output_format


def chart_bytes(chart: Chart, output_format: str, *, width: int = TEXT_WIDTH) -> bytes:
    """The chart as ``svg`` or ``txt`` (``width`` columns) bytes, UTF-8."""
    if output_format == "svg":
        return chart_svg(chart).encode("utf-8")
    if output_format == "txt":
        return chart_text(chart, width).encode("utf-8")
    raise ChartError(UNKNOWN_PICTURE_FORMAT, f"unknown chart format {output_format!r}; use svg or txt")


def write_chart(chart: Chart, path: str | os.PathLike, *, width: int = TEXT_WIDTH) -> Path:
    """Write the chart to ``path`` in the format its extension names; returns the path."""
    data = chart_bytes(chart, chart_format(path), width=width)
    target = Path(path)
    try:
        with open(target, "wb") as file:
            file.write(data)
    except OSError as error:
        reason = error.strerror or str(error)
        raise ChartError(
            IO_ERROR, f"cannot write {os.fspath(path)}: {reason}", path=os.fspath(path), reason=reason
        ) from None
    return target
