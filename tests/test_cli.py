"""The command `scalarlang` end to end, and the text and JSON front ends (issue #3).

End-to-end tests run the installed command as a subprocess (skipped when it is not installed
next to this Python); those of what it prints from its arguments, files and standard input,
where a process proves nothing more, run its `main` in this process (`scalarlang_in_process`);
the rest drive ``ScriptOutput`` in-process, which the command uses.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import SLOW_EXAMPLES

from commands import COMMAND, ROOT, command, command_in_process, needs_command
from sessions import script_output
from shared import SEED_PROGRAM
from scalarlang.engine.numbers import digits
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Failed
from scalarlang.front.runner import ScriptOutput, exit_status, read_source
from scalarlang.render.events import events_of
from scalarlang.language.source import Source
from scalarlang.interpreter.failures import RUNTIME_KINDS, STATIC_KINDS
from scalarlang.language.diagnostics import Diagnostic
from scalarlang.render.text import Renderer, make_console

EXAMPLES = sorted((ROOT / "examples").glob("*.sad"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")
COUNTS = re.compile(r"\d+ unique nodes?, \d+ operand edges?")
# The environment a terminal user might have; none of it may change piped output.
NOISY_ENV = {"COLUMNS": "40", "LINES": "10", "TERM": "dumb", "NO_COLOR": "1", "FORCE_COLOR": "1"}


# ---- helpers --------------------------------------------------------------------------------


def clean_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in NOISY_ENV}
    env.update(extra)
    return env


def scalarlang(*args: str, stdin: str | bytes = "", env: dict | None = None, merged: bool = False):
    """Run the installed command in the repository root; returns the CompletedProcess."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    return subprocess.run(
        [str(COMMAND), *args],
        input=data,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        cwd=ROOT,
        env=clean_env() if env is None else env,
        timeout=60,
    )


def scalarlang_in_process(*args: str, stdin: str | bytes = ""):
    """What `scalarlang` gives (a CompletedProcess, bytes out), from the command's main in this
    process, in the repository root and the same clean environment."""
    return command_in_process(*args, stdin=stdin, cwd=ROOT, env=clean_env())


def text(result) -> str:
    return result.stdout.decode("utf-8")


def json_lines(output: str) -> list[dict]:
    def no_constants(name):
        raise AssertionError(f"non-standard JSON number {name}")

    return [json.loads(line, parse_constant=no_constants) for line in output.splitlines()]


def run_text(program: str, *, width: int = 100, name: str = "test.sad") -> tuple[str, int]:
    """In-process: what the command prints for ``program``, both streams as one, and its status."""
    status, text = script_output(program, name, width)
    return text, status


def run_json(program: str, *, name: str = "test.sad") -> tuple[list[dict], int]:
    stream = io.StringIO()
    status = ScriptOutput(stream, io.StringIO(), json_lines=True).run(Source(name, program))
    events = json_lines(stream.getvalue())
    # Each source begins with the schema's version; the events of the program follow.
    assert events[0] == {"event": "start", "file": name, "line": None, "column": None, "version": 1}
    return events[1:], status


def golden(path: Path) -> tuple[str, int]:
    """The golden text of an example without its `[exit status N]` line, and that status."""
    body, _, last = path.with_suffix(".out").read_text(encoding="utf-8").rstrip("\n").rpartition("\n")
    match = re.fullmatch(r"\[exit status (\d+)\]", last)
    assert match, last
    return body + "\n", int(match.group(1))


def table_lines(output: str) -> list[str]:
    """The lines of every node, edge and graph table, their count lines included."""
    lines, inside = [], False
    for line in output.splitlines():
        if line in ("nodes", "edges, in reverse order") or line.startswith("graph of "):
            inside = True
            continue
        if inside:
            lines.append(line)
            if COUNTS.fullmatch(line):
                inside = False
    return lines


# ---- JSON events per the spec table ------------------------------------------------------------

NODE_FIELDS = {"topology_index", "label", "operation", "value", "tracked", "pass_adjoint", "accumulated_gradient"}
EDGE_FIELDS = {
    "reverse_index", "child", "parent", "operand", "local_derivative", "upstream", "contribution",
    "parent_tracked", "parent_adjoint_before", "parent_adjoint_after",
}
GRAPH_NODE_FIELDS = {"index", "label", "operation", "value", "tracked", "gradient", "operands"}
EVENT_FIELDS = {
    "value": {"label", "operation", "value", "tracked", "gradient"},
    "print": {"text"},
    "backward": {"label", "seed", "nodes", "edges"},
    "graph": {"nodes", "edge_count"},
    "gradcheck": {"label", "variable", "input", "analytic", "numerical", "step", "tolerance", "scaled_error", "passed"},
    "expected": {"kind", "message"},
    "error": {"kind", "message"},
    "start": {"version"},
    # Seeing the chain rule (examples/chain_rule.sad).
    "explain": {"label", "tracked", "pass", "output", "pass_adjoint", "edges", "gradient", "passes", "note"},
    "paths": {"output", "variable", "count", "paths", "total", "pass_adjoint"},
    "step": {"index", "consumer", "slot", "operand", "upstream", "local", "contribution", "operand_tracked", "before", "after", "adjoints"},
    # Seeing training (examples/moons.sad, fit_line.sad).
    "plot": {"kind", "title", "path"},
    # Forward mode beside reverse mode (examples/forward_mode.sad).
    "tangents": {"label", "inputs", "direction", "nodes", "tangent", "passes", "visited"},
    "jacobian": {"outputs", "inputs", "forward", "reverse", "forward_passes", "forward_visits", "reverse_passes",
                 "reverse_visits", "largest_difference"},
    # The bridge from scalars to tensors (examples/moons_tensor.sad ends with it).
    "vjp_check": {"label", "nodes", "scalar_edges", "largest_difference", "scaled_error", "tolerance", "passed"},
}
NUMBER = (int, float)


