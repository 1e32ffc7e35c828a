"""``vjp_check(LOSS)`` as text: a heading, one row per tensor node (its operation on its shapes,
the scalar edges of its rebuilt operation, the largest difference between its VJP and their sum,
its verdict: `pass`, or `FAIL` and the element that differs most), then the verdict line, in
gradcheck's words (``scaled_error=… tolerance=… pass=true``). The table fits the width as a
pass's tables do (tables.py), except that where it would be cut into blocks of one column, each
repeating every label, a node is a record instead: its number and label once, then its fields
a line each. Numbers through the one formatter."""

from __future__ import annotations

from rich.text import Text

from ..engine.numbers import format_exponent
from ..interpreter.tensor_outcomes import NodeVJPChecked, VJPCheckShown
from .styles import STYLES
from .table_layout import Column, table_lines
from .wrapping import sentence



def _verdict_style(text: str) -> str:
    """A row's verdict in colour (none without a terminal: the console drops styles)."""
    return STYLES["ok"] if text == "pass" else STYLES["error"]


# `#`: the node's number in `graph(LOSS)`'s table (and the JSON event's `index`). A label longer
# than its column wraps over the row's next lines, whole: labels made inside a `fn` are long
# (`layer: H @ transpose(W) + b`), and cut they read alike (`layer: H @ tr…`).
_COLUMNS = [
    Column("#", "number", key=True),
    Column("node", "label", key=True),
    Column("operation", "text"),
    Column("shapes", "text"),
    Column("scalar edges", "number"),
    Column("largest difference", "number"),
    Column("verdict", "text", style=_verdict_style),
]


def verdict(node: NodeVJPChecked) -> str:
    """``pass``; ``FAIL at W1[0, 7]`` (the failed operand element of largest scaled error);
    ``FAIL: not checked`` (its problem follows the table)."""
    if node.passed:
        return "pass"
    failing = node.failing
    return f"FAIL at {failing.element_name}" if failing is not None else "FAIL: not checked"


def vjp_check_lines(shown: VJPCheckShown, width: int) -> list[Text]:
    count = len(shown.nodes)
    lines = sentence([
        "vjp_check of ", Text(shown.label, STYLES["label"]),
        f": the VJP of each of its {count} tensor node{'' if count == 1 else 's'} against the sum of the scalar"
        " edges it stands for"], width)
    rows = [
        [str(node.index), node.label, node.operation, node.shapes, f"{node.scalar_edges:,}",
         format_exponent(node.largest_difference), verdict(node)]
        for node in shown.nodes
    ]
    lines += table_lines(_COLUMNS, rows, width, wrap=True, records=True)
    for node in shown.nodes:
        if node.problem is not None:
            lines += sentence([Text("note", STYLES["note"]), ": ", Text(node.label, STYLES["label"]),
                               f": {node.problem}"], width)
    lines += sentence(verdict_parts(shown), width)
    return lines


def verdict_parts(shown: VJPCheckShown) -> list[str | Text]:
    """``vjp_check loss: 9 tensor nodes, 1,053,720 scalar edges: largest_difference=…
    scaled_error=… tolerance=1e-09 pass=true``: gradcheck's verdict, for every tensor VJP."""
    count = len(shown.nodes)
    failed = len(shown.failures)
    return [
        "vjp_check ",
        Text(shown.label, STYLES["label"]),
        f": {count} tensor node{'' if count == 1 else 's'}, {shown.scalar_edges:,} scalar edges"
        + (f", {failed} failed" if failed else "")
        + f": largest_difference={format_exponent(shown.largest_difference)}"
        f" scaled_error={format_exponent(shown.scaled_error)} tolerance={format_exponent(shown.tolerance)} ",
        Text(f"pass={str(shown.passed).lower()}", STYLES["ok"] if shown.passed else STYLES["error"]),
    ]
