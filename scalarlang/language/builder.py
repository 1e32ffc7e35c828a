"""The AST builder: the parser's transformer, one method per grammar alias.

lark calls each method with a production's children as the parser reduces it, so the AST is
built bottom-up without recursion (a chain ``x+x+...+x`` is reduced one operator at a time),
and expression nesting is counted as it is reduced and capped at ``MAX_NESTING``. What the
grammar leaves open is checked here, with words of our own: one name for a range, names bound
once, named arguments last.

Spans: every node's span is exactly the source text of that expression, so
``source.slice(node.span)`` is its label. Parentheses are not part of the inner node's span
(``(a+b)`` holds a ``+`` node whose text is ``a+b``) but they are part of the enclosing node's
span (the ``*`` of ``(a+b)*c`` has text ``(a+b)*c``) and of the statement's.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from sys import intern  # a name's text is kept once however often it is used
from typing import Any

from lark import Transformer

from .tree import (
    Assert,
    Binary,
    Block,
    Call,
    Compare,
    Comprehension,
    Descend,
    Expect,
    Expr,
    ExprStatement,
    ForRange,
    ForClause,
    ForEach,
    FunctionDef,
    If,
    Index,
    Keyword,
    Leaf,
    Let,
    ListLiteral,
    Name,
    Number,
    Print,
    Program,
    Quiet,
    Repeat,
    StringLiteral,
    Text,
    Unary,
    ZeroGrad,
)
from .source import LineIndex, Span
from .syntax_errors import MAX_NESTING, printable, syntax_error, too_deep



class _Current(threading.local):
    """The text being parsed (in this thread) and its line index: the spans the builder
    makes compute their lines and columns from it (see `Span`)."""

    lines: LineIndex | None = None
    text: str | None = None


_current = _Current()


@contextmanager
def spans_of(text: str) -> Iterator[None]:
    """While the builder builds the AST of `text`: its spans index `text`'s lines."""
    previous = _current.lines, _current.text
    _current.lines, _current.text = LineIndex(text), text
    try:
        yield
    finally:
        _current.lines, _current.text = previous


def tok_span(tok: Any) -> Span:
    lines = _current.lines
    if lines is None:  # tokens not from `syntax`'s parse (a test's own lark parser)
        return Span(tok.start_pos, tok.end_pos, tok.line, tok.column, tok.end_line, tok.end_column)
    return Span.indexed(tok.start_pos, tok.end_pos, lines)


def join(first: Span, last: Span) -> Span:
    lines = _current.lines
    if lines is None:
        return Span(first.start, last.end, first.line, first.column, last.end_line, last.end_column)
    return Span.indexed(first.start, last.end, lines)


class Part:
    """An expression being built: its node, the span its parent covers (with any enclosing
    parentheses, which the node's own span leaves out) and its nesting depth."""

    __slots__ = ("depth", "node", "outer")

    def __init__(self, node: Expr, outer: Span, depth: int):
        self.node = node
        self.outer = outer
        self.depth = depth


def _nested(node: Expr, depth: int, opener: Any) -> Part:
    """A node one level deeper than its deepest child; `opener` is the token blamed if that
    crosses the limit (the `-`, `var`, `(` or function name of the node)."""
    if depth > MAX_NESTING:
        raise too_deep(tok_span(opener))
    return Part(node, node.span, depth)


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n"}
_TEXT_PIECE = re.compile(r"\\(.)|\{\{|\}\}", re.DOTALL)


def _decode_text(tok: Any) -> Text:
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


def _names(tokens: list) -> tuple[tuple[str, ...], tuple[Span, ...]]:
    """The names of a list (`for a, b`, `descend w, b`, a function's parameters), each once."""
    seen: set[str] = set()
    for tok in tokens:
        if str(tok) in seen:
            raise syntax_error(f"`{tok}` is named twice", tok_span(tok))
        seen.add(str(tok))
    return tuple(str(t) for t in tokens), tuple(tok_span(t) for t in tokens)


def _value(item: Any) -> tuple[Any, Span]:
    """The node of a Part (or a finished node: a string) and the span it covers."""
    if isinstance(item, Part):
        return item.node, item.outer
    return item, item.span


class _Named:
    """A named argument while its call is built: the node and its value's nesting depth."""

    __slots__ = ("depth", "keyword")

    def __init__(self, keyword: Keyword, depth: int):
        self.keyword = keyword
        self.depth = depth