def is_number(value) -> bool:
    return (isinstance(value, NUMBER) and not isinstance(value, bool)) or value in ("inf", "-inf", "nan")


def check_event(event: dict) -> None:
    """One JSON object against docs/language.md's table."""
    kind = event["event"]
    assert kind in EVENT_FIELDS, event
    assert {"event", "file", "line", "column"} | EVENT_FIELDS[kind] <= set(event), (kind, set(event))
    assert isinstance(event["file"], str) and event["file"]
    if kind == "start":
        assert event["version"] == 1 and event["line"] is None and event["column"] is None
    elif kind != "error" or event["line"] is not None:
        assert isinstance(event["line"], int) and event["line"] >= 1
        assert isinstance(event["column"], int) and event["column"] >= 1
    if kind == "value":
        assert isinstance(event["label"], str) and isinstance(event["tracked"], bool)
        assert is_number(event["value"])
        assert (event["gradient"] is None) == (not event["tracked"])
    elif kind == "backward":
        assert is_number(event["seed"])
        for index, node in enumerate(event["nodes"]):
            assert set(node) == NODE_FIELDS, set(node)
            assert node["topology_index"] == index
            assert (node["pass_adjoint"] is None) == (not node["tracked"])
            assert (node["accumulated_gradient"] is None) == (not node["tracked"])
        for index, edge in enumerate(event["edges"]):
            assert set(edge) == EDGE_FIELDS, set(edge)
            assert edge["reverse_index"] == index
            assert (edge["parent_adjoint_before"] is None) == (not edge["parent_tracked"])
    elif kind == "graph":
        for index, node in enumerate(event["nodes"]):
            assert GRAPH_NODE_FIELDS <= set(node)
            assert node["index"] == index
            assert all(isinstance(i, int) and 0 <= i < index for i in node["operands"])
        assert event["edge_count"] == sum(len(node["operands"]) for node in event["nodes"])
    elif kind == "gradcheck":
        assert isinstance(event["passed"], bool)
        assert all(is_number(event[name]) for name in ("input", "analytic", "numerical", "step", "tolerance", "scaled_error"))
    elif kind == "vjp_check":
        assert isinstance(event["passed"], bool) and event["nodes"]
        assert event["passed"] == all(node["passed"] for node in event["nodes"])
        assert event["scalar_edges"] == sum(node["scalar_edges"] for node in event["nodes"])
        for node in event["nodes"]:
            assert node["passed"] == all(operand["passed"] for operand in node["operands"])
            assert all(is_number(operand["largest_difference"]) for operand in node["operands"])
    elif kind in ("expected", "error"):
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", event["kind"])
        assert isinstance(event["message"], str) and event["message"]
    elif kind == "explain":
        assert all(set(edge) == {"consumer", "slot", "upstream", "local", "contribution", "formula"} for edge in event["edges"])
        assert all(set(item) == {"pass", "adjoint"} and is_number(item["adjoint"]) for item in event["passes"])
        assert (event["gradient"] is None) == (not event["tracked"])
    elif kind == "paths":
        assert event["count"] == len(event["paths"]) and is_number(event["total"])
        assert all(len(path["labels"]) == len(path["locals"]) + 1 == len(path["slots"]) + 1 for path in event["paths"])
    elif kind == "step":
        assert isinstance(event["index"], int) and all(is_number(value) for value in event["adjoints"].values())
        assert (event["after"] is None) == (not event["operand_tracked"])
    elif kind == "plot" and event["kind"] == "line":
        assert all(len(series["x"]) == len(series["y"]) > 0 for series in event["series"])
    elif kind == "plot":
        grid = event["grid"]
        assert event["kind"] == "boundary" and len(grid["sign"]) == len(grid["y"])
        assert all(len(row) == len(grid["x"]) and set(row) <= {-1, 0, 1} for row in grid["sign"])


# ---- end to end: text ---------------------------------------------------------------------------


