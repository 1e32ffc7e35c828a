"""The tensor forms of built-ins that nodes and lists have too (`exp(T)`, `sum(T, axis: 0)`,
`softmax(T)`, `len(T)`, ...): one registry row per name, whose compile function is
`tensors_too` of the node-and-list form and the tensor form. A call runs the tensor form when
an argument is a tensor, else the other form, its arguments checked as its kinds say (the
checks `arguments.checked` makes of an entry), at the same speed as before.

`axis: K` (negative from the end) is the tensor forms' own: of a list it is `wrong-arguments`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ...engine.scalar import Scalar
from ...engine.tensor import Tensor
from ...engine.tensor_errors import show_shape
from ...language import tree
from ..failures import not_a_node
from ..values import ListValue, label_of
from .arguments import Kind, checked
from .logits import index_drawer
from .tensor_functions import MAX_ELEMENTS, axis_number, engine_call, tensor_check, too_many

if TYPE_CHECKING:
    from ..context import Compiling

TensorForm = Callable[["Compiling", tree.Call], Callable[..., Any]]


class TensorsToo:
    """The compile function of a name tensors have too: its calls run ``tensor``'s form when an
    argument is a tensor (``lists``: or when the first is a list), else ``scalar``'s, checked
    by its entry's kinds (`ValueFunction.compiled` hands them over)."""

    __slots__ = ("scalar", "tensor", "lists")

    def __init__(self, scalar: Callable, tensor: TensorForm, lists: bool = False):
        self.scalar = scalar
        self.tensor = tensor
        self.lists = lists

    def __call__(self, compiler: Compiling, call: tree.Call) -> tuple:  # (unchecked: as an entry's)
        return self.scalar(compiler, call)

    def compiled(self, name: str, kind_of: Callable[[int], Kind], empty: str | None, compiler: Compiling,
                 call: tree.Call) -> tuple:
        lists = self.lists
        args = compiler.values(call)
        keywords = tuple(keyword.value for keyword in call.keywords)
        tensor_combine = self.tensor(compiler, call)
        if keywords:  # `axis:`: only the tensor form takes it
            not_a_tensor_call = compiler.fail(
                "wrong-arguments", f"`{name}`'s `{call.keywords[0].name}:` is for a tensor; `{compiler.text_of(args[0])}`"
                " is not one", keywords[0].span, {"function": name, "name": call.keywords[0].name},
            )

            def with_axis(call_args, *values):
                if values[0].__class__ is Tensor or (lists and values[0].__class__ is ListValue):
                    return tensor_combine(call_args, *values)
                raise not_a_tensor_call

            return with_axis, args + keywords, None
        raw = self.scalar(compiler, call)
        scalar_combine, scalar_operands, _ = checked(name, kind_of, empty, compiler, call, raw)
        if len(args) == 1:
            plain, node_kind = raw[0], kind_of(0) is Kind.NODE

            def one(call_args, value):
                if value.__class__ is Tensor or (lists and value.__class__ is ListValue):
                    return tensor_combine(call_args, value)
                return scalar_combine(call_args, value)

            def fuse(operand_of):
                def run(call_args):
                    value = operand_of(call_args)
                    if node_kind and value.__class__ is Scalar:  # (checked: the fast path of training)
                        return plain(call_args, value)
                    return one(call_args, value)

                return run

            return one, scalar_operands, fuse

        def many(call_args, *values):
            for value in values:
                if value.__class__ is Tensor:
                    return tensor_combine(call_args, *values)
            if lists and values[0].__class__ is ListValue:
                return tensor_combine(call_args, *values)
            return scalar_combine(call_args, *values)

        return many, scalar_operands, None


def tensors_too(scalar: Callable, tensor: TensorForm, lists: bool = False) -> TensorsToo:
    return TensorsToo(scalar, tensor, lists)


# ---- the tensor forms ------------------------------------------------------------------------------


def method(name: str, method_name: str | None = None) -> TensorForm:
    """``name(T)``: the `Tensor` method of that name (`exp`, `relu`, `detach`, ...)."""
    attribute = method_name or name

    def build(compiler: Compiling, call: tree.Call):
        origin, span = compiler.origin(call.span), call.span
        checks = [tensor_check(compiler, arg, name) for arg in compiler.values(call)]

        def apply(args, value, *rest):
            checks[0](value)
            return engine_call(compiler, span, origin, getattr(value, attribute))

        return apply

    return build


def value_of(compiler: Compiling, call: tree.Call):
    """``value(T)``: a constant tensor of T's values."""
    origin, span = compiler.origin(call.span), call.span

    def value(args, tensor):
        return engine_call(compiler, span, origin, Tensor.constant, tensor.tolist())

    return value


def gradient_of(compiler: Compiling, call: tree.Call):
    """``grad(T)``: a constant tensor of T's stored gradient; `no-gradient` if untracked."""
    origin, argument_span = compiler.origin(call.span), compiler.values(call)[0].span

    def gradient(args, tensor):
        stored = tensor.gradient_tensor()
        if stored is None:
            raise compiler.fail(
                "no-gradient", f"`{label_of(tensor)}` is untracked ({tensor.operation}) and has no gradient",
                argument_span, {"operation": str(tensor.operation)},
            )
        stored.tag = origin
        return stored

    return gradient


