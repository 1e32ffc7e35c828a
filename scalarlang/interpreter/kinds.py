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
)
# Pictures (`draw`, `--draw`), as in `drawing.errors`. A picture that cannot be written is an
# io-error, like a program that cannot be read: exit status 2, and `expect` cannot catch it.
DRAWING_KINDS = ("missing-graphviz", "unknown-picture-format", "graph-too-large", "graphviz-failed")
# Failures that mean the program never ran or could not be read (exit status 2).
STATIC_KINDS = ("syntax-error", "too-deep", "io-error")
# Kinds only a whole program or the command can fail with; `expect` cannot catch them.
PROGRAM_KINDS = STATIC_KINDS + ("internal-error",)

RUNTIME_KINDS = frozenset(ENGINE_KINDS + GRADCHECK_KINDS + LANGUAGE_RUNTIME_KINDS + DRAWING_KINDS)
