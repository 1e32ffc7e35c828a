"""The operators of expressions on tensors (`engine.tensor.Tensor`), for the `Compiler` and
operations.py: `+ - * /` with broadcasting (a number or a scalar node on either side), `**` of
a number exponent, unary `-`, the comparisons (constant 0/1 tensors), `@`, `var`/`const` of a
tensor, and indexing (`T[i]`, an element: a scalar node; `T[I]`: the rows I names).

Each takes its operands' values as the scalar form does and hands anything that is not a
tensor to it (``otherwise``), so a program of nodes runs exactly as before. An engine error
(`shape-mismatch`, `bad-shape`, ...) is a `LanguageError` at the operator's span; a shape
hint names the operand as written (`transpose(W)`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from ..engine.errors import ScalarAutodiffError
from ..engine.node import ScalarOperation
from ..engine.scalar import Scalar
from ..engine.tensor import Tensor
from ..engine import tensor_elementwise as elementwise
from ..engine import tensor_linear as linear
from ..language import tree
from ..language.diagnostics import LanguageError
from .failures import engine_failure, failure, not_a_tensor, position_in
from .values import ListValue, TextValue, describe

if TYPE_CHECKING:
    from .context import Compiling

# What a name may give as a value; what arithmetic takes.
VALUES = frozenset([Scalar, ListValue, TextValue, Tensor])
NUMBERS = frozenset([Scalar, Tensor])
ELEMENTWISE = {"+": elementwise.add_, "-": elementwise.sub_, "*": elementwise.mul_, "/": elementwise.div_}


def tensor_error(compiler: Compiling, error: ScalarAutodiffError, node: tree.Expr) -> LanguageError:
    """The engine's error at ``node``'s span, a `transpose(left)` hint naming the operand."""
    result = engine_failure(compiler.source, error, node.span)
    if isinstance(node, tree.Binary) and "transpose(" in result.diagnostic.message:
        diagnostic = result.diagnostic
        message = diagnostic.message.replace("transpose(left)", f"transpose({compiler.text_of(node.left)})")
        message = message.replace("transpose(right)", f"transpose({compiler.text_of(node.right)})")
        fields = dict(diagnostic.fields)
        if isinstance(fields.get("hint"), str):
            fields["hint"] = message[len(message) - len(fields["hint"]):] if fields["hint"] else ""
        result = LanguageError(replace(diagnostic, message=message, fields=fields))
    return result


def _operand(value: object) -> bool:
    return value.__class__ is Tensor or value.__class__ is Scalar


def elementwise_or(compiler: Compiling, node: tree.Binary, otherwise: Callable[[Any, Any], Any]):
    """``left OP right`` when either side is a tensor (the other a tensor or a node); else
    ``otherwise`` (the concatenation of `+`, or the error of the scalar form)."""
    operation, origin = ELEMENTWISE[node.op], compiler.origin(node.span)

    def combine(left, right):
        if (left.__class__ is Tensor or right.__class__ is Tensor) and _operand(left) and _operand(right):
            try:
                result = operation(left, right)
            except ScalarAutodiffError as error:
                raise tensor_error(compiler, error, node) from None
            result.tag = origin
            return result
        return otherwise(left, right)

    return combine


def compare(compiler: Compiling, node: tree.Compare, otherwise: Callable):
    """``A < B`` with a tensor on either side: a constant tensor of 0 and 1."""
    origin = compiler.origin(node.span)

    def comparison(args, left, right):
        if (left.__class__ is Tensor or right.__class__ is Tensor) and _operand(left) and _operand(right):
            try:
                result = elementwise.compare(node.op, left, right)
            except ScalarAutodiffError as error:
                raise tensor_error(compiler, error, node) from None
            result.tag = origin
            return result
        return otherwise(args, left, right)

    return comparison


def power(compiler: Compiling, node: tree.Binary, base: Tensor, exponent: float) -> Tensor:
    """``T ** n``, each element to the number ``n``."""
    try:
        result = elementwise.pow_(base, exponent)
    except ScalarAutodiffError as error:
        raise tensor_error(compiler, error, node) from None
    result.tag = compiler.origin(node.span)
    return result


def negated(compiler: Compiling, node: tree.Expr, operand: Tensor, otherwise: Callable) -> Tensor:
    """``-T``; of a value that is not a tensor, ``otherwise(value)``'s error."""
    if operand.__class__ is not Tensor:
        raise otherwise(operand)
    result = elementwise.neg_(operand)
    result.tag = compiler.origin(node.span)
    return result


