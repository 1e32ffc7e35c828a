"""The `--json` schema of docs/json.md, checked against what the command writes (issue 12), and
one line per event whoever splits the lines (issue 11, item 6)."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest

from commands import COMMAND, ROOT
from scalarlang.render.events import SCHEMA_VERSION, dumps
from scalarlang.front.runner import ScriptOutput
from scalarlang.language.source import Source

DOC = ROOT / "docs" / "json.md"
COMMON = {"event", "file", "line", "column"}

# A program with every event type, an error last.
EVERY_EVENT = """let x = var 2
let loss = x * x + 1
loss
[[loss, x], [1, 2]]
print "loss is {loss}"
backward(loss)
graph(loss)
draw(loss)
gradcheck(loss, x)
explain(x)
paths(loss, x)
walk(loss)
let v = var 1
descend v by 0.1
plot([loss, x], title: "two")
fn side(a, b) = a - b
boundary(side, [[0, 1, -1], [1, 0, 1]], grid: 3)
tangents(loss, x)
jacobian([loss], [x])
let T = var tensor([[1, 2], [3, 4]])
vjp_check(sum(T * T) * x)
expect no-gradient: grad(3)
"a\\n{len("é")}"
lose
"""


def section_table(heading: str) -> dict[str, set[str]]:
    """The first table under ``## heading`` in the doc: first column -> the keys the second names."""
    text = DOC.read_text(encoding="utf-8").split(f"## {heading}\n", 1)[1]
    table: dict[str, set[str]] = {}
    rows = [line for line in text.split("\n## ", 1)[0].splitlines() if line.startswith("|")]
    for line in rows[2:]:  # past the header and its rule
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        table[cells[0].strip("`")] = set(re.findall(r"`([a-z_]+)`", cells[1]))
    return table


EVENTS = section_table("Events")
BACKWARD = section_table("The node and edge objects of `backward`")
GRAPH = section_table("The node objects of `graph`")
CHAIN_RULE = section_table("The objects of `explain` and `paths`")
VJP_CHECK = section_table("The objects of `vjp_check`")
PLOT = section_table("The objects of `plot`")


def run_json(program: str, name: str = "every.sad") -> list[dict]:
    out = io.StringIO()
    ScriptOutput(out, io.StringIO(), json_lines=True).run(Source(name, program))
    return [json.loads(line) for line in out.getvalue().splitlines()]


def tensor_events() -> list[dict]:
    """The events of a bare tensor, made by the engine and bound into a session (until the
    language makes tensors, EVERY_EVENT cannot)."""
    from scalarlang.engine.tensor import Tensor
    from scalarlang.render.events import events_of
    from sessions import run, with_values

    T = Tensor.variable([[1, 2, 3], [4, 5, 6.5]])
    session = with_values(T=T, loss=(T * T).sum())
    session.keep_history()
    program = "T\nbackward(loss)\nexplain(T)\nexplain(loss)"
    return [json.loads(dumps(event)) for outcome in run(program, session, name="every.sad")
            for event in events_of(outcome, "every.sad")][:3:2]


def test_the_doc_lists_every_event_type():
    """docs/json.md's table of events is the events the renderer writes: those of the program
    that makes every event, and the walk's `step` (the names are read, not listed here)."""
    written = {event["event"] for event in run_json(EVERY_EVENT) + tensor_events()}
    assert set(EVENTS) == written and "step" in written
    assert EVENTS["start"] == {"version"}


