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

from sys import intern  # a name's text is kept once however often it is used
from typing import Any

from lark import Transformer

from .tree import (
    Assert,
    Binary,
    Block,
    Break,
    Call,
    Compare,
    Comprehension,
    Descend,
    Expect,
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
    Unary,
    While,
    ZeroGrad,
)
from .parts import (
    NamedArgument,
    Part,
    check_underflow,
    decode_text,
    formatted,
    names_of,
    nested,
    value_of,
)
from .source import join, tok_span
from .syntax_errors import MAX_NESTING, syntax_error, too_deep



class Builder(Transformer):
    """One method per grammar alias. Expressions travel as `Part`s; statements, blocks and
    strings are finished nodes."""

    # -- program, blocks and statements

    def start(self, statements: list) -> Program:
        check_breaks(statements)
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
        return Print(join(tok_span(keyword), items[-1].outer), tuple(item.node for item in items))

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
        names, spans = names_of([p for p in params if p is not None])
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
        names, spans = names_of(names)
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

    def while_stmt(self, children: list) -> While:
        keyword, condition, body = children
        return While(join(tok_span(keyword), body.span), condition.node, body)

    def break_stmt(self, children: list) -> Break:
        (keyword,) = children
        return Break(tok_span(keyword))

    def descend_stmt(self, children: list) -> Descend:
        names: list[Any] | tuple[str, ...]  # the name tokens, then their texts
        keyword, *names, _by, rate = children
        names, spans = names_of(names)
        return Descend(join(tok_span(keyword), rate.outer), names, spans, rate.node)

    # -- expressions

    def leaf(self, children: list) -> Part:
        keyword, part = children
        node = Leaf(join(tok_span(keyword), part.outer), str(keyword), part.node)
        return nested(node, part.depth + 1, keyword)

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
        return nested(node, part.depth + 1, minus)

    def number(self, children: list) -> Part:
        (tok,) = children
        span = tok_span(tok)
        value = float(tok)
        if value == 0.0:
            check_underflow(tok, span)
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
        if any(isinstance(a, NamedArgument) for a in args):
            first = next(i for i, a in enumerate(args) if isinstance(a, NamedArgument))
            late = next((a for a in args[first:] if not isinstance(a, NamedArgument)), None)
            if late is not None:
                raise syntax_error(
                    "a positional argument cannot follow a named one (`NAME: VALUE` comes last)",
                    value_of(late)[1],
                )
            keywords = tuple(a.keyword for a in args[first:])
            depth = max([depth] + [a.depth + 1 for a in args[first:]])
            args = args[:first]
        nodes = tuple(value_of(a)[0] for a in args)
        call = Call(span, intern(str(function)), tok_span(function), nodes, keywords)
        return nested(call, depth, function)

    def keyword(self, children: list) -> NamedArgument:
        name, part = children
        node, outer = value_of(part)
        keyword = Keyword(join(tok_span(name), outer), intern(str(name)), tok_span(name), node)
        return NamedArgument(keyword, part.depth if isinstance(part, Part) else 0)

    def args(self, parts: list) -> list:
        return parts

    def compare(self, children: list) -> Part:
        left, op, right = children
        node = Compare(join(left.outer, right.outer), str(op), left.node, right.node)
        return Part(node, node.span, max(left.depth, right.depth))

    def index(self, children: list) -> Part:
        target, open_, index, close = children
        node = Index(join(target.outer, tok_span(close)), target.node, index.node)
        return nested(node, max(target.depth, index.depth + 1), open_)

    def list_literal(self, children: list) -> Part:
        open_, *items, close = children
        parts = [item for item in items if item is not None]
        node = ListLiteral(join(tok_span(open_), tok_span(close)), tuple(part.node for part in parts))
        return nested(node, max((part.depth for part in parts), default=0) + 1, open_)

    def comprehension(self, children: list) -> Part:
        open_, item, *clauses, close = children
        span = join(tok_span(open_), tok_span(close))
        node = Comprehension(span, item.node, tuple(clause.node for clause in clauses))
        depth = max([item.depth] + [clause.depth for clause in clauses]) + 1
        return nested(node, depth, open_)

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
        names, spans = names_of(name_tokens)
        end = (stop or source).outer
        clause = ForClause(join(tok_span(keyword), end), names, spans, source.node, stop.node if stop else None)
        return Part(clause, clause.span, max(source.depth, stop.depth if stop else 0))  # type: ignore[arg-type]

    def group(self, children: list) -> Part:
        open_, part, close = children
        if part.depth + 1 > MAX_NESTING:
            raise too_deep(tok_span(open_))
        return Part(part.node, join(tok_span(open_), tok_span(close)), part.depth + 1)

    def string(self, children: list) -> Part:
        """A text: its pieces in order (a string inside a hole is one level deeper: the
        layout counts it as a parenthesis)."""
        open_, *pieces, close = children
        parts: list = []
        depth = 0
        for piece in pieces:
            if isinstance(piece, Part):
                parts.append(piece.node)
                depth = max(depth, piece.depth)
            elif piece.type == "TEXT":
                parts.append(decode_text(piece))
            elif piece.type == "SPEC_AND_RBRACE":  # the hole just before it has a format spec
                parts[-1] = formatted(parts[-1], piece)
        return Part(StringLiteral(join(tok_span(open_), tok_span(close)), tuple(parts)), join(tok_span(open_), tok_span(close)), depth)


_LOOPS = (Repeat, ForRange, ForEach, While)


def check_breaks(statements: list) -> None:
    """Every `break` is inside a loop's block (through `if`s and `quiet`; not through `expect`,
    which runs its statement on its own): else a syntax error at the first one, in source
    order. Each item of the walk: a statement, whether a loop holds it, whether an `expect`
    does (nearer than any loop)."""
    stack = [(statement, False, False) for statement in reversed(statements)]
    while stack:
        statement, in_loop, expected = stack.pop()
        if isinstance(statement, Break):
            if in_loop:
                continue
            if expected:
                raise syntax_error(
                    "`break` under `expect` leaves no loop: `expect` runs its statement on its own",
                    statement.span,
                    ("help: put the `expect` inside the loop's body, and the `break` after it",),
                )
            raise syntax_error(
                "`break` outside a loop: it leaves the innermost `for`, `repeat` or `while`", statement.span
            )
        if isinstance(statement, _LOOPS):
            stack.extend((inner, True, False) for inner in reversed(statement.body.statements))
        elif isinstance(statement, If):
            blocks = [statement.then] + ([statement.otherwise] if statement.otherwise is not None else [])
            stack.extend(
                (inner, in_loop, expected) for block in reversed(blocks) for inner in reversed(block.statements)
            )
        elif isinstance(statement, Quiet):
            stack.append((statement.statement, in_loop, expected))
        elif isinstance(statement, Expect):
            stack.append((statement.statement, False, True))
