"""The operations of expressions besides calls, compiled for the `Compiler`: `+ - * /` (the
engine's operations, fused with their operands' closures), `**` (its exponent a number, never
tracked), `%` (a constant, no gradient), the comparisons inside expressions (the constant 1 or
0), number literals read as written; and lists: literals, indexing and comprehensions.

A list is a `values.ListValue`, a value like a node: a literal's items are evaluated in order
(a number, possibly negated, is a fresh constant of that value, as a table's entry was), an
index reads an item without making a node, and a comprehension runs its `for`s as nested
loops (the first outermost) with its names in argument slots of its own, so they are bound
only inside it.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Iterator, TYPE_CHECKING, cast

from ..engine.errors import ScalarAutodiffError
from ..engine.numbers import format_number, format_whole
from ..engine.scalar import Scalar
from ..language import tree
from . import tensor_operators, texts
from ..engine.tensor import Tensor
from .context import MAX_ITEMS
from .failures import engine_failure, failure, position_in
from .values import ListValue, Named, TextValue, describe, label_of, whole_number

if TYPE_CHECKING:
    from .context import Compiling

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


def arithmetic(operation, span, origin, source, otherwise):
    """``left OP right``; ``otherwise(left, right)`` is what it is when one is not a node: the
    concatenation of `+`, else it raises the error."""

    def combine(args, left, right):
        if left.__class__ is not Scalar or right.__class__ is not Scalar:
            return otherwise(left, right)
        try:
            node = operation(left, right)
        except ScalarAutodiffError as error:
            raise engine_failure(source, error, span) from None
        node.tag = origin
        return node

    return combine


def fused(operation, span, origin, source, otherwise):
    """The closure of ``left OP right`` with its operands' closures called inline."""

    def fuse(left, right):
        def run(args):
            a = left(args)
            b = right(args)
            if a.__class__ is not Scalar or b.__class__ is not Scalar:
                return otherwise(a, b)
            try:
                node = operation(a, b)
            except ScalarAutodiffError as error:
                raise engine_failure(source, error, span) from None
            node.tag = origin
            return node

        return run

    return fuse


COMPARISONS = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def compare(compiler: Compiling, node: tree.Compare):
    """``a < b`` inside an expression: the constant 1 or 0 (a count), no gradient; two texts
    compare with `==` and `!=`."""
    holds, origin = COMPARISONS[node.op], compiler.origin(node.span, True)
    of_texts = texts.comparison(compiler, node.op, node.left, node.right, f"`{node.op}`")

    def comparison(args, left, right):
        if left.__class__ is not Scalar or right.__class__ is not Scalar:
            result = Scalar.constant(1.0 if of_texts(left, right) else 0.0)
            result.tag = origin
            return result
        result = Scalar.constant(1.0 if holds(left._value, right._value) else 0.0)
        result.tag = origin
        return result

    return tensor_operators.compare(compiler, node, comparison)

def power(compiler: Compiling, node: tree.Binary):
    span, origin, source = node.span, compiler.origin(node.span), compiler.source
    hint = f"help: for a tracked exponent write `exp({compiler.text_of(node.right)} * log({compiler.text_of(node.left)}))`"
    exponent_span = node.right.span
    not_nodes = compiler.not_nodes(node.left, node.right, "`**`")

    def power(args, base, exponent):
        if base.__class__ is Tensor and exponent.__class__ is Scalar and exponent._gradient is None:
            return tensor_operators.power(compiler, node, base, exponent._value)
        if (base.__class__ is not Scalar and base.__class__ is not Tensor) or exponent.__class__ is not Scalar:
            raise not_nodes(base, exponent)  # (a tensor with a tracked exponent: `tracked-exponent`)
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

def literal_power(compiler: Compiling, node: tree.Binary, exponent: float):
    span, origin, source = node.span, compiler.origin(node.span), compiler.source
    not_a_node_error = compiler.node_check(node.left, "`**`")

    def power(args, base):
        if base.__class__ is not Scalar:
            if base.__class__ is Tensor:
                return tensor_operators.power(compiler, node, base, exponent)
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


# ---- lists -----------------------------------------------------------------------------------

# As for `for` loops: at most this many iterations of one range (and of comprehensions in all
# while one statement runs, `context.MAX_ITEMS`; calls of `fn` functions, `context.MAX_CALLS`).
MAX_RANGE = 1_000_000
_DONE = object()


def literal(args: Any, *items: Any) -> ListValue:
    return ListValue(items)


def literal_items(node: tree.ListLiteral) -> tuple[tree.Expr, ...]:
    """The items to evaluate: `-2.5` becomes the constant -2.5 (one node, as in a table)."""
    return tuple(
        tree.Number(item.span, -item.operand.value)
        if isinstance(item, tree.Unary) and isinstance(item.operand, tree.Number)
        else item
        for item in node.items
    )


def index(compiler: Compiling, node: tree.Index) -> Callable:
    """``target[index]``: counting from 0, a negative index from the end; no node is made. Of
    a text, the one-character text at the index."""
    target_text = compiler.text_of(node.target)
    not_a_list = compiler.list_check(node.target, "indexing")
    index_not_a_node = compiler.node_check(node.index, "an index")

    def item(args, target, position):
        if target.__class__ is Tensor:
            return tensor_operators.indexed(compiler, node, target, position)
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


