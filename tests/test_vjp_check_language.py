"""`vjp_check(LOSS)` in the language (issue 43, item 1): through the real command (text and
--json), the REPL and the notebook; against VJPs computed here with numpy; a wrong VJP (a test
double of one operation) failing with its node and element named; its typed errors; and a
session left as it was, bit for bit. The engine's check itself: tests/test_vjp_check.py."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from commands import needs_command, run_program, run_program_in_process
from sessions import failure, run, run_ok, shown
from shared import bits
from scalarlang.engine.tensor_node import TensorNode
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.tensor_outcomes import VJPCheckShown

# A two-layer network on literal numbers, so numpy can compute the same VJPs from the same data.
X = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]
W = [[0.3, -0.2, 0.5, 0.1], [-0.4, 0.6, 0.2, -0.3], [0.25, 0.15, -0.35, 0.45]]
B = [0.1, -0.2, 0.05, 0.3]
V = [[0.2, -0.5, 0.4], [0.7, 0.1, -0.3], [-0.6, 0.3, 0.5], [0.1, 0.2, -0.1]]
TARGETS = [0, 2]
PROGRAM = f"""let X = tensor({X})
let W = var tensor({W})
let b = var tensor({B})
let V = var tensor({V})
let h = tanh(X @ W + b)
let logits = h @ V
let loss = mean(cross_entropy(logits, {TARGETS}))
let S = var tensor([[1.4, 1.0, -0.3, -1.0], [0.0, -0.4, 1.1, -0.8]])
"""
# A check that fails with no wrong VJP: softmax's two sides differ in their last bits here, and
# the tolerance is the smallest float.
FAILING = "vjp_check(sum(softmax(S) * tensor([1.5, -0.3, 2.2, 0.7])), tolerance: 5e-324)"


def numpy_vjps() -> dict[str, dict[int, np.ndarray]]:
    """Each node's VJP into each tracked operand, written here with numpy: the node (by its
    label in the table) to {slot: the operand's contribution}."""
    x, w, b, v = (np.array(a) for a in (X, W, B, V))
    pre = x @ w
    summed = pre + b
    h = np.tanh(summed)
    logits = h @ v
    shifted = logits - logits.max(axis=1, keepdims=True)
    probabilities = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    rows = len(TARGETS)
    d_losses = np.full(rows, 1.0 / rows)  # mean's VJP
    one_hot = np.eye(logits.shape[1])[TARGETS]
    d_logits = (probabilities - one_hot) * d_losses[:, None]  # cross_entropy's
    d_h = d_logits @ v.T
    d_summed = d_h * (1 - h * h)
    return {
        "loss": {0: d_losses},
        f"cross_entropy(logits, {TARGETS})": {0: d_logits},
        "logits": {0: d_logits @ v.T, 1: h.T @ d_logits},
        "h": {0: d_summed},
        "X @ W + b": {0: d_summed, 1: d_summed.sum(axis=0)},
        "X @ W": {1: x.T @ d_summed},  # X is a constant: only W is checked
    }


def test_every_row_against_numpys_vjps_through_the_command():
    result = run_program(PROGRAM + "vjp_check(loss)", "--json")
    assert result.returncode == 0, result.stderr
    event = json.loads(result.stdout.splitlines()[-1])
    assert event["event"] == "vjp_check" and event["label"] == "loss" and event["passed"] is True
    expected = numpy_vjps()
    assert [node["label"] for node in event["nodes"]] == [
        "X @ W", "X @ W + b", "h", "logits", f"cross_entropy(logits, {TARGETS})", "loss"]
    for node in event["nodes"]:
        vjps = expected[node["label"]]
        assert [operand["slot"] for operand in node["operands"]] == sorted(vjps)
        for operand in node["operands"]:
            reference = vjps[operand["slot"]]
            assert operand["shape"] == list(reference.shape)
            at = tuple(operand["element"])
            # Both sides, at the element the check reports, are numpy's number.
            assert operand["vjp"] == pytest.approx(reference[at], rel=1e-12, abs=1e-15)
            assert operand["scalar"] == pytest.approx(reference[at], rel=1e-12, abs=1e-15)
            assert operand["largest_difference"] <= 1e-15 and operand["passed"] is True
        assert node["largest_difference"] == max(operand["largest_difference"] for operand in node["operands"])
    # The scalar edges, counted here from what each operation is made of in scalar nodes: an
    # output element of [n, k] @ [k, m] is k products and k - 1 additions (two edges each).
    by_label = {node["label"]: node for node in event["nodes"]}
    n, k, m = 2, 3, 4
    assert by_label["X @ W"]["scalar_edges"] == n * m * (2 * k + 2 * (k - 1))
    assert [operand["scalar_edges"] for operand in by_label["X @ W"]["operands"]] == [n * k * m]
    assert by_label["logits"]["scalar_edges"] == n * 3 * (2 * m + 2 * (m - 1))
    assert by_label["X @ W + b"]["scalar_edges"] == 2 * n * m  # one addition an element
    assert [operand["scalar_edges"] for operand in by_label["X @ W + b"]["operands"]] == [n * m, n * m]
    assert by_label["h"]["scalar_edges"] == n * m  # one tanh an element
    assert event["scalar_edges"] == sum(node["scalar_edges"] for node in event["nodes"])
    assert event["tolerance"] == 1e-9


@needs_command
def test_a_sum_of_one_element_is_one_scalar_edge_as_explain_says():
    # Its rebuild is the element itself (a fold of one): it was counted 0 scalar edges.
    program = "let W = var tensor([3])\nlet M = var tensor([[2]])\nlet loss = sum(W) + sum(sum(M, axis: 0))\n"
    result = run_program(program + "vjp_check(loss)", "--json")
    assert result.returncode == 0, result.stderr
    event = json.loads(result.stdout.splitlines()[-1])
    counts = {node["label"]: (node["scalar_edges"], [operand["scalar_edges"] for operand in node["operands"]])
              for node in event["nodes"]}
    assert counts == {"sum(W)": (1, [1]), "sum(M, axis: 0)": (1, [1]), "sum(sum(M, axis: 0))": (1, [1])}
    assert event["scalar_edges"] == 3
    explained = run_program(program + "backward(loss)\nexplain(W)", width=120)
    assert "dA = dC, repeated over every element (1 scalar edge)" in explained.stdout


def _rows(lines: list[str]) -> dict[str, str]:
    """The table's rows by their node's label (the text under the header's `node`, after the
    `#` of `graph`'s numbering). A label longer than its column is on a line of its own (or
    more), whole, and the row's cells on the next line under a blank `#` and label. A table
    split into blocks to fit the width has each row's cells of every block joined, its number
    first. Records (a width too narrow for the table) read the same way."""
    labels: list[str] = []
    cells: list[list[str]] = []
    headers = [at for at, line in enumerate(lines) if line.split()[:2] == ["#", "node"]]
    if not headers:
        return _records(lines)
    for block, header in enumerate(headers):
        start = lines[header].index("node")
        end = lines[header].index(lines[header].split()[2])  # where the column after `node` starts
        at = header + 2  # (past the rule)
        row = 0
        while at < len(lines) and at not in headers and not lines[at].startswith("vjp_check "):
            number, line = lines[at][:start].strip(), lines[at]
            label_lines = [line[start:].strip()]
            while at + 1 < len(lines) and lines[at + 1][:end].strip() and not lines[at + 1][:start].strip():
                at += 1  # a label too long for one line goes on
                label_lines.append(lines[at][start:].strip())
            if at + 1 < len(lines) and lines[at + 1].strip() and not lines[at + 1][:end].strip():
                at += 1  # the label was spilled: the row's cells are on this line
                label, rest = " ".join(label_lines), f"{number} {lines[at][end:].strip()}"
            else:
                label, rest = line[start:end].strip(), (line[:start] + line[end:]).strip()
            if block == 0:
                labels.append(label), cells.append([])
            cells[row].append(rest)
            at, row = at + 1, row + 1
    return {label: "  ".join(parts) for label, parts in zip(labels, cells)}


_FIELD = re.compile(r"  (operation|shapes|scalar edges|largest difference|verdict):(?: (.*))?$")


def _records(lines: list[str]) -> dict[str, str]:
    """The records of a narrow width by their node's label: ``#N label`` (the label going on
    over lines indented under it), then a line a field, ``  name: value`` (a long value on the
    lines after ``  name:``, indented), as `_rows` gives a table's rows."""
    records: dict[str, str] = {}
    label, cells = "", []
    for line in lines:
        number = re.match(r"#(\d+) (.*)$", line)
        field = _FIELD.match(line)
        if number:
            label, cells = number[2], [number[1]]
            records[label] = ""
        elif not label or line.startswith("vjp_check ") or not line.startswith(" "):
            label = ""
            continue
        elif field:
            cells.append(field[2] or "")
        elif len(cells) == 1:  # the label goes on
            del records[label]
            label += " " + line.strip()
        else:  # the last field's value goes on
            cells[-1] = (cells[-1] + " " + line.strip()).strip()
        if label:
            records[label] = "  ".join(cells)
    return records


@needs_command
def test_the_table_and_verdict_through_the_command():
    result = run_program(PROGRAM + "vjp_check(loss)\nprint \"after\"", width=100)
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].startswith("vjp_check of loss: the VJP of each of its 6 tensor nodes against the sum")
    header = next(line for line in lines if "node" in line.split())
    assert header.split() == ["#", "node", "operation", "shapes", "scalar", "edges", "largest", "difference", "verdict"]
    rows = _rows(lines)
    graph = run_program(PROGRAM + "graph(loss)", width=100).stdout.splitlines()
    top = next(line for line in graph if line.split()[:2] == ["#", "node"])
    start, end = top.index("node"), top.index("operation")
    numbered = {line.split()[0]: line[start:end].strip() for line in graph if line[:1].isdigit()}
    for label, row in rows.items():  # graph's `#` (either table may cut a long label: `…`)
        shown = numbered[row.split()[0]]
        assert shown == label or label.startswith(shown.rstrip("…")) or shown.startswith(label.rstrip("…"))
    assert set(rows) >= {"X @ W", "h", "logits", "loss"}
    assert "matmul" in rows["X @ W"] and "[2, 3] @ [3, 4] → [2, 4]" in rows["X @ W"] and " 80 " in rows["X @ W"]
    assert all(row.endswith("pass") for row in rows.values())
    verdict = [line for line in lines if line.startswith("vjp_check loss:")]
    assert verdict and "tolerance=1e-09 pass=true" in " ".join(lines[lines.index(verdict[0]):])
    assert lines[-1] == "after"
    assert all(len(line) <= 100 for line in lines)
    assert "\x1b[" not in result.stdout  # no colour without a terminal