# The examples run by the command in one process (the long ones are checked by their golden
# items in the slow run: examples/moons.sad alone would take six seconds here).
QUICK_EXAMPLES = [path for path in EXAMPLES if path.stem not in SLOW_EXAMPLES]


@pytest.fixture(scope="module")
def all_examples_text() -> tuple[str, int]:
    """One run of the command over every quick example (one process keeps the suite fast)."""
    if not COMMAND.exists():
        pytest.skip(f"{COMMAND} is not installed")
    result = scalarlang(*(str(path.relative_to(ROOT)) for path in QUICK_EXAMPLES), merged=True)
    return text(result), result.returncode


@needs_command
@pytest.mark.parametrize("index", range(len(QUICK_EXAMPLES)), ids=[path.stem for path in QUICK_EXAMPLES])
def test_each_example_prints_its_golden_text(index, all_examples_text):
    output, status = all_examples_text
    goldens = [golden(path) for path in QUICK_EXAMPLES]
    start = sum(len(body) for body, _ in goldens[:index])
    expected, expected_status = goldens[index]
    # The output of the examples before this one matched (their tests say so if not).
    assert output[start : start + len(expected)] == expected
    assert status == max(example_status for _, example_status in goldens)
    if index == len(QUICK_EXAMPLES) - 1:
        assert len(output) == start + len(expected)


@needs_command
def test_terminal_environment_does_not_change_piped_output():
    path = ROOT / "examples" / "reused_square.sad"
    expected, _ = golden(path)
    result = scalarlang("examples/reused_square.sad", env=clean_env(**NOISY_ENV), merged=True)
    assert text(result) == expected
    assert not ANSI.search(text(result))


@needs_command
def test_width_changes_the_tables_and_they_fit():
    default = text(scalarlang("examples/errors.sad"))
    narrow = text(scalarlang("--width", "60", "examples/errors.sad", env=clean_env(**NOISY_ENV)))
    assert narrow != default
    lines = table_lines(narrow)
    assert lines and max(map(len, lines)) <= 60
    assert max(map(len, table_lines(default))) <= 100
    assert max(map(len, table_lines(default))) > 60


@needs_command
def test_color_always_gives_ansi_in_a_pipe_whatever_the_environment():
    program = "let x = var 2\nx * x\nlose"
    result = scalarlang("--color", "always", "-c", program, env=clean_env(**NOISY_ENV))
    assert ANSI.search(text(result))
    assert ANSI.search(result.stderr.decode())  # the diagnostic too
    assert ANSI.sub("", text(result)) == "x * x = 4 (mul, gradient 0)\n"
    result = scalarlang("--color", "auto", "-c", program, env=clean_env(FORCE_COLOR="1", TERM="xterm-256color"))
    assert not ANSI.search(text(result) + result.stderr.decode())


