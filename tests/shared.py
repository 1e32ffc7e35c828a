"""Small helpers several test modules use: an expression's shape, a node's source text, the
text a list of outcomes renders to."""

from __future__ import annotations

import io

from scalarlang.language.tree import (
    Binary,
    Call,
    Compare,
    Comprehension,
    Index,
    Leaf,
    ListLiteral,
    Name,
    Number,
    Unary,
)
from scalarlang.render.text import Renderer, make_console


def sexp(node) -> str:
    """A compact shape of a (small) expression: `(- (- 1 2) 3)`; a list is `[1 (neg 2) x]`,
    an index `(index L 0)`, a comprehension `[(* x 2) (for x L) (for i 0 3)]`."""
    if isinstance(node, Number):
        return str(int(node.value)) if node.value.is_integer() else repr(node.value)
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Unary):
        return f"(neg {sexp(node.operand)})"
    if isinstance(node, Binary):
        return f"({node.op} {sexp(node.left)} {sexp(node.right)})"
    if isinstance(node, Leaf):
        return f"({node.kind} {sexp(node.operand)})"
    if isinstance(node, Call):
        return f"({node.function}{''.join(' ' + sexp(a) for a in node.args)})"
    if isinstance(node, Compare):
        return f"({node.op} {sexp(node.left)} {sexp(node.right)})"
    if isinstance(node, Index):
        return f"(index {sexp(node.target)} {sexp(node.index)})"
    if isinstance(node, ListLiteral):
        return "[" + " ".join(sexp(item) for item in node.items) + "]"
    if isinstance(node, Comprehension):
        clauses = "".join(
            f" (for {' '.join(clause.names)} {sexp(clause.source)}"
            + (f" {sexp(clause.stop)})" if clause.stop is not None else ")")
            for clause in node.clauses
        )
        return f"[{sexp(node.item)}{clauses}]"
    raise AssertionError(node)


def label(text: str, node) -> str:
    """The source text of a node."""
    return text[node.span.start : node.span.end]


def text_of(outcomes) -> str:
    """What the outcomes print as plain text, 100 columns wide."""
    stream = io.StringIO()
    renderer = Renderer(make_console(stream, width=100, color="never"))
    for outcome in outcomes:
        renderer.outcome(outcome)
    return stream.getvalue()
