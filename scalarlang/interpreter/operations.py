"""The operators of expressions, compiled for the `Compiler`, on nodes and tensors alike:
`+ - * /` (the engine's operations, fused with their operands' closures; element-wise with
broadcasting when a tensor is on either side), `**` (its exponent a number, never tracked), `%`
and `//` (constants, no gradient), the comparisons inside expressions (the constant 1 or 0; of
a tensor, a constant tensor of 0 and 1), number literals read as written, `@`, unary `-`,
`var`/`const` of a node or a tensor, and indexing (`L[i]` of a list or a text; `T[i]`, `T[I]`).

One path for each operator: two nodes are the scalar operation, a tensor beside a tensor or a
node the tensor operation, and anything else (texts, lists) what ``otherwise`` says: the
concatenation of `+`, the comparison of texts, or the error. An engine error is a
`LanguageError` at the operator's span; a shape hint names the operand as written
(`transpose(W)`).
"""

from __future__ import annotations

import operator
from typing import Any, Callable, TYPE_CHECKING

from ..engine import tensor_elementwise as elementwise
from ..engine import tensor_linear as linear
from ..engine.errors import ScalarAutodiffError
from ..engine.node import ScalarOperation
from ..engine.numbers import format_number, format_whole
from ..engine.scalar import Scalar
from ..engine.tensor import Tensor
from ..language import tree
from ..language.diagnostics import LanguageError
from . import texts
from .failures import engine_failure, failure, not_a_tensor, position_in
from .values import ListValue, TextValue, describe, label_of

if TYPE_CHECKING:
    from .context import Compiling

# What arithmetic takes.
NUMBERS = frozenset([Scalar, Tensor])
# Each arithmetic operator: its operation of two nodes, and of tensors (a node on one side).
ARITHMETIC = {
    "+": (Scalar.__add__, elementwise.add_), "-": (Scalar.__sub__, elementwise.sub_),
    "*": (Scalar.__mul__, elementwise.mul_), "/": (Scalar.__truediv__, elementwise.div_),
}
COMPARISONS = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def literal_value(expr: tree.Expr) -> float | None:
    """A number literal, possibly negated, read directly (``backward(loss, inf)`` reports the
    non-finite seed rather than a non-finite constant)."""
    if isinstance(expr, tree.Number):
        return expr.value
    if isinstance(expr, tree.Unary) and isinstance(expr.operand, tree.Number):
        return -expr.operand.value
    return None


def compared(compiler: Compiling, expr: tree.Expr) -> Callable[[tuple | None], Any]:
    """One side of a statement's comparison (`if`, `assert`): a number literal read as written
    (a float: `if x < inf` makes no constant `inf`, which could not be one), else the value."""
    literal = literal_value(expr)
    if literal is not None:
        return lambda args: literal
    return compiler.expression(expr)


def number_of(value: Any) -> float | None:
    """What `compared` gave as a number: its value, or None for a text or a list."""
    if value.__class__ is Scalar:
        return value._value
    return value if value.__class__ is float else None


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
        result = LanguageError(diagnostic.replaced(message=message, fields=fields))
    return result


def _of_tensors(left: object, right: object) -> bool:
    """A tensor on either side, the other a tensor or a node: the tensor form applies."""
    return (left.__class__ is Tensor or right.__class__ is Tensor) and left.__class__ in NUMBERS and right.__class__ in NUMBERS


def _tensor(compiler: Compiling, node: tree.Expr, origin, operation: Callable, *operands) -> Tensor:
    """``operation(*operands)`` of the engine's tensors, its errors at ``node``, tagged ``origin``."""
    try:
        result = operation(*operands)
    except ScalarAutodiffError as error:
        raise tensor_error(compiler, error, node) from None
    result.tag = origin
    return result


