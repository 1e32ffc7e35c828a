"""`{EXPR:SPEC}` in strings: Python's format spec for floats, checked when the program is
parsed (a bad spec is a syntax error at the spec, with the accepted forms)."""

from __future__ import annotations

import pytest

import scalarlang


def printed(program: str) -> str:
    result = scalarlang.run(program)
    assert result.error is None, result.text
    return result.text.rstrip("\n")


def test_the_issue_s_example():
    assert printed('let x = 2.5\nprint "{x:.3f} {x:.2e} {4 * x:g}"') == "2.500 2.50e+00 10"


@pytest.mark.parametrize(
    ("spec", "value", "shown"),
    [(".3f", 2.5, "2.500"), (".2e", 1234.5, "1.23e+03"), ("g", 0.5, "0.5"), (">8.2f", 3.14159, "    3.14"),
     ("<6.1f", 2.0, "2.0   "), ("^7.1f", 2.0, "  2.0  "), ("+.1%", 0.87, "+87.0%"), (",.1f", 1234567.0, "1,234,567.0"),
     ("", 2.5, "2.5"), ("08.3f", -1.5, "-001.500")],
)
def test_specs_read_as_python_reads_them(spec, value, shown):
    assert printed(f'let v = {value!r}\nprint "{{v:{spec}}}|"') == f"{shown}|" == f"{format(value, spec)}|"


def test_a_spec_applies_to_counts_and_to_every_item_of_a_list():
    assert printed('print "{len([1, 2, 3]):.1f} {[1.5, 2]:>5.1f}"') == "3.0 [  1.5,   2.0]"
    # Without a spec a count stays a whole number and a value has 12 decimals.
    assert printed('print "{len([1, 2, 3])} {0.5}"') == "3 0.5"


@pytest.mark.parametrize("spec", ["q", "d", ".3z", "1.2.3", ",,f"])
def test_a_bad_spec_is_a_syntax_error_at_the_spec_with_the_forms(spec):
    result = scalarlang.run(f'let x = 1\nprint "value {{x:{spec}}} done"')
    error = result.error
    assert error is not None and error.kind == "syntax-error"
    assert error.message.startswith(f"`{spec}` is not a format spec for numbers")
    assert (error.span.line, error.span.column, error.span.end_column) == (2, 17, 17 + len(spec))
    assert error.notes[0].startswith("help: a format spec is Python's for numbers: `.3f`")
    assert "print" not in result.text.split("\n")[-2]  # (nothing ran: the program did not parse)


def test_a_colon_outside_a_hole_is_still_a_colon():
    # A Python dict or a `:` after a header is not a format spec.
    error = scalarlang.run("let d = {a: b}").error
    assert error.message == "unexpected `{`, expected an expression"
    error = scalarlang.run("for i in 0..3:\n  print i").error
    assert error.message.startswith("unexpected `:`") and any("block in braces" in note for note in error.notes)