FN_LABELS = ["f: transpose(A)", "f: A @ transpose(A)", "f: A * A", "f: A * A * A",
             "f: A @ transpose(A) + A * A * A", "f: A @ transpose(A) + A * A * A - A * A * A * A * A * A"]


@pytest.mark.parametrize("width", [40, 60, 100])
def test_labels_made_inside_a_fn_are_shown_whole(width):
    # Cut to fit its column, `layer: H @ transpose(W)` and `layer: H @ transpose(W) + b` both
    # read `layer: H @ tr…`: a label too long for its column is on a line of its own, whole
    # (broken after a space when longer than the table), and the row's cells follow.
    program = "let S = var tensor([[1, 2], [3, 4]])\nfn f(A) = A @ transpose(A) + A * A * A - A * A * A * A * A * A\n" \
              "let loss = sum(f(S))\nvjp_check(loss)"
    result = run_program_in_process(program, width=width)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(len(line) <= width for line in lines), result.stdout
    assert "…" not in result.stdout
    rows = _rows(lines)
    assert set(FN_LABELS) <= set(rows), rows
    assert all(row.endswith("pass") for row in rows.values()), rows
    if width == 100:  # as the shapes tell the two products apart, the labels tell the sums apart
        assert "matmul    [2, 2] @ [2, 2] → [2, 2]" in rows["f: A @ transpose(A)"]
        assert "add       [2, 2] + [2, 2] → [2, 2]" in rows["f: A @ transpose(A) + A * A * A"]


