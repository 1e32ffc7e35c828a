"""`plot` and `boundary`: charts of what a session computed.

``plot(Y)``, ``plot(X, Y)`` and ``plot([Y1, Y2, …], labels: ["a", "b"])`` read the values of the
nodes in lists (nothing is tracked, nothing made); ``boundary(F, DATA)`` evaluates a function
defined with `fn` at the centre of each cell of a grid over DATA's points (rows x1, x2,
label). `pictures.charts` makes the chart (scales, round ticks, series or signs) and checks
it; here the session's values become its input, and its `ChartError`s diagnostics at the span
of their culprit. The front ends draw the `Charted` outcome: text, SVG, a JSON event.

A chart is asked for, never an echo: it shows in loop bodies and under `quiet`, as `print`
does. F's nodes are made and dropped: `boundary` binds no name, commits no pass, journals
nothing and puts the generator back as it found it, so the session is as it was.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from ...engine.numbers import format_number
from ...engine.scalar import Scalar
from ...language import tree
from ...language.diagnostics import LanguageError
from ...language.source import Span
from ..failures import not_a_text, with_note
from ..outcomes import Charted
from ..values import ListValue, TextValue, describe

if TYPE_CHECKING:
    from ...pictures.charts import Chart
    from ..context import Compiling, Function, Running


def compile_plot(run: Running, statement: tree.ExprStatement, call: tree.Call):
    """``plot(Y)``, ``plot(X, Y)``: a line chart of one list of numbers, or of several."""
    compiler = run.compiler
    exprs = compiler.values(call)
    y_expr, x_expr = exprs[-1], (exprs[0] if len(exprs) == 2 else None)
    y_of = compiler.expression(y_expr)
    x_of = compiler.expression(x_expr) if x_expr is not None else None
    options = {keyword.name: keyword.value for keyword in call.keywords}
    output = _Output(run, options.get("file"), statement.span)
    readers = _text_readers(compiler, options, output)
    if "log" in options:
        log_of, log_span = compiler.number(options["log"]), options["log"].span  # type: ignore[arg-type]
        readers["log"] = lambda: _flag(compiler, log_of(None), log_span)
    labels_expr = options.get("labels")
    if labels_expr is not None:
        labels_of = compiler.expression(labels_expr)  # type: ignore[arg-type]
        readers["labels"] = lambda: _texts(compiler, labels_of(None), labels_expr)  # type: ignore[arg-type]
    read_options = _in_written_order(call, readers)
    # A single series is known by its source text; the items of a list literal of series by theirs.
    label = compiler.text_of(y_expr)
    item_labels = (
        tuple(compiler.text_of(item) for item in y_expr.items) if isinstance(y_expr, tree.ListLiteral) else None
    )

    def spans(error) -> Span:
        """Where a chart's error is: the axis's list, the option, else the call."""
        kind, fields = error.kind, error.fields
        if kind in ("non-finite-value", "range-too-wide") and fields.get("axis") == "x" and x_expr is not None:
            return x_expr.span
        if kind in ("no-series", "empty-series", "non-finite-value", "log-non-positive", "range-too-wide"):
            return y_expr.span
        if kind == "label-count" and labels_expr is not None:
            return labels_expr.span
        return call.span

    def plot(show: bool) -> None:
        from ...pictures.charts import line_chart
        from ...pictures.errors import ChartError

        x = None
        if x_of is not None and x_expr is not None:  # (left to right: X, Y, then the options as written)
            x = _numbers(compiler, x_of(None), x_expr, "`plot`'s X")
        ys, several = _series(compiler, y_of(None), y_expr)
        read = read_options()
        labels: tuple[str, ...] | None
        if "labels" in read:
            labels = read["labels"]
        elif several:
            labels = item_labels if item_labels is not None and len(item_labels) == len(ys) else None
        else:
            labels = (label,)
        try:
            chart = line_chart(
                ys, x, labels=labels, title=read.get("title"), log=read.get("log", False),
                x_label=read.get("xlabel"), y_label=read.get("ylabel"),
            )
        except ChartError as error:
            raise compiler.drawing_error(error, spans(error)) from None
        output.show(chart, label, read.get("file", (None, None)))

    return plot


def compile_boundary(run: Running, statement: tree.ExprStatement, call: tree.Call):
    """``boundary(F, DATA)``: the sign of F (a function of two arguments) over DATA's range on
    a grid, and DATA's points (rows x1, x2, label)."""
    compiler = run.compiler
    function_name = call.args[0]
    assert isinstance(function_name, tree.Name)  # (the registry's FUNCTION kind says so)
    data_expr = compiler.values(call)[1]
    data_of = compiler.expression(data_expr)
    options = {keyword.name: keyword.value for keyword in call.keywords}
    output = _Output(run, options.get("file"), statement.span)
    readers = _text_readers(compiler, options, output)
    if "grid" in options:
        grid_of = compiler.number(options["grid"])  # type: ignore[arg-type]
        readers["grid"] = lambda: grid_of(None)
    read_options = _in_written_order(call, readers)
    name, name_span = function_name.name, function_name.span

    def boundary(show: bool) -> None:
        from ...pictures.charts import DEFAULT_GRID, boundary_chart
        from ...pictures.errors import ChartError

        function = _function(compiler, name, name_span)
        points = _points(compiler, data_of(None), data_expr)
        read = read_options()  # (all before F runs: the file's format is known before the work)
        score = _score(run, compiler, function, call.span)
        generator = run.state.random
        drawn = generator.getstate()  # (F may draw: its draws are dropped with its nodes)
        try:
            chart = boundary_chart(
                points, score, grid=read.get("grid", DEFAULT_GRID), title=read.get("title"),
                x_label=read.get("xlabel"), y_label=read.get("ylabel"),
            )
        except ChartError as error:
            where = options["grid"].span if error.kind == "grid-out-of-range" and "grid" in options else (
                call.span if error.kind == "undefined-score" else data_expr.span
            )
            raise compiler.drawing_error(error, where) from None
        finally:
            generator.setstate(drawn)
        output.show(chart, name, read.get("file", (None, None)))

    return boundary


