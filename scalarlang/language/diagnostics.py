"""Errors as data: a kind, a message, the error's own fields and where it happened.

Everything that can go wrong in a program becomes a `Diagnostic`; only the front ends turn one
into text (``render``) or JSON (``events``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .plain_data import PlainData
from .source import Source, Span


class Related(NamedTuple):
    """A note about another place of the same source (the `{` still open at an error found at
    the end of the file): shown as a second source excerpt, under its message."""

    message: str
    span: Span


class Diagnostic(PlainData):
    """An error (or a warning) as data: its kind (`undefined-name`), its message, where it
    happened (a span of a source), its own fields (engine errors: as in docs/engine.md,
    snake_case names), notes shown under the source excerpt ("help: did you mean `loss`?"),
    and notes that point at another place of the source, each shown with its own excerpt.
    (A `PlainData`, not a dataclass: every run imports it; see plain_data.py.)"""

    __slots__ = ("kind", "message", "span", "source", "fields", "notes", "related")
    __match_args__ = ("kind", "message", "span", "source", "fields", "notes", "related")

    def __init__(
        self,
        kind: str,
        message: str,
        span: Span | None = None,
        source: Source | None = None,
        fields: dict[str, Any] | None = None,
        notes: tuple[str, ...] = (),
        related: tuple[Related, ...] = (),
    ):
        self.kind = kind
        self.message = message
        self.span = span
        self.source = source
        self.fields: dict[str, Any] = {} if fields is None else fields
        self.notes = notes
        self.related = related

    def replaced(self, **changes: Any) -> Diagnostic:
        """A copy with ``changes`` (``notes=(...)``, ``message=...``), as `dataclasses.replace`."""
        fields = {name: getattr(self, name) for name in self.__slots__}
        return Diagnostic(**(fields | changes))


def help_and_notes(diagnostic: Diagnostic) -> tuple[list[str], list[str]]:
    """The notes that say what to write instead (``help: ...``) and the others, each without
    its leading ``help:`` or ``note:``: the words the text shows (``= help: ...``), as data."""
    helps: list[str] = []
    others: list[str] = []
    for note in diagnostic.notes:
        if note.startswith("help: "):
            helps.append(note[len("help: ") :])
        else:
            others.append(note[len("note: ") :] if note.startswith("note: ") else note)
    return helps, others


class LanguageError(Exception):
    """Raised inside the parser and interpreter; carries the diagnostic to report."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic

    @property
    def kind(self) -> str:
        return self.diagnostic.kind