@pytest.mark.parametrize("width", [40, 60])
def test_the_table_fits_a_narrow_width(width):
    result = run_program_in_process(PROGRAM + "vjp_check(loss)", width=width)
    assert result.returncode == 0, result.stderr
    assert all(len(line) <= width for line in result.stdout.splitlines()), result.stdout
    assert "pass=true" in result.stdout and "verdict" in result.stdout


LABELS = {2: "X @ W", 4: "X @ W + b", 5: "h", 7: "logits", 8: "cross_entropy(logits, [0, 2])", 9: "loss"}


@pytest.mark.parametrize("width", [40, 80, 120])
def test_each_nodes_label_shows_once_at_any_width(width):
    """Too narrow for the table in one or two blocks, each node is a record: its number and
    label once, then its fields a line each (split into five blocks, the table repeated every
    label five times, for one value each)."""
    result = run_program_in_process(PROGRAM + "vjp_check(loss)", width=width)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(len(line) <= width for line in lines), result.stdout
    headers = [line for line in lines if line.split()[:2] == ["#", "node"]]
    if width == 40:
        assert headers == []
        assert [line for line in lines if line.startswith("#")] == [f"#{n} {label}" for n, label in LABELS.items()]
        record = lines.index("#7 logits")
        fields = [line.split(": ", 1) for line in lines[record + 1 : record + 6]]
        assert [name for name, _ in fields] == ["  operation", "  shapes", "  scalar edges", "  largest difference", "  verdict"]
        assert [value for _, value in fields][:3] == ["matmul", "[2, 4] @ [4, 3] → [2, 3]", "84"]
        assert fields[4][1] == "pass" and float(fields[3][1]) < 1e-15
    else:  # the table, in two blocks or one
        assert len(headers) == (2 if width == 80 else 1)
        rows = _rows(lines)
        assert list(rows) == list(LABELS.values()) and all(row.endswith("pass") for row in rows.values())


