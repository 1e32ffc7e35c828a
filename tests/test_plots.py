"""`plot` and `boundary` in the language (issue 33): what they show in each front end, that
`boundary` leaves the session as it was, the signs it colours against F computed here apart,
their errors (typed, at the culprit's span, changing nothing), and the pictures the command
prints, as goldens at two widths with and without colour (tests/fixtures/charts/command-*)."""

from __future__ import annotations

import io
import json
import math
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from commands import COMMAND, ROOT, run_program_in_process
from sessions import failure, run
import scalarlang
from scalarlang.front.api import ChartPart
from scalarlang.front.repl_core import ReplCore
from scalarlang.front.runner import ScriptOutput
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Charted, Failed
from scalarlang.interpreter.values import flat_nodes
from scalarlang.language.source import Source
from scalarlang.pictures.errors import CHART_KINDS
from scalarlang.interpreter.failures import CHART_KINDS as LANGUAGE_CHART_KINDS, RUNTIME_KINDS
from scalarlang.render.text import Renderer, make_console

FIXTURES = ROOT / "tests" / "fixtures" / "charts"
SVG = "{http://www.w3.org/2000/svg}"


def charts(outcomes) -> list[Charted]:
    return [outcome for outcome in outcomes if isinstance(outcome, Charted)]


def span_text(program: str, diagnostic) -> str:
    return program[diagnostic.span.start : diagnostic.span.end]


def json_events(program: str, folder: Path | None = None, width: int | None = None) -> list[dict]:
    out = io.StringIO()
    ScriptOutput(out, io.StringIO(), json_lines=True, width=width).run(
        Source("plots.sad", program, str(folder) if folder else None)
    )
    return [json.loads(line) for line in out.getvalue().splitlines()][1:]


# ---- plot --------------------------------------------------------------------------------------


def test_plot_reads_the_values_of_a_list_against_its_indices_or_x():
    program = "let x = var 3\nlet losses = [x * x, x + 1, 2]\nplot(losses, title: \"loss\")\nplot([1, 2, 4], losses)"
    first, second = charts(run(program))
    (series,) = first.chart.series
    assert (series.label, series.x, series.y) == ("losses", (0.0, 1.0, 2.0), (9.0, 4.0, 2.0))
    assert first.chart.title == "loss" and first.label == "losses" and first.path is None
    assert second.chart.series[0].x == (1.0, 2.0, 4.0) and second.chart.title is None


def test_plot_tracks_nothing():
    session = Interpreter()
    run("let w = var 2\nlet loss = w * w\nbackward(loss)\nlet curve = [loss, w]", session)
    before = [(id(node), node.gradient) for value in session.values.values() for node in flat_nodes(value)]
    count = len(session.lookup("loss").topology())
    run("plot(curve)", session)
    after = [(id(node), node.gradient) for value in session.values.values() for node in flat_nodes(value)]
    assert after == before and len(session.lookup("loss").topology()) == count


def test_several_series_are_known_by_their_source_texts_in_the_legend():
    program = "let train = [3, 2, 1]\nlet test = [4, 3, 2.5]\nplot([train, test])"
    (charted,) = charts(run(program))
    assert [series.label for series in charted.chart.series] == ["train", "test"]
    text = render_text(run(program), 60)
    assert text.splitlines()[-1] == "⠒⠒ train   x test"
    # labels: names them, whatever the expression.
    (charted,) = charts(run(program.replace("plot([train, test])", 'plot([train, test], labels: ["train set", "te" + "st"])')))
    assert [series.label for series in charted.chart.series] == ["train set", "test"]
    # A list of lists that is not written out has numbered series.
    (charted,) = charts(run("let both = [[1, 2], [2, 1]]\nplot(both)"))
    assert [series.label for series in charted.chart.series] == ["series 0", "series 1"]


def test_a_logarithmic_y_axis():
    (charted,) = charts(run("plot([100, 10, 1, 0.1], log: 1)\nplot([1, 2], log: 0)"))[:1]
    assert charted.chart.y_scale.log and [tick.label for tick in charted.chart.y_scale.ticks] == ["0.1", "1", "10", "100"]
    assert not charts(run("plot([1, 2], log: 0)"))[0].chart.y_scale.log


