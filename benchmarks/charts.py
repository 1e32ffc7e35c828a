"""How long a chart takes: ``python benchmarks/charts.py``.

A 10,000-point line chart (the loss of a long training, noisy) made and drawn as terminal
text (with and without colour) and as SVG; the target for each is under 0.2 s (issue 33).
Boundary charts at the default grid and the largest are timed too, with a cheap score, so
the figure is the chart's own cost. Then the statements as a program runs them: `plot` of a
10,000-item list (the statement and its terminal text; target 0.2 s), and
`boundary(score, data)` of examples/moons.sad's 2-16-16-1 network at the default grid 40
(1,600 calls of `score`, about 700 nodes each, made and dropped; target 2 s). The best of
``--repeat`` runs (default 5) is printed.
"""

from __future__ import annotations

import argparse
import math
import random
import time

from pathlib import Path

from scalarlang.interpreter.core import Interpreter
from scalarlang.language.source import Source
from scalarlang.pictures.chart_svg import chart_svg
from scalarlang.pictures.chart_text import chart_rows
from scalarlang.pictures.charts import boundary_chart, line_chart
from scalarlang.render.chart_events import chart_fields

TARGET = 0.2
BOUNDARY_TARGET = 2.0
MOONS = Path(__file__).resolve().parent.parent / "examples" / "moons.sad"


def best_of(repeat: int, work) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--points", type=int, default=10_000)
    options = parser.parse_args()
    generator = random.Random(33)
    losses = [2.0 * math.exp(-step / 2000) + 0.1 * generator.random() for step in range(options.points)]
    rows = [(generator.uniform(-1, 2), generator.uniform(-0.5, 1), generator.choice((0, 1))) for _ in range(100)]

    def score(x: float, y: float) -> float:
        return y - 0.5 * math.sin(3 * x)

    chart = line_chart([losses], title="loss")
    cases: list = [
        (f"line chart of {options.points} points: make", lambda: line_chart([losses], title="loss"), True),
        ("  text, 100 columns, no colour", lambda: chart_rows(chart, 100), True),
        ("  text, 100 columns, colour", lambda: chart_rows(chart, 100, colour=True), True),
        ("  SVG", lambda: chart_svg(chart), True),
        ("  JSON fields", lambda: chart_fields(chart), True),
        ("  all of it: make, text, SVG", lambda: (chart_rows(line_chart([losses]), 100), chart_svg(chart)), True),
        ("boundary, grid 40, 100 points: make", lambda: boundary_chart(rows, score), False),
        ("boundary, grid 200: make, text, SVG", lambda: _boundary_all(rows, score), False),
    ]
    plot_session, plot_statement = _plot_session(losses)
    moons_session, moons_statement = _moons_session()
    cases += [
        (f"plot(losses) of {options.points} items, text", lambda: _run(plot_session, plot_statement), True),
        ("boundary(score, data) of moons.sad, grid 40", lambda: _run(moons_session, moons_statement), BOUNDARY_TARGET),
    ]
    print(f"{'case':<44} {'best s':>8}  target")
    for name, work, judged in cases:
        seconds = best_of(options.repeat, work)
        target = TARGET if judged is True else judged
        verdict = ("PASS" if seconds < target else "FAIL") if judged else "-"
        print(f"{name:<44} {seconds:>8.4f}  {verdict}")


def _plot_session(losses: list[float]) -> tuple[Interpreter, Source]:
    session = Interpreter()
    items = ", ".join(repr(loss) for loss in losses)
    _finish(session.run(Source("losses.sad", f"let losses = [{items}]")))
    return session, Source("plot.sad", 'plot(losses, title: "loss")')


def _moons_session() -> tuple[Interpreter, Source]:
    """moons.sad's network and data, untrained (training changes the weights, not the cost)."""
    session = Interpreter()
    program = MOONS.read_text(encoding="utf-8").replace("let steps = 100", "let steps = 0")
    program = program[: program.index("\nplot(")] if "\nplot(" in program else program
    _finish(session.run(Source(str(MOONS), program, str(MOONS.parent))))
    return session, Source(str(MOONS), "boundary(score, data)", str(MOONS.parent))


def _run(session: Interpreter, statement: Source) -> None:
    from scalarlang.render.text import Renderer, make_console
    import io

    renderer = Renderer(make_console(io.StringIO(), width=100))
    for outcome in _finish(session.run(statement)):
        renderer.outcome(outcome)


def _finish(outcomes) -> list:
    from scalarlang.interpreter.outcomes import Failed

    done = list(outcomes)
    for outcome in done:
        if isinstance(outcome, Failed):
            raise SystemExit(f"the benchmark's program failed: {outcome.diagnostic.message}")
    return done


def _boundary_all(rows, score) -> None:
    chart = boundary_chart(rows, score, grid=200)
    chart_rows(chart, 100, colour=True)
    chart_svg(chart)


if __name__ == "__main__":
    main()