def test_a_narrow_records_long_label_wraps_under_itself_and_a_failure_is_named():
    result = run_program_in_process(PROGRAM + FAILING, width=40)
    lines = result.stdout.splitlines()
    assert all(len(line) <= 40 for line in lines), result.stdout
    record = lines.index("#3 softmax(S) * tensor([1.5, -0.3, 2.2,")
    assert lines[record + 1] == "   0.7])" and lines[record + 2] == "  operation: mul"
    assert "  verdict: FAIL at S[1, 2]" in lines


def test_the_tolerance_is_given_by_name_and_numbers_go_through_the_one_formatter():
    _, outcomes = run_ok(PROGRAM + "vjp_check(loss, tolerance: 1e-6)")
    (check,) = shown(outcomes, VJPCheckShown)
    assert check.tolerance == 1e-6 and check.passed
    with_digits = run_program_in_process(PROGRAM + "vjp_check(loss, tolerance: 1e-6)", "--digits", "4")
    assert "tolerance=1.0000e-6 pass=true" in " ".join(with_digits.stdout.split()), with_digits.stdout


# ---- a wrong VJP: a test double of one operation ---------------------------------------------

# Patched: the test double of one operation's VJP, dB = Aᵀ @ dC (every `@`'s right operand), off
# by 1e-6 in its sixth element; no input can make the engine's VJPs wrong.
WRONG_MATMUL = """
import sys
from scalarlang.engine import tensor_linear
real = tensor_linear.matmul_transposed_left

def wrong(a, n, k, g, m):
    out = real(a, n, k, g, m)
    out[5] += 1e-6
    return out

tensor_linear.matmul_transposed_left = wrong
from scalarlang.front.cli import command
sys.argv = ["scalarlang", *sys.argv[1:]]
command()
"""


def _with_a_wrong_matmul(tmp_path, *arguments: str) -> subprocess.CompletedProcess:
    """The command's own entry point in a process whose `@` has a wrong VJP."""
    script = tmp_path / "wrong_matmul.py"
    script.write_text(WRONG_MATMUL, encoding="utf-8")
    program = tmp_path / "model.sad"
    program.write_text(PROGRAM + "vjp_check(loss)\nprint \"not reached\"\n", encoding="utf-8")
    return subprocess.run([sys.executable, str(script), "--width", "100", *arguments, str(program)],
                          capture_output=True, text=True, timeout=120)


