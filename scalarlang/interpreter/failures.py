"""Errors as the interpreter raises them: a `LanguageError` carrying its `Diagnostic`; every
error kind a statement can fail with, for ``expect`` to check its KIND against (and the kinds
people mean by other words: `division-by-zero` is `non-finite-result`); and running out
of memory, as a typed error (`out-of-memory`) rather than a Python traceback.

When the memory runs out, reporting it needs memory too: formatting a traceback, rendering a
diagnostic, even restoring a signal handler raised `MemoryError` again (issue 40: three chained
tracebacks, and only the `start` event written). So a session keeps a reserve, given back
the moment the memory runs out (`release_reserve`), which leaves room to report the failure;
it is taken again (`keep_reserve`) before the next run.
"""

from __future__ import annotations

import re

from ..engine.errors import ENGINE_ERRORS, ScalarAutodiffError
from ..engine.forward_errors import DirectionLengthMismatch, NonFiniteTangent, TensorInForwardMode
from ..engine.gradcheck import (
    InvalidGradcheckStep,
    InvalidGradcheckTolerance,
    NonFiniteGradcheckInput,
    NonFiniteGradcheckValue,
)
from ..engine.numbers import format_number, format_whole
from ..engine.scalar import ScalarOperation
from ..engine.tensor import Tensor
from ..engine.tensor_errors import TENSOR_ERRORS
from ..engine.tensor_operations import TensorOperation
from ..language import tree
from ..language.diagnostics import Diagnostic, LanguageError
from ..language.parser import parse_expression
from ..language.source import Source, Span
from .values import ListValue, TextValue, characters, describe, suggestion, whole_number


def failure(source: Source | None, kind: str, message: str, span: Span | None, fields=None, notes=()) -> LanguageError:
    return LanguageError(Diagnostic(kind, message, span, source, dict(fields or {}), tuple(notes)))


def engine_failure(source: Source, error: ScalarAutodiffError, span: Span) -> LanguageError:
    # Operations travel as their names; numbers and indices as they are.
    fields = {
        name: str(value) if isinstance(value, (ScalarOperation, TensorOperation))
        else list(value) if isinstance(value, tuple) else value  # (a shape, an element: a list)
        for name, value in error.fields.items()
    }
    return failure(source, error.kind, readable_message(error), span, fields, _overflow_note(source, span))


# A number literal as written, possibly after `var`, `const` or a minus: what the span of a
# failing leaf, seed or operand holds when the number itself is the trouble.
_LITERAL = re.compile(r"\s*(?:(?:var|const)\s+)?-?\s*((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*")


def _overflow_note(source: Source | None, span: Span | None) -> tuple[str, ...]:
    """A note when the failing expression is a number literal beyond the float range, which
    Python reads as inf: the learner wrote a number, not `inf`."""
    if source is None or span is None or span.end - span.start > 1000:
        return ()
    match = _LITERAL.fullmatch(source.slice(span))
    if match is None or float(match.group(1)) != float("inf"):
        return ()
    literal = match.group(1)
    shown = literal if len(literal) <= 30 else literal[:29] + "…"
    return (f"note: `{shown}` is beyond the range of a float (about 1.8e308), so it is inf",)


def readable_message(error: ScalarAutodiffError) -> str:
    """The engine's message with its numbers as the one formatter writes them: the engine
    writes Python's repr (``1e+300``, ``-1.0``), a person reads ``1.000000000000e300``."""
    message = str(error)
    for value in error.fields.values():
        if type(value) is float:
            pattern = r"(?<![\w.+-])" + re.escape(repr(value)) + r"(?![\w.])"
            message = re.sub(pattern, format_number(value), message)
    return message


def drawing_failure(source: Source, error, span: Span) -> LanguageError:
    """A picture's or a chart's error (`pictures.errors.DrawingError`: a kind, a message, the
    culprit's fields) at the span of what caused it."""
    return failure(source, error.kind, error.message, span, error.fields)


def with_note(error: LanguageError, note: str) -> LanguageError:
    return LanguageError(error.diagnostic.replaced(notes=error.diagnostic.notes + (note,)))


def raising(error: LanguageError):
    """The action of a statement that can only fail (found when it was compiled)."""
    diagnostic = error.diagnostic

    def action(show):
        raise LanguageError(diagnostic)

    return action


def first_item(text: str) -> str:
    """``text[0]`` written so that it indexes all of ``text``: `ws[0]`, `f(x)[0]`, but
    `(T * 2)[0]` (`T * 2[0]` would index the 2)."""
    try:
        parsed = parse_expression(Source("<hint>", f"{text}[0]"))
    except LanguageError:
        parsed = None
    whole = isinstance(parsed, tree.Index) and (parsed.target.span.start, parsed.target.span.end) == (0, len(text))
    return f"{text}[0]" if whole else f"({text})[0]"