def test_every_event_has_its_documented_keys():
    events = run_json(EVERY_EVENT)
    assert [event["event"] for event in events][:6] == ["start", "value", "list", "print", "backward", "graph"]
    assert events[-1]["event"] == "error"
    for event in events:
        documented = COMMON | EVENTS[event["event"]]
        if event["event"] == "plot":  # `series` or `grid` and `points`
            documented -= {"grid", "points"} if event["kind"] == "line" else {"series"}
        if event["event"] == "error":
            assert documented <= set(event)  # and the error's own fields
        else:
            assert set(event) == documented, event["event"]
        assert event["file"] == "every.sad"
    start, listed, backward, graph = events[0], events[2], events[4], events[5]
    assert (listed["shape"], listed["values"]) == ([2, 2], [[5.0, 2.0], [1.0, 2.0]])
    ragged = run_json("[1, [2, 3], []]")[-1]
    assert (ragged["event"], ragged["shape"], ragged["values"]) == ("list", None, [1.0, [2.0, 3.0], []])
    assert start == {"event": "start", "file": "every.sad", "line": None, "column": None, "version": SCHEMA_VERSION}
    assert SCHEMA_VERSION == 1
    assert backward["nodes"] and all(set(node) == BACKWARD["nodes"] for node in backward["nodes"])
    assert backward["edges"] and all(set(edge) == BACKWARD["edges"] for edge in backward["edges"])
    assert graph["nodes"] and all(set(node) == GRAPH["nodes"] for node in graph["nodes"])
    (checked,) = [event for event in events if event["event"] == "vjp_check"]
    assert [node["label"] for node in checked["nodes"]] == ["T * T", "sum(T * T)"]  # (`* x`: a scalar node)
    assert all(set(node) == VJP_CHECK["nodes"] for node in checked["nodes"])
    operands = [operand for node in checked["nodes"] for operand in node["operands"]]
    assert len(operands) == 3 and all(set(operand) == VJP_CHECK["operands"] for operand in operands)
    tensor, explained_tensor = tensor_events()
    assert set(tensor) == COMMON | EVENTS["tensor"]
    assert set(explained_tensor) == COMMON | EVENTS["explain_tensor"]
    edges = explained_tensor["consumers"]
    assert len(edges) == 2 and all(set(edge) == CHAIN_RULE["operands"] for edge in edges)
    summaries = [explained_tensor["adjoint"], explained_tensor["gradient"], *(edge["contribution"] for edge in edges)]
    assert all(set(summary) == CHAIN_RULE["adjoint"] for summary in summaries)
    assert (tensor["shape"], tensor["values"]) == ([2, 3], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]])


def test_the_plot_events_and_their_objects():
    line, boundary = [event for event in run_json(EVERY_EVENT) if event["event"] == "plot"]
    assert (line["kind"], line["title"], line["path"], line["line"]) == ("line", "two", None, 15)
    assert [set(series) for series in line["series"]] == [PLOT["series"]]
    # loss = 5 and x = 2 (the descend stepped v, not x), against 0, 1; a single series is
    # known by its source text.
    assert line["series"][0] == {"label": "[loss, x]", "x": [0.0, 1.0], "y": [5.0, 2.0]}
    assert (boundary["kind"], boundary["title"], boundary["path"]) == ("boundary", None, None)
    assert set(boundary["grid"]) == PLOT["grid"] and all(set(point) == PLOT["points"] for point in boundary["points"])
    assert boundary["points"] == [{"x": 0.0, "y": 1.0, "label": -1.0}, {"x": 1.0, "y": 0.0, "label": 1.0}]
    grid = boundary["grid"]
    # The data's range and 10% each side, in 3 cells: centres at -0.1 + (i + 0.5) * 0.4.
    assert grid["x"] == pytest.approx([0.1, 0.5, 0.9]) and grid["y"] == pytest.approx([0.1, 0.5, 0.9])
    assert grid["sign"] == [[0, 1, 1], [-1, 0, 1], [-1, -1, 0]]  # the sign of x - y, a row per y


def test_texts_are_strings_in_json():
    """A text's value line is a `text` event whose `value` is the text; texts held in a list are
    strings among its values; a print of one is its line."""
    text, listed, printed = run_json('"a\\n\\"b\\" é"\n["x", [1, "{{y}}"]]\nprint "é", chars("ba")')[1:]
    assert text["event"] == "text" and text["value"] == 'a\n"b" é' and set(text) == COMMON | EVENTS["text"]
    assert (listed["event"], listed["shape"], listed["values"]) == ("list", None, ["x", [1.0, "{y}"]])
    assert printed["text"] == 'é ["a", "b"]'
    assert run_json("chars(\"cab\")")[1]["values"] == ["a", "b", "c"]


