"""An opener left unclosed (issue 26, 2): the error stays where the parser found it (often the
end of the file), and a related note points back at the `{`, `(` or `[` that is still open,
drawn as a second source excerpt; a string's `"` is itself where its error is shown."""

from __future__ import annotations

import pytest

import scalarlang
from scalarlang.language.diagnostics import LanguageError
from scalarlang.language.parser import parse_program
from scalarlang.language.source import Source

BLOCK = 'let x = 1\nif x > 0 {\n  print "a"\n}\nrepeat 2 {\n  print "b"\n'


def error(text: str):
    with pytest.raises(LanguageError) as info:
        parse_program(Source("test.sad", text))
    return info.value.diagnostic


@pytest.mark.parametrize(
    "text, where, opener, at",
    [
        (BLOCK, (6, 12), "{", (5, 10)),
        ("repeat 2 {\n  if 1 > 0 {\n    print 1\n}\n", (4, 2), "{", (1, 10)),
        ("let x = (1 +\n2\n", (2, 2), "(", (1, 9)),
        ("let x = f(1, [2,\n3\n", (2, 2), "[", (1, 14)),
        ("let x = f(1,\nlet y = 2", (2, 1), "(", (1, 10)),
        ("let t = [1,\n2\nlet y = 3", (3, 1), "[", (1, 9)),
        ("let x = exp((1 +\n 2)\n\nx", (4, 1), "(", (1, 12)),
    ],
)
def test_the_open_bracket_is_a_related_note_with_its_span(text, where, opener, at):
    diagnostic = error(text)
    assert (diagnostic.span.line, diagnostic.span.column) == where  # unchanged
    (note,) = diagnostic.related
    assert note.message == f"the `{opener}` opened here is not closed"
    assert (note.span.line, note.span.column, note.span.end_column) == (*at, at[1] + 1)
    assert not any("not closed" in text for text in diagnostic.notes)


def test_the_message_and_position_of_an_unclosed_block_stay():
    diagnostic = error(BLOCK)
    assert diagnostic.message == "unexpected end of input, expected a statement or `}`"
    assert diagnostic.fields == {"incomplete": True}


@pytest.mark.parametrize(
    "text",
    [
        "let x = (1 +",  # the opener is on the error's own line: it is in the excerpt
        "repeat 2 { print 1",
        'print "abc\nlet y = 2',  # a string's error is shown at its `"`
        'print "a {x\n',
        "repeat 2 {\n  let x =\n}",  # inside a block, not about the block
    ],
)
def test_no_related_note_when_the_opener_is_already_in_sight(text):
    assert error(text).related == ()


def test_a_string_left_open_is_shown_at_its_quote():
    diagnostic = error('repeat 2 {\n  print "abc\n}\n')
    assert diagnostic.message == 'unterminated string: it must end with `"` on the same line'
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 9)


def test_a_keyword_inside_an_open_bracket_points_back_too():
    diagnostic = error("let x = f(1,\n  let")
    (note,) = diagnostic.related
    assert (note.span.line, note.span.column) == (1, 10)


def test_the_opener_is_drawn_as_a_second_excerpt():
    result = scalarlang.run(BLOCK)
    assert result.text.splitlines() == [
        "error[syntax-error]: unexpected end of input, expected a statement or `}`",
        " --> <python>:6:12",
        "  |",
        '6 |   print "b"',
        "  |            ^",
        "note: the `{` opened here is not closed",
        " --> <python>:5:10",
        "  |",
        "5 | repeat 2 {",
        "  |          ^",
    ]


def test_excerpts_share_one_gutter_and_notes_come_before_the_second_excerpt():
    text = "let x = f(1,\n" + "\n" * 9 + "let y = 2"
    lines = scalarlang.run(text).text.splitlines()
    assert lines[1:5] == ["  --> <python>:11:1", "   |", "11 | let y = 2", "   | ^^^"]
    assert lines[-5:] == [
        "note: the `(` opened here is not closed",
        "  --> <python>:1:10",
        "   |",
        " 1 | let x = f(1,",
        "   |          ^",
    ]