@needs_command
def test_color_auto_on_a_terminal():
    pty = pytest.importorskip("pty")
    for flag, coloured in (("auto", True), ("never", False)):
        leader, follower = pty.openpty()
        try:
            process = subprocess.Popen(
                [str(COMMAND), "--color", flag, "-c", "let x = var 2\nx * x"],
                stdout=follower, stderr=follower, stdin=subprocess.DEVNULL, cwd=ROOT, env=clean_env(),
            )
            os.close(follower)
            chunks = []
            while True:
                try:
                    chunk = os.read(leader, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            assert process.wait(timeout=60) == 0
        finally:
            os.close(leader)
        output = b"".join(chunks).decode()
        assert bool(ANSI.search(output)) is coloured, output
        assert "4" in output


def test_diagnostics_go_to_stderr_in_rust_style():
    result = scalarlang_in_process("-c", SEED_PROGRAM + "backward(loss)\nlet y = lose + 1")
    assert result.returncode == 1
    assert text(result).startswith("backward from loss")
    assert result.stderr.decode() == (
        "error[undefined-name]: `lose` is not defined\n"
        " --> <command line>:5:9\n"
        "  |\n"
        "5 | let y = lose + 1\n"
        "  |         ^^^^\n"
        "  = help: did you mean `loss`?\n"
    )


@needs_command
def test_merged_streams_keep_the_order_of_outcomes(tmp_path):
    program = SEED_PROGRAM + 'print "before"\nbackward(loss)\nexpect no-gradient: grad(3)\nbackward(loss, inf)\nprint "never"\n'
    path = tmp_path / "failing.sad"
    path.write_text(program, encoding="utf-8")
    result = scalarlang(str(path), merged=True)
    expected, status = run_text(program, name=str(path))
    assert (text(result), result.returncode) == (expected, status) == (expected, 1)
    assert expected.rstrip("\n").endswith("^^^")
    assert "never" not in expected


# ---- end to end: exit codes, inputs -------------------------------------------------------------


@needs_command
def test_exit_status_of_the_command():
    for program, status in (("let x = var 2\nx", 0), ("assert 1 == 2", 1), ("print 1\nlet = 2", 2)):
        result = scalarlang("-c", program)
        assert result.returncode == status, program
    assert scalarlang("-c", "print 1\nlet = 2").stdout == b""  # a syntax error runs nothing


@pytest.mark.parametrize(
    "program, status, kind",
    [
        ("let x = var 2\nx", 0, None),
        ("", 0, None),
        ("lose", 1, "undefined-name"),
        ("assert 1 == 2", 1, "assertion-failed"),
        ("expect no-gradient: 1", 1, "expectation-failed"),
        ("let y = var 0.7\ngradcheck(exp(y * 3), y, 0.5, 1e-9)", 1, "gradcheck-failed"),
        ("backward(const 1)", 1, "untracked-output"),
        ("print 1\nlet = 2", 2, "syntax-error"),
        ("(" * 1100 + "1" + ")" * 1100, 2, "too-deep"),
    ],
)
def test_exit_status_and_json_error(program, status, kind):
    events, actual = run_json(program)
    assert actual == status
    for event in events:
        check_event(event)
    if kind is None:
        assert all(event["event"] != "error" for event in events)
    else:
        assert events[-1]["event"] == "error" and events[-1]["kind"] == kind
    if status == 2:
        assert len(events) == 1  # a syntax error runs nothing


def test_unreadable_files_exit_2(tmp_path):
    bad = tmp_path / "latin1.sad"
    bad.write_bytes(b"print \"caf\xe9\"\n")
    paths = [str(tmp_path / "missing.sad"), str(tmp_path), str(bad)]
    # Wide enough that the long temporary paths do not wrap the messages.
    result = scalarlang_in_process("--width", "1000", *paths)
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [
        f"error[io-error]: cannot read {paths[0]}: No such file or directory",
        f"error[io-error]: cannot read {paths[1]}: is a directory",
        f"error[io-error]: cannot read {paths[2]}: is not valid UTF-8 (byte 10 on line 1)",
    ]
    result = scalarlang_in_process("--json", *paths)
    assert result.returncode == 2
    events = json_lines(text(result))
    for index, path in enumerate(paths):
        start, event = events[2 * index : 2 * index + 2]
        assert start == {"event": "start", "file": path, "line": None, "column": None, "version": 1}
        check_event(event)
        assert event["kind"] == "io-error" and event["line"] is None and event["file"] == path
    assert len(events) == 2 * len(paths)


@needs_command
def test_a_program_named_without_its_sad_is_suggested(tmp_path):
    (tmp_path / "fit.sad").write_text('print "fitted"\n', encoding="utf-8")
    result = command("fit", cwd=tmp_path, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "error[io-error]: cannot read fit: No such file or directory",
        "  = help: did you mean `fit.sad`?",
    ]
    assert command("missing", cwd=tmp_path, text=True).stderr.splitlines() == [
        "error[io-error]: cannot read missing: No such file or directory"
    ]
    (event,) = [json.loads(line) for line in command("--json", "fit", cwd=tmp_path, text=True).stdout.splitlines()][1:]
    assert event["kind"] == "io-error" and event["help"] == ["did you mean `fit.sad`?"]


@needs_command
@pytest.mark.parametrize(
    "args",
    [["-c", "1", "examples/detach.sad"], ["--width", "5", "-c", "1"], ["--demo", "-c", "1"]],
)
def test_usage_errors_exit_2(args):
    result = scalarlang(*args)
    assert result.returncode == 2
    assert result.stdout == b""
    assert "error" in result.stderr.decode()


@needs_command
def test_program_from_standard_input():
    program = SEED_PROGRAM + "backward(loss)\nprint grad(x)\nlose"
    result = scalarlang(stdin=program)
    assert result.returncode == 1
    assert text(result).endswith("3 unique nodes, 4 operand edges\n8\n")
    assert " --> <stdin>:6:1" in result.stderr.decode()
    result = scalarlang("--json", "-", stdin=program)
    events = json_lines(text(result))
    assert [event["event"] for event in events] == ["start", "backward", "print", "error"]
    assert {event["file"] for event in events} == {"<stdin>"}


def test_standard_input_that_is_not_utf8_is_an_io_error():
    result = scalarlang_in_process(stdin=b"print 1 \xff\n")
    assert result.returncode == 2
    assert "cannot read <stdin>: is not valid UTF-8" in result.stderr.decode()


@needs_command
def test_dash_c_runs_the_program_text():
    result = scalarlang("-c", "let x = var 3; x * x; print \"{x}\"")
    assert result.returncode == 0
    assert text(result) == "x * x = 9 (mul, gradient 0)\n3\n"


def test_several_files_run_in_fresh_sessions_and_the_worst_status_wins(tmp_path):
    first, second = tmp_path / "first.sad", tmp_path / "second.sad"
    first.write_text("let x = var 2\nx\n", encoding="utf-8")
    second.write_text("x\n", encoding="utf-8")
    result = scalarlang_in_process(str(first), str(second), "examples/detach.sad")
    assert result.returncode == 1
    assert "`x` is not defined" in result.stderr.decode()
    assert text(result).count("backward from loss") == 1  # the third file still ran
    result = scalarlang_in_process("--json", str(first), str(tmp_path / "missing.sad"), str(second))
    assert result.returncode == 2
    events = json_lines(text(result))
    assert [event["event"] for event in events] == ["start", "value", "start", "error", "start", "error"]
    # Every event says which file it is of.
    assert [event["file"] for event in events] == [str(first)] * 2 + [str(tmp_path / "missing.sad")] * 2 + [str(second)] * 2


@needs_command
def test_demo():
    result = scalarlang("--demo")
    assert result.returncode == 0
    lines = text(result).splitlines()
    assert len(lines) == 10
    assert lines[0] == "reused square: x=2.000000000000 square=4.000000000000 loss=8.000000000000"


def test_crlf_and_byte_order_mark(tmp_path):
    path = tmp_path / "windows.sad"
    path.write_bytes("\ufefflet x = var 2\r\nx * x\r\nlose\r\n".encode("utf-8"))
    result = scalarlang_in_process(str(path))
    assert text(result) == "x * x = 4 (mul, gradient 0)\n"
    assert "3 | lose\n" in result.stderr.decode()
    assert "\r" not in result.stderr.decode()


# ---- end to end: JSON ---------------------------------------------------------------------------


@needs_command
def test_json_of_every_example_matches_the_spec():
    # (The long examples' text is checked in full by the test above; their JSON adds nothing.)
    paths = [str(path.relative_to(ROOT)) for path in EXAMPLES if path.stem not in SLOW_EXAMPLES]
    result = scalarlang("--json", *paths, env=clean_env(**NOISY_ENV))
    assert result.returncode == 0 and result.stderr == b""
    events = json_lines(text(result))
    assert {event["event"] for event in events} == set(EVENT_FIELDS) - {"error"}
    for event in events:
        check_event(event)
    assert [event["file"] for event in events if event["event"] == "start"] == paths
    events = [event for event in events if event["event"] != "start"]
    # One event per outcome a script shows (everything but `let`).
    # (A walk is a backward event and a step per edge.)
    outcomes = [
        event
        for path in paths
        for outcome in Interpreter().run(read_source(str(ROOT / path)))
        for event in events_of(outcome)
    ]
    assert len(events) == len(outcomes)


def test_json_of_the_seed_program():
    result = scalarlang_in_process("--json", "-c", SEED_PROGRAM + "backward(loss)\ngraph(loss)\nloss\ngradcheck(loss, x)")
    start, backward, graph, value, gradcheck = json_lines(text(result))
    assert start["event"] == "start"
    assert (backward["event"], backward["line"], backward["column"]) == ("backward", 4, 1)
    assert backward["label"] == "loss" and backward["seed"] == 1.0
    assert [(n["label"], n["pass_adjoint"], n["accumulated_gradient"]) for n in backward["nodes"]] == [
        ("x", 8.0, 8.0), ("square", 2.0, 2.0), ("loss", 1.0, 1.0)
    ]
    assert [(e["child"], e["operand"], e["parent"], e["contribution"]) for e in backward["edges"]] == [
        (2, 0, 1, 1.0), (2, 1, 1, 1.0), (1, 0, 0, 4.0), (1, 1, 0, 4.0)
    ]
    assert [(n["label"], n["operands"], n["gradient"]) for n in graph["nodes"]] == [
        ("x", [], 8.0), ("square", [0, 0], 2.0), ("loss", [1, 1], 1.0)
    ]
    assert graph["edge_count"] == 4
    assert value == {
        "event": "value", "file": "<command line>", "line": 6, "column": 1, "label": "loss", "operation": "add", "value": 8.0,
        "tracked": True, "gradient": 1.0,
    }
    assert (gradcheck["label"], gradcheck["variable"], gradcheck["analytic"], gradcheck["passed"]) == ("loss", "x", 8.0, True)
    for event in (backward, graph, value, gradcheck):
        check_event(event)


# ---- in-process: JSON details ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement, field, value",
    [
        ("backward(loss, inf)", "seed", "inf"),
        ("backward(loss, -inf)", "seed", "-inf"),
        ("backward(loss, nan)", "seed", "nan"),
        ("log(const 0)", "value", "-inf"),
        ("x / 0", "value", "inf"),
        ("const 0 / 0", "value", "nan"),
        ("var inf", "value", "inf"),
        ("backward(x * 1e10, 1e300)", "upstream", 1e300),
    ],
)
def test_json_non_finite_numbers_are_strings(statement, field, value):
    events, status = run_json(SEED_PROGRAM + statement)
    (event,) = events
    check_event(event)
    assert status == 1
    assert event[field] == value


