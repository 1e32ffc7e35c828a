"""Errors as data: a kind, a message, the error's own fields and where it happened.

Everything that can go wrong in a program becomes a `Diagnostic`; only the front ends turn one
into text (``render``) or JSON (``events``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .source import Source, Span


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


class LanguageError(Exception):
    """Raised inside the parser and interpreter; carries the diagnostic to report."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic

    @property
    def kind(self) -> str:
        return self.diagnostic.kind