def test_a_wrong_vjp_fails_naming_its_node_and_element(tmp_path):
    result = _with_a_wrong_matmul(tmp_path)
    assert result.returncode == 1  # as a failed gradcheck: a runtime error
    lines = result.stdout.splitlines()
    rows = _rows(lines)
    # W is [3, 4]: its sixth element is [1, 1]; V is [4, 3]: [1, 2].
    assert rows["X @ W"].endswith("FAIL at W[1, 1]")
    (difference,) = [float(cell) for cell in rows["X @ W"].split() if "e-" in cell]
    assert difference == pytest.approx(1e-6, rel=1e-6)
    assert rows["logits"].endswith("FAIL at V[1, 2]")
    assert rows["h"].endswith("pass") and rows["loss"].endswith("pass")
    verdict = " ".join(lines[next(i for i, line in enumerate(lines) if line.startswith("vjp_check loss:")):])
    assert "6 tensor nodes" in verdict and "2 failed" in verdict and verdict.endswith("pass=false")
    assert "not reached" not in result.stdout
    assert result.stderr.startswith("error[vjp-check-failed]: vjp_check of `loss` failed at `")
    assert "note: 2 of 6 tensor nodes failed: `X @ W`, `logits`" in result.stderr


def test_a_wrong_vjp_in_json_is_the_event_then_the_error(tmp_path):
    result = _with_a_wrong_matmul(tmp_path, "--json")
    assert result.returncode == 1
    events = [json.loads(line) for line in result.stdout.splitlines()]
    check, error = events[-2], events[-1]
    assert check["event"] == "vjp_check" and check["passed"] is False
    failed = [node for node in check["nodes"] if not node["passed"]]
    assert [node["label"] for node in failed] == ["X @ W", "logits"]
    (operand,) = failed[0]["operands"]
    assert (operand["operand"], operand["element"]) == ("W", [1, 1])
    assert operand["vjp"] - operand["scalar"] == pytest.approx(1e-6, rel=1e-6)
    assert error["event"] == "error" and error["kind"] == "vjp-check-failed"
    assert error["failed"] == 2 and error["element"] in ([1, 1], [1, 2])
    assert (error["line"], error["column"]) == (9, 1)


# ---- the REPL (the notebook: tests/test_notebook.py) ---------------------------------------------------------------------


def _repl():
    from scalarlang.front.repl_core import ReplCore
    from scalarlang.render.text import Renderer, make_console

    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    return core, stream


def test_the_repl_shows_the_table_and_undoes_a_failing_line():
    core, stream = _repl()
    for line in PROGRAM.splitlines():
        core.handle(line)
    stream.truncate(0), stream.seek(0)
    core.handle("vjp_check(loss)")
    text = stream.getvalue()
    assert text.startswith("vjp_check of loss:") and "pass=true" in text
    stream.truncate(0), stream.seek(0)
    # A failing input is undone whole: `extra` is not bound, and the table was still shown.
    core.handle("let extra = 1\n" + FAILING)
    text = stream.getvalue()
    assert "softmax" in text and "pass=false" in text and "error[vjp-check-failed]" in text
    stream.truncate(0), stream.seek(0)
    core.handle("extra")
    assert "error[undefined-name]" in stream.getvalue()


def test_help_lists_it_under_tensors():
    core, stream = _repl()
    core.handle(":help vjp_check")
    assert stream.getvalue().split() == (
        "tensors vjp_check(LOSS[, tolerance: T]) each tensor VJP of LOSS's graph against the sum of the scalar"
        " edges it stands for, changing nothing").split()
    stream.truncate(0), stream.seek(0)
    core.handle(":help tensors")
    assert "vjp_check(LOSS[, tolerance: T])" in stream.getvalue()


def test_in_colour_a_failing_verdict_is_red_and_a_passing_one_green():
    import scalarlang

    result = scalarlang.run(PROGRAM + "vjp_check(loss)\n" + FAILING)
    html = result._repr_html_()
    red = 'color: #800000; text-decoration-color: #800000; font-weight: bold">'
    assert red + "FAIL at S[1, 2]</span>" in html and red + "pass=false</span>" in html
    assert 'color: #008000; text-decoration-color: #008000">pass=true</span>' in html
    assert "\x1b[" not in result.text


# ---- typed errors, and a session left as it was ---------------------------------------------------


