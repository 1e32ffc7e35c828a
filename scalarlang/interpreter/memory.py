"""Running out of memory, as a typed error (`out-of-memory`) rather than a Python traceback.

When the memory runs out, reporting it needs memory too: formatting a traceback, rendering a
diagnostic, even restoring a signal handler raised `MemoryError` again (issue 40: three chained
tracebacks, and only the `start` event written). So a session keeps a reserve, given back
the moment the memory runs out (`release_reserve`), which leaves room to report the failure;
it is taken again (`keep_reserve`) before the next run.
"""

from __future__ import annotations

from ..language.diagnostics import Diagnostic
from ..language.source import Source, Span

RESERVE_BYTES = 8 * 1024 * 1024

_reserve: list[bytearray] = []

OUT_OF_MEMORY = "out-of-memory"


def keep_reserve() -> None:
    """Take the reserve, unless it is held already (or the memory is short even for it)."""
    if not _reserve:
        try:
            _reserve.append(bytearray(RESERVE_BYTES))
        except MemoryError:
            pass


def release_reserve() -> None:
    _reserve.clear()


def out_of_memory(
    source: Source | None = None, span: Span | None = None, while_: str = "this statement ran"
) -> Diagnostic:
    """The diagnostic of a `MemoryError` (no traceback: it needs memory, and is no bug); the
    help is for a statement's, which grew a graph or a list."""
    notes = (
        "help: every node stays while a name holds it (a loop that rebinds `let x = x * …` keeps each step's"
        " node): fewer or shorter loops make fewer; the process may use no more memory than its limit allows",
    )
    message = f"the memory ran out while {while_}"
    return Diagnostic(OUT_OF_MEMORY, message, span, source, {}, notes if span is not None else ())