def not_a_node(source: Source, value: object, text: str, span: Span, needed_by: str) -> LanguageError:
    """A list or a text where a node is needed (``tanh(ws)``, ``ws + 1``, ``backward(ws)``);
    ``needed_by`` names what needs it (`` `tanh` ``, "an index")."""
    if value.__class__ is Tensor:
        return failure(
            source, "not-a-node", f"`{text}` is {describe(value)}, not a node", span,
            {"found": "tensor", "shape": list(value._shape)},  # type: ignore[attr-defined]
            (f"help: {needed_by} takes a node: an element (`{first_item(text)}`…) or a reduction (`sum({text})`)",),
        )
    if value.__class__ is TextValue:
        return failure(
            source, "not-a-node", f"`{text}` is {characters(len(value))}, not a node",  # type: ignore[arg-type]
            span, {"found": "text", "length": len(value)},  # type: ignore[arg-type]
            (f"help: a text is not a number: `len({text})` is its length, `encode({text}, VOCAB)` the indices of"
             " its characters",),
        )
    length = len(value)  # type: ignore[arg-type]  # (only lists and texts are not nodes)
    found = f"a list of {length}" if length else "an empty list"
    notes = (f"help: {needed_by} takes a node: one item (`{first_item(text)}`) or a fold of the list (`sum({text})`)",)
    return failure(
        source, "not-a-node", f"`{text}` is {found}, not a node", span, {"found": "list", "length": length},
        notes if length else (),
    )


def not_a_tensor(source: Source, value: object, text: str, span: Span, needed_by: str) -> LanguageError:
    """A node, a list or a text where a tensor is needed (``transpose(x)``, ``shape(L)``)."""
    found = "node" if value.__class__ not in (ListValue, TextValue) else "list" if value.__class__ is ListValue else "text"
    notes = (f"help: `tensor({text})` makes a tensor of a list",) if found == "list" else ()
    return failure(
        source, "not-a-tensor", f"`{text}` is {describe(value)}, not a tensor: {needed_by} takes a tensor", span,
        {"found": found}, notes,
    )


def not_a_list(source: Source, text: str, span: Span, needed_by: str, value: object = None) -> LanguageError:
    """A node (or a text: ``value``) where a list is needed (``dot(x, w)``, ``x[0]``, ``for a
    in x``)."""
    if value.__class__ is TextValue:
        return failure(
            source, "not-a-list", f"`{text}` is {characters(len(value))}, not a list: {needed_by} takes a list",  # type: ignore[arg-type]
            span, {"found": "text", "length": len(value)},  # type: ignore[arg-type]
        )
    if value.__class__ is Tensor:
        return failure(
            source, "not-a-list", f"`{text}` is {describe(value)}, not a list: {needed_by} takes a list", span,
            {"found": "tensor"},
        )
    return failure(source, "not-a-list", f"`{text}` is a node, not a list: {needed_by} takes a list", span, {"found": "node"})


def index_out_of_range(
    source: Source, value: float, length: int, target_text: str, span: Span, text: bool = False
) -> LanguageError:
    """An index outside a list (or a text: ``text``) of ``length``."""
    what = characters(length) if text else (f"a list of {length}" if length else "an empty list")
    return failure(
        source,
        "index-out-of-range",
        f"index {format_whole(value)} is out of range for `{target_text}`, {what}",
        span,
        {"index": value, "length": length},
        (f"help: the indices of {what} are 0 to {length - 1} (or -{length} to -1)",) if length else (),
    )


def position_in(source: Source, value: float, length: int, target_text: str, span: Span, text: bool = False) -> int:
    """The item an index's value names in a list (a text: ``text``) of ``length``: from 0, a
    negative index from the end; else `not-an-index` or `index-out-of-range` at ``span``. The one
    check of indexing and of `cross_entropy`'s target."""
    at = whole_number(value)
    if at is None:
        raise failure(
            source, "not-an-index", f"an index must be a whole number, not {format_number(value)}", span, {"value": value},
        )
    if at < 0:
        at += length
    if not 0 <= at < length:
        raise index_out_of_range(source, value, length, target_text, span, text)
    return at


def not_a_text(source: Source, value: object, text: str, span: Span, needed_by: str, notes: tuple = ()) -> LanguageError:
    """A node or a list where a text is needed (``"a" + 1``, ``join([1, 2])``, ``lines(x)``)."""
    found = describe(value)
    return failure(
        source, "not-a-text", f"`{text}` is {found}, not a text: {needed_by} takes a text", span,
        {"found": "list" if value.__class__ is ListValue else "node"}, notes,
    )


# ---- the kinds -------------------------------------------------------------------------------

