"""Source texts and spans: where a piece of a program came from."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any, cast



class Span:
    """A half-open range of characters, with 1-based line and column of both ends.

    ``end_line``/``end_column`` point one past the last character, as lark does. Frozen, and
    equal, hashed and printed by those six numbers, as the dataclass it was.

    A span stores its two offsets and where its positions come from: the four numbers given
    to ``Span(...)``, or, for the parser's spans (``Span.indexed``), the ``LineIndex`` of the
    program text, which computes them when they are read. The parsed form of a program holds
    about seven spans per statement, so this is a third of its memory.
    """

    __slots__ = ("start", "end", "_where")
    __match_args__ = ("start", "end", "line", "column", "end_line", "end_column")

    start: int
    end: int
    # (line, column, end_line, end_column) or the LineIndex that computes them. Any: it is read
    # after a `__class__ is tuple` test, which mypy cannot narrow to LineIndex when false.
    _where: Any

    def __init__(self, start: int, end: int, line: int, column: int, end_line: int, end_column: int):
        _store(self, "start", start)
        _store(self, "end", end)
        _store(self, "_where", (line, column, end_line, end_column))

    @classmethod
    def indexed(cls, start: int, end: int, lines: LineIndex) -> Span:
        """The span from `start` to `end` of the text that `lines` indexes."""
        span = _new(cls)
        _store(span, "start", start)
        _store(span, "end", end)
        _store(span, "_where", lines)
        return span

    @property
    def line(self) -> int:
        where = self._where
        return where[0] if where.__class__ is tuple else where.position(self.start)[0]

    @property
    def column(self) -> int:
        where = self._where
        return where[1] if where.__class__ is tuple else where.position(self.start)[1]

    @property
    def end_line(self) -> int:
        where = self._where
        return where[2] if where.__class__ is tuple else where.position(self.end)[0]

    @property
    def end_column(self) -> int:
        where = self._where
        return where[3] if where.__class__ is tuple else where.position(self.end)[1]

    def _numbers(self) -> tuple[int, int, int, int, int, int]:
        where = self._where
        if where.__class__ is not tuple:
            where = where.position(self.start) + where.position(self.end)
        return (self.start, self.end, *where)

    def cover(self, other: Span) -> Span:
        """The smallest span holding both ``self`` and ``other``."""
        first = self if self.start <= other.start else other
        last = self if self.end >= other.end else other
        return Span(first.start, last.end, first.line, first.column, last.end_line, last.end_column)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Span:
            return NotImplemented
        if self._where is other._where:  # one text's spans: the offsets say it all
            return self.start == other.start and self.end == other.end
        return self._numbers() == other._numbers()

    def __hash__(self) -> int:
        return hash(self._numbers())

    def __repr__(self) -> str:
        start, end, line, column, end_line, end_column = self._numbers()
        return (
            f"Span(start={start!r}, end={end!r}, line={line!r}, column={column!r},"
            f" end_line={end_line!r}, end_column={end_column!r})"
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple:
        return (Span, self._numbers())


_new = object.__new__
_store = object.__setattr__


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


@dataclass(frozen=True, slots=True)
class Source:
    """A program text and the name it is reported under (a path relative to the user, or `<stdin>`)."""

    name: str
    # Left out of repr: a program can be megabytes, and reprs end up in logs and test output.
    text: str = field(repr=False)
    # The folder of the file the text came from, which paths in the program are relative to
    # (`read_table`); None for text that came from no file (the working folder).
    folder: str | None = None

    def slice(self, span: Span) -> str:
        return self.text[span.start : span.end]

    def line_text(self, line: int) -> str:
        """The text of 1-based line ``line`` without its newline ('' past the end)."""
        lines = self.text.split("\n")
        if 1 <= line <= len(lines):
            return lines[line - 1].rstrip("\r")
        return ""

