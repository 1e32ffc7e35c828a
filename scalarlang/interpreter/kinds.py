"""Every error kind a statement can fail with, for ``expect`` to check its KIND against."""

from __future__ import annotations

from ..engine.errors import ENGINE_ERRORS
from ..engine.gradcheck import (
    InvalidGradcheckStep,
    InvalidGradcheckTolerance,
    NonFiniteGradcheckInput,
    NonFiniteGradcheckValue,
)

ENGINE_KINDS = tuple(error.kind for error in ENGINE_ERRORS)
GRADCHECK_KINDS = tuple(
    error.kind
    for error in (InvalidGradcheckStep, InvalidGradcheckTolerance, NonFiniteGradcheckInput, NonFiniteGradcheckValue)
)
LANGUAGE_RUNTIME_KINDS = (
    "undefined-name",
    "unknown-function",
    "wrong-arguments",
    "no-gradient",
    "not-a-variable",
    "assertion-failed",
    "expectation-failed",
    "gradcheck-failed",
    # Functions, loops, data and training (docs/language.md, "Functions, loops, data and training").
    "reserved-name",
    "not-a-count",
    "too-long",
    "tracked-exponent",
    "not-a-value",
    "table-width",
    # Lists (docs/language.md, "Lists: models as data").
    "not-a-node",
    "not-a-list",
    "not-an-index",
    "index-out-of-range",
    "bad-table",
    # Seeing the chain rule.
    "too-many-paths",
)
# Pictures (`draw`, `--draw`), as in `pictures.errors`.
DRAWING_KINDS = ("missing-graphviz", "unknown-picture-format", "graph-too-large", "graphviz-failed")
# A file a running program cannot read (`read_table`) or write (`draw`): a runtime error like
# any other (exit status 1, `expect io-error:` catches it). A program that cannot be read is an
# io-error too, before anything runs.
FILE_KINDS = ("io-error",)
# The kinds of failures that mean the program never ran: it could not be read (io-error) or
# parsed (exit status 2). The same kinds at run time (`read_table`, a function nesting calls
# too deep) are runtime errors: exit status 1.
STATIC_KINDS = ("syntax-error", "too-deep", "io-error")

RUNTIME_KINDS = frozenset(ENGINE_KINDS + GRADCHECK_KINDS + LANGUAGE_RUNTIME_KINDS + DRAWING_KINDS + FILE_KINDS)