def test_a_chart_shows_in_loops_under_quiet_and_with_quiet_but_not_inside_expect():
    program = "for i in 0..3 {\n  plot([i, i + 1])\n}\nquiet plot([1, 2])\nexpect empty-series: plot([])"
    outcomes = run(program)
    assert [charted.chart.series[0].y for charted in charts(outcomes)] == [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0), (1.0, 2.0)]
    assert len(charts(run(program, quiet=True))) == 4
    out = io.StringIO()
    ScriptOutput(out, io.StringIO(), quiet=True, width=40, color="never").run(Source("q.sad", "plot([1, 2])"))
    assert "└" in out.getvalue()


def render_text(outcomes, width: int, colour: bool = False) -> str:
    out = io.StringIO()
    renderer = Renderer(make_console(out, width=width, color="always" if colour else "never"))
    for outcome in outcomes:
        renderer.outcome(outcome)
    return out.getvalue()


def test_the_terminal_picture_is_exactly_the_width():
    program = "plot([1, 3, 2, 5], title: \"up\")\nfn f(a, b) = a - b\nboundary(f, [[0, 1, 0], [1, 0, 1]], grid: 8)"
    for width in (20, 47, 100):
        session = Interpreter()
        session.text_width = width
        lines = render_text(run(program, session), width).splitlines()
        assert max(len(line) for line in lines) == width and all(line == line.rstrip() for line in lines)
        assert sum(1 for line in lines if "└" in line) == 2


def test_the_repl_shows_the_chart_at_its_width():
    out = io.StringIO()
    core = ReplCore(Renderer(make_console(out, width=50, color="never")))
    core.handle("let ys = [1, 2, 3]")
    core.handle('plot(ys, title: "ys")')
    lines = out.getvalue().splitlines()
    assert lines[0].strip() == "ys" and len([line for line in lines if "└" in line][0]) == 50
    assert core.session.text_width == 50


def test_the_notebook_and_the_api_show_an_svg_and_print_the_text():
    result = scalarlang.run('print "before"\nplot([1, 2, 3], title: "t")\nprint "after"', width=60)
    kinds = [type(part).__name__ for part in result.parts]
    assert kinds == ["TextPart", "ChartPart", "TextPart"]
    chart = result.parts[1]
    assert isinstance(chart, ChartPart) and chart._repr_svg_().startswith("<svg") and 'class="series"' in chart.svg
    assert "<svg" in result._repr_html_() and "<?xml" not in result._repr_html_()
    out = io.StringIO()
    ScriptOutput(out, out, width=60, color="never").run(
        Source("n.sad", 'print "before"\nplot([1, 2, 3], title: "t")\nprint "after"')
    )
    assert result.text == out.getvalue()


def test_file_writes_svg_or_text_and_says_so(tmp_path):
    svg, txt = tmp_path / "loss.svg", tmp_path / "loss.txt"
    program = f'let losses = [4, 2, 1, 0.5]\nplot(losses, file: "{svg}")\nplot(losses, title: "loss", file: "{txt}")'
    session = Interpreter()
    session.text_width = 44
    outcomes = run(program, session)
    assert [(charted.path, charted.format) for charted in charts(outcomes)] == [(str(svg), "svg"), (str(txt), "txt")]
    root = ElementTree.fromstring(svg.read_text(encoding="utf-8"))
    (polyline,) = root.iter(f"{SVG}polyline")
    assert len(polyline.get("points").split()) == 4
    picture = txt.read_text(encoding="utf-8").splitlines()
    assert picture[0].strip() == "loss" and max(len(line) for line in picture) == 44
    assert render_text(outcomes, 400).splitlines() == [
        f"plotted losses to {svg} (1 series of 4 points)",
        f"plotted losses to {txt} (1 series of 4 points)",
    ]
    events = json_events(program)
    assert [event["path"] for event in events] == [str(svg), str(txt)] and events[0]["series"][0]["y"] == [4, 2, 1, 0.5]


