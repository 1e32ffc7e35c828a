"""What each edge of a tensor operation does, in words a person reads: its VJP as a formula
(``dA = dC @ Bᵀ``) and how many scalar edges of the chapter's engine it stands for (``[32, 30]
@ [30, 200]``: 192,000 multiply edges).

C is the node, dC its adjoint; A is its first operand and B its second (either may be a
number, which has no edge: ``2 * T``'s one edge is B's). An operand smaller than C (a scalar
node, or a tensor broadcast) gets its contribution summed to its own shape, and its formula
says so. Pictures and `explain` read these; the VJPs themselves are in the operations' modules.
"""

from __future__ import annotations

from typing import Any

from .numbers import format_parameter
from .scalar import Scalar
from .tensor_shapes import show_shape, unravel
from .tensor_node import RemakeableVJP, TensorNode
from .tensor_operations import TensorOperation as Op

# The formula of each side of an operation (A's, B's), in C, dC and the operands.
_BINARY: dict[Op, tuple[str, str]] = {
    Op.ADD: ("dA = dC", "dB = dC"),
    Op.SUB: ("dA = dC", "dB = -dC"),
    Op.MUL: ("dA = dC * B", "dB = dC * A"),
    Op.DIV: ("dA = dC / B", "dB = -dC * C / B"),
    Op.MAXIMUM: ("dA = dC where A > B (half on a tie)", "dB = dC where B > A (half on a tie)"),
    Op.MINIMUM: ("dA = dC where A < B (half on a tie)", "dB = dC where B < A (half on a tie)"),
    Op.DOT: ("dA = dC * B", "dB = dC * A"),
}
_UNARY: dict[Op, str] = {
    Op.NEG: "dA = -dC",
    Op.EXP: "dA = dC * C",
    Op.LOG: "dA = dC / A",
    Op.TANH: "dA = dC * (1 - C²)",
    Op.SQRT: "dA = dC / (2 * C)",
    Op.RELU: "dA = dC * (A > 0)",
    Op.SIGMOID: "dA = dC * C * (1 - C)",
    Op.ABS: "dA = dC * sign(A)",
    Op.LOGSUMEXP: "dA = dC * softmax(A)",
    Op.SOFTMAX: "dA = C * (dC - sum(dC * C))",
    Op.CROSS_ENTROPY: "dA = dC * (softmax(A) - one_hot(Y))",
    Op.MAX: "dA = dC at the largest, 0 elsewhere",
    Op.MIN: "dA = dC at the smallest, 0 elsewhere",
    Op.INDEX: "dA[i] = dC, 0 elsewhere",
    Op.GATHER: "dA[I] += dC (repeated rows added)",
    Op.TRANSPOSE: "dA = transpose(dC)",
}
EVERY_FORMULA = frozenset(_BINARY) | frozenset(_UNARY) | {Op.POW, Op.MATMUL, Op.SUM, Op.MEAN, Op.RESHAPE, Op.STACK}


def tensor_edges(node: Any) -> tuple[tuple[Any, Any], ...]:
    """The (operand, VJP) edges of a node made by a tensor operation, a scalar node too."""
    if node._left is None:
        return ()
    return ((node._left, node._dleft), *node._dright)


def _shape(node: Any) -> tuple[int, ...]:
    return node._shape if isinstance(node, TensorNode) else ()


def _size(node: Any) -> int:
    return len(node._values) if isinstance(node, TensorNode) else 1


def _arguments(node: Any) -> tuple[Any, ...]:
    """The arguments the node's operation was called with (its first VJP remembers them)."""
    vjp = node._dleft
    return vjp.arguments if isinstance(vjp, RemakeableVJP) else ()


def _side(node: Any, slot: int) -> int:
    """Which operand (0: A, 1: B) the edge in ``slot`` goes to: a number has no edge."""
    edges = tensor_edges(node)
    if len(edges) == 2:
        return slot
    arguments = _arguments(node)
    if len(arguments) == 2 and arguments[0] is not edges[slot][0]:
        return 1
    return 0