def arithmetic(compiler: Compiling, node: tree.Binary):
    """``left OP right`` of + - * /: ``(combine, fuse)``, the same operation either way (fused:
    its operands' closures called inline). Two nodes are the engine's operation; a tensor on a
    side is element-wise; else `+` joins texts and lists, and the rest fail."""
    operation, of_tensors = ARITHMETIC[node.op]
    span, origin, source = node.span, compiler.origin(node.span), compiler.source
    rest = texts.concatenation(compiler, node) if node.op == "+" else _raiser_of(
        compiler.not_nodes(node.left, node.right, f"`{node.op}`"))

    def otherwise(left, right):
        if _of_tensors(left, right):
            return _tensor(compiler, node, origin, of_tensors, left, right)
        return rest(left, right)

    def combine(args, left, right):
        if left.__class__ is not Scalar or right.__class__ is not Scalar:
            return otherwise(left, right)
        try:
            result = operation(left, right)
        except ScalarAutodiffError as error:
            raise engine_failure(source, error, span) from None
        result.tag = origin
        return result

    def fuse(left, right):
        def run(args):
            a = left(args)
            b = right(args)
            if a.__class__ is not Scalar or b.__class__ is not Scalar:
                return otherwise(a, b)
            try:
                result = operation(a, b)
            except ScalarAutodiffError as error:
                raise engine_failure(source, error, span) from None
            result.tag = origin
            return result

        return run

    return combine, fuse


def _raiser_of(not_nodes: Callable[[Any, Any], LanguageError]) -> Callable[[Any, Any], Any]:
    def fail(left, right):
        raise not_nodes(left, right)

    return fail


def compare(compiler: Compiling, node: tree.Compare):
    """``a < b`` inside an expression: the constant 1 or 0 (a count), no gradient; two texts
    compare with `==` and `!=`; with a tensor on a side, a constant tensor of 0 and 1."""
    holds, origin, op = COMPARISONS[node.op], compiler.origin(node.span, True), node.op
    tensor_origin = compiler.origin(node.span)
    of_texts = texts.comparison(compiler, op, node.left, node.right, f"`{op}`")

    def comparison(args, left, right):
        if left.__class__ is Scalar and right.__class__ is Scalar:
            result = Scalar.constant(1.0 if holds(left._value, right._value) else 0.0)
        elif _of_tensors(left, right):
            return _tensor(compiler, node, tensor_origin, elementwise.compare, op, left, right)
        else:
            result = Scalar.constant(1.0 if of_texts(left, right) else 0.0)
        result.tag = origin
        return result

    return comparison


def power(compiler: Compiling, node: tree.Binary):
    span, origin, source = node.span, compiler.origin(node.span), compiler.source
    hint = f"help: for a tracked exponent write `exp({compiler.text_of(node.right)} * log({compiler.text_of(node.left)}))`"
    exponent_span = node.right.span
    not_nodes = compiler.not_nodes(node.left, node.right, "`**`")

    def power(args, base, exponent):
        if base.__class__ is Tensor and exponent.__class__ is Scalar and exponent._gradient is None:
            return _tensor(compiler, node, origin, elementwise.pow_, base, exponent._value)
        if exponent.__class__ is Tensor and (base.__class__ is Scalar or base.__class__ is Tensor):
            raise tensor_exponent(exponent)  # (the base is fine: the exponent is what is wrong)
        if (base.__class__ is not Scalar and base.__class__ is not Tensor) or exponent.__class__ is not Scalar:
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

    def tensor_exponent(exponent: Tensor) -> LanguageError:
        """A tensor exponent: tracked, as a tracked number is (`tracked-exponent`); constant, it
        is still not the one number `**` raises every element to (`not-a-node`)."""
        shape, exponent_text = exponent.shape, compiler.text_of(node.right)
        if exponent._gradient is not None:
            return failure(
                source, "tracked-exponent",
                f"the exponent `{exponent_text}` is a tracked tensor; `**` takes a number exponent (a constant)",
                exponent_span, {"found": "tensor", "shape": list(shape)}, (hint,))
        return failure(
            source, "not-a-node",
            f"the exponent `{exponent_text}` is a tensor {list(shape)}; `**` takes one number as its exponent",
            exponent_span, {"found": "tensor", "shape": list(shape)},
            (f"help: for an exponent per element write `exp({exponent_text} * log({compiler.text_of(node.left)}))`",))

    return power


def literal_power(compiler: Compiling, node: tree.Binary, exponent: float):
    span, origin, source = node.span, compiler.origin(node.span), compiler.source
    not_a_node_error = compiler.node_check(node.left, "`**`")

    def power(args, base):
        if base.__class__ is not Scalar:
            if base.__class__ is Tensor:
                return _tensor(compiler, node, origin, elementwise.pow_, base, exponent)
            raise not_a_node_error(base)
        try:
            result = base.__pow__(exponent)
        except ScalarAutodiffError as error:
            raise engine_failure(source, error, span) from None
        result.tag = origin
        return result

    return power


