"""A heading too long for the width wraps with its further lines indented, as the rest of its
output is, at 40, 80 and 120 columns; where it fits, it is one line as before. Every heading
the renderers print: a pass's, a graph's, a walk's forward graph and its header, gradcheck's
line, explain's and paths', vjp_check's (and its verdict), an error's and the REPL's `:help`
and its complaints, through the one wrapping helper (render/wrapping.py)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from sessions import script_output
from scalarlang.front.repl_core import ReplCore
from scalarlang.render.text import Renderer, make_console
from scalarlang.render.wrapping import hanging

WIDTHS = [40, 80, 120]

# Names of 30-odd characters: a label of several of them is wider than 120 columns, and no word
# is wider than 40 (a word wider than a line is cut, which these tests do not look at).
PROGRAM = """\
let weight_of_the_first_input_feature = var 2
let input_feature_number_one_of_four = const 3
let bias_added_after_the_weighted_sum = var 1
let matrix_of_the_first_layer_weights = var tensor([[0.3, -0.2], [0.5, 0.1]])
backward(weight_of_the_first_input_feature * input_feature_number_one_of_four + bias_added_after_the_weighted_sum)
graph(weight_of_the_first_input_feature * input_feature_number_one_of_four + bias_added_after_the_weighted_sum)
gradcheck(weight_of_the_first_input_feature * input_feature_number_one_of_four + bias_added_after_the_weighted_sum, weight_of_the_first_input_feature)
explain(weight_of_the_first_input_feature)
paths(weight_of_the_first_input_feature * input_feature_number_one_of_four + bias_added_after_the_weighted_sum, weight_of_the_first_input_feature)
walk(weight_of_the_first_input_feature * input_feature_number_one_of_four + bias_added_after_the_weighted_sum)
vjp_check(sum(matrix_of_the_first_layer_weights * matrix_of_the_first_layer_weights + matrix_of_the_first_layer_weights))
assert weight_of_the_first_input_feature * input_feature_number_one_of_four == bias_added_after_the_weighted_sum
"""

# How each heading starts; its whole text is read from a run too wide for anything to wrap.
HEADINGS = [
    "backward from",
    "graph of",
    "gradcheck",
    "weight_of_the_first_input_feature: pass adjoint",
    "weight_of_the_first_input_feature: stored gradient",
    "paths from",
    "total",
    "forward graph of",
    "walk from",
    "walked",
    "vjp_check of",
    "vjp_check sum(",
    "error[assertion-failed]",
]


def whole_headings() -> dict[str, str]:
    status, text = script_output(PROGRAM, width=2000)
    assert status == 1
    lines = text.splitlines()
    return {start: next(line for line in lines if line.startswith(start)) for start in HEADINGS}


def heading_at(lines: list[str], whole: str) -> list[str]:
    """The lines that show ``whole``: the first line that starts it, then as many lines as hold
    the rest of its words."""
    words = whole.split()
    for index, line in enumerate(lines):
        if line.startswith(words[0]) and words[: len(line.split())] == line.split():
            found, count = [line], len(line.split())
            while count < len(words) and index + len(found) < len(lines):
                found.append(lines[index + len(found)])
                count += len(found[-1].split())
            if " ".join(found).split() == words:
                return found
    raise AssertionError(f"no lines hold the heading {whole!r} whole, word after word")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_wrapped_heading_goes_on_indented_under_its_first_line(width):
    _, text = script_output(PROGRAM, width=width)
    lines = text.splitlines()
    wrapped = 0
    for start, whole in whole_headings().items():
        shown = heading_at(lines, whole)
        assert all(len(line) <= width for line in shown), shown
        if len(whole) <= width:
            assert shown == [whole], start  # it fits: one line, as before
            continue
        wrapped += 1
        assert not shown[0].startswith(" ")
        for line in shown[1:]:
            assert line.startswith("  ") and not line.startswith("   " + " " * 4), (start, shown)
    assert wrapped >= 5  # (the long labels make most headings wider than even 120 columns)


def test_a_label_wider_than_a_line_breaks_at_its_blanks_under_the_heading():
    _, text = script_output(PROGRAM, width=40)
    lines = text.splitlines()
    first = lines.index("backward from")
    # The label (cut to its first 60 characters, as a pass's heading cuts it) goes on from the
    # heading's indent, broken where it has blanks, and the heading goes on after it.
    assert lines[first + 1 : first + 4] == [
        "  weight_of_the_first_input_feature *",
        "  input_feature_number_on… with seed 1",
        "nodes",
    ]


def repl_output(width: int, *inputs: str) -> str:
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=width, color="never")))
    for text in inputs:
        core.handle(text)
    return stream.getvalue()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_repls_complaints_go_on_indented(width):
    long_name = "a_name_that_no_binding_has_ever_had_" * 3
    text = repl_output(width, f":graph {long_name}", f":help {long_name[:30]}")
    for line in text.splitlines():
        assert len(line) <= width
        assert line.startswith(("error: ", "error[", " ", "1 | ")), line  # (1 |: the excerpt)


def test_a_help_heading_wider_than_the_narrowest_layout_goes_on_indented():
    text = repl_output(20, ":help texts")
    lines = text.splitlines()
    assert lines[:2] == ["texts and", "  language models"]


@given(
    st.lists(st.text(st.sampled_from("abé中\u0301-"), min_size=1, max_size=6), min_size=1, max_size=12),  # (no word wider than a line)
    st.integers(16, 60),
    st.sampled_from(["", "  ", "    "]),
)
def test_hanging_keeps_every_word_in_order_within_the_width(words, width, indent):
    text = Text(" ".join(words))
    lines = hanging(text, width, indent)
    assert " ".join(line.plain for line in lines).split() == words
    assert all(line.cell_len <= width for line in lines)
    assert all(line.plain.startswith(indent) for line in lines[1:])
    if text.cell_len <= width:
        assert [line.plain for line in lines] == [text.plain]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_caret_at_the_end_of_a_long_line_fits_the_width(width):
    # (Its line's window took every column, so the caret after the line's last character
    # wrapped onto a line of its own.)
    status, text = script_output("let x = " + "weight + " * 30 + "-", width=width)
    assert status == 2
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), lines
    excerpt, carets = lines[-2], lines[-1]
    assert carets.endswith("^") and len(carets) == len(excerpt) + 1  # just past the `-`