def vjp_formula(node: Any, slot: int) -> str:
    """The formula of the VJP on ``node``'s operand edge ``slot`` (the node is made by a
    tensor operation: a tensor node, or a scalar node of a sum, an element, a dot)."""
    operation = node._operation
    operand = tensor_edges(node)[slot][0]
    if operation in _BINARY:
        side = _side(node, slot)
        formula = _BINARY[operation][side]
        if operation is not Op.DOT and _shape(operand) != _shape(node):
            letter = "AB"[side]
            formula += f", summed to {letter}'s shape {show_shape(_shape(operand))}" if isinstance(
                operand, TensorNode) else f", summed over C ({letter} a scalar)"
        return formula
    if operation in _UNARY:
        return _UNARY[operation]
    if operation is Op.POW:
        arguments = _arguments(node)
        power = format_parameter(float(arguments[1])) if len(arguments) == 2 else "p"
        return f"dA = dC * {power} * A ** ({power} - 1)"
    if operation is Op.MATMUL:
        left, right = tensor_edges(node)[0][0], tensor_edges(node)[1][0]
        if len(_shape(right)) == 1:
            return ("dA = outer(dC, B)", "dB = Aᵀ @ dC")[slot]
        if len(_shape(left)) == 1:
            return ("dA = B @ dC", "dB = outer(A, dC)")[slot]
        return ("dA = dC @ Bᵀ", "dB = Aᵀ @ dC")[slot]
    if operation is Op.SUM:
        return "dA = dC, repeated over every element" if node.__class__ is Scalar else "dA = dC, repeated along the axis"
    if operation is Op.MEAN:
        count = _size(operand) // _size(node)
        where = "every element" if node.__class__ is Scalar else "the axis"
        return f"dA = dC / {count:,}, repeated over {where}"
    if operation is Op.RESHAPE:
        return f"dA = reshape(dC, {show_shape(_shape(operand))})"
    if operation is Op.STACK:
        return f"dA = dC{list(unravel(_stack_position(node, slot), _shape(node)))}"
    return "dA = VJP(dC)"


def _stack_position(node: Any, slot: int) -> int:
    """The row-major place of the item on a stacking node's edge ``slot`` (its VJP picks it)."""
    vjp = tensor_edges(node)[slot][1]
    vjp = vjp.vjp if isinstance(vjp, RemakeableVJP) else vjp
    reduced = vjp.__reduce__()  # an `operator.itemgetter(at)`
    return int(reduced[1][0])


def scalar_edges(node: Any, slot: int) -> tuple[int, str]:
    """How many edges the same operation made of scalar nodes (as the language writes it with
    lists, and vjp_check rebuilds it) would have into the operand's elements on edge ``slot``,
    and what they are: ``(192000, "multiply")`` for a [32, 30] @ [30, 200]
    operand, ``(6, "scalar")`` for an element-wise operation on 6 elements."""
    operation = node._operation
    operand = tensor_edges(node)[slot][0]
    if operation is Op.MATMUL or operation is Op.DOT:
        inner = _shape(tensor_edges(node)[0][0])[-1]
        return _size(node) * inner, "multiply"
    if operation in (Op.SUM, Op.MEAN, Op.MAX, Op.MIN, Op.LOGSUMEXP):
        return _size(operand), "scalar"
    if operation is Op.SOFTMAX:  # each element into its fiber's max, and into its own x - max
        return 2 * _size(node), "scalar"
    if operation is Op.CROSS_ENTROPY:
        return _size(operand) + _shape(operand)[0], "scalar"  # its logsumexp's, and the picked logit's
    if operation is Op.STACK:
        return 1, "scalar"
    return _size(node), "scalar"  # element-wise (broadcast included), and the copies


_SYMBOLS = {Op.ADD: "+", Op.SUB: "-", Op.MUL: "*", Op.DIV: "/", Op.MATMUL: "@", Op.DOT: "@", Op.POW: "**"}


def operation_shapes(node: Any) -> str:
    """The operation on its operands' shapes and what it gives: ``[32, 30] @ [30, 200] →
    [32, 200]``, ``[4, 3] * scalar → [4, 3]``, ``sum([4, 3]) → scalar``."""
    edges = tensor_edges(node)
    result = show_shape(_shape(node)) if isinstance(node, TensorNode) else "scalar"
    shapes = [show_shape(_shape(operand)) if isinstance(operand, TensorNode) else "scalar" for operand, _ in edges]
    operation = node._operation
    symbol = _SYMBOLS.get(operation)
    if symbol is not None and operation is not Op.POW:
        if len(shapes) == 1:  # the other side is a number
            shapes.insert(1 - _side(node, 0), "number")
        return f"{shapes[0]} {symbol} {shapes[1]} → {result}"
    if operation is Op.POW:
        arguments = _arguments(node)
        power = format_parameter(float(arguments[1])) if len(arguments) == 2 else "p"
        return f"{shapes[0]} ** {power} → {result}"
    if operation is Op.STACK:
        return f"tensor of {len(shapes):,} scalar nodes → {result}"
    return f"{operation}({', '.join(shapes)}) → {result}"
