"""The built-ins of tensors (`engine.tensor.Tensor`, a value beside nodes, lists and texts):
making them (`tensor`, `zeros`, `ones`, `randn`, `rand`), their shapes (`shape`, `reshape`,
`transpose`). The tensor forms of the names they share with nodes and lists (`exp`, `sum`,
`softmax`, `len`, ...) are tensor_forms.py's; each name keeps one registry row.

`randn` and `rand` draw from the session's generator in row-major order: the numbers a
comprehension of `gauss(0, 1)` / `uniform(0, 1)` gives in the same state. A tensor of a list
of constants holds their values; of a list holding tracked nodes, it is one stacking node with
an edge to each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ...engine.errors import ScalarAutodiffError
from ...engine.node import ScalarOperation
from ...engine.scalar import Scalar
from ...engine.tensor import Tensor
from ...language import tree
from ...language.diagnostics import LanguageError
from ..failures import not_a_node, not_a_tensor
from ..values import ListValue, TextValue, whole_number

if TYPE_CHECKING:
    from ..context import Compiling

# The most elements one tensor may hold: beyond, `too-long` (before the memory runs out).
MAX_ELEMENTS = 10_000_000
_CONSTANT = ScalarOperation.CONSTANT


def tensor_check(compiler: Compiling, expr: tree.Expr, name: str) -> Callable[[Any], None]:
    """The check that ``expr``'s value is a tensor (`not-a-tensor` naming ``name``)."""

    def check(value: Any) -> None:
        if value.__class__ is not Tensor:
            raise not_a_tensor(compiler.source, value, compiler.text_of(expr), expr.span, f"`{name}`")

    return check


def engine_call(compiler: Compiling, span, origin, operation: Callable[..., Any], *operands: Any) -> Any:
    """``operation(*operands)``, its engine error at ``span``; the result labelled."""
    try:
        result = operation(*operands)
    except ScalarAutodiffError as error:
        raise compiler.engine_error(error, span) from None
    result.tag = origin
    return result


# ---- making tensors ----------------------------------------------------------------------------


def compile_tensor(compiler: Compiling, call: tree.Call):
    """``tensor(L)``: a constant of a rectangular list of constants (a table's rows: rank 2); of
    a list holding tracked nodes, a stacking node; ``tensor(T)``: a constant copy of T."""
    (argument,) = compiler.values(call)
    origin, span = compiler.origin(call.span), call.span
    text = compiler.text_of(argument)

    def make(args, value):
        if value.__class__ is Tensor:
            return engine_call(compiler, span, origin, Tensor.constant, value.tolist())
        if value.__class__ is not ListValue:
            raise not_a_tensor_source(compiler, value, argument)
        nested = _nested(compiler, value, text, argument)
        return engine_call(compiler, span, origin, Tensor.constant, nested)

    return make, (argument,)


def not_a_tensor_source(compiler: Compiling, value: object, argument: tree.Expr) -> LanguageError:
    text = compiler.text_of(argument)
    return compiler.fail(
        "not-a-list", f"`{text}` is {'a text' if value.__class__ is TextValue else 'a node'}, not a list:"
        " `tensor` takes a list of numbers (or of lists of them)", argument.span, {"found": "node"},
        (f"help: a tensor of one number is `tensor([{text}])`",) if value.__class__ is Scalar else (),
    )


def _nested(compiler: Compiling, value: ListValue, text: str, argument: tree.Expr) -> list:
    """The list as nested Python lists: a constant's value as a float, a tracked node as itself
    (the engine stacks it), so the tensor of a list of constants is a constant leaf."""
    result: list = []
    stack: list[tuple[ListValue, list, str]] = [(value, result, text)]
    budget = MAX_ELEMENTS
    while stack:
        items, into, path = stack.pop()
        for index, item in enumerate(items):
            if item.__class__ is ListValue:
                inner: list = []
                into.append(inner)
                stack.append((item, inner, f"{path}[{index}]"))
                continue
            if item.__class__ is not Scalar:
                raise not_a_node(compiler.source, item, f"{path}[{index}]", argument.span, "`tensor` of each item")
            budget -= 1
            if budget < 0:
                raise too_many(compiler, argument.span)
            into.append(item._value if item._operation is _CONSTANT else item)
    return result


def too_many(compiler: Compiling, span) -> LanguageError:
    return compiler.fail(
        "too-long", f"a tensor may hold at most {MAX_ELEMENTS:,} elements", span, {"limit": MAX_ELEMENTS},
    )