def test_the_title_and_the_file_may_be_texts_held_in_names(tmp_path):
    program = f'let name = "loss"\nlet folder = "{tmp_path}"\nplot([4, 2, 1], title: name, file: folder + "/" + name + ".txt")'
    session = Interpreter()
    session.text_width = 44
    run(program, session)
    picture = (tmp_path / "loss.txt").read_text(encoding="utf-8").splitlines()
    assert picture[0].strip() == "loss"
    diagnostic = failure("let t = [1]\nplot([1, 2], title: t[0])")
    assert (diagnostic.kind, diagnostic.message) == ("not-a-text", "`t[0]` is a node, not a text: `title:` takes a text")


def test_plot_evaluates_x_before_y():
    """Issue 40, item 8: left to right, as everywhere else: X's draws and X's error first."""
    (shown,) = charts(run("random_seed(3)\nplot([uniform(0, 1)], [uniform(0, 1)])"))
    import random

    generator = random.Random(3)
    first, second = generator.uniform(0, 1), generator.uniform(0, 1)
    assert (shown.chart.series[0].x, shown.chart.series[0].y) == ((first,), (second,))
    diagnostic = failure("plot(nowhere_x, nowhere_y)")
    assert diagnostic.kind == "undefined-name" and "nowhere_x" in diagnostic.message
    assert failure("plot(2, [1, 2])").kind == "not-a-list" and "`2`" in failure("plot(2, 3)").message
    # The named options after the lists, in the order written; `file:` too.
    assert "nowhere_y" in failure("plot(nowhere_y, file: nowhere_file)").message
    assert "nowhere_t" in failure("plot([1], title: nowhere_t, file: nowhere_f)").message
    assert "nowhere_f" in failure("plot([1], file: nowhere_f, title: nowhere_t)").message
    assert "nowhere_d" in failure('fn f(a, b) = a\nboundary(f, nowhere_d, file: "a.pdf")').message
    # ... and all of them before F runs: a file that cannot be written is known before the work.
    assert failure('fn g(a, b) = nowhere\nboundary(g, [[0, 0, 1]], file: "a.pdf")').kind == "unknown-picture-format"


@pytest.mark.parametrize("value", ["2", '"a"'])
def test_a_computed_title_that_is_not_a_text_is_one_kind_whatever_its_operator(value):
    """Issue 40, item 8: `z - 1` and `z + 1` are values known when they run: `not-a-text`
    (and an error inside the argument, `-` of a text, comes first); a number written in its
    place stays `wrong-arguments`."""
    kinds = {op: failure(f"let z = {value}\nplot([1, 2], title: z {op} 1)").kind for op in "+-*"}
    if value == "2":
        assert kinds == {"+": "not-a-text", "-": "not-a-text", "*": "not-a-text"}
        assert failure("let z = 2\nplot([1, 2], title: z < 1)").kind == "not-a-text"
        assert failure("let z = 2\nplot([1, 2], title: -z)").kind == "not-a-text"
    else:
        assert kinds == {"+": "not-a-text", "-": "not-a-node", "*": "not-a-node"}
    for written in ("3", "-3", "[1]", "var 2"):
        assert failure(f"plot([1, 2], title: {written})").kind == "wrong-arguments"


# ---- boundary ----------------------------------------------------------------------------------

NETWORK = """let W = [[var 1.5, var -1], [var -0.5, var 2]]
let v = [var 1, var -0.8]
fn model(a, b) = dot(v, [tanh(dot(W[i], [a, b])) for i in 0..2]) + 0.1 * a * b - 0.05
let data = [[-1, -0.5, 1], [0.5, 1.5, -1], [2, 0.25, 1], [0, 0, -1], [1.2, -1, 1]]
"""


def oracle(a: float, b: float) -> float:
    """NETWORK's `model`, written apart with math."""
    hidden = [math.tanh(1.5 * a - 1 * b), math.tanh(-0.5 * a + 2 * b)]
    return 1 * hidden[0] - 0.8 * hidden[1] + 0.1 * a * b - 0.05


