"""How long a chart takes: ``python benchmarks/charts.py``.

A 10,000-point line chart (the loss of a long training, noisy) made and drawn as terminal
text (with and without colour) and as SVG; the target for each is under 0.2 s (issue 33).
Boundary charts at the default grid and the largest are timed too, with a cheap score, so
the figure is the chart's own cost (evaluating a network's score is the interpreter's).
The best of ``--repeat`` runs (default 5) is printed.
"""

from __future__ import annotations

import argparse
import math
import random
import time

from scalarlang.pictures.chart_svg import chart_svg
from scalarlang.pictures.chart_text import chart_rows
from scalarlang.pictures.charts import boundary_chart, line_chart
from scalarlang.render.chart_events import chart_fields

TARGET = 0.2


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
    cases = [
        (f"line chart of {options.points} points: make", lambda: line_chart([losses], title="loss"), True),
        ("  text, 100 columns, no colour", lambda: chart_rows(chart, 100), True),
        ("  text, 100 columns, colour", lambda: chart_rows(chart, 100, colour=True), True),
        ("  SVG", lambda: chart_svg(chart), True),
        ("  JSON fields", lambda: chart_fields(chart), True),
        ("  all of it: make, text, SVG", lambda: (chart_rows(line_chart([losses]), 100), chart_svg(chart)), True),
        ("boundary, grid 40, 100 points: make", lambda: boundary_chart(rows, score), False),
        ("boundary, grid 200: make, text, SVG", lambda: _boundary_all(rows, score), False),
    ]
    print(f"{'case':<44} {'best s':>8}  target")
    for name, work, judged in cases:
        seconds = best_of(options.repeat, work)
        verdict = ("PASS" if seconds < TARGET else "FAIL") if judged else "-"
        print(f"{name:<44} {seconds:>8.4f}  {verdict}")


def _boundary_all(rows, score) -> None:
    chart = boundary_chart(rows, score, grid=200)
    chart_rows(chart, 100, colour=True)
    chart_svg(chart)


if __name__ == "__main__":
    main()