class _Output:
    """Where a chart statement's chart goes: ``target()`` reads and checks ``file:`` (its
    format known before any work), ``show`` checks the chart fits the front end's width,
    writes the file if there is one, and emits the chart."""

    def __init__(self, run: Running, file: Any, span: Span):
        self.run, self.span = run, span
        self.path_of = run.compiler.text_argument(file, "`file:`") if file is not None else None
        self.file_span = file.span if file is not None else span

    def target(self) -> tuple[str | None, str | None]:
        """``(path, format)`` of the file to write, or ``(None, None)``."""
        from ...pictures.chart_files import chart_format
        from ...pictures.errors import ChartError

        if self.path_of is None:
            return None, None
        path = self.path_of(None)
        try:
            return path, chart_format(path)
        except ChartError as error:
            raise self.run.compiler.drawing_error(error, self.file_span) from None

    def show(self, chart: Chart, label: str, target: tuple[str | None, str | None]) -> None:
        from ...pictures.chart_files import write_chart
        from ...pictures.chart_text import min_width
        from ...pictures.errors import CHART_TOO_SMALL, ChartError

        run, compiler = self.run, self.run.compiler
        width, needed = run.session.text_width, min_width(chart)
        if width < needed:
            raise compiler.fail(
                CHART_TOO_SMALL, f"this chart needs at least {needed} columns, and the text is {width} wide", self.span,
                {"width": width, "height": None, "min_width": needed, "min_height": None},
            )
        path, output_format = target
        if path is not None:
            try:
                # (under `expect` too: the statement runs; a file is not the session's state)
                write_chart(chart, path, width=width)
            except ChartError as error:
                raise compiler.drawing_error(error, self.file_span) from None
        run.emit(Charted(self.span, label, chart, path, output_format))


# ---- reading the session's values ------------------------------------------------------------


def _text_readers(compiler: Compiling, options: dict, output: _Output) -> dict[str, Callable[[], Any]]:
    """Readers of a chart's text options: `title:`, `xlabel:` and `ylabel:` (the axes'
    titles), and `file:` (its path and format, `output.target`)."""
    readers: dict[str, Callable[[], Any]] = {}
    for name in ("title", "xlabel", "ylabel"):
        if name in options:
            readers[name] = partial(compiler.text_argument(options[name], f"`{name}:`"), None)
    if "file" in options:
        readers["file"] = output.target
    return readers


def _in_written_order(call: tree.Call, readers: dict[str, Callable[[], Any]]) -> Callable[[], dict[str, Any]]:
    """The named options' values, read in the order the call writes them (left to right)."""
    order = [keyword.name for keyword in call.keywords if keyword.name in readers]

    def read() -> dict[str, Any]:
        return {name: readers[name]() for name in order}

    return read