def centres(values: list[float], grid: int) -> list[float]:
    low, high = min(values), max(values)
    low, high = low - 0.1 * (high - low), high + 0.1 * (high - low)
    return [low + (index + 0.5) * (high - low) / grid for index in range(grid)]


def sign(value: float) -> int:
    return (value > 0) - (value < 0)


def test_boundary_colours_the_sign_f_has_at_each_cell_centre(tmp_path):
    grid = 13
    path = tmp_path / "model.svg"
    events = json_events(NETWORK + f'boundary(model, data, grid: {grid}, title: "model")\n'
                         f'boundary(model, data, grid: {grid}, file: "{path}")')
    shown, written = events
    data = [[-1, -0.5, 1], [0.5, 1.5, -1], [2, 0.25, 1], [0, 0, -1], [1.2, -1, 1]]
    xs, ys = centres([row[0] for row in data], grid), centres([row[1] for row in data], grid)
    assert shown["grid"]["x"] == pytest.approx(xs, abs=1e-12) and shown["grid"]["y"] == pytest.approx(ys, abs=1e-12)
    expected = [[sign(oracle(x, y)) for x in xs] for y in ys]
    assert {-1, 1} <= {value for row in expected for value in row}  # the boundary crosses the grid
    assert shown["grid"]["sign"] == expected
    assert shown["points"] == [{"x": a, "y": b, "label": c} for a, b, c in data]
    assert (shown["kind"], shown["title"], written["path"]) == ("boundary", "model", str(path))
    # The SVG written: a cell per grid point, rows bottom to top, each with F's sign.
    root = ElementTree.fromstring(path.read_text(encoding="utf-8"))
    cells = [int(cell.get("data-sign")) for cell in root.iter(f"{SVG}rect") if cell.get("class", "").split()[:1] == ["cell"]]
    assert cells == [value for row in expected for value in row]
    assert len([circle for circle in root.iter(f"{SVG}circle") if circle.get("class", "").split()[:1] == ["point"]]) == 5


def snapshot(session: Interpreter) -> dict:
    """Everything of the session a statement could change, and the nodes it reaches."""
    state = session.state
    reached, stack = {}, [node for value in state.names.values() for node in flat_nodes(value)]
    while stack:
        node = stack.pop()
        if id(node) not in reached:
            reached[id(node)] = (node, node.tag, str(node.tag), node.gradient)
            stack.extend(edge.parent for edge in node.parents)
    return {
        "names": dict(state.names),
        "nodes": {key: (tag, text, gradient) for key, (_, tag, text, gradient) in reached.items()},
        "count": len(reached),
        "reached": set(state.reached.variables),
        "random": state.random.getstate(),
        "history": (state.history.count, list(state.history.events)) if state.history is not None else None,
    }


def test_boundary_leaves_the_session_as_it_was():
    session = Interpreter()
    session.keep_history()
    # F draws too: its draws are dropped with its nodes.
    program = NETWORK + "fn noisy(a, b) = model(a, b) + 0 * uniform(-1, 1)\nlet loss = model(1, 2) * model(0, 1)\nbackward(loss)"
    assert not any(isinstance(outcome, Failed) for outcome in run(program, session))
    before = snapshot(session)
    assert before["reached"] and any(gradient for _, _, gradient in before["nodes"].values())
    (charted,) = charts(run("boundary(noisy, data, grid: 20)", session, atomic=True))
    assert len(charted.chart.grid.signs) == 20
    assert snapshot(session) == before
    # Inside an atomic input the journal gains nothing either.
    steps = session.run(Source("j.sad", 'print "a"\nboundary(noisy, data, grid: 5)\nprint "b"'), atomic=True)
    next(steps)
    journal = session.state.journal
    saved = (dict(journal.names), dict(journal.gradients))
    assert isinstance(next(steps), Charted)
    assert (dict(journal.names), dict(journal.gradients)) == saved
    list(steps)


