"""Charts as data, made once and drawn by every renderer: a line chart of one or more series
(`line_chart`), or the sign of a classifier's score over its data (`boundary_chart`).

    chart = line_chart([losses], title="loss", log=True)
    chart = boundary_chart(rows, score=lambda x, y: model(x, y), grid=40)

Each constructor checks its input and raises a `ChartError` (a kind and the culprit's fields)
before making anything; a chart that exists has finite values, at least one point per series
and round ticks. The renderers are `chart_text` (terminal text), `chart_svg` and the JSON
event of `render/chart_events.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, ClassVar, Sequence, Union

from ..engine.numbers import format_number
from .errors import (
    EMPTY_SERIES,
    GRID_OUT_OF_RANGE,
    LABEL_COUNT,
    LENGTH_MISMATCH,
    LOG_NON_POSITIVE,
    NO_POINTS,
    NO_SERIES,
    NON_FINITE_VALUE,
    POINT_SHAPE,
    RANGE_TOO_WIDE,
    SIGN_GRID_SHAPE,
    UNDEFINED_SCORE,
    ChartError,
)
from .scales import Scale, linear_scale, log_scale, widen, widen_by

DEFAULT_GRID = 40
MIN_GRID, MAX_GRID = 2, 200
# Each side of a boundary's data gets this share of the data's range.
MARGIN = 0.1
X_TICKS, Y_TICKS = 6, 5


@dataclass(frozen=True)
class Series:
    label: str | None
    x: tuple[float, ...]
    y: tuple[float, ...]


@dataclass(frozen=True)
class LineChart:
    """Series of (x, y) points joined in order; y's scale reaches out to round ticks."""

    kind: ClassVar[str] = "line"
    title: str | None
    series: tuple[Series, ...]
    x_scale: Scale
    y_scale: Scale
    x_label: str | None = None  # the axes' titles (`xlabel:`, `ylabel:`)
    y_label: str | None = None


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: float


@dataclass(frozen=True)
class SignGrid:
    """The sign (-1, 0 or 1) of a score at ``len(x)`` × ``len(y)`` points: the centres of
    equal cells tiling the chart, ``signs[row][column]`` at ``(x[column], y[row])``; x runs
    left to right, y bottom to top."""

    x: tuple[float, ...]
    y: tuple[float, ...]
    signs: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class BoundaryChart:
    """Where a score is positive or negative over its data's range, and the data's points.
    ``classes`` are the points' distinct labels, increasing: a point's colour and marker
    follow its label's place there."""

    kind: ClassVar[str] = "boundary"
    title: str | None
    grid: SignGrid
    points: tuple[Point, ...]
    classes: tuple[float, ...]
    x_scale: Scale
    y_scale: Scale
    x_label: str | None = None
    y_label: str | None = None


Chart = Union[LineChart, BoundaryChart]


def line_chart(
    ys: Sequence[Sequence[float]],
    x: Sequence[float] | None = None,
    *,
    labels: Sequence[str] | None = None,
    title: str | None = None,
    log: bool = False,
    x_label: str | None = None,
    y_label: str | None = None,
) -> LineChart:
    """One series per list of ``ys``, each against ``x`` (shared) or 0, 1, 2, ....

    ``labels`` name the series in the legend (by default none for one series, ``series 1``,
    ``series 2``, ... for several); ``log`` makes y's scale logarithmic (every y > 0);
    ``x_label`` and ``y_label`` title the axes."""
    if len(ys) == 0:
        raise ChartError(NO_SERIES, "nothing to plot: the list of series is empty")
    if labels is not None and len(labels) != len(ys):
        raise ChartError(
            LABEL_COUNT, f"{len(labels)} labels for {len(ys)} series", labels=len(labels), series=len(ys)
        )
    names: list[str | None] = list(labels) if labels is not None else (
        [None] if len(ys) == 1 else [f"series {number}" for number in range(len(ys))]
    )
    shared_x = None if x is None else tuple(float(value) for value in x)
    series = tuple(
        _series(index, len(ys), name, values, shared_x, log) for index, (name, values) in enumerate(zip(names, ys))
    )
    all_x = [value for one in series for value in one.x]
    all_y = [value for one in series for value in one.y]
    # Whole-number data (steps, counts) gets whole-number ticks: no step 0.5 between 0 and 1.
    whole_x, whole_y = (all(value.is_integer() for value in values) for values in (all_x, all_y))
    x_scale = _checked_scale(
        "x", min(all_x), max(all_x), lambda lo, hi: linear_scale(lo, hi, count=X_TICKS, whole=whole_x)
    )
    if log:
        y_scale = _checked_scale("y", min(all_y), max(all_y), lambda lo, hi: log_scale(lo, hi, count=Y_TICKS))
    else:
        y_scale = _checked_scale(
            "y", min(all_y), max(all_y),
            lambda lo, hi: linear_scale(lo, hi, count=Y_TICKS, extend=True, whole=whole_y),
        )
    return LineChart(title, series, x_scale, y_scale, x_label, y_label)