def test_json_error_events_carry_the_errors_own_fields():
    events, _ = run_json(SEED_PROGRAM + "let h = var 1\nlet twice = h + h\nbackward(twice, 1e308)")
    (event,) = events
    assert event == {
        "event": "error", "line": 6, "column": 10, "kind": "non-finite-pass-adjoint",
        "message": "topology node 0 cannot accumulate pass adjoint 1e+308 plus contribution 1e+308",
        "file": "test.sad", "node": 0, "previous": 1e308, "contribution": 1e308,
        "help": [], "notes": ["node 0 is `h`, made at 4:9 by `var 1`"], "related": [],
    }
    events, _ = run_json("let x = var 1\nbackward(x * 1e10, 1e300)")
    assert {key: events[0][key] for key in ("child", "parent", "operand", "upstream", "local_derivative")} == {
        "child": 2, "parent": 0, "operand": 0, "upstream": 1e300, "local_derivative": 1e10
    }
    events, _ = run_json("exp(var 1000)")
    assert (events[0]["operation"], events[0]["value"]) == ("exp", "inf")
    events, _ = run_json("backward(const 3)")
    assert events[0]["operation"] == "constant"


def test_json_expected_and_print_events():
    events, status = run_json('expect no-gradient: grad(3)\nprint "a {1}", 2')
    assert status == 0
    expected, printed = events
    assert expected == {
        "event": "expected", "file": "test.sad", "line": 1, "column": 1, "kind": "no-gradient",
        "message": "`3` is untracked (constant) and has no gradient",
    }
    assert printed == {
        "event": "print", "file": "test.sad", "line": 2, "column": 1, "text": "a 1 2"
    }