def test_boundary_calls_f_once_per_cell_each_with_a_statements_budget(monkeypatch):
    # A statement's comprehensions may run a million items in all. Patched: 10,000 here, so
    # that a comprehension of 3 items per call, 60 × 60 calls, is over it in all, as 300 items
    # are over the million (1.4 s of CPU), and each call within it.
    from scalarlang.interpreter import context, lists

    monkeypatch.setattr(context, "MAX_ITEMS", 10_000)
    monkeypatch.setattr(lists, "MAX_ITEMS", 10_000)
    program = "fn wide(a, b) = sum([a * 0 for i in 0..3]) + a - b\nboundary(wide, [[0, 0, 1], [1, 1, -1]], grid: 60)"
    (charted,) = charts(run(program))
    assert len(charted.chart.grid.signs) == 60
    # (the 10,800 items of all the calls, in one statement, are past the patched budget)
    assert failure("let L = [a * 0 for a in 0..10800]").kind == "too-long"


# ---- errors --------------------------------------------------------------------------------------

ERRORS = [
    # (program, kind, the text of the span it points at, words of its message)
    ("plot([])", "empty-series", "[]", "empty"),
    ("let x = var 1\nplot(x)", "not-a-list", "x", "takes a list"),
    ("plot([1, [2]])", "not-a-node", "[1, [2]]", "item 1"),
    ("plot([[1, 2], [3, [4]]])", "not-a-node", "[[1, 2], [3, [4]]]", "item 1 of `[[1, 2], [3, [4]]][1]`"),
    ('plot([[1], [2]], labels: ["one"])', "label-count", '["one"]', "1 labels for 2 series"),
    ('plot([1], labels: "one")', "not-a-list", '"one"', "takes a list"),
    ('plot([1], labels: [1])', "not-a-text", "[1]", "`[1][0]`"),
    ('plot(["a", 1])', "not-a-node", '["a", 1]', "item 0"),
    ('plot("abc")', "not-a-list", '"abc"', "a text of 3 characters"),
    ("plot([1, 2], [1, 2, 3])", "length-mismatch", "plot([1, 2], [1, 2, 3])", "2 x values"),
    ("plot([1, 0], log: 1)", "log-non-positive", "[1, 0]", "above 0"),
    ("plot([1, 2], log: 2)", "wrong-arguments", "2", "`log:` is 1"),
    ("plot([-1e308, 1e308])", "range-too-wide", "[-1e308, 1e308]", "span more"),
    ("plot([1, exp(1000)])", "non-finite-result", "exp(1000)", ""),
    ('plot([1], file: "loss.pdf")', "unknown-picture-format", '"loss.pdf"', ".svg or .txt"),
    ('plot([1], colour: 1)', "wrong-arguments", "colour", "no argument named"),
    ("fn f(a, b) = a - b\nboundary(f, [[0, 0, 1]], grid: 1000)", "grid-out-of-range", "1000", "from 2 to 200"),
    ("fn f(a, b) = a - b\nboundary(f, [[0, 0, 1]], grid: 2.5)", "grid-out-of-range", "2.5", "whole number"),
    ("fn f(a, b) = a - b\nboundary(f, [])", "no-points", "[]", "no rows"),
    ("fn f(a, b) = a - b\nboundary(f, [[0, 0], [1, 1]])", "point-shape", "[[0, 0], [1, 1]]", "not 3"),
    ("fn f(a, b) = a - b\nboundary(f, [[0, 0, 1], 2])", "point-shape", "[[0, 0, 1], 2]", "row 1"),
    ("fn f(a, b) = a - b\nlet x = var 1\nboundary(f, x)", "not-a-list", "x", "takes a list"),
    ("fn g(a) = a\nboundary(g, [[0, 0, 1]])", "wrong-arguments", "g", "two arguments"),
    ("let g = var 1\nboundary(g, [[0, 0, 1]])", "unknown-function", "g", "is a value, not a function"),
    ("boundary(nope, [[0, 0, 1]])", "unknown-function", "nope", "no function"),
    ("boundary(tanh, [[0, 0, 1]])", "wrong-arguments", "tanh", "`tanh` is a built-in; `boundary` takes a function defined with `fn`"),
    ("boundary(2, [[0, 0, 1]])", "wrong-arguments", "2", "name of a function"),
    ("fn f(a, b) = [a, b]\nboundary(f, [[0, 0, 1]])", "not-a-node", "boundary(f, [[0, 0, 1]])", "gives a list"),
]


