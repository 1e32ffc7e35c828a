"""Texts in expressions, compiled for the `Compiler`: a string literal (its holes filled each
time it is evaluated), `+` of two texts or two lists (concatenation, where `+` of nodes is the
engine's add), and comparisons of texts (`==`, `!=`: the constant 1 or 0).

A text is a `values.TextValue`: a constant with no node and no gradient, so nothing here makes
a node but the 1 or 0 of a comparison. A text or a list made by `+` is at most `MAX_TEXT`
characters or `MAX_LIST` items (`too-long`): a loop that doubles one would otherwise fill the
memory before any other limit is reached. A string's holes make at most `MAX_TEXT` characters,
refused from the least their parts can make (`lists`) before any is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..engine.scalar import Scalar
from ..language import tree
from ..language.source import join
from .failures import not_a_list, not_a_node, not_a_text, with_note
from .values import MAX_LIST, MAX_TEXT, ListValue, TextValue, formatted_value
from .lists import least_hole_length, spec_length

if TYPE_CHECKING:
    from .context import Compiling



def string_literal(compiler: Compiling, node: tree.StringLiteral):
    """``"text {EXPR} {EXPR:SPEC}"``: ``(combine, holes, None)``, the holes' expressions its
    operands (so a string inside a hole is one more level of the compiler's walk); a hole
    shows its value as `print` does (a text as it is), a format spec is for numbers."""
    pieces: list[Any] = []  # the literal texts, and for each hole its format spec or None
    holes: list[tree.Expr] = []
    for part in node.parts:
        if isinstance(part, tree.Text):
            pieces.append(part.text)
        elif isinstance(part, tree.Formatted):
            pieces.append(_Hole(part.spec, compiler.node_check(part.expr, "a format spec")))
            holes.append(part.expr)
        else:
            pieces.append(_Hole(None, None))
            holes.append(part)
    if not holes:
        constant = TextValue("".join(pieces))
        return (lambda args: constant), (), None
    literal_length = sum(len(piece) for piece in pieces if piece.__class__ is str)

    def combine(args, *values):
        # The least it can be is known from its parts: refused before anything is written.
        least = literal_length
        at = 0
        for piece in pieces:
            if piece.__class__ is not str:
                if piece.spec is not None and values[at].__class__ is TextValue:
                    raise piece.not_a_node(values[at])  # a format spec such as `.3f` is for numbers
                compiler.check_written_whole(values[at], node.span)
                least += least_hole_length(values[at], piece.length)
                at += 1
        if least > MAX_TEXT:
            raise _too_long(compiler, node, least, least=True)
        texts = []
        at = 0
        for piece in pieces:
            if piece.__class__ is str:
                texts.append(piece)
                continue
            value = values[at]
            at += 1
            texts.append(formatted_value(value, piece.spec))
        text = TextValue("".join(texts))
        if len(text) > MAX_TEXT:
            raise _too_long(compiler, node, len(text))
        return text

    return combine, tuple(holes), None


class _Hole:
    __slots__ = ("spec", "not_a_node", "length")

    def __init__(self, spec: str | None, not_a_node: Callable | None):
        self.spec = spec
        self.not_a_node = not_a_node
        self.length = spec_length(spec)  # the least its spec writes of a number


def concatenation(compiler: Compiling, node: tree.Binary) -> Callable[[Any, Any], Any]:
    """What `left + right` is when one of them is not a node: two texts or two lists joined,
    else the error for the operand that does not fit: a text or a list on either side says
    what `+` is (the left one when both do), and the other operand is the culprit."""
    source, left_text, right_text = compiler.source, compiler.text_of(node.left), compiler.text_of(node.right)
    left_span, right_span = node.left.span, node.right.span

    def joined(left, right):
        kind = left.__class__
        if kind is TextValue:
            if right.__class__ is not TextValue:
                raise not_a_text(
                    source, right, right_text, right_span, "`+` of a text",
                    (f'help: write a value into a text with a hole: `"…{{{right_text}}}"`',),
                )
            if len(left) + len(right) > MAX_TEXT:
                raise _too_long(compiler, node, len(left) + len(right))
            return TextValue(left + right)
        if kind is ListValue:
            if right.__class__ is not ListValue:
                error = not_a_list(source, right_text, right_span, "`+` of a list", right)
                raise with_note(error, f"help: `{left_text} + [{right_text}]` is the list with one more item")
            if len(left) + len(right) > MAX_LIST:
                raise _too_long(compiler, node, len(left) + len(right), "items")
            return ListValue(left + right)
        if kind is not Scalar and right.__class__ is Scalar:  # (a tensor and a node are added: not reached)
            raise not_a_node(source, left, left_text, left_span, "`+`")
        # A node and a text or a list, in either order, is that `+`'s error (`"a" + 1` too).
        if right.__class__ is TextValue:
            raise not_a_text(
                source, left, left_text, left_span, "`+` of a text",
                (f'help: write a value into a text with a hole: `"{{{left_text}}}…"`',),
            )
        if right.__class__ is ListValue:
            error = not_a_list(source, left_text, left_span, "`+` of a list", left)
            raise with_note(error, f"help: `[{left_text}] + {right_text}` is the list with one more item first")
        raise not_a_node(source, right, right_text, right_span, "`+`")

    return joined


def comparison(compiler: Compiling, op: str, left_expr: tree.Expr, right_expr: tree.Expr, needed_by: str):
    """``holds(left, right)`` for values that are not both nodes: two texts compare with `==`
    and `!=`; anything else is the error for the operand that does not fit."""
    source = compiler.source
    left_error, right_error = compiler.node_check(left_expr, needed_by), compiler.node_check(right_expr, needed_by)
    right_text = compiler.text_of(right_expr)

    def holds(left, right) -> bool:
        if left.__class__ is TextValue:
            if right.__class__ is not TextValue:
                raise not_a_text(source, right, right_text, right_expr.span, f"`{op}` with a text")
            if op == "==":
                return left == right
            if op == "!=":
                return left != right
            raise compiler.fail(
                "not-a-node",
                f"`{op}` compares numbers; texts compare only with `==` and `!=`",
                join(left_expr.span, right_expr.span),
                {"found": "text", "op": op},
            )
        if left.__class__ is not Scalar and left.__class__ is not float:
            raise left_error(left)
        raise right_error(right)

    return holds


def _too_long(compiler: Compiling, node: tree.Expr, size: int, what: str = "characters", least: bool = False):
    limit = MAX_TEXT if what == "characters" else MAX_LIST
    return compiler.fail(
        "too-long",
        f"this {'text' if what == 'characters' else 'list'} would be {'at least ' if least else ''}{size:,} {what};"
        f" the most is {limit:,}",
        node.span,
        {"length": size, "limit": limit},
    )