def boundary_chart(
    points: Sequence[Sequence[float]],
    score: Callable[[float, float], float] | None = None,
    *,
    signs: Sequence[Sequence[float]] | None = None,
    grid: float = DEFAULT_GRID,
    title: str | None = None,
    x_label: str | None = None,
    y_label: str | None = None,
) -> BoundaryChart:
    """The sign of ``score`` over the points' range (each side widened by 10%) on ``grid`` ×
    ``grid`` cells, and the points ``(x, y, label)``.

    Give ``score`` (called once per cell, at its centre, rows bottom to top) or ``signs``
    (``grid`` rows of ``grid`` numbers, at the centres `boundary_grid` gives; only their signs
    count). A score of nan is `undefined-score`; ±inf has a sign."""
    checked = _points(points)
    size = _grid_size(grid)
    x_scale, y_scale = _boundary_scales(checked)
    xs, ys = _centres(x_scale, size), _centres(y_scale, size)
    if (score is None) == (signs is None):
        raise TypeError("boundary_chart needs exactly one of score and signs")
    if score is not None:
        rows = tuple(tuple(_sign(score(x, y), x, y) for x in xs) for y in ys)
    else:
        assert signs is not None
        if len(signs) != size or any(len(row) != size for row in signs):
            columns = sorted({len(row) for row in signs})
            raise ChartError(
                SIGN_GRID_SHAPE,
                f"the signs must be {size} rows of {size}, not {len(signs)} rows of "
                f"{' or '.join(map(str, columns)) or 0}",
                rows=len(signs), columns=columns, grid=size,
            )
        rows = tuple(tuple(_sign(float(value), x, y) for x, value in zip(xs, row)) for y, row in zip(ys, signs))
    classes = tuple(sorted({point.label for point in checked}))
    return BoundaryChart(title, SignGrid(xs, ys, rows), checked, classes, x_scale, y_scale, x_label, y_label)


def boundary_grid(points: Sequence[Sequence[float]], grid: float = DEFAULT_GRID) -> SignGrid:
    """The cells' centres `boundary_chart` would evaluate a score at (with no signs yet), for
    a caller that computes the signs itself."""
    checked = _points(points)
    size = _grid_size(grid)
    x_scale, y_scale = _boundary_scales(checked)
    return SignGrid(_centres(x_scale, size), _centres(y_scale, size), ())


def _series(index: int, count: int, label: str | None, ys: Sequence[float], shared_x: tuple[float, ...] | None, log: bool) -> Series:
    if len(ys) == 0:
        raise ChartError(EMPTY_SERIES, f"{_which(index, count)} is empty: nothing to plot", series=index)
    y = tuple(float(value) for value in ys)
    x = shared_x if shared_x is not None else tuple(float(number) for number in range(len(y)))
    if len(x) != len(y):
        raise ChartError(
            LENGTH_MISMATCH,
            f"{len(x)} x values for the {len(y)} y values of {_which(index, count)}",
            series=index, x_length=len(x), y_length=len(y),
        )
    for axis, values in (("x", x), ("y", y)):
        for position, value in enumerate(values):
            if not math.isfinite(value):
                raise ChartError(
                    NON_FINITE_VALUE,
                    f"{axis} value {position} of {_which(index, count)} is {_show(value)}: a chart needs finite numbers",
                    series=index, axis=axis, index=position, value=value,
                )
    if log:
        for position, value in enumerate(y):
            if value <= 0:
                raise ChartError(
                    LOG_NON_POSITIVE,
                    f"a log scale needs values above 0; y value {position} of {_which(index, count)} is {_show(value)}",
                    series=index, index=position, value=value,
                )
    return Series(label, x, y)