def comprehension(compiler: Compiling, node: tree.Comprehension) -> Callable:
    """``[ITEM for ... in ... for ... in ...]`` as one operation with no operands: it
    evaluates its sources and its item itself, once per combination of its names."""
    saved = compiler.params, compiler.slots
    params: dict[str, int] = dict(saved[0] or {})
    slots = saved[1]
    clauses: list[Callable[[tuple], Iterator[tuple]]] = []
    frames = 0  # the Python frames its parts take when they run, deepest first
    try:
        for clause in node.clauses:
            compiler.params, compiler.slots = dict(params), slots
            clause_values, clause_frames = _clause(compiler, clause)
            clauses.append(clause_values)
            frames = max(frames, clause_frames)
            for offset, name in enumerate(clause.names):
                params[name] = slots + offset
            slots += len(clause.names)
        compiler.params, compiler.slots = params, slots
        item, item_frames = compiler.depth_of(node.item)
    finally:
        compiler.params, compiler.slots = saved
    last, frames = len(clauses), max(frames, item_frames)

    def run(args: tuple | None) -> ListValue:
        start = args if args is not None else ()
        made: list = []
        loops = [(clauses[0](start), start)]  # one iterator a clause, with the slots so far
        budget = compiler.budget
        while loops:
            values, slots_so_far = loops[-1]
            bound = next(values, _DONE)
            if bound is _DONE:
                loops.pop()
                continue
            budget.left -= 1
            if budget.left < 0:
                raise compiler.fail(
                    "too-long",
                    f"the comprehensions of this statement run more than {MAX_ITEMS:,} iterations in all",
                    node.span,
                    {"limit": MAX_ITEMS},
                )
            slots_now = slots_so_far + bound  # type: ignore[operator]
            if len(loops) == last:
                made.append(item(slots_now))
            else:
                loops.append((clauses[len(loops)](slots_now), slots_now))
        return ListValue(made)

    run.frames = frames + 1  # type: ignore[attr-defined]  # (read by the compiler's depth)
    return run


def _clause(compiler: Compiling, clause: tree.ForClause) -> tuple[Callable[[tuple], Iterator[tuple]], int]:
    """``for NAMES in SOURCE``: given the slots so far, an iterator of the values of its names;
    and the Python frames its source takes to evaluate."""
    names = clause.names
    if clause.stop is not None:
        return _range_clause(compiler, clause)
    source, frames = compiler.depth_of(clause.source)
    not_a_list = compiler.list_check(clause.source, "`for … in`")
    width = len(names)

    def values(slots: tuple) -> Iterator[tuple]:
        items = source(slots)
        if items.__class__ is TextValue:  # its characters, as Python's `for c in text`
            if width == 1:
                return ((TextValue(char),) for char in items)
            items = characters_of(TextValue(items[:1]))  # (a character is no row: `table-width`)
        if items.__class__ is not ListValue:
            raise not_a_list(items)
        if width == 1:
            return ((item,) for item in items)
        return _rows(compiler, clause, items, width)

    return values, frames


def characters_of(text: TextValue) -> ListValue:
    """A text's characters, in order, as a list of one-character texts."""
    return ListValue([TextValue(char) for char in text])


def _rows(compiler: Compiling, clause: tree.ForClause, items: ListValue, width: int) -> Iterator[tuple]:
    for row in items:
        if row.__class__ is not ListValue or len(row) != width:
            found = f"a row of {len(row)}" if row.__class__ is ListValue else describe(row)
            raise compiler.fail(
                "table-width",
                f"`for` names {width}, but an item of `{compiler.text_of(clause.source)}` is {found}",
                clause.source.span,
                {"names": width},
            )
        yield tuple(row)


def _range_clause(compiler: Compiling, clause: tree.ForClause) -> tuple[Callable[[tuple], Iterator[tuple]], int]:
    stop = cast(tree.Expr, clause.stop)  # a range clause has its end
    (start_of, start_frames), (stop_of, stop_frames) = compiler.number_and_frames(clause.source), compiler.number_and_frames(stop)
    frames = max(start_frames, stop_frames) + 1
    (name,) = clause.names
    tag = Named(name, True)  # each index is a count named by the comprehension's name

    def values(slots: tuple) -> Iterator[tuple]:
        start = compiler.whole(start_of(slots), clause.source.span, "the start of a range")
        end = compiler.whole(stop_of(slots), stop.span, "the end of a range")
        if end - start > MAX_RANGE:
            raise compiler.fail(
                "too-long",
                f"the range is {end - start:,} iterations; a loop may run at most {MAX_RANGE:,}",
                clause.span,
                {"iterations": end - start, "limit": MAX_RANGE},
            )
        return _counts(start, end, tag)

    return values, frames


def _counts(start: int, stop: int, tag: Named) -> Iterator[tuple]:
    for value in range(start, stop):
        node = Scalar.constant(value)
        node.tag = tag
        yield (node,)

