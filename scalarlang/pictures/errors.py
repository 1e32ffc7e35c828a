"""The errors of drawing, as data: a kind, a message and the error's own fields.

The interpreter turns a `DrawingError` into a `Diagnostic` with the statement's span; the
Python API and the notebook show its message. Nothing here knows of terminals.
"""

from __future__ import annotations

from typing import Any

MISSING_GRAPHVIZ = "missing-graphviz"
IO_ERROR = "io-error"
UNKNOWN_PICTURE_FORMAT = "unknown-picture-format"
GRAPH_TOO_LARGE = "graph-too-large"
GRAPHVIZ_FAILED = "graphviz-failed"

# Every kind a drawing can fail with (io-error is the language's own kind too).
DRAWING_KINDS = (MISSING_GRAPHVIZ, UNKNOWN_PICTURE_FORMAT, GRAPH_TOO_LARGE, GRAPHVIZ_FAILED, IO_ERROR)

INSTALL_HINT = (
    "install Graphviz: `apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` "
    "(macOS), or see https://graphviz.org/download/"
)


class DrawingError(Exception):
    """A picture could not be made or written; ``kind`` names the failure."""

    def __init__(self, kind: str, message: str, **fields: Any):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.fields = fields

    def __repr__(self) -> str:
        return f"DrawingError({self.kind!r}, {self.message!r})"
