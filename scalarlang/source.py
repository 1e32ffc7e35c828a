"""Source texts and spans: where a piece of a program came from."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range of characters, with 1-based line and column of both ends.

    ``end_line``/``end_column`` point one past the last character, as lark does.
    """

    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int

    def cover(self, other: Span) -> Span:
        """The smallest span holding both ``self`` and ``other``."""
        first = self if self.start <= other.start else other
        last = self if self.end >= other.end else other
        return Span(first.start, last.end, first.line, first.column, last.end_line, last.end_column)


@dataclass(frozen=True, slots=True)
class Source:
    """A program text and the name it is reported under (a path relative to the user, or `<stdin>`)."""

    name: str
    # Left out of repr: a program can be megabytes, and reprs end up in logs and test output.
    text: str = field(repr=False)

    def slice(self, span: Span) -> str:
        return self.text[span.start : span.end]

    def line_text(self, line: int) -> str:
        """The text of 1-based line ``line`` without its newline ('' past the end)."""
        lines = self.text.split("\n")
        if 1 <= line <= len(lines):
            return lines[line - 1].rstrip("\r")
        return ""
