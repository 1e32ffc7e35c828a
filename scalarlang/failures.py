"""Errors as the interpreter raises them: a `LanguageError` carrying its `Diagnostic`."""

from __future__ import annotations

from .diagnostics import Diagnostic, LanguageError
from .engine import ScalarOperation
from .errors import ScalarAutodiffError
from .source import Source, Span


def failure(source: Source | None, kind: str, message: str, span: Span | None, fields=None, notes=()) -> LanguageError:
    return LanguageError(Diagnostic(kind, message, span, source, dict(fields or {}), tuple(notes)))


def engine_failure(source: Source, error: ScalarAutodiffError, span: Span) -> LanguageError:
    # Operations travel as their names; numbers and indices as they are.
    fields = {name: str(value) if isinstance(value, ScalarOperation) else value for name, value in error.fields.items()}
    return failure(source, error.kind, str(error), span, fields)


def with_note(error: LanguageError, note: str) -> LanguageError:
    diagnostic = error.diagnostic
    return LanguageError(Diagnostic(
        diagnostic.kind, diagnostic.message, diagnostic.span, diagnostic.source, diagnostic.fields,
        diagnostic.notes + (note,),
    ))