ENGINE_KINDS = tuple(error.kind for error in ENGINE_ERRORS)
GRADCHECK_KINDS = tuple(
    error.kind
    for error in (InvalidGradcheckStep, InvalidGradcheckTolerance, NonFiniteGradcheckInput, NonFiniteGradcheckValue)
)
# Tensors (docs/language.md, "Tensors"), as in `engine.tensor_errors`.
TENSOR_KINDS = tuple(error.kind for error in TENSOR_ERRORS)
# Forward mode (`jvp`, `tangents`, `jacobian`): the engine's kinds a program can meet (an input
# that is not a variable is the language's `not-a-variable`; a direction's numbers are values of
# nodes, finite).
FORWARD_KINDS = tuple(error.kind for error in (TensorInForwardMode, DirectionLengthMismatch, NonFiniteTangent))
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
    # Texts (docs/language.md, "Texts").
    "not-a-text",
    "bad-text",
    "not-in-vocabulary",
    # Classifiers and language models: `sample`.
    "bad-probabilities",
    # Tensors: a node, list or text where a tensor is needed; `walk` or `paths` of a graph
    # holding tensor nodes.
    "not-a-tensor",
    "tensor-graph",
    # `vjp_check`: a graph with no tensor VJP to check; a VJP that differs from its scalar edges.
    "no-tensor-vjp",
    "vjp-check-failed",
    # A statement that ran out of memory (`expect out-of-memory:` catches it: Run.trial).
    "out-of-memory",
)
# Pictures (`draw`, `--draw`), as in `pictures.errors`.
DRAWING_KINDS = ("missing-graphviz", "unknown-picture-format", "graph-too-large", "graphviz-failed")
# Charts (`plot`, `boundary`), as in `pictures.errors.CHART_KINDS`, but for those a program
# cannot meet: a node's value is always finite (no `non-finite-value`, no `undefined-score`),
# `plot([])` is one empty series (`empty-series`, not `no-series`), and the signs are F's own.
CHART_KINDS = (
    "empty-series", "length-mismatch", "label-count", "log-non-positive", "grid-out-of-range", "no-points",
    "point-shape", "range-too-wide", "chart-too-small",
)
# A file a running program cannot read (`read_table`) or write (`draw`): a runtime error like
# any other (exit status 1, `expect io-error:` catches it). A program that cannot be read is an
# io-error too, before anything runs.
FILE_KINDS = ("io-error",)
# The kinds of failures that mean the program never ran: it could not be read (io-error) or
# parsed (exit status 2). The same kinds at run time (`read_table`, a function nesting calls
# too deep) are runtime errors: exit status 1.
STATIC_KINDS = ("syntax-error", "too-deep", "io-error")

RUNTIME_KINDS = frozenset(
    ENGINE_KINDS + GRADCHECK_KINDS + TENSOR_KINDS + FORWARD_KINDS + LANGUAGE_RUNTIME_KINDS + DRAWING_KINDS + CHART_KINDS
    + FILE_KINDS
)


# What people call the kinds, from Python's exceptions and other languages' words.
KIND_SYNONYMS = {
    "division-by-zero": "non-finite-result", "zero-division": "non-finite-result",
    "zero-division-error": "non-finite-result", "divide-by-zero": "non-finite-result",
    "overflow": "non-finite-result", "overflow-error": "non-finite-result", "nan": "non-finite-result",
    "value-error": "non-finite-result", "math-domain-error": "non-finite-result",
    "name-error": "undefined-name", "undefined": "undefined-name", "not-defined": "undefined-name",
    "type-error": "wrong-arguments", "arity": "wrong-arguments",
    "index-error": "index-out-of-range", "out-of-range": "index-out-of-range",
    "assertion-error": "assertion-failed", "assertion": "assertion-failed",
    "key-error": "undefined-name", "file-not-found": "io-error", "file-not-found-error": "io-error",
    "timeout": "too-long",
}


def kind_suggestion(kind: str) -> tuple[str, ...]:
    """The `help:` note for a kind that is not one: the kind people mean by a common synonym
    (`division-by-zero` is `non-finite-result`), else the closest kind by spelling."""
    meant = KIND_SYNONYMS.get(kind)
    if meant is not None:
        return (f"help: did you mean `{meant}`? (`{kind}` is not a kind of `.sad`)",)
    return suggestion(kind, sorted(RUNTIME_KINDS))


# ---- running out of memory --------------------------------------------------------------------

RESERVE_BYTES = 8 * 1024 * 1024

_reserve: list[bytearray] = []

OUT_OF_MEMORY = "out-of-memory"


def keep_reserve() -> bool:
    """Take the reserve, unless it is held already (or the memory is short even for it);
    whether it is held now."""
    if not _reserve:
        try:
            _reserve.append(bytearray(RESERVE_BYTES))
        except MemoryError:
            return False
    return True


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