def test_json_position_is_the_statements_for_each_event():
    events, _ = run_json("let x = var 2\n  x; print 1;   graph(x)")
    assert [(event["event"], event["line"], event["column"]) for event in events] == [
        ("value", 2, 3), ("print", 2, 6), ("graph", 2, 17)
    ]


def test_json_lines_are_one_object_each_and_let_is_silent():
    stream = io.StringIO()
    ScriptOutput(stream, io.StringIO(), json_lines=True).run(Source("t.sad", "let x = var 2\nlet y = x"))
    assert stream.getvalue() == '{"event": "start", "file": "t.sad", "line": null, "column": null, "version": 1}\n'


def test_json_syntax_error_event():
    events, status = run_json("let x = var 2\nlet y = (x +\nprint 1")
    (event,) = events
    check_event(event)
    assert status == 2
    assert event["kind"] == "syntax-error" and event["line"] == 3


# ---- in-process: text details ---------------------------------------------------------------------


def test_the_seed_programs_edge_table_shows_the_four_rows():
    output, status = run_text(SEED_PROGRAM + "backward(loss)")
    assert status == 0
    rows = output.split("edges, in reverse order\n")[1].splitlines()[2:6]
    cells = [row.split() for row in rows]
    assert [(c[1], c[2], c[3], c[6]) for c in cells] == [
        ("loss", "0", "square", "1"),
        ("loss", "1", "square", "1"),
        ("square", "0", "x", "4"),
        ("square", "1", "x", "4"),
    ]


def _has_tables(path: Path) -> bool:
    """Whether the example shows a table: its golden output (width 100) has one. (xor and the
    long examples print lines in a loop and no table: nothing of theirs to fit, and xor took 3 s
    a width.)"""
    return bool(table_lines(path.with_suffix(".out").read_text(encoding="utf-8")))


@pytest.mark.parametrize("width", [60, 80, 100, 140])
@pytest.mark.parametrize("path", [p for p in QUICK_EXAMPLES if _has_tables(p)], ids=lambda path: path.stem)
def test_tables_fit_the_width(path, width):
    output, _ = run_text(path.read_text(encoding="utf-8"), width=width)
    lines = table_lines(output)
    if lines:
        assert max(map(len, lines)) <= width


def test_a_table_that_cannot_fit_is_split_and_keeps_every_number():
    output, _ = run_text("let a = var 1\nlet huge = a * 1e308\nbackward(huge)", width=60)
    lines = table_lines(output)
    assert max(map(len, lines)) <= 60
    # Every node and edge number is still there, uncut.
    for number in ("1e+308", "0 → 1e+308"):
        assert number in output
    assert "…" not in "".join(line for line in lines if "e308" in line)
    headers = [line.split() for line in lines if line.lstrip().startswith("#")]
    assert all(header[:2] in (["#", "node"], ["#", "consumer"], ["#", "operand"]) for header in headers)
    assert len(headers) > 2


def test_rule_of_a_full_width_table_is_exactly_the_width():
    with digits(12):  # the chapter's long numbers: the edge table fills the width
        output, _ = run_text(SEED_PROGRAM + "backward(loss)")
    rules = [line for line in output.splitlines() if line.startswith("─")]
    assert max(map(len, rules)) == 100


