"""The parser's fast paths give exactly what the slow ones give (issue 13, interpreter speed).

- ``frozen.constructor``: AST nodes made without a frozen dataclass's ``__init__`` are the
  same objects (type, equality, hash, repr, frozen) as ``cls(...)``.
- A span that computes its lines and columns from the text's ``LineIndex`` is the span with
  those numbers given: the same positions as ``syntax_errors.position``, equal, hashed,
  printed, pickled and frozen alike.
- The driver's own rule callbacks (``syntax._direct``, lark's wrapper layers done in one
  function) against lark's own callbacks: the same AST (nodes and spans) and the same
  diagnostics, for the examples and for random edits of them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pickle

from scalarlang.language import tree as ast
from scalarlang.language import builder
from scalarlang.language import parser as syntax
from scalarlang.language.diagnostics import LanguageError
from scalarlang.language.frozen import constructor
from scalarlang.language.source import LineIndex, Source, Span, indexed_span
from scalarlang.language.syntax_errors import position

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.sad"))
NODE_CLASSES = [
    cls
    for cls in vars(ast).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == ast.__name__
]


@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda cls: cls.__name__)
def test_a_constructed_object_is_the_classes_own(cls):
    make = constructor(cls)
    assert make is not cls  # every class of the parser takes the fast path
    values = tuple(range(10, 10 + len(dataclasses.fields(cls))))
    made, expected = make(*values), cls(*values)
    assert type(made) is cls
    assert made == expected and hash(made) == hash(expected) and repr(made) == repr(expected)
    assert dataclasses.astuple(made) == dataclasses.astuple(expected)
    for field in dataclasses.fields(cls):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, field.name, 0)


def test_a_class_the_trick_cannot_check_is_its_own_constructor():
    @dataclasses.dataclass(frozen=True)  # no slots: nothing to copy into
    class Plain:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self):
            if self.x < 0:
                raise ValueError("negative")

    assert constructor(Plain) is Plain
    assert constructor(Checked) is Checked


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(st.sampled_from("ab \t\r\n\u00e9"), max_size=40),
    offsets=st.lists(st.integers(0, 40), min_size=2, max_size=2),
)
def test_an_indexed_span_is_the_span_of_its_numbers(text, offsets):
    start, end = sorted(min(offset, len(text)) for offset in offsets)
    lines = LineIndex(text)
    indexed = Span.indexed(start, end, lines)
    numbered = Span(start, end, *position(text, start), *position(text, end))
    assert (indexed.line, indexed.column) == position(text, start)
    assert (indexed.end_line, indexed.end_column) == position(text, end)
    assert indexed == numbered and numbered == indexed and hash(indexed) == hash(numbered)
    assert repr(indexed) == repr(numbered) == (
        f"Span(start={start}, end={end}, line={numbered.line}, column={numbered.column},"
        f" end_line={numbered.end_line}, end_column={numbered.end_column})"
    )
    assert pickle.loads(pickle.dumps(indexed)) == numbered
    assert indexed == Span.indexed(start, end, lines) and indexed != Span.indexed(start, end + 1, lines)
    assert indexed_span(start, end, lines) == indexed
    for name in ("start", "end", "line", "column", "end_line", "end_column"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(indexed, name, 0)


def test_the_parsers_spans_are_the_tokens_positions():
    """Spans of a parse index the text; outside one (a test's own lark parser drives the
    builder) they take the tokens' numbers."""
    text = "let a = 1\r\n\nlet b = a *\t2  # c\nprint a, b"
    program = syntax.parse_program(Source("p.sad", text))
    for statement in program.statements:
        span = statement.span
        assert (span.line, span.column) == position(text, span.start)
        assert (span.end_line, span.end_column) == position(text, span.end)
    assert builder._current.lines is None  # nothing left behind by the parse


def _outcome(text: str) -> tuple:
    """The AST (its repr holds every node and span) or the whole diagnostic."""
    try:
        return ("ok", repr(syntax.parse_program(Source("p.sad", text))))
    except LanguageError as error:
        d = error.diagnostic
        return ("error", d.kind, d.message, d.span, repr(d.fields), d.notes)


@pytest.fixture
def lark_callbacks(monkeypatch):
    """Parse with lark's own callbacks instead of the driver's: a function that does so."""

    def parse_with_lark_callbacks(texts: list[str]) -> list[tuple]:
        with monkeypatch.context() as patch:
            syntax._actions.cache_clear()
            syntax._steps.cache_clear()
            patch.setattr(syntax, "_direct", lambda callback: callback)
            try:
                return [_outcome(text) for text in texts]
            finally:
                syntax._actions.cache_clear()
                syntax._steps.cache_clear()

    return parse_with_lark_callbacks


def test_the_examples_parse_the_same_with_lark_callbacks(lark_callbacks):
    texts = [path.read_text(encoding="utf-8") for path in EXAMPLES]
    texts.append("".join(f"let a{i} = a{i - 1} * 1.5 + {i % 7}\n" for i in range(1, 300)))
    fast = [_outcome(text) for text in texts]
    assert lark_callbacks(texts) == fast
    assert all(outcome[0] == "ok" for outcome in fast)


_PIECES = [
    "(", ")", "[", "]", "{", "}", "\n", " ", "let", "=", ",", '"', "else", "if ", "for ", " in ",
    "..", "*", "**", "-", "1", "x", "var ", ";", "#c", "expect ", ":", "\\", "{{", "}}", "print ",
    "fn f(a, b) = ", "(1, 2), ", "repeat 2 ", "descend x by ",
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    example=st.sampled_from(EXAMPLES),
    edits=st.lists(
        st.tuples(st.floats(0, 1), st.sampled_from(["insert", "delete"]), st.sampled_from(_PIECES)),
        min_size=1,
        max_size=4,
    ),
)
def test_edited_programs_parse_the_same_with_lark_callbacks(lark_callbacks, example, edits):
    text = example.read_text(encoding="utf-8")[:3000]
    for where, how, piece in edits:
        at = int(where * len(text))
        text = text[:at] + piece + text[at:] if how == "insert" else text[:at] + text[at + 1 :]
    assert lark_callbacks([text]) == [_outcome(text)]
