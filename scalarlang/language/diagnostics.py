"""Errors as data: a kind, a message, the error's own fields and where it happened.

Everything that can go wrong in a program becomes a `Diagnostic`; only the front ends turn one
into text (``render``) or JSON (``events``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .source import Source, Span


class Related(NamedTuple):
    """A note about another place of the same source (the `{` still open at an error found at
    the end of the file): shown as a second source excerpt, under its message."""

    message: str
    span: Span


@dataclass(frozen=True, slots=True)
class Diagnostic:
    kind: str
    message: str
    span: Span | None = None
    source: Source | None = None
    # The error's own fields (engine errors: as in docs/engine.md), snake_case names.
    fields: dict[str, Any] = field(default_factory=dict)
    # Extra lines shown under the source excerpt, e.g. "help: did you mean `loss`?".
    notes: tuple[str, ...] = ()
    # Notes that point at another place of the source, each shown with its own excerpt.
    related: tuple[Related, ...] = ()


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