@pytest.mark.parametrize("statement, kind, caret", [
    ("vjp_check(h)", "not-a-node", "h"),  # a tensor: `backward`'s wording, with its help
    ("vjp_check(tensor([2.0]))", "not-a-node", "tensor([2.0])"),  # one element is still a tensor
    ("vjp_check([loss])", "not-a-node", "[loss]"),
    ('vjp_check("loss")', "not-a-node", '"loss"'),
    ("vjp_check(sum(X))", "untracked-output", "sum(X)"),
    ("vjp_check(const 2)", "untracked-output", "const 2"),
    ("vjp_check(loss, tolerance: 0)", "invalid-gradcheck-tolerance", "0"),
    ("vjp_check(loss, tolerance: nan)", "invalid-gradcheck-tolerance", "nan"),
    ("vjp_check(loss, step: 1e-4)", "wrong-arguments", "step"),
    ("vjp_check(loss, 1e-6)", "wrong-arguments", "vjp_check(loss, 1e-6)"),
    ("vjp_check()", "wrong-arguments", "vjp_check()"),
    ("vjp_check(x * x)", "no-tensor-vjp", "x * x"),
    ("vjp_check(x * sum(X))", "no-tensor-vjp", "x * sum(X)"),
])
def test_typed_errors_with_spans(statement, kind, caret):
    session, _ = run_ok(PROGRAM + "let x = var 2")
    diagnostic = failure(statement, session)
    assert diagnostic.kind == kind, diagnostic.message
    span = diagnostic.span
    assert statement[span.column - 1:span.end_column - 1] == caret


def test_the_one_wording_of_no_tensor_vjp():
    session, _ = run_ok(PROGRAM + "let x = var 2")
    scalar_only = failure("vjp_check(x * x)", session)
    assert scalar_only.message == (
        "`vjp_check` compares the VJPs of tensor operations with their scalar edges; `x * x`'s graph has none "
        "to compare: it holds scalar nodes only")
    assert scalar_only.notes == ("help: `gradcheck(x * x, X)` checks a variable's adjoint against a central difference",)
    untracked = failure("vjp_check(x * sum(X))", session)
    assert untracked.message.endswith("none to compare: its 1 tensor operation depends on no variable")
    assert untracked.fields == {"output": "x * sum(X)", "tensor_operations": 1}


def _snapshot(session: Interpreter) -> tuple:
    """Bindings by identity, every stored gradient's bits (a tensor's element by element),
    the history of passes and the generator's state."""
    state = session.state
    gradients = {}
    for value in state.names.values():
        if not hasattr(value, "topology"):
            continue
        for node in value.topology():
            gradient = node._gradient
            gradients[id(node)] = (
                None if gradient is None else tuple(bits(number) for number in gradient)
                if isinstance(node, TensorNode) else bits(gradient))
    history = state.history.snapshot() if state.history is not None else None
    return (tuple((name, id(value)) for name, value in state.names.items()), gradients,
            history and (history.events, history.count, history.nodes), state.random.getstate(),
            frozenset(map(id, state.reached.variables)))


@pytest.mark.parametrize("statement", [
    "vjp_check(loss)",
    FAILING,  # fails
    "vjp_check(loss, tolerance: 0)",  # fails before checking
])
def test_nothing_of_the_session_changes(statement):
    session, _ = run_ok("random_seed(7)\n" + PROGRAM + "backward(loss)\nbackward(loss)\nlet drawn = uniform(0, 1)")
    session.keep_history()
    run_ok("zero_grad(V)\nbackward(loss)", session)
    before = _snapshot(session)
    outcomes = run(statement, session)
    assert shown(outcomes, VJPCheckShown) or outcomes[-1].diagnostic.kind == "invalid-gradcheck-tolerance"
    assert _snapshot(session) == before
    _, after = run_ok("print \"{uniform(0, 1)}\"", session)
    _, again = run_ok("random_seed(7)\n" + PROGRAM + "backward(loss)\nlet drawn = uniform(0, 1)\nprint \"{uniform(0, 1)}\"")
    assert after[-1].text == again[-1].text  # the generator drew nothing