def _points(points: Sequence[Sequence[float]]) -> tuple[Point, ...]:
    if len(points) == 0:
        raise ChartError(NO_POINTS, "a boundary needs data: the table has no rows")
    checked = []
    for index, row in enumerate(points):
        if len(row) != 3:
            raise ChartError(
                POINT_SHAPE, f"point {index} has {len(row)} numbers, not 3 (x, y, label)", index=index, length=len(row)
            )
        x, y, label = (float(value) for value in row)
        for axis, value in (("x", x), ("y", y), ("label", label)):
            if not math.isfinite(value):
                raise ChartError(
                    NON_FINITE_VALUE,
                    f"the {axis} of point {index} is {_show(value)}: a chart needs finite numbers",
                    series=None, axis=axis, index=index, value=value,
                )
        checked.append(Point(x, y, label))
    return tuple(checked)


def _grid_size(grid: float) -> int:
    whole = isinstance(grid, (int, float)) and not isinstance(grid, bool) and float(grid).is_integer()
    if not whole or not MIN_GRID <= grid <= MAX_GRID:
        raise ChartError(
            GRID_OUT_OF_RANGE,
            f"grid must be a whole number from {MIN_GRID} to {MAX_GRID}, not {_show(grid)}",
            grid=grid, low=MIN_GRID, high=MAX_GRID,
        )
    return int(grid)


def _boundary_scales(points: tuple[Point, ...]) -> tuple[Scale, Scale]:
    scales = []
    for axis, values in (("x", [point.x for point in points]), ("y", [point.y for point in points])):

        def with_margin(low: float, high: float) -> Scale:
            low, high = widen(low, high)
            low, high = widen_by(low, high, MARGIN)
            return linear_scale(low, high, count=X_TICKS if axis == "x" else Y_TICKS, whole=whole)

        whole = all(value.is_integer() for value in values)

        scales.append(_checked_scale(axis, min(values), max(values), with_margin))
    return scales[0], scales[1]


def _centres(scale: Scale, size: int) -> tuple[float, ...]:
    return tuple(scale.value_at((index + 0.5) / size) for index in range(size))


def _sign(value: float, x: float, y: float) -> int:
    if value != value:
        raise ChartError(
            UNDEFINED_SCORE, f"the score is nan at ({_show(x)}, {_show(y)}): its sign is undefined", x=x, y=y
        )
    return (value > 0) - (value < 0)


def _checked_scale(axis: str, low: float, high: float, make: Callable[[float, float], Scale]) -> Scale:
    """The scale ``make`` gives, or `range-too-wide` when the values' span is no double (or,
    not reached, the scale has no finite ends or no ticks)."""
    scale = make(low, high) if math.isfinite(high - low) else None
    ends = () if scale is None else (scale.low, scale.high, scale.fraction(low), scale.fraction(high))
    finite = scale is not None and all(map(math.isfinite, ends)) and scale.low < scale.high
    if scale is None or not finite or not scale.ticks or not all(math.isfinite(tick.value) for tick in scale.ticks):
        raise ChartError(
            RANGE_TOO_WIDE,
            f"the {axis} values from {_show(low)} to {_show(high)} span more than a chart can scale",
            axis=axis, low=low, high=high,
        )
    return scale


def _which(index: int, count: int) -> str:
    return "the series" if count == 1 else f"series {index}"


def _show(value: object) -> str:
    """A number as the rest of the output writes it (``201``, not ``201.0``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_number(float(value))
    return repr(value)