def test_the_chain_rule_events_and_their_objects():
    events = run_json(EVERY_EVENT)
    explained, paths = events[8], events[9]
    # loss = x * x + 1 at x = 2, after one backward: two edges of 2 × 2, one pass.
    assert explained["label"] == "x" and explained["pass"] == 1 and explained["output"] == "loss"
    assert explained["pass_adjoint"] == 4.0 and explained["gradient"] == 4.0 and explained["note"] is None
    assert [set(edge) for edge in explained["edges"]] == [CHAIN_RULE["edges"]] * 2
    assert [edge["contribution"] for edge in explained["edges"]] == [2.0, 2.0]
    assert explained["passes"] == [{"pass": 1, "adjoint": 4.0}] and set(explained["passes"][0]) == CHAIN_RULE["passes"]
    fields = ("output", "variable", "count", "total", "pass_adjoint")
    assert [paths[field] for field in fields] == ["loss", "x", 2, 4.0, 4.0]
    assert all(set(path) == CHAIN_RULE["paths"] for path in paths["paths"])
    assert [path["slots"] for path in paths["paths"]] == [[0, 0], [0, 1]]
    assert paths["paths"][0]["labels"] == ["loss", "x * x", "x"] and paths["paths"][0]["locals"] == [1.0, 2.0]
    backward, steps = events[10], events[11:15]
    assert [step["index"] for step in steps] == [edge["reverse_index"] for edge in backward["edges"]] == [0, 1, 2, 3]
    assert all(set(step) == COMMON | EVENTS["step"] for step in steps)
    assert steps[1]["operand"] == "1" and steps[1]["operand_tracked"] is False and steps[1]["after"] is None
    # The walk's last adjoints are its pass table's; its backward event is backward's (the second pass).
    pass_adjoints = {node["label"]: node["pass_adjoint"] for node in backward["nodes"] if node["tracked"]}
    assert steps[-1]["adjoints"] == pass_adjoints
    assert backward["nodes"][0]["accumulated_gradient"] == 8.0


def test_a_walk_gives_a_step_event_per_edge():
    events = run_json("let x = var 2\nlet square = x * x\nlet loss = square + square\nwalk(loss, 2)")
    backward, steps = events[1], events[2:]
    assert backward["event"] == "backward" and backward["seed"] == 2.0
    assert [step["event"] for step in steps] == ["step"] * 4
    assert [step["index"] for step in steps] == [0, 1, 2, 3]
    assert [(step["consumer"], step["slot"], step["operand"]) for step in steps] == [
        ("loss", 0, "square"), ("loss", 1, "square"), ("square", 0, "x"), ("square", 1, "x")
    ]
    for step, edge in zip(steps, backward["edges"]):
        assert (step["upstream"], step["local"], step["contribution"]) == (
            edge["upstream"], edge["local_derivative"], edge["contribution"]
        )
        assert (step["before"], step["after"]) == (edge["parent_adjoint_before"], edge["parent_adjoint_after"])
        assert (step["line"], step["column"]) == (4, 1)
    assert steps[-1]["adjoints"] == {"x": 16.0, "square": 4.0, "loss": 2.0}


def test_explain_of_what_it_cannot_explain_says_why():
    untracked, never = run_json("let c = const 3\nlet y = var 1\nexplain(c)\nexplain(y)")[1:]
    fields = ("tracked", "pass", "pass_adjoint", "gradient")
    assert [untracked[field] for field in fields] == [False, None, None, None]
    assert "untracked" in untracked["note"] and untracked["edges"] == [] and untracked["passes"] == []
    assert (never["tracked"], never["pass"], never["gradient"], never["passes"]) == (True, None, 0.0, [])
    assert "no backward pass" in never["note"]


def test_an_error_event_carries_the_help_notes_and_related_places_the_text_shows():
    """Issue 26, 10: tools get what people get."""
    (error,) = run_json("let x = var 2\nx ** x")[1:]
    assert error["kind"] == "tracked-exponent"
    assert error["help"] == ["for a tracked exponent write `exp(x * log(x))`"]
    assert error["notes"] == [] and error["related"] == []
    assert list(error)[:9] == ["event", "file", "line", "column", "kind", "message", "help", "notes", "related"]
    # A note that is not help (a pass error names its nodes), and a loop's iteration.
    program = "let x = var 1\nrepeat 3 {\n  let y = x * 1e10\n  backward(y, 1e300)\n}"
    (error,) = run_json(program)[1:]
    assert error["kind"] == "non-finite-contribution" and error["help"] == []
    assert error["notes"] == [
        "node 2 is `y`, made at 3:11 by `x * 1e10`",
        "node 0 is `x`, made at 1:9 by `var 1`",
        "in iteration 1 of 3 of the loop at 2:1",
    ]
    # A note's own word `note:` is the text's, not the data's.
    (error,) = run_json("let x = f(1)")[1:]
    assert error["kind"] == "unknown-function" and error["notes"][0].startswith("the REPL's `:help` lists every built-in")
    # A related place: the bracket still open, where the error was found lines later.
    (error,) = run_json("let loss = f(1,\n2\nlet y = 3")[1:]
    assert (error["line"], error["column"]) == (3, 1)
    assert error["related"] == [{"message": "the `(` opened here is not closed", "line": 1, "column": 13}]