class Builder(Transformer):
    """One method per grammar alias. Expressions travel as `Part`s; statements, blocks and
    strings are finished nodes."""

    # -- program, blocks and statements

    def start(self, statements: list) -> Program:
        return Program(tuple(statements))

    def block(self, children: list) -> Block:
        open_, *statements, close = children
        return Block(join(tok_span(open_), tok_span(close)), tuple(statements))

    def expr_stmt(self, children: list) -> ExprStatement:
        (part,) = children
        return ExprStatement(part.outer, part.node)

    def let_stmt(self, children: list) -> Let:
        keyword, name, value = children
        return Let(join(tok_span(keyword), value.outer), intern(str(name)), tok_span(name), value.node)

    def print_stmt(self, children: list) -> Print:
        keyword, *items = children
        nodes = tuple(_value(item)[0] for item in items)
        return Print(join(tok_span(keyword), _value(items[-1])[1]), nodes)

    def zero_grad_all(self, children: list) -> ZeroGrad:
        return ZeroGrad(tok_span(children[0]), None)

    def zero_grad_one(self, children: list) -> ZeroGrad:
        keyword, open_, part, close = children
        if part.depth + 1 > MAX_NESTING:  # every `(` is a level, as the lexer counts them
            raise too_deep(tok_span(open_))
        return ZeroGrad(join(tok_span(keyword), tok_span(close)), part.node)

    def assert_stmt(self, children: list) -> Assert:
        keyword, left, op, right, *within = children  # within: [] or [WITHIN, tolerance]
        if within:
            tolerance = within[1]
            span = join(tok_span(keyword), tolerance.outer)
            return Assert(span, str(op), left.node, right.node, tolerance.node)
        return Assert(join(tok_span(keyword), right.outer), str(op), left.node, right.node, None)

    def expect_stmt(self, children: list) -> Expect:
        keyword, kind, statement = children
        span = join(tok_span(keyword), statement.span)
        return Expect(span, str(kind), tok_span(kind), statement)

    def quiet_stmt(self, children: list) -> Quiet:
        keyword, statement = children
        return Quiet(join(tok_span(keyword), statement.span), statement)

    def fn_def(self, children: list) -> FunctionDef:
        keyword, name, _open, *params, _close, body = children
        names, spans = _names([p for p in params if p is not None])
        span = join(tok_span(keyword), body.outer)
        return FunctionDef(span, str(name), tok_span(name), names, spans, body.node)

    def repeat_stmt(self, children: list) -> Repeat:
        keyword, count, body = children
        return Repeat(join(tok_span(keyword), body.span), count.node, body)

    def for_range(self, children: list) -> ForRange:
        keyword, *names, _in, start, _dots, stop, body = children
        if len(names) > 1:
            raise syntax_error(
                "a range `A..B` binds one name",
                join(tok_span(names[1]), tok_span(names[-1])),
                ("help: `for i in 0..3 { ... }`; several names take a list's rows",),
            )
        (name,) = names
        span = join(tok_span(keyword), body.span)
        return ForRange(span, str(name), tok_span(name), start.node, stop.node, body)

    def for_each(self, children: list) -> ForEach:
        names: list[Any] | tuple[str, ...]  # the name tokens, then their texts
        keyword, *names, _in, source, body = children
        names, spans = _names(names)
        return ForEach(join(tok_span(keyword), body.span), names, spans, source.node, body)

    def if_stmt(self, children: list) -> If:
        """`if C { } else if C { } ... else { }`: the chain folded from its end, each
        `else if` an `otherwise` block that holds the next `If`."""
        heads = [children[0:5]]  # (IF token, left, op, right, block) of each `if`
        otherwise = None
        index = 5
        while index < len(children):  # at an ELSE
            if getattr(children[index + 1], "type", None) == "IF":
                heads.append(children[index + 1 : index + 6])
                index += 6
            else:
                otherwise = children[index + 1]
                break
        end = (otherwise or heads[-1][4]).span
        for keyword, left, op, right, then in reversed(heads):
            node = If(join(tok_span(keyword), end), str(op), left.node, right.node, then, otherwise)
            otherwise = Block(node.span, (node,))
        return node

    def descend_stmt(self, children: list) -> Descend:
        names: list[Any] | tuple[str, ...]  # the name tokens, then their texts
        keyword, *names, _by, rate = children
        names, spans = _names(names)
        return Descend(join(tok_span(keyword), rate.outer), names, spans, rate.node)

    # -- expressions

    def leaf(self, children: list) -> Part:
        keyword, part = children
        node = Leaf(join(tok_span(keyword), part.outer), str(keyword), part.node)
        return _nested(node, part.depth + 1, keyword)

    def sum(self, children: list) -> Part:
        """`a op b`: the grammar's chains are left-recursive, so `a` may be a chain already."""
        left, op, right = children
        node = Binary(join(left.outer, right.outer), intern(str(op)), left.node, right.node)
        return Part(node, node.span, max(left.depth, right.depth))

    product = sum

    def power(self, children: list) -> Part:
        """`a ** b`: the grammar's `**` is right-recursive, so `b` may be a power already."""
        base, _, exponent = children
        node = Binary(join(base.outer, exponent.outer), "**", base.node, exponent.node)
        return Part(node, node.span, max(base.depth, exponent.depth))

    def neg(self, children: list) -> Part:
        minus, part = children
        node = Unary(join(tok_span(minus), part.outer), "-", part.node)
        return _nested(node, part.depth + 1, minus)

    def number(self, children: list) -> Part:
        (tok,) = children
        span = tok_span(tok)
        value = float(tok)
        if value == 0.0:
            _check_underflow(tok, span)
        return Part(Number(span, value), span, 0)

    def name(self, children: list) -> Part:
        (tok,) = children
        span = tok_span(tok)
        return Part(Name(span, intern(str(tok))), span, 0)

    def call(self, children: list) -> Part:
        function, _open, args, close = children
        args = args or []
        span = join(tok_span(function), tok_span(close))
        keywords: tuple[Keyword, ...] = ()
        depth = max((a.depth for a in args if isinstance(a, Part)), default=0) + 1
        if any(isinstance(a, _Named) for a in args):
            first = next(i for i, a in enumerate(args) if isinstance(a, _Named))
            late = next((a for a in args[first:] if not isinstance(a, _Named)), None)
            if late is not None:
                raise syntax_error(
                    "a positional argument cannot follow a named one (`NAME: VALUE` comes last)",
                    _value(late)[1],
                )
            keywords = tuple(a.keyword for a in args[first:])
            depth = max([depth] + [a.depth + 1 for a in args[first:]])
            args = args[:first]
        nodes = tuple(_value(a)[0] for a in args)
        call = Call(span, intern(str(function)), tok_span(function), nodes, keywords)
        return _nested(call, depth, function)

    def keyword(self, children: list) -> _Named:
        name, part = children
        node, outer = _value(part)
        keyword = Keyword(join(tok_span(name), outer), intern(str(name)), tok_span(name), node)
        return _Named(keyword, part.depth)

    def args(self, parts: list) -> list:
        return parts

    def compare(self, children: list) -> Part:
        left, op, right = children
        node = Compare(join(left.outer, right.outer), str(op), left.node, right.node)
        return Part(node, node.span, max(left.depth, right.depth))

    def index(self, children: list) -> Part:
        target, open_, index, close = children
        node = Index(join(target.outer, tok_span(close)), target.node, index.node)
        return _nested(node, max(target.depth, index.depth + 1), open_)

    def list_literal(self, children: list) -> Part:
        open_, *items, close = children
        parts = [item for item in items if item is not None]
        node = ListLiteral(join(tok_span(open_), tok_span(close)), tuple(part.node for part in parts))
        return _nested(node, max((part.depth for part in parts), default=0) + 1, open_)

    def comprehension(self, children: list) -> Part:
        open_, item, *clauses, close = children
        span = join(tok_span(open_), tok_span(close))
        node = Comprehension(span, item.node, tuple(clause.node for clause in clauses))
        depth = max([item.depth] + [clause.depth for clause in clauses]) + 1
        return _nested(node, depth, open_)

    def comprehension_for(self, children: list) -> Part:
        """`for NAME, ... in SOURCE` or `for NAME in START..STOP`: a part whose node is the
        clause (its depth is its source's)."""
        keyword, *rest = children
        at = next(index for index, child in enumerate(rest) if getattr(child, "type", None) == "IN")
        name_tokens, (source, *range_end) = rest[:at], rest[at + 1 :]
        stop = range_end[1] if range_end else None
        if stop is not None and len(name_tokens) > 1:
            raise syntax_error(
                "a range `A..B` binds one name",
                join(tok_span(name_tokens[1]), tok_span(name_tokens[-1])),
                ("help: `[i * i for i in 0..3]`; several names take a list's rows",),
            )
        names, spans = _names(name_tokens)
        end = (stop or source).outer
        clause = ForClause(join(tok_span(keyword), end), names, spans, source.node, stop.node if stop else None)
        return Part(clause, clause.span, max(source.depth, stop.depth if stop else 0))  # type: ignore[arg-type]

    def group(self, children: list) -> Part:
        open_, part, close = children
        if part.depth + 1 > MAX_NESTING:
            raise too_deep(tok_span(open_))
        return Part(part.node, join(tok_span(open_), tok_span(close)), part.depth + 1)

    def string(self, children: list) -> StringLiteral:
        open_, *pieces, close = children
        parts = tuple(
            p.node if isinstance(p, Part) else _decode_text(p)
            for p in pieces
            if isinstance(p, Part) or p.type == "TEXT"
        )
        return StringLiteral(join(tok_span(open_), tok_span(close)), parts)


_NONZERO_DIGIT = re.compile(r"[1-9]")


def _check_underflow(tok: Any, span: Span) -> None:
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