def _series(compiler: Compiling, value: object, expr: tree.Expr) -> tuple[list[tuple[float, ...]], bool]:
    """The series of ``plot``'s Y: one list of numbers, or a list of such lists (several)."""
    if value.__class__ is not ListValue:
        raise compiler.list_check(expr, "`plot`")(value)
    items: ListValue = value  # type: ignore[assignment]
    if items and all(item.__class__ is ListValue for item in items):
        text = compiler.text_of(expr)
        return [_numbers(compiler, item, expr, f"`{text}[{index}]`") for index, item in enumerate(items)], True
    return [_numbers(compiler, items, expr, f"`{compiler.text_of(expr)}`")], False


def _numbers(compiler: Compiling, value: object, expr: tree.Expr, what: str) -> tuple[float, ...]:
    """The values of a list of nodes (read: nothing is tracked)."""
    if value.__class__ is not ListValue:
        raise compiler.list_check(expr, "`plot`")(value)
    numbers = []
    for index, item in enumerate(value):  # type: ignore[call-overload]
        if item.__class__ is not Scalar:
            raise compiler.fail(
                "not-a-node",
                f"item {index} of {what} is {describe(item)}: `plot` takes a list of numbers, "
                "or a list of such lists (one per series)",
                expr.span,
                {"index": index, "found": "text" if item.__class__ is TextValue else "list"},
            )
        numbers.append(item._value)
    return tuple(numbers)


def _texts(compiler: Compiling, value: object, expr: tree.Expr) -> tuple[str, ...]:
    """`labels:`: a list of texts, one a series."""
    if value.__class__ is not ListValue:
        raise compiler.list_check(expr, "`labels:`")(value)
    for index, item in enumerate(value):  # type: ignore[call-overload]
        if item.__class__ is not TextValue:
            raise not_a_text(compiler.source, item, f"{compiler.text_of(expr)}[{index}]", expr.span, "`labels:`")
    return tuple(value)  # type: ignore[call-overload]


def _flag(compiler: Compiling, value: float, span: Span) -> bool:
    if value not in (0.0, 1.0):
        raise compiler.fail(
            "wrong-arguments", f"`log:` is 1 (a logarithmic y axis) or 0, not {format_number(value)}", span,
            {"function": "plot", "name": "log", "value": value},
        )
    return value == 1.0


def _points(compiler: Compiling, value: object, expr: tree.Expr) -> list[tuple[float, ...]]:
    """DATA's rows as numbers: each a list of nodes (x1, x2, label; the chart checks there are 3)."""
    if value.__class__ is not ListValue:
        raise compiler.list_check(expr, "`boundary`")(value)
    rows = []
    for index, row in enumerate(value):  # type: ignore[call-overload]
        if row.__class__ is not ListValue or any(item.__class__ is not Scalar for item in row):
            found = describe(row) if row.__class__ is not ListValue else "a row holding a list"
            raise compiler.fail(
                "point-shape",
                f"row {index} of `{compiler.text_of(expr)}` is {found}: "
                "`boundary` takes rows of 3 numbers (x1, x2, label)",
                expr.span,
                {"index": index, "length": len(row) if row.__class__ is ListValue else None},
            )
        rows.append(tuple(item._value for item in row))
    return rows


def _function(compiler: Compiling, name: str, span: Span) -> Function:
    """F: a function defined with `fn`, of two arguments."""
    function = compiler.defined_function(name, span, "boundary")
    if function.arity != 2:
        raise compiler.fail(
            "wrong-arguments",
            f"`boundary` takes a function of two arguments (x1, x2); `{function.signature()}` takes {function.arity}",
            span,
            {"function": "boundary", "expected": [2], "got": function.arity},
        )
    return function


def _score(run: Running, compiler: Compiling, function: Function, span: Span) -> Callable[[float, float], float]:
    """F at (x1, x2): its value, each call with a statement's budget of comprehension items
    and of calls."""
    budget, body, name = run.budget, function.body, function.name

    def score(x: float, y: float) -> float:
        budget.refill()
        try:
            result = body((Scalar.constant(x), Scalar.constant(y)))
        except LanguageError as error:
            call = f"{name}({format_number(x)}, {format_number(y)})"
            raise with_note(error, f"in `boundary`'s call {call} at {span.line}:{span.column}") from None
        if result.__class__ is not Scalar:
            raise compiler.fail(
                "not-a-node",
                f"`{function.signature()}` gives {describe(result)}, not a number: "
                "`boundary` colours the sign of a number",
                span,
                {"function": name, "found": "text" if result.__class__ is TextValue else "list"},
            )
        return result._value

    return score