def reduction(name: str, method_name: str | None = None, default_axis: int | None = None) -> TensorForm:
    """``name(T)`` over every element (a scalar node), or ``name(T, axis: K)`` along axis K."""
    attribute = method_name or name

    def build(compiler: Compiling, call: tree.Call):
        origin, span = compiler.origin(call.span), call.span
        args = compiler.values(call)
        axis_expr = next((keyword.value for keyword in call.keywords if keyword.name == "axis"), None)
        count = len(args)
        check = tensor_check(compiler, args[0], name)

        def reduce(call_args, value, *keyword_values):
            if count != 1:
                raise compiler.fail(
                    "wrong-arguments", f"`{name}` of a tensor takes one tensor (and `axis:`)", span,
                    {"function": name, "expected": [1], "got": count},
                )
            check(value)
            if axis_expr is None:
                axis = default_axis
            else:
                axis = axis_number(compiler, keyword_values[0], axis_expr)
            operation = getattr(value, attribute)
            if axis is None:
                return engine_call(compiler, span, origin, operation)
            return engine_call(compiler, span, origin, operation, axis)

        return reduce

    return build


def cross_entropy(compiler: Compiling, call: tree.Call):
    """``cross_entropy(Z, Y)``: Z [B, V], Y a list or rank-1 tensor of B class indices: the B row
    losses, a rank-1 tensor."""
    logits, targets = compiler.values(call)
    origin, span = compiler.origin(call.span), call.span
    check = tensor_check(compiler, logits, "cross_entropy")

    def losses(args, value, target):
        check(value)
        indices = _indices(compiler, target, targets)
        return engine_call(compiler, span, origin, value.cross_entropy, indices)

    return losses


def one_hot(compiler: Compiling, call: tree.Call):
    """``one_hot(I, N)`` of a list or a rank-1 tensor of indices: a constant [len(I), N]."""
    indices_expr, classes_expr = compiler.values(call)
    origin = compiler.origin(call.span)

    def encode(args, indices, classes):
        items = _indices(compiler, indices, indices_expr)
        count = axis_number(compiler, classes, classes_expr)
        if count < 1:
            raise compiler.fail(
                "not-a-count", f"the length of `one_hot` must be a whole number of at least 1, not {count}",
                classes_expr.span, {"value": count},
            )
        rows = len(items) if items.__class__ is not Tensor or items.rank == 1 else 0  # (else the engine's shape error)
        if rows * count > MAX_ELEMENTS:
            raise too_many(compiler, classes_expr.span)
        return engine_call(compiler, indices_expr.span, origin, Tensor.one_hot, items, count)

    return encode


def sample(compiler: Compiling, call: tree.Call):
    """``sample(P)`` of a rank-1 tensor of probabilities (`softmax(logits)[0]`): an index drawn
    as of the list of its elements."""
    (argument,) = compiler.values(call)
    draw = index_drawer(compiler, call, tensor=True)

    def drawn(args, value):
        if len(value._shape) != 1:
            shape = list(value._shape)
            raise compiler.fail(
                "wrong-arguments", f"`sample` draws from a rank-1 tensor of probabilities; "
                f"`{compiler.text_of(argument)}` is {show_shape(value._shape)}", argument.span,
                {"function": "sample", "shape": shape},
                (f"help: one row of it is `{compiler.text_of(argument)}[0]`",),
            )
        return draw(list(value._values))

    return drawn


def _indices(compiler: Compiling, value: object, expr: tree.Expr) -> Any:
    """A tensor of indices as it is, a list of nodes as their values."""
    if value.__class__ is Tensor:
        return value
    if value.__class__ is not ListValue:
        raise compiler.fail(
            "not-a-list", f"`{compiler.text_of(expr)}` is not a list or a tensor of indices", expr.span,
            {"found": "node" if value.__class__ is Scalar else "text"},
        )
    items = []
    for index, item in enumerate(value):  # type: ignore[arg-type]
        if item.__class__ is not Scalar:
            raise compiler.fail(
                "not-an-index", f"`{compiler.text_of(expr)}[{index}]` is not a number", expr.span, {"index": index},
            )
        items.append(item._value)
    return items


def length(compiler: Compiling, call: tree.Call):
    """``len(T)``: the first dimension, a count."""
    origin = compiler.origin(call.span, True)

    def first(args, value):
        node = Scalar.constant(value._shape[0])
        node.tag = origin
        return node

    return first


def pairwise(name: str) -> TensorForm:
    """``max(A, B)`` / ``min(A, B)`` with a tensor: the element-wise larger (smaller)."""
    attribute = "maximum" if name == "max" else "minimum"

    def build(compiler: Compiling, call: tree.Call):
        origin, span = compiler.origin(call.span), call.span
        reduce = reduction(name)(compiler, call) if len(call.args) == 1 else None

        def apply(args, *values):
            if reduce is not None:
                return reduce(args, *values)
            if len(values) != 2:
                raise compiler.fail(
                    "wrong-arguments", f"`{name}` of tensors takes one tensor, or two (element-wise)", span,
                    {"function": name},
                )
            for value, expr in zip(values, call.args):
                if value.__class__ is not Tensor and value.__class__ is not Scalar:
                    raise not_a_node(compiler.source, value, compiler.text_of(expr), expr.span, f"`{name}`")
            left, right = values
            if left.__class__ is not Tensor:
                left, right = right, left  # (max and min are symmetric)
            return engine_call(compiler, span, origin, getattr(left, attribute), right)

        return apply

    return build
