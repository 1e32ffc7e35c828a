"""Source texts and spans: where a piece of a program came from, and the spans of the parser's
tokens (`tok_span`, `join`: against the line index of the text being parsed, `spans_of`)."""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

from .plain_data import PlainData



class Span(tuple):
    """A half-open range of characters, with 1-based line and column of both ends.

    ``end_line``/``end_column`` point one past the last character, as lark does. Immutable, and
    equal, hashed and printed by those six numbers.

    A span is the tuple of its two offsets and where its positions come from: the four numbers
    given to ``Span(...)``, or, for the parser's spans (``Span.indexed``), the ``LineIndex`` of
    the program text, which computes them when they are read. The parsed form of a program
    holds about seven spans per statement: a tuple of three is the least they can cost, in
    memory and in the time to make one.
    """

    __slots__ = ()
    __match_args__ = ("start", "end", "line", "column", "end_line", "end_column")

    def __new__(cls, start: int, end: int, line: int, column: int, end_line: int, end_column: int) -> Span:
        return _new(cls, (start, end, (line, column, end_line, end_column)))

    @classmethod
    def indexed(cls, start: int, end: int, lines: LineIndex) -> Span:
        """The span from `start` to `end` of the text that `lines` indexes."""
        return _new(cls, (start, end, lines))

    @property
    def start(self) -> int:
        return self[0]

    @property
    def end(self) -> int:
        return self[1]

    @property
    def line(self) -> int:
        where = self[2]
        return where[0] if where.__class__ is tuple else where.position(self[0])[0]

    @property
    def column(self) -> int:
        where = self[2]
        return where[1] if where.__class__ is tuple else where.position(self[0])[1]

    @property
    def end_line(self) -> int:
        where = self[2]
        return where[2] if where.__class__ is tuple else where.position(self[1])[0]

    @property
    def end_column(self) -> int:
        where = self[2]
        return where[3] if where.__class__ is tuple else where.position(self[1])[1]

    def _numbers(self) -> tuple[int, int, int, int, int, int]:
        start, end, where = self
        if where.__class__ is not tuple:
            where = where.position(start) + where.position(end)
        return (start, end, *where)

    def cover(self, other: Span) -> Span:
        """The smallest span holding both ``self`` and ``other``."""
        first = self if self.start <= other.start else other
        last = self if self.end >= other.end else other
        return Span(first.start, last.end, first.line, first.column, last.end_line, last.end_column)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Span:
            return NotImplemented
        if self[2] is other[2]:  # type: ignore[index]  # one text's spans: the offsets say it all
            return self[0] == other[0] and self[1] == other[1]  # type: ignore[index]
        return self._numbers() == other._numbers()  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._numbers())

    def __repr__(self) -> str:
        start, end, line, column, end_line, end_column = self._numbers()
        return (
            f"Span(start={start!r}, end={end!r}, line={line!r}, column={column!r},"
            f" end_line={end_line!r}, end_column={end_column!r})"
        )

    def __reduce__(self) -> tuple:
        return (Span, self._numbers())


_new = tuple.__new__


class LineIndex:
    """Line and column of any offset of one text (lines counted by `\\n`, as lark does),
    from the offsets where its lines start: found on the first question, by bisection after."""

    __slots__ = ("_starts", "_text")

    def __init__(self, text: str):
        self._text: str | None = text  # until the line starts are found
        self._starts: list[int] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        starts = self._starts
        if starts is None:
            text = cast(str, self._text)  # set until the starts are: once per text
            starts = self._starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
            self._text = None  # only the line starts are needed from now on
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1


_NEWLINE = re.compile("\n")


class Source(PlainData):
    """A program text and the name it is reported under (a path relative to the user, or `<stdin>`)."""

    __slots__ = ("name", "text", "folder")

    def __init__(self, name: str, text: str, folder: str | None = None) -> None:
        self.name = name
        self.text = text
        # The folder of the file the text came from, which paths in the program are relative
        # to (`read_table`); None for text that came from no file (the working folder).
        self.folder = folder

    def __repr__(self) -> str:
        # The text left out: a program can be megabytes, and reprs end up in logs and test output.
        return f"Source(name={self.name!r}, folder={self.folder!r})"

    def slice(self, span: Span) -> str:
        return self.text[span.start : span.end]

    def line_text(self, line: int) -> str:
        """The text of 1-based line ``line`` without its newline ('' past the end)."""
        lines = self.text.split("\n")
        if 1 <= line <= len(lines):
            return lines[line - 1].rstrip("\r")
        return ""


# ---- the spans of the parser's tokens ---------------------------------------------------------


class _Current(threading.local):
    """The text being parsed (in this thread) and its line index: the spans the builder
    makes compute their lines and columns from it (see `Span`)."""

    lines: LineIndex | None = None
    text: str | None = None


_current = _Current()


@contextmanager
def spans_of(text: str) -> Iterator[None]:
    """While the builder builds the AST of `text`: its spans index `text`'s lines."""
    previous = _current.lines, _current.text
    _current.lines, _current.text = LineIndex(text), text
    try:
        yield
    finally:
        _current.lines, _current.text = previous


def tok_span(tok: Any) -> Span:
    lines = _current.lines
    if lines is None:  # tokens not from `syntax`'s parse (a test's own lark parser)
        return Span(tok.start_pos, tok.end_pos, tok.line, tok.column, tok.end_line, tok.end_column)
    return Span.indexed(tok.start_pos, tok.end_pos, lines)


def join(first: Span, last: Span) -> Span:
    lines = _current.lines
    if lines is None:
        return Span(first.start, last.end, first.line, first.column, last.end_line, last.end_column)
    return Span.indexed(first.start, last.end, lines)


def text_span(start: int, end: int, line: int, column: int) -> Span:
    """The span of a piece of one line, at ``line``:``column``, of the text being parsed."""
    lines = _current.lines
    if lines is not None:
        return Span.indexed(start, end, lines)
    return Span(start, end, line, column, line, column + end - start)