@pytest.mark.parametrize("program, kind, where, words", ERRORS, ids=[case[1] + str(i) for i, case in enumerate(ERRORS)])
def test_bad_input_is_a_typed_error_at_its_culprit(program, kind, where, words):
    diagnostic = failure(program)
    assert diagnostic.kind == kind, diagnostic.message
    assert span_text(program, diagnostic) == where
    assert words in diagnostic.message


def test_an_error_inside_f_says_which_call():
    diagnostic = failure("fn f(a, b) = log(a)\nboundary(f, [[-1, 0, 1], [1, 1, -1]], grid: 2)")
    assert diagnostic.kind == "non-finite-result" or diagnostic.kind.startswith("invalid")
    assert any(note.startswith("in `boundary`'s call f(") and note.endswith("at 2:1") for note in diagnostic.notes)


def test_the_file_format_is_checked_before_f_runs():
    # F fails at every point; the file's format is the error, found first.
    diagnostic = failure('fn f(a, b) = log(a - 10)\nboundary(f, [[0, 0, 1]], file: "b.pdf")')
    assert diagnostic.kind == "unknown-picture-format"


def test_a_chart_wider_than_the_text_is_chart_too_small():
    session = Interpreter()
    session.text_width = 20
    program = "plot([10000000.1, 10000000.3])"
    diagnostic = failure(program, session)
    assert diagnostic.kind == "chart-too-small" and diagnostic.fields["min_width"] > 20
    assert span_text(program, diagnostic) == program
    session.text_width = 30
    assert charts(run(program, session))


def test_a_file_that_cannot_be_written_is_an_io_error_and_the_repl_keeps_everything(tmp_path):
    out = io.StringIO()
    core = ReplCore(Renderer(make_console(out, width=80, color="never")))
    core.handle("let keep = var 1")
    missing = tmp_path / "no" / "such" / "loss.svg"
    core.handle(f'let ys = [1, 2]\nlet keep = var 5\nplot(ys, file: "{missing}")')
    assert "error[io-error]" in out.getvalue() and not missing.exists()
    assert core.session.lookup("keep").value == 1 and "ys" not in core.session.values


def test_the_chart_kinds_a_program_can_meet_are_the_charts_and_runtime_kinds():
    # The kinds the language lists for `expect` are the chart modules' but those it cannot meet.
    assert set(LANGUAGE_CHART_KINDS) == set(CHART_KINDS) - {
        "no-series", "non-finite-value", "undefined-score", "sign-grid-shape",
    }
    assert set(LANGUAGE_CHART_KINDS) <= RUNTIME_KINDS


# ---- the command's pictures: goldens -------------------------------------------------------------

PICTURES = NETWORK + """let losses = [2.3, 1.4, 0.9, 0.7, 0.45, 0.4, 0.3, 0.31, 0.22, 0.2, 0.18, 0.15]
let test = [2.4, 1.6, 1.1, 0.9, 0.7, 0.66, 0.6, 0.62, 0.58, 0.57, 0.57, 0.56]
plot(losses, title: "loss")
plot([losses, test], log: 1)
boundary(model, data, grid: 20, title: "model")
"""


def golden(request, name: str, actual: str) -> None:
    path = FIXTURES / name
    if request.config.getoption("--update-golden"):
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path.name} is missing: run pytest {__file__} --update-golden and review it"
    assert actual == path.read_text(encoding="utf-8")


