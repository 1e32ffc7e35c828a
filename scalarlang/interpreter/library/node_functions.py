"""The value functions of single nodes, compiled for the `Compiler`: the engine's operations
(`exp`, `max`, `detach`, ...), `grad`, `value` and `floor` (constants read off a node), and the
counts of a graph (`node_count`, `edge_count`). Their entries are in ``registry.VALUE_FUNCTIONS``.

Each ``compile(compiler, call)`` returns ``(combine, operand expressions[, fuse])``: the
compiler evaluates the operands and calls ``combine(args, *operand values)`` (see
``expressions``); the registry has checked the call's shape already.
"""

from __future__ import annotations

import math
from typing import Callable, TYPE_CHECKING

from ...engine.errors import ScalarAutodiffError
from ...engine.scalar import Scalar
from ...engine.tensor_formulas import tensor_edges
from ...engine.tensor_operations import TensorOperation
from ...language import tree
from ..values import label_of

if TYPE_CHECKING:
    from ..context import Compiling


def engine_unary(method: Callable[[Scalar], Scalar]):
    """A built-in that is the engine's operation of one node (its entry's kind `NODE`: the
    registry has checked the operand is one)."""

    def build(compiler: Compiling, call: tree.Call):
        span, origin = call.span, compiler.origin(call.span)
        engine_error = compiler.engine_error

        def combine(args, operand):
            try:
                node = method(operand)
            except ScalarAutodiffError as error:
                raise engine_error(error, span) from None
            node.tag = origin
            return node

        return combine, compiler.values(call)

    return build


def engine_binary(method: Callable[[Scalar, Scalar], Scalar]):
    """A built-in that is the engine's operation of two nodes."""

    def build(compiler: Compiling, call: tree.Call):
        span, origin = call.span, compiler.origin(call.span)
        engine_error = compiler.engine_error
        left_error = compiler.node_check(compiler.values(call)[0], f"`{call.function}`")
        right_error = compiler.node_check(compiler.values(call)[1], f"`{call.function}`")

        def combine(args, left, right):
            if left.__class__ is not Scalar:
                raise left_error(left)
            if right.__class__ is not Scalar:
                raise right_error(right)
            try:
                node = method(left, right)
            except ScalarAutodiffError as error:
                raise engine_error(error, span) from None
            node.tag = origin
            return node

        return combine, compiler.values(call)

    return build


def _constant_of(read, count: bool = False):
    """A built-in whose result is a new constant holding ``read(operand)`` (a node: `NODE`)."""

    def build(compiler: Compiling, call: tree.Call):
        origin = compiler.origin(call.span, count)

        def combine(args, operand):
            node = Scalar.constant(read(operand))
            node.tag = origin
            return node

        return combine, compiler.values(call)

    return build


def compile_grad(compiler: Compiling, call: tree.Call):
    origin = compiler.origin(call.span)
    argument_span = compiler.values(call)[0].span

    def combine(args, operand):
        gradient = operand._gradient
        if gradient is None:
            raise compiler.fail(
                "no-gradient",
                f"`{label_of(operand)}` is untracked ({operand.operation}) and has no gradient",
                argument_span,
                {"operation": str(operand.operation)},
            )
        node = Scalar.constant(gradient)
        node.tag = origin
        return node

    return combine, compiler.values(call)


def _topology_size(node: Scalar) -> int:
    return len(node.topology())


def _edge_count(node: Scalar) -> int:
    """The operand edges of ``node``'s graph as `graph` counts them: a tensor, and a scalar a
    tensor operation made (`sum(T)`), by their VJP edges."""
    count = 0
    for member in node.topology():
        if member.__class__ is Scalar and member._operation.__class__ is not TensorOperation:
            count += len(member.parents)
        else:
            count += len(tensor_edges(member))
    return count


compile_value = _constant_of(lambda node: node.value)
compile_node_count = _constant_of(_topology_size, count=True)
compile_edge_count = _constant_of(_edge_count, count=True)
# (a node's value is finite, so its floor is a float: math.floor gives an exact int)
compile_floor = _constant_of(lambda node: float(math.floor(node._value)), count=True)
