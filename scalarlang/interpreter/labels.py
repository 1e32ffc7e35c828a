"""How the session names nodes: the first name bound to a node with `let`, else the source text
of the expression that made it; and which nodes are counts (shown as whole numbers).

A label lives on the node itself, in the engine's ``tag`` slot, as one of two small immutable
objects: a `Made` (where an expression is in its source, made once per expression when it is
compiled and shared by every node that expression makes) or a `Named` (the first name bound to
the node, made once per `let` where it can be). Recording a label is one slot store and no
allocation per node, there is no table to keep in step with the nodes, and an interrupt can
never leave half a label: a store happens or it does not.

A node with no tag (made by Python code) is shown by its operation; one with a tag the session
did not make (``Scalar.variable(2, label="w")``) by that tag's text.
"""

from __future__ import annotations

import difflib
import re
from typing import cast

from ..engine.numbers import format_count, format_number, format_parameter
from ..engine.scalar import Scalar, ScalarOperation
from ..language.source import Source, Span

# Labels made from source text are cut to this many characters, whitespace collapsed; so are
# names longer than that, in labels and messages.
LABEL_LIMIT = 60


class Made:
    """The tag of the nodes one expression makes: its source, its span, whether it is a count,
    and the function whose body it is in (its nodes are shown `layer: relu(...)`)."""

    __slots__ = ("source", "span", "count", "function")

    def __init__(self, source: Source, span: Span, count: bool = False, function: str | None = None):
        self.source = source
        self.span = span
        self.count = count
        self.function = function

    def __str__(self) -> str:
        if self.function is None:
            return source_label(self.source.text, self.span)
        return shorten(f"{self.function}: {source_label(self.source.text, self.span)}", LABEL_LIMIT)


class Named:
    """The tag of a node bound to a name: the first name, whether it is a count, and where the
    node was made (None for one made by a statement rather than an expression: a loop's
    index, a table's row, `descend`'s new variable)."""

    __slots__ = ("name", "count", "made")

    def __init__(self, name: str, count: bool = False, made: Made | None = None):
        self.name = name
        self.count = count
        self.made = made

    def __str__(self) -> str:
        name = self.name
        return name if len(name) <= LABEL_LIMIT else shorten(name, LABEL_LIMIT)


def named(node: Scalar, name: str) -> Named | None:
    """The `Named` tag binding ``name`` to ``node`` would give it (None: it has a name
    already). Never journaled: a node that gets its first name was made by the input that
    binds it (a node from an earlier input is reached only through a name, so it has one)."""
    tag = node.tag
    if tag.__class__ is Named:
        return None
    if tag.__class__ is Made:
        return Named(name, tag.count, tag)
    return Named(name)


def label_of(node: Scalar) -> str:
    """The first name bound to ``node``, else the source text that made it."""
    tag = node.tag
    if tag is None:
        return str(node.operation)
    return str(tag)


def name_of(node: Scalar) -> str | None:
    """The name bound to ``node`` first, if any."""
    tag = node.tag
    return tag.name if tag.__class__ is Named else None


def made_at(node: Scalar) -> tuple[Source, Span] | None:
    """Where the node was made, when the session saw it made."""
    tag = node.tag
    if tag.__class__ is Named:
        tag = tag.made
    if tag.__class__ is Made:
        return tag.source, tag.span
    return None


def is_count(node: Scalar) -> bool:
    tag = node.tag
    return (tag.__class__ is Made or tag.__class__ is Named) and cast(Made, tag).count


def formatted(node: Scalar) -> str:
    """The node's value as a person reads it: counts as whole numbers."""
    return format_count(node.value) if is_count(node) else format_number(node.value)


def operation_text(node: Scalar) -> str:
    """The operation as tables show it: ``pow 2`` carries its exponent."""
    operation = node.operation
    if operation is ScalarOperation.POW:
        return f"pow {format_parameter(cast(float, node.exponent))}"  # a pow node has one
    return str(operation)


# Runs of non-space characters, in pieces no longer than a label can show.
_LABEL_PIECE = re.compile(r"\S{1,%d}" % (LABEL_LIMIT + 1))


def source_label(text: str, span: Span) -> str:
    """The span's text, whitespace collapsed, cut to ``LABEL_LIMIT``. Reads no more than a label
    can show (after collapsing): chains of 100,000 terms have huge spans."""
    pieces: list[str] = []
    length, previous_end = 0, span.start
    for piece in _LABEL_PIECE.finditer(text, span.start, span.end):
        if pieces and piece.start() != previous_end:
            pieces.append(" ")
            length += 1
        pieces.append(piece.group())
        length += len(piece.group())
        previous_end = piece.end()
        if length > LABEL_LIMIT:
            break
    return shorten("".join(pieces), LABEL_LIMIT)


def suggestion(word: str, candidates: list[str]) -> tuple[str, ...]:
    """The ``help: did you mean`` note for the candidate closest to ``word``, if one is close.
    A word longer than a label is not compared (difflib's time grows with its square)."""
    if len(word) > LABEL_LIMIT:
        return ()
    close = difflib.get_close_matches(word, candidates, n=1)
    return (f"help: did you mean `{close[0]}`?",) if close else ()


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten(text: str, limit: int = LABEL_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
