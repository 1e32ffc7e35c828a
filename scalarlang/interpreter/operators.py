"""The operators that are not plain engine operations, compiled for the `Compiler`: `**`
(its exponent a number, never tracked), `%` (a constant, no gradient) and the comparisons
inside expressions (the constant 1 or 0)."""

from __future__ import annotations

import operator

from ..engine.errors import ScalarAutodiffError
from ..engine.numbers import format_count
from ..engine.scalar import Scalar
from ..language import tree
from .failures import engine_failure, failure
from .labels import label_of

def literal_value(expr: tree.Expr) -> float | None:
    """A number literal, possibly negated, read directly (``backward(loss, inf)`` reports the
    non-finite seed rather than a non-finite constant)."""
    if isinstance(expr, tree.Number):
        return expr.value
    if isinstance(expr, tree.Unary) and isinstance(expr.operand, tree.Number):
        return -expr.operand.value
    return None


COMPARISONS = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def compare(compiler, node: tree.Compare):
    """``a < b`` inside an expression: the constant 1 or 0 (a count), no gradient."""
    holds, origin = COMPARISONS[node.op], compiler.origin(node.span, True)
    not_nodes = compiler.not_nodes(node.left, node.right, f"`{node.op}`")

    def comparison(args, left, right):
        if left.__class__ is not Scalar or right.__class__ is not Scalar:
            raise not_nodes(left, right)
        result = Scalar.constant(1.0 if holds(left._value, right._value) else 0.0)
        result.tag = origin
        return result

    return comparison

def power(compiler, node: tree.Binary):
    span, origin, source = node.span, compiler.origin(node.span), compiler.source
    hint = f"help: for a tracked exponent write `exp({compiler.text_of(node.right)} * log({compiler.text_of(node.left)}))`"
    exponent_span = node.right.span
    not_nodes = compiler.not_nodes(node.left, node.right, "`**`")

    def power(args, base, exponent):
        if base.__class__ is not Scalar or exponent.__class__ is not Scalar:
            raise not_nodes(base, exponent)
        if exponent._gradient is not None:
            raise failure(
                source,
                "tracked-exponent",
                f"the exponent `{label_of(exponent)}` is tracked; `**` takes a number exponent (a constant)",
                exponent_span,
                {"exponent": exponent.value},
                (hint,),
            )
        try:
            result = base.__pow__(exponent._value)
        except ScalarAutodiffError as error:
            raise engine_failure(source, error, span) from None
        result.tag = origin
        return result

    return power

def literal_power(compiler, node: tree.Binary, exponent: float):
    span, origin, source = node.span, compiler.origin(node.span), compiler.source
    not_a_node_error = compiler.node_check(node.left, "`**`")

    def power(args, base):
        if base.__class__ is not Scalar:
            raise not_a_node_error(base)
        try:
            result = base.__pow__(exponent)
        except ScalarAutodiffError as error:
            raise engine_failure(source, error, span) from None
        result.tag = origin
        return result

    return power

def remainder(compiler, node: tree.Binary):
    span, origin, source = node.span, compiler.origin(node.span), compiler.source
    not_nodes = compiler.not_nodes(node.left, node.right, "`%`")

    def remainder(args, left, right):
        if left.__class__ is not Scalar or right.__class__ is not Scalar:
            raise not_nodes(left, right)
        divisor = right._value
        if divisor == 0.0:
            raise failure(
                source,
                "non-finite-result",
                f"the remainder of {format_count(left._value)} by 0 is not a number",
                span,
                {"operation": "remainder", "value": float("nan")},
            )
        result = Scalar.constant(left._value % divisor)
        result.tag = origin
        return result

    return remainder