def remainder(compiler: Compiling, node: tree.Binary):
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
                f"the remainder of {format_whole(left._value)} by 0 is not a number",
                span,
                {"operation": "remainder", "value": float("nan")},
            )
        result = Scalar.constant(left._value % divisor)
        result.tag = origin
        return result

    return remainder


def floor_division(compiler: Compiling, node: tree.Binary):
    """``a // b``: the constant ``floor(a / b)`` as Python's ``//`` gives it (a whole number,
    printed whole), no gradient, as `%`."""
    span, origin, source = node.span, compiler.origin(node.span, True), compiler.source
    not_nodes = compiler.not_nodes(node.left, node.right, "`//`")

    def floor_divide(args, left, right):
        if left.__class__ is not Scalar or right.__class__ is not Scalar:
            raise not_nodes(left, right)
        dividend, divisor = left._value, right._value
        quotient = dividend // divisor if divisor != 0.0 else float("nan")
        if quotient - quotient != 0.0:  # by 0, or beyond the float range (`1e308 // 1e-308`)
            raise failure(
                source,
                "non-finite-result",
                f"the floor division of {format_whole(dividend)} by {format_whole(divisor)} is "
                + ("not a number" if divisor == 0.0 else f"not finite ({format_number(quotient)})"),
                span,
                {"operation": "floor-divide", "value": quotient},
            )
        result = Scalar.constant(quotient)
        result.tag = origin
        return result

    return floor_divide


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
        return _tensor(compiler, node, origin, linear.matmul, left, right)

    return product


def _not_a_tensor(compiler: Compiling, expr: tree.Expr, needed_by: str) -> Callable[[Any], LanguageError]:
    return lambda value: not_a_tensor(compiler.source, value, compiler.text_of(expr), expr.span, needed_by)


def negation(compiler: Compiling, node: tree.Unary):
    """``-x`` of a node or a tensor."""
    origin, not_a_node_error = compiler.origin(node.span), compiler.node_check(node.operand, "`-`")

    def negate(args, operand):
        if operand.__class__ is Scalar:
            result = operand.neg()
        elif operand.__class__ is Tensor:
            result = elementwise.neg_(operand)
        else:
            raise not_a_node_error(operand)
        result.tag = origin
        return result

    return negate


def leaf(compiler: Compiling, node: tree.Leaf):
    """``var x`` / ``const x``: a new variable or constant of a node's value; of a tensor, a
    tensor variable of its values (its gradient starts at zeros) or a constant of them."""
    origin, is_variable = compiler.origin(node.span), node.kind == "var"
    make = Scalar.variable if is_variable else Scalar.constant
    operation = ScalarOperation.VARIABLE if is_variable else ScalarOperation.CONSTANT
    not_a_node_error = compiler.node_check(node.operand, f"`{node.kind}`")

    def leaf(args, operand):
        if operand.__class__ is Scalar:
            result = make(operand.value)
        elif operand.__class__ is Tensor:
            result = linear.with_values(operand, list(operand._values), operation)
        else:
            raise not_a_node_error(operand)
        result.tag = origin
        return result

    return leaf


def index(compiler: Compiling, node: tree.Index) -> Callable:
    """``target[index]``: counting from 0, a negative index from the end; no node is made. Of
    a text, the one-character text at the index; of a tensor, see `tensor_index`."""
    target_text = compiler.text_of(node.target)
    not_a_list = compiler.list_check(node.target, "indexing")
    index_not_a_node = compiler.node_check(node.index, "an index")

    def item(args, target, position):
        if target.__class__ is Tensor:
            return tensor_index(compiler, node, target, position)
        if target.__class__ is not ListValue and target.__class__ is not TextValue:
            raise not_a_list(target)
        if position.__class__ is not Scalar:
            raise index_not_a_node(position)
        is_text = target.__class__ is TextValue
        at = position_in(compiler.source, position._value, len(target), target_text, node.index.span, is_text)
        if is_text:
            return TextValue(target[at])
        return target[at]

    return item


def tensor_index(compiler: Compiling, node: tree.Index, target: Tensor, position: object):
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
                raise LanguageError(diagnostic.replaced(message=message)) from None
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