def test_errors_use_the_one_key_file():
    events = run_json("lose")
    assert "path" not in events[-1] and events[-1]["file"] == "every.sad"
    out = io.StringIO()
    ScriptOutput(out, io.StringIO(), json_lines=True).run(
        __import__("scalarlang.front.runner", fromlist=["read_source"]).read_source("/no/such/file.sad")
    )
    start, error = map(json.loads, out.getvalue().splitlines())
    assert start["file"] == error["file"] == "/no/such/file.sad" and "path" not in error


@pytest.mark.skipif(not COMMAND.exists(), reason="the command is not installed")
def test_the_docs_example_is_what_the_command_writes():
    text = DOC.read_text(encoding="utf-8").split("## Example")[1]
    lines = text.split("```")[1].strip("\n").splitlines()
    command, expected = lines[0], lines[1:]
    assert command == "$ scalarlang --json -c 'let loss = var 2; loss * loss; lose'"
    result = subprocess.run([str(COMMAND), "--json", "-c", "let loss = var 2; loss * loss; lose"], capture_output=True, timeout=60)
    assert result.stdout.decode().splitlines() == expected


@pytest.mark.skipif(not COMMAND.exists(), reason="the command is not installed")
def test_events_of_several_files_say_which_file(tmp_path):
    first, second = tmp_path / "a.sad", tmp_path / "b.sad"
    first.write_text("print 1\n", encoding="utf-8")
    second.write_text("print 2\nlose\n", encoding="utf-8")
    result = subprocess.run([str(COMMAND), "--json", str(first), str(second)], capture_output=True, timeout=60)
    events = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert [(event["event"], Path(event["file"]).name) for event in events] == [
        ("start", "a.sad"), ("print", "a.sad"), ("start", "b.sad"), ("print", "b.sad"), ("error", "b.sad")
    ]


# ---- line separators (issue 11, item 6) --------------------------------------------------------

SEPARATORS = ["\u2028", "\u2029", "\x85"]


@pytest.mark.parametrize("separator", SEPARATORS, ids=["U+2028", "U+2029", "U+0085"])
def test_unicode_line_separators_are_escaped(separator):
    # In a printed string, in a label (a name cannot hold one, a string can) and in an error.
    program = f'print "a{separator}b"\nprint "{separator}", 1\nlose'
    out = io.StringIO()
    ScriptOutput(out, io.StringIO(), json_lines=True).run(Source(f"f{separator}.sad", program))
    text = out.getvalue()
    assert separator not in text
    lines = text.splitlines()  # str.splitlines breaks at U+2028, U+2029 and U+0085 too
    assert lines == text.split("\n")[:-1]
    events = [json.loads(line) for line in lines]
    assert events[1]["text"] == f"a{separator}b"
    assert events[0]["file"] == f"f{separator}.sad"


def test_dumps_escapes_only_the_separators():
    assert dumps({"a": "é\u2028ü\x85\u2029"}) == '{"a": "é\\u2028ü\\u0085\\u2029"}'
    assert json.loads(dumps({"a": "é\u2028ü\x85\u2029"})) == {"a": "é\u2028ü\x85\u2029"}
    assert dumps({"a": "plain"}) == '{"a": "plain"}'


@pytest.mark.skipif(not COMMAND.exists(), reason="the command is not installed")
def test_the_command_writes_one_line_per_event_with_separators():
    program = 'print "x\u2028y\u2029z\x85w"\nprint 2'
    result = subprocess.run([str(COMMAND), "--json", "-c", program], capture_output=True, timeout=60)
    lines = result.stdout.decode("utf-8").splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["start", "print", "print"]
