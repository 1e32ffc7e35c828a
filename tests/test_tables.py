"""Edge and node tables at the default width: labels up to 12 characters and every header
survive whole (issue 12); narrower widths still fit."""

from __future__ import annotations

import io
import re

from hypothesis import given
from hypothesis import strategies as st

from scalarlang.front.runner import ScriptOutput
from scalarlang.language.source import Source

EDGE_HEADERS = ["#", "consumer", "slot", "operand", "local", "upstream", "contribution", "operand adjoint"]
NODE_HEADERS = ["#", "node", "operation", "value", "pass adjoint", "gradient"]


def run(program: str, width: int = 100) -> str:
    stream = io.StringIO()
    ScriptOutput(stream, stream, width=width, color="never").run(Source("t.sad", program))
    return stream.getvalue()


def headers_of(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(("#", " #"))]


def program_with(names: list[str], negative: bool) -> str:
    sign = "-" if negative else ""
    lines = [f"let {names[0]} = var {sign}1.5"]
    for previous, name in zip(names, names[1:]):
        lines.append(f"let {name} = {previous} * {previous} - 2.25")
    lines.append(f"backward({names[-1]})")
    return "\n".join(lines)


def assert_only_long_labels_cut(output: str) -> None:
    """The names (12 characters or fewer) are never cut; only the longer labels of the products
    (`name * name`) may be, and never below 12 characters."""
    for line in output.splitlines():
        for cut in re.findall(r"(\w+(?: \*(?: \w*)?)?)…", line):
            assert " *" in cut and len(cut) >= 11, line


def test_twelve_character_labels_and_every_header_survive_at_100_columns():
    names = ["abcdefghijkl", "mnopqrstuvwx", "yzabcdefghij"]
    output = run(program_with(names, negative=True))
    assert_only_long_labels_cut(output)
    for name in names:
        assert name in output
    header_text = " ".join(headers_of(output))
    for header in EDGE_HEADERS + NODE_HEADERS:
        assert re.search(rf"(^|\s){re.escape(header)}(\s|$)", header_text), header
    assert max(map(len, output.splitlines())) <= 100


def test_a_short_table_stays_one_block():
    output = run("let x = var 2\nlet square = x * x\nlet loss = square + square\nbackward(loss)")
    edge_part = output.split("edges, in reverse order\n")[1]
    assert len(headers_of(edge_part)) == 1
    assert headers_of(edge_part)[0].split() == ["#", "consumer", "slot", "operand", "local", "upstream", "contribution", "operand", "adjoint"]


def test_a_split_edge_table_names_the_operand_beside_its_adjoint():
    output = run(program_with(["a", "bb", "ccc"], negative=True), width=60)
    edge_part = output.split("edges, in reverse order\n")[1]
    first, second = headers_of(edge_part)
    assert first.split() == ["#", "consumer", "slot", "operand", "local", "upstream", "contribution"]
    assert second.split() == ["#", "operand", "operand", "adjoint"]


names = st.lists(
    st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True).filter(
        lambda name: name not in {"let", "var", "const", "print", "assert", "expect", "zero_grad", "within",
                                  "inf", "nan", "fn", "repeat", "for", "in", "if", "else", "descend", "by", "quiet",
                                  "exp", "tanh", "log", "grad", "value", "detach", "backward", "graph", "gradcheck"}
    ),
    min_size=2, max_size=4, unique=True,
)


@given(names, st.booleans())
def test_any_labels_up_to_twelve_characters_are_never_cut_at_100_columns(chosen, negative):
    output = run(program_with(chosen, negative))
    if "error[" in output:  # a name the language reserves
        return
    assert_only_long_labels_cut(output)
    assert max(map(len, output.splitlines())) <= 100


@given(names, st.sampled_from([40, 60, 80]))
def test_narrow_tables_still_fit(chosen, width):
    output = run(program_with(chosen, True), width=width)
    assert max(map(len, output.splitlines())) <= width


@given(
    st.lists(st.text(st.sampled_from("ab  é中\u0301-"), max_size=30), min_size=1, max_size=6),
    st.integers(4, 40),
    st.booleans(),
)
def test_lines_printed_at_once_are_the_lines_wrapped_one_by_one(texts, width, color):
    # `Renderer.lines` takes a line that fits as it is: the same output as wrapping each
    # line on its own (wrapping.py's `hanging`, its further lines indented under it), with and
    # without colour.
    from rich.text import Text

    from scalarlang.render.text import Renderer, make_console
    from scalarlang.render.wrapping import INDENT, hanging

    def printed(one_by_one: bool) -> str:
        stream = io.StringIO()
        renderer = Renderer(make_console(stream, width=width, color="always" if color else "never"))
        lines = [Text(text, "bold" if index % 2 else "") for index, text in enumerate(texts)]
        if one_by_one:
            for line in lines:
                own_indent = " " * (len(line.plain) - len(line.plain.lstrip(" ")))
                pieces = hanging(line, width, own_indent + INDENT)
                renderer.console.print(Text("\n").join(pieces), soft_wrap=True)
        else:
            renderer.lines(lines)
        return stream.getvalue()

    assert printed(False) == printed(True)


# ---- edges out of an untracked node (issue 26, 5) -----------------------------------------

DETACH = "let x = var 2\nlet loss = x*x + detach(x)*3\nbackward(loss)"


def edge_rows(output: str) -> dict[str, list[str]]:
    """The edge table's first block, row by row: `#` -> the row's cells (split at 2+ blanks)."""
    block = output.split("edges, in reverse order\n")[1].split("\n#")[0]
    rows = [re.split(r"\s{2,}", line.strip()) for line in block.splitlines()[2:]]
    return {row[0].split()[0]: row for row in rows if row[0][:1].isdigit()}


def test_edges_out_of_an_untracked_node_read_untracked_not_zero():
    output = run(DETACH)
    rows = edge_rows(output)
    # `detach(x)*3` is untracked: the pass gives it no adjoint, so its edges carry nothing.
    assert rows["2"][-3:] == ["untracked", "untracked", "untracked"]  # upstream, contribution, adjoint
    assert rows["3"][-3:-1] == ["untracked", "untracked"]
    assert rows["2"][-4] == "3"  # the local derivative is still the chapter's
    # Into it, from the tracked `loss`: an upstream of 1 and a contribution, discarded.
    assert rows["1"][-3:-1] == ["1", "1"]
    assert "0  0" not in output.split("edges, in reverse order")[1]


def test_the_legend_says_why_only_when_such_an_edge_is_shown():
    legend = "untracked consumer"
    output = run(DETACH)
    tail = output.split("edges, in reverse order\n")[1]
    assert legend in tail and tail.index(legend) < tail.index("unique nodes")
    assert legend not in run("let x = var 2\nlet loss = x*x + 3\nbackward(loss)")
