"""The pieces the AST builder passes between reductions: expressions being built (`Part`), and
the checks of names, string text and number literals that the builder's methods share (the
spans of tokens are `source.tok_span` and `source.join`).
"""

from __future__ import annotations

import re
import sys
from typing import Any

from .source import Span, join, text_span, tok_span
from .syntax_errors import MAX_NESTING, printable, syntax_error, too_deep
from .tree import Expr, Formatted, Keyword, Text


class Part:
    """An expression being built: its node, the span its parent covers (with any enclosing
    parentheses, which the node's own span leaves out) and its nesting depth."""

    __slots__ = ("depth", "node", "outer")

    def __init__(self, node: Expr, outer: Span, depth: int):
        self.node = node
        self.outer = outer
        self.depth = depth


def nested(node: Expr, depth: int, opener: Any) -> Part:
    """A node one level deeper than its deepest child; `opener` is the token blamed if that
    crosses the limit (the `-`, `var`, `(` or function name of the node)."""
    if depth > MAX_NESTING:
        raise too_deep(tok_span(opener))
    return Part(node, node.span, depth)


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n"}
_TEXT_PIECE = re.compile(r"\\(.)|\{\{|\}\}", re.DOTALL)


def decode_text(tok: Any) -> Text:
    """A TEXT token with escapes and doubled braces resolved."""

    def replace(match: re.Match) -> str:
        escaped = match.group(1)
        if escaped is None:
            return match.group(0)[0]
        if escaped in _ESCAPES:
            return _ESCAPES[escaped]
        start = tok.start_pos + match.start()  # a TEXT token never spans lines
        column = tok.column + match.start()
        raise syntax_error(
            f"unknown escape `\\{printable(escaped)}` in a string"
            ' (the escapes are `\\"`, `\\\\` and `\\n`; braces are doubled: `{{`, `}}`)',
            Span(start, start + 2, tok.line, column, tok.line, column + 2),
        )

    return Text(tok_span(tok), _TEXT_PIECE.sub(replace, str(tok)))


def names_of(tokens: list) -> tuple[tuple[str, ...], tuple[Span, ...]]:
    """The names of a list (`for a, b`, `descend w, b`, a function's parameters), each once."""
    seen: set[str] = set()
    for tok in tokens:
        if str(tok) in seen:
            raise syntax_error(f"`{tok}` is named twice", tok_span(tok))
        seen.add(str(tok))
    return tuple(str(t) for t in tokens), tuple(tok_span(t) for t in tokens)


def value_of(item: Any) -> tuple[Any, Span]:
    """The node of a Part (or a finished node: a string) and the span it covers."""
    if isinstance(item, Part):
        return item.node, item.outer
    return item, item.span


class NamedArgument:
    """A named argument while its call is built: the node and its value's nesting depth."""

    __slots__ = ("depth", "keyword")

    def __init__(self, keyword: Keyword, depth: int):
        self.keyword = keyword
        self.depth = depth


_NONZERO_DIGIT = re.compile(r"[1-9]")


def check_underflow(tok: Any, span: Span) -> None:
    """A literal whose digits are not all zero but whose value is 0 (`1e-400`) was rounded away
    by the float: say so, rather than run with a 0 the program never wrote."""
    text = str(tok)
    mantissa = text.split("e")[0].split("E")[0]
    if _NONZERO_DIGIT.search(mantissa):
        raise syntax_error(
            f"the number `{printable(text[:40])}` is too small for a float: it would be 0"
            " (the smallest positive float is about 4.9e-324)",
            span,
        )


_SPEC_FORMS = (
    "help: a format spec is Python's for numbers: `.3f` (3 decimals), `.2e` (exponent), `g`"
    " (shortest), `8.3f` or `>8.3f` (width and alignment), `+.1%`"
)


def formatted(expr: Expr, token: Any) -> Formatted:
    """The hole ``expr`` with the format spec of ``token`` (``:SPEC}``), checked as Python
    checks a float's: a bad one is a syntax error at the spec."""
    spec = str(token)[1:-1]
    start = token.start_pos + 1
    spec_span = text_span(start, start + len(spec), token.line, token.column + 1)
    try:
        _check_spec(spec)
    except (ValueError, TypeError) as error:
        raise syntax_error(
            f"`{printable(spec[:40])}` is not a format spec for numbers ({error})",
            spec_span if spec else tok_span(token),
            (_SPEC_FORMS,),
        ) from None
    return Formatted(join(expr.span, tok_span(token)), expr, spec, spec_span)


_LONG_NUMBER = re.compile(r"0?(\d{5,})")


def _check_spec(spec: str) -> None:
    """Python's check of a float's format spec (ValueError), without the text it would make:
    `{x:>1000000000}` made 10⁹ characters to be checked (the run refuses such a hole as
    too long from its spec, before writing it). A width or a precision of five digits or more
    is checked as 9999, unless Python would refuse it for its size alone."""
    for number in _LONG_NUMBER.finditer(spec):
        if int(number[1]) > sys.maxsize:
            format(1.5, spec)  # ("Too many decimal digits in format string", before any text)
    format(1.5, _LONG_NUMBER.sub(lambda number: number[0][: len(number[0]) - len(number[1])] + "9999", spec))