def matmul(compiler: Compiling, node: tree.Binary):
    """``A @ B``: rank 2 @ rank 2, rank 2 @ rank 1, rank 1 @ rank 2; rank 1 @ rank 1 is their
    dot, a scalar node."""
    origin = compiler.origin(node.span)
    errors = [_not_a_tensor(compiler, side, "`@`") for side in (node.left, node.right)]

    def product(args, left, right):
        if left.__class__ is not Tensor:
            raise errors[0](left)
        if right.__class__ is not Tensor:
            raise errors[1](right)
        try:
            result = linear.matmul(left, right)
        except ScalarAutodiffError as error:
            raise tensor_error(compiler, error, node) from None
        result.tag = origin
        return result

    return product


def _not_a_tensor(compiler: Compiling, expr: tree.Expr, needed_by: str) -> Callable[[Any], LanguageError]:
    return lambda value: not_a_tensor(compiler.source, value, compiler.text_of(expr), expr.span, needed_by)


def leaf(compiler: Compiling, node: tree.Leaf, operand: Tensor, otherwise: Callable) -> Tensor:
    """``var T``: a tensor variable of T's values (its gradient starts at zeros); ``const T``:
    a constant of them; of a value that is not a tensor, ``otherwise(value)``'s error."""
    if operand.__class__ is not Tensor:
        raise otherwise(operand)
    result = linear.with_values(operand, list(operand._values), ScalarOperation.VARIABLE
                                if node.kind == "var" else ScalarOperation.CONSTANT)
    result.tag = compiler.origin(node.span)
    return result


def indexed(compiler: Compiling, node: tree.Index, target: Tensor, position: object):
    """``T[i]`` (a number: the sub-tensor, or of a rank-1 tensor the element, a scalar node)
    or ``T[I]`` (a list or a tensor of whole numbers: the rows it names, stacked)."""
    try:
        if position.__class__ is Scalar:
            try:
                at = position_in(compiler.source, position._value, target._shape[0],  # type: ignore[attr-defined]
                                 compiler.text_of(node.target), node.index.span)
            except LanguageError as error:  # (said of a tensor: its shape, not "a list of")
                diagnostic = error.diagnostic
                message = diagnostic.message.replace(f"a list of {target._shape[0]}", describe(target))
                raise LanguageError(replace(diagnostic, message=message, notes=diagnostic.notes)) from None
            result = linear.index(target, at)
        elif position.__class__ is ListValue or position.__class__ is Tensor:
            result = linear.gather(target, _indices(compiler, node, position))
        else:
            raise failure(compiler.source, "not-an-index", f"`{compiler.text_of(node.index)}` is a text, not an index",
                          node.index.span, {"found": "text"})
    except ScalarAutodiffError as error:
        raise engine_failure(compiler.source, error, node.index.span) from None
    result.tag = compiler.origin(node.span)
    return result


def _indices(compiler: Compiling, node: tree.Index, position: object) -> object:
    """A list of indices as the engine takes them: numbers, nested as the list is."""
    if position.__class__ is Tensor:
        return position
    rows: list = []
    stack: list[tuple[Any, list]] = [(position, rows)]
    while stack:
        items, into = stack.pop()
        for item in items:
            if item.__class__ is ListValue:
                inner: list = []
                into.append(inner)
                stack.append((item, inner))
            elif item.__class__ is Scalar:
                into.append(item._value)
            else:
                raise failure(compiler.source, "not-an-index", f"an index of `{compiler.text_of(node.index)}` is not a number",
                              node.index.span, {"found": "text" if isinstance(item, str) else "tensor"})
    return rows