@pytest.mark.parametrize(
    "program, lines",
    [
        (
            "let x = var 2\nlet loss = x * x\nbackward(loss, inf)",
            [
                "error[non-finite-seed]: backward seed inf must be finite",
                " --> test.sad:3:16",
                "  |",
                "3 | backward(loss, inf)",
                "  |                ^^^",
            ],
        ),
        (
            "\n" * 11 + "let y = tahn(1)",
            [
                "error[unknown-function]: there is no function `tahn`",
                "  --> test.sad:12:9",
                "   |",
                "12 | let y = tahn(1)",
                "   |         ^^^^",
                "   = help: did you mean `tanh`?",
                "   = note: the REPL's `:help` lists every built-in function by task (docs/language.md too)",
            ],
        ),
        (
            "let x = var 2\nassert x * x == 5",
            [
                "error[assertion-failed]: assertion failed: `x * x` is 4, `5` is 5, so `==` does not hold",
                " --> test.sad:2:1",
                "  |",
                "2 | assert x * x == 5",
                "  | ^^^^^^^^^^^^^^^^^",
            ],
        ),
        (
            "let x = var 2\nlet y = x +\n",
            [
                "error[syntax-error]: unexpected end of line, expected an expression",
                " --> test.sad:2:12",
                "  |",
                "2 | let y = x +",
                "  |            ^",
            ],
        ),
    ],
)
def test_diagnostic_text(program, lines):
    output, status = run_text(program, width=200)
    assert output.splitlines() == lines
    assert status == (2 if "syntax" in lines[0] else 1)


def test_diagnostic_of_a_long_line_is_cut_around_the_caret():
    program = "let x = var 1\nlet y = " + " + ".join(["x"] * 100) + " + lose"
    output, _ = run_text(program, width=60)
    source_line, caret_line = output.splitlines()[3:5]
    assert len(source_line) <= 60 and source_line.startswith("2 | ...")
    assert caret_line.endswith("^^^^")
    assert source_line[caret_line.index("^") : caret_line.index("^") + 4] == "lose"


def test_value_lines_and_gradcheck_lines():
    output, _ = run_text(SEED_PROGRAM + "loss\nconst 2\ngradcheck(loss, x)", width=200)
    assert output.splitlines() == [
        "loss = 8 (add, gradient 0)",
        "const 2 = 2 (constant, untracked)",
        "gradcheck loss by x: analytic=8 numerical=8"
        " scaled_error=0 tolerance=1e-09 pass=true",
    ]


def test_long_prose_lines_wrap_at_the_width():
    output, _ = run_text(SEED_PROGRAM + "gradcheck(loss, x)", width=60)
    lines = output.splitlines()
    assert all(len(line) <= 60 and line == line.rstrip() for line in lines)
    assert " ".join(lines).startswith("gradcheck loss by x: analytic=8")
    assert lines[-1].endswith("pass=true")


ALL_KINDS = sorted(RUNTIME_KINDS | set(STATIC_KINDS) | {"no-backward"})


@pytest.mark.parametrize("width", [20, 21, 23, 26, 30, 45])
def test_an_error_header_never_breaks_inside_a_word_of_its_kind(width):
    # `--width 20` printed `error[chart-too-smal` / `l]: …` (issue 40)
    for kind in ALL_KINDS:
        stream = io.StringIO()
        Renderer(make_console(stream, width=width, color="never")).diagnostic(Diagnostic(kind, "what went wrong"))
        lines = stream.getvalue().splitlines()
        assert all(len(line) <= width for line in lines), (kind, lines)
        header = f"error[{kind}]:whatwentwrong"  # (spaces left out: a wrap drops those it breaks at)
        pieces = [line.replace(" ", "") for line in lines]
        assert "".join(pieces) == header, lines
        breaks = [len("".join(pieces[: index + 1])) for index in range(len(pieces) - 1)]
        for at in (at for at in breaks if at < len(f"error[{kind}]:")):
            assert header[at] == "[" or header[at - 1] == "-", (kind, width, lines)
        if len(f"[{kind}]:") <= width:
            assert any(f"[{kind}]:" in line for line in lines), (kind, width, lines)


@needs_command
def test_the_header_at_width_20_through_the_command():
    result = subprocess.run(
        [str(COMMAND), "--width", "20", "-"], input="let w = var 1\ndescend w by 0.1\nlet x = y\n",
        capture_output=True, text=True, timeout=60,
    )
    lines = (result.stdout + result.stderr).splitlines()
    assert all(len(line) <= 20 for line in lines)
    assert lines[:2] == ["warning", "[no-backward]:"] and "error" in lines and "[undefined-name]:" in lines


def test_labels_with_brackets_are_not_markup():
    output, _ = run_text('print "[bold]x[/bold] [red]"')
    assert output == "[bold]x[/bold] [red]\n"


def test_huge_tables_show_their_first_rows():
    output, _ = run_text("let x = var 1\nlet y = " + "+".join(["x"] * 400) + "\ngraph(y)")
    assert "... 200 more rows not shown (--json lists them all)" in output