def _shape_of(compiler: Compiling, call: tree.Call, values: tuple, first: int) -> tuple[int, ...]:
    """The dimensions given from argument ``first`` on: whole numbers (or one list of them, as
    `shape(T)` gives), each at least 1 (-1 is `reshape`'s, checked by the engine)."""
    exprs = compiler.values(call)[first:]
    if len(values) == 1 and values[0].__class__ is ListValue:
        items, spans = list(values[0]), [exprs[0].span] * len(values[0])
    else:
        items, spans = list(values), [expr.span for expr in exprs]
    dims: list[int] = []
    for item, span in zip(items, spans):
        if item.__class__ is not Scalar:
            raise compiler.fail(
                "invalid-shape", f"a dimension of `{call.function}` is a number, not {_what(item)}", span,
                {"shape": [], "found": _what(item)},
            )
        dim = whole_number(item._value)
        if dim is None:
            raise compiler.fail(
                "invalid-shape", f"a dimension must be a whole number, not {item._value!r}", span,
                {"shape": [float(item._value)]},
            )
        dims.append(dim)
    if not dims:
        raise compiler.fail("invalid-shape", f"`{call.function}` needs at least one dimension", call.span, {"shape": []})
    count = 1
    for dim in dims:
        count *= max(dim, 1)
    if count > MAX_ELEMENTS:
        raise too_many(compiler, call.span)
    return tuple(dims)


def _what(value: object) -> str:
    if value.__class__ is Tensor:
        return "a tensor"
    return "a list" if value.__class__ is ListValue else "a text"


def compile_filled(fill: str):
    """``zeros(S…)``, ``ones(S…)``, ``randn(S…)``, ``rand(S…)``: constants of shape S."""

    def build(compiler: Compiling, call: tree.Call):
        origin, span, generator = compiler.origin(call.span), call.span, compiler.random

        def make(args, *values):
            dims = _shape_of(compiler, call, values, 0)
            if fill == "zeros":
                return engine_call(compiler, span, origin, Tensor.zeros, dims)
            if fill == "ones":
                return engine_call(compiler, span, origin, Tensor.ones, dims)
            draw = Tensor.randn if fill == "randn" else Tensor.rand
            return engine_call(compiler, span, origin, draw, dims, generator)

        return make, compiler.values(call)

    return build


# ---- shapes --------------------------------------------------------------------------------------


def compile_shape(compiler: Compiling, call: tree.Call):
    """``shape(T)``: the dimensions as a list of whole numbers."""
    (argument,) = compiler.values(call)
    check, origin = tensor_check(compiler, argument, "shape"), compiler.origin(call.span, True)

    def shape(args, value):
        check(value)
        made = []
        for dim in value._shape:
            node = Scalar.constant(dim)
            node.tag = origin
            made.append(node)
        return ListValue(made)

    return shape, (argument,)


def compile_reshape(compiler: Compiling, call: tree.Call):
    """``reshape(T, S…)``: the same elements in shape S (one -1: what the rest leaves)."""
    argument = compiler.values(call)[0]
    check, origin, span = tensor_check(compiler, argument, "reshape"), compiler.origin(call.span), call.span

    def reshape(args, value, *dims):
        check(value)
        wanted = [dim for dim in dims]
        shape = _shape_of(compiler, call, tuple(wanted), 1) if not _has_minus_one(wanted) else _whole_dims(compiler, call, wanted)
        return engine_call(compiler, span, origin, lambda: value.reshape(*shape))

    return reshape, compiler.values(call)


def _has_minus_one(values: list) -> bool:
    return any(value.__class__ is Scalar and value._value == -1.0 for value in values)


def _whole_dims(compiler: Compiling, call: tree.Call, values: list) -> tuple[int, ...]:
    """Dimensions with one -1 among them: each else checked as `_shape_of` does."""
    rest = [value for value in values if not (value.__class__ is Scalar and value._value == -1.0)]
    dims = iter(_shape_of(compiler, call, tuple(rest), 1)) if rest else iter(())
    return tuple(-1 if value.__class__ is Scalar and value._value == -1.0 else next(dims) for value in values)


def compile_transpose(compiler: Compiling, call: tree.Call):
    """``transpose(T)``: a rank-2 tensor's axes swapped; ``transpose(T, A, B)``: axes A and B."""
    exprs = compiler.values(call)
    check, origin, span = tensor_check(compiler, exprs[0], "transpose"), compiler.origin(call.span), call.span
    if len(exprs) == 2:
        raise compiler.fail(
            "wrong-arguments", "`transpose` takes a tensor, and optionally the two axes to swap", call.span,
            {"function": "transpose", "expected": [1, 3], "got": 2},
        )

    def transpose(args, value, *axes):
        check(value)
        numbers = [axis_number(compiler, axis, expr) for axis, expr in zip(axes, exprs[1:])]
        return engine_call(compiler, span, origin, lambda: value.transpose(*numbers))

    return transpose, exprs


def axis_number(compiler: Compiling, value: object, expr: tree.Expr) -> int:
    """An axis: a whole number (negative counts from the end; the engine checks the range)."""
    if value.__class__ is not Scalar:
        raise not_a_node(compiler.source, value, compiler.text_of(expr), expr.span, "an axis")
    return compiler.whole(value._value, expr.span, "an axis")  # type: ignore[attr-defined]
