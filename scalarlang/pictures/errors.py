"""The errors of drawing, as data: a kind, a message and the error's own fields.

The interpreter turns a `DrawingError` into a `Diagnostic` with the statement's span; the
Python API and the notebook show its message. Nothing here knows of terminals.
"""

from __future__ import annotations

from typing import Any

MISSING_GRAPHVIZ = "missing-graphviz"
IO_ERROR = "io-error"
UNKNOWN_PICTURE_FORMAT = "unknown-picture-format"
GRAPH_TOO_LARGE = "graph-too-large"
GRAPHVIZ_FAILED = "graphviz-failed"

# Every kind a drawing can fail with (io-error is the language's own kind too).
DRAWING_KINDS = (MISSING_GRAPHVIZ, UNKNOWN_PICTURE_FORMAT, GRAPH_TOO_LARGE, GRAPHVIZ_FAILED, IO_ERROR)

INSTALL_HINT = (
    "install Graphviz: `apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` "
    "(macOS), or see https://graphviz.org/download/"
)


class DrawingError(Exception):
    """A picture could not be made or written; ``kind`` names the failure."""

    def __init__(self, kind: str, message: str, **fields: Any):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.fields = fields

    def __repr__(self) -> str:
        return f"DrawingError({self.kind!r}, {self.message!r})"


# The kinds a chart (`plot`, `boundary`) can fail with; each error's fields name the culprit.
NO_SERIES = "no-series"  # no list to plot
EMPTY_SERIES = "empty-series"  # fields: series
NON_FINITE_VALUE = "non-finite-value"  # fields: series (or None for a point), axis, index, value
LENGTH_MISMATCH = "length-mismatch"  # fields: series, x_length, y_length
LABEL_COUNT = "label-count"  # fields: labels, series
LOG_NON_POSITIVE = "log-non-positive"  # fields: series, index, value
GRID_OUT_OF_RANGE = "grid-out-of-range"  # fields: grid, low, high
NO_POINTS = "no-points"  # a boundary without data
POINT_SHAPE = "point-shape"  # fields: index, length (a point is x, y, label)
UNDEFINED_SCORE = "undefined-score"  # fields: x, y (F is nan there)
SIGN_GRID_SHAPE = "sign-grid-shape"  # fields: rows, columns, grid
RANGE_TOO_WIDE = "range-too-wide"  # fields: axis, low, high (their difference overflows)
CHART_TOO_SMALL = "chart-too-small"  # fields: width, height, min_width, min_height

CHART_KINDS = (
    NO_SERIES, EMPTY_SERIES, NON_FINITE_VALUE, LENGTH_MISMATCH, LABEL_COUNT, LOG_NON_POSITIVE,
    GRID_OUT_OF_RANGE, NO_POINTS, POINT_SHAPE, UNDEFINED_SCORE, SIGN_GRID_SHAPE, RANGE_TOO_WIDE, CHART_TOO_SMALL,
)


class ChartError(DrawingError):
    """A chart's data or size cannot make a chart; ``kind`` is one of `CHART_KINDS` (or
    `unknown-picture-format` and `io-error` when writing one). A `DrawingError`, so whatever
    shows drawing errors shows these."""

    def __repr__(self) -> str:
        return f"ChartError({self.kind!r}, {self.message!r})"