def test_debug_shows_the_traceback_of_an_internal_error(monkeypatch):
    from scalarlang.engine.scalar import Scalar

    # Patched: no input makes scalarlang fail inside itself; a broken method stands in for a bug.
    monkeypatch.setattr(Scalar, "topology", lambda self: 1 / 0)
    for debug in (False, True):
        out, err = io.StringIO(), io.StringIO()
        status = ScriptOutput(out, err, debug=debug).run(Source("t.sad", "let x = var 1\ngraph(x)"))
        assert status == 1
        assert err.getvalue().startswith("error[internal-error]: internal error: ZeroDivisionError")
        assert ("Traceback (most recent call last)" in err.getvalue()) is debug


def test_read_source_errors_and_bom(tmp_path):
    path = tmp_path / "bom.sad"
    path.write_bytes(b"\xef\xbb\xbf1\n")
    assert read_source(str(path)).text == "1\n"
    diagnostic = read_source(str(tmp_path / "nope.sad"))
    assert diagnostic.kind == "io-error" and diagnostic.fields == {"file": str(tmp_path / "nope.sad")}
    # A program that cannot be read runs nothing: status 2. The same kind at run time (a
    # `read_table` that cannot read its file) is a runtime error like any other: status 1.
    assert ScriptOutput(io.StringIO(), io.StringIO()).run(diagnostic) == 2
    assert exit_status(Failed(diagnostic, static=True)) == 2
    assert exit_status(Failed(diagnostic)) == 1
    assert read_source(str(tmp_path)).message.endswith("is a directory")


@needs_command
def test_a_reader_that_goes_away_gets_no_traceback():
    program = "let x = var 1\nlet y = " + "+".join(["x"] * 3000) + "\nbackward(y)\ngraph(y)"
    for args in (["-c", program], ["--json", "-c", program]):
        process = subprocess.Popen(
            [str(COMMAND), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=clean_env()
        )
        process.stdout.read(10)
        process.stdout.close()
        error = process.stderr.read()
        process.stderr.close()
        assert process.wait(timeout=60) == 141  # as if killed by SIGPIPE, like Unix tools
        assert error == b""  # quietly: no traceback, no message


@needs_command
def test_an_interrupted_script_exits_130_without_a_traceback():
    # A real Ctrl-C (SIGINT) to the real command, once its program is running.
    program = 'print "running"\nlet n = 0\nwhile 1 { let n = n + 1 }'
    process = subprocess.Popen(
        [str(COMMAND), "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=clean_env()
    )
    assert process.stdout.readline() == b"running\n"  # (the loop runs for seconds: 1,000,000 iterations)
    process.send_signal(signal.SIGINT)
    _, error = process.communicate(timeout=60)
    assert process.returncode == 130
    assert error == b"scalarlang: interrupted\n"


# ---- --quiet: what still shows, as --help and the README say (issue 45, item 8) ---------------

QUIET_STATEMENTS = {
    "value lines": "y",
    "backward": "backward(y)",
    "descend": "descend w by 0.1",
    "print": 'print "printed"',
    "graph": "graph(y)",
    "gradcheck": "gradcheck(y, x)",
    "draw": "draw(y)",
    "explain": "explain(x)",
    "paths": "paths(y, x)",
    "walk": "walk(y)",
    "plot": "plot([1, 2, 3])",
    "boundary": "boundary(fn_score, [(0, 0, 1), (1, 1, -1)])",
}


def _shown_under_quiet() -> set[str]:
    """Which statements print something with --quiet, to an output that is no terminal; warnings
    and errors too."""
    from commands import run_program_in_process

    lines = ["let x = var 2", "let y = x * x", "let w = var 1", "backward(y)", "fn fn_score(a, b) = a - b"]
    for name, statement in QUIET_STATEMENTS.items():
        lines += [f'print "@@{name}"', statement]
    lines += ['print "@@end"', "let v = var 1", "descend v by 0.1", "undefined_name"]
    done = run_program_in_process("\n".join(lines) + "\n", "--quiet", width=100)
    parts = re.split(r"^@@(.*)\n", done.stdout, flags=re.MULTILINE)
    shown = {name for name, text in zip(parts[1::2], parts[2::2]) if text.strip() and name != "end"}
    if "warning[no-backward]" in done.stderr:
        shown.add("warnings")
    if "error[undefined-name]" in done.stderr:
        shown.add("errors")
    return shown


def test_quiet_shows_what_help_and_the_readme_say():
    shown = _shown_under_quiet()
    assert shown == {"print", "graph", "gradcheck", "draw", "explain", "paths", "walk", "plot", "boundary",
                     "warnings", "errors"}
    help_text = " ".join(scalarlang_in_process("--help").stdout.decode("utf-8").split())
    said = re.search(r"--quiet run the whole program as a loop body: (.*?) --width", help_text).group(1)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = re.search(r"^\| `--quiet` \| (.*) \|$", readme, re.MULTILINE).group(1)
    for text in (said, row):
        hidden, still = text.split(";")
        assert still.strip().endswith("still show"), text
        assert set(re.findall(r"[a-z]+", still.replace("still show", ""))) - {"and"} == shown, text
        for name in ("value lines", "backward", "descend"):
            assert name in hidden and name not in shown