@pytest.mark.skipif(not COMMAND.exists(), reason="the command is not installed")
@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
@pytest.mark.parametrize("width", [50, 100])
def test_the_command_prints_the_charts(request, tmp_path, width, colour):
    program = tmp_path / "pictures.sad"
    program.write_text(PICTURES, encoding="utf-8")
    arguments = [str(COMMAND), "--width", str(width), "--color", "always" if colour else "never", str(program)]
    result = subprocess.run(arguments, capture_output=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0 and not result.stderr, result.stderr
    text = result.stdout.decode("utf-8")
    lines = [line for line in text.replace("\x1b", "").splitlines()]
    if not colour:
        assert all(len(line) <= width for line in lines) and sum("└" in line for line in lines) == 3
    # Escapes shown as `\e`, so the colour golden reads as text.
    golden(request, f"command-w{width}{'-colour' if colour else ''}.txt", text.replace("\x1b", "\\e"))


def test_the_numbers_in_chart_errors_are_written_as_the_output_writes_them():
    # (They were Python's: `not 1000.0`, `is 0.0`.)
    assert failure("fn f(a, b) = a - b\nboundary(f, [[0, 0, 1]], grid: 1000)").message == (
        "grid must be a whole number from 2 to 200, not 1000"
    )
    assert failure("plot([1, 0.5, 0], log: 1)").message == "a log scale needs values above 0; y value 2 of the series is 0"


# ---- axis titles (issue 45, item 4) -------------------------------------------------------------

AXIS_TITLES = 'let losses = [4, 2, 1, 0.5]\nplot(losses, xlabel: "step", ylabel: "loss")\n' \
    'fn f(a, b) = a - b\nboundary(f, [[0, 1, 0], [1, 0, 1]], grid: 4, xlabel: "x1", ylabel: "x2")\n'


def test_axis_titles_in_the_terminal_picture():
    result = run_program_in_process(AXIS_TITLES, width=40)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    # y's title above its ticks, x's centred under the x axis's labels, for each chart.
    assert lines[0] == "loss" and "┤" in lines[1]
    (step,) = [number for number, line in enumerate(lines) if line.strip() == "step"]
    assert lines[step - 2].lstrip().startswith("└") and lines[step].startswith(" " * 10)
    assert "x2" in lines and any(line.strip() == "x1" for line in lines)


def test_axis_titles_in_the_svg_and_the_json_event(tmp_path):
    events = json_events(AXIS_TITLES.replace('ylabel: "loss")', f'ylabel: "loss", file: "{tmp_path / "l.svg"}")'))
    line, boundary = [event for event in events if event["event"] == "plot"]
    assert (line["xlabel"], line["ylabel"], boundary["xlabel"], boundary["ylabel"]) == ("step", "loss", "x1", "x2")
    assert json_events("plot([1, 2])")[0]["xlabel"] is None
    root = ElementTree.fromstring((tmp_path / "l.svg").read_bytes())
    titles = {text.get("data-axis"): text.text for text in root.iter(f"{SVG}text") if text.get("class") == "axis-title"}
    assert titles == {"x": "step", "y": "loss"}
    area = [rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "plot-area"][0]
    (y_title,) = [t for t in root.iter(f"{SVG}text") if t.get("data-axis") == "y"]
    assert float(y_title.get("x")) < float(area.get("x")) and "rotate(-90" in y_title.get("transform")


def test_axis_titles_are_texts_as_the_title_is():
    assert failure("plot([1, 2], xlabel: 3)").kind == "wrong-arguments"
    assert failure("let z = 2\nplot([1, 2], ylabel: z * 2)").kind == "not-a-text"
    (shown,) = charts(run('let name = "steps"\nplot([1, 2], xlabel: name + "!")'))
    assert shown.chart.x_label == "steps!" and shown.chart.y_label is None


def test_the_help_texts_name_the_axis_titles():
    usage = subprocess.run([str(COMMAND), "--help"], capture_output=True, text=True, timeout=60).stdout
    assert "xlabel:" in next(line for line in usage.splitlines() if "plot(losses)" in line)
    stream = io.StringIO()
    ReplCore(Renderer(make_console(stream, width=200, color="never"))).handle(":help")
    page = " ".join(stream.getvalue().split())
    assert 'xlabel: "step", ylabel: "loss"' in page and 'xlabel: "x1", ylabel: "x2"' in page


def test_a_narrow_chart_of_whole_steps_ticks_whole_steps():
    """Issue 45, item 4: steps 0, 1, 2 on a narrow chart read 0 1 2, not 0 0.5 1 1.5 2."""
    result = run_program_in_process("plot([0.3, 0.1, 0.05])\n", width=30)
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1].split() == ["0", "1", "2"]