def test_it_shows_in_a_loop_body_and_expect_catches_it():
    _, outcomes = run_ok(PROGRAM + "repeat 2 { vjp_check(loss) }\n"
                         "expect vjp-check-failed: " + FAILING)
    assert len(shown(outcomes, VJPCheckShown)) == 2  # (and nothing shown of the expected failure)


def test_indices_and_targets_given_as_tensors():
    # C[I] with I a constant tensor (not a list), cross_entropy's targets a tensor: nodes that
    # are data of the operation, not operand edges (the rebuild took them for edges: an
    # internal error). numpy's scatter-add of the embedding's VJP is the reference.
    table = [[0.5, -1.0], [0.25, 2.0], [1.5, 0.0], [-0.5, 0.75], [1.0, 1.0]]
    indices = [[0, 1], [1, 1], [4, 0]]
    program = f"""let C = var tensor({table})
let I = tensor({indices})
let E = C[I]
let loss = mean(cross_entropy(reshape(E, 3, 4), tensor([0, 3, 1])))
vjp_check(loss)"""
    result = run_program_in_process(program, "--json")
    assert result.returncode == 0, result.stderr
    event = json.loads(result.stdout.splitlines()[-1])
    assert event["passed"] is True
    gather = event["nodes"][0]
    assert (gather["label"], gather["operation"], gather["shapes"]) == ("E", "gather", "gather([5, 2]) → [3, 2, 2]")
    (operand,) = gather["operands"]
    assert operand["scalar_edges"] == 6 * 2  # each index moves a row of 2 elements
    # the gather's adjoint, from numpy: mean then cross_entropy, reshaped back to [3, 2, 2]
    logits = np.array(table)[np.array(indices)].reshape(3, 4)
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    adjoint = ((probabilities - np.eye(4)[[0, 3, 1]]) / 3).reshape(3, 2, 2)
    expected = np.zeros((5, 2))
    np.add.at(expected, np.array(indices), adjoint)  # repeated rows add
    assert operand["vjp"] == pytest.approx(expected[tuple(operand["element"])], rel=1e-12, abs=1e-15)


# ---- makemore's batch through the language --------------------------------------------------------

MAKEMORE_BATCH = (Path(__file__).parent / "fixtures" / "makemore_batch.sad").read_text(encoding="utf-8")


@pytest.mark.slow
def test_makemore_batch_through_the_language():
    session, _ = run_ok(MAKEMORE_BATCH)
    start = time.perf_counter()
    _, outcomes = run_ok("vjp_check(loss)", session)
    seconds = time.perf_counter() - start
    (check,) = shown(outcomes, VJPCheckShown)
    assert check.passed
    assert [node.operation for node in check.nodes] == [
        "gather", "reshape", "matmul", "add", "tanh", "matmul", "add", "cross_entropy", "mean"]
    product = next(node for node in check.nodes if node.label == "emb @ W1")
    assert product.shapes == "[32, 30] @ [30, 200] → [32, 200]"
    assert [operand.scalar_edges for operand in product.operands] == [192_000, 192_000]
    assert seconds < 60, f"vjp_check took {seconds:.1f} s"  # 4.5 s on two shared cores (issue 43)


@pytest.mark.parametrize("statement", ["vjp_check(sum(X))", "backward(sum(X))"])
def test_an_untracked_loss_of_a_named_constant_tensor_says_how_to_track_it(statement):
    # (`backward` of it was an internal error: the hint read a tensor's `value`)
    session, _ = run_ok(PROGRAM)
    diagnostic = failure(statement, session)
    assert diagnostic.kind == "untracked-output"
    assert diagnostic.notes == (
        "help: `sum(X)` depends on no variable: `X` is a constant tensor; make it a variable with `let X = var X`",)


def test_the_engines_vjp_check_is_still_the_function_after_the_language_ran_it():
    # The engine's module was once named `vjp_check` like its function: importing it by its path
    # bound the package's name to the module (`'module' object is not callable`); it is
    # `vjp_checking` now, and the built-in imports it by its path.
    program = textwrap.dedent("""
        import scalarlang
        assert scalarlang.run("let T = var tensor([1, 2])\\nvjp_check(sum(T * T))").error is None
        from scalarlang.engine import vjp_check
        print(type(vjp_check).__name__)
    """)
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "function", result.stderr
