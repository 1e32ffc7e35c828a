"""The built-in functions: their names, how many arguments each takes, how each builds its node.

Each entry's ``build(compiler, call)`` returns ``(combine, operand expressions)``: the
compiler evaluates the operands and calls ``combine(args, *operand values)`` (see
``expressions``). Built-in names are reserved: `let`, `fn` and parameters cannot take them.
The functions of lists (`len`, `sum`, `dot`, `uniform`, `read_table` ...) are in
``list_builtins``; this table names them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..language import tree
from . import list_builtins
from ..engine.scalar import Scalar
from ..engine.errors import ScalarAutodiffError
from .labels import label_of

# Functions that give a value, with their argument counts (None: one or more).
VALUE_FUNCTIONS: dict[str, int | None] = {
    "exp": 1, "tanh": 1, "log": 1, "detach": 1, "grad": 1, "value": 1,
    "sqrt": 1, "relu": 1, "sigmoid": 1, "abs": 1, "max": 2, "min": 2,
    "sum": None, "mean": None,
    # Counts, so exercises can assert them: unique nodes and operand edges of a graph, items
    # of a list.
    "node_count": 1, "edge_count": 1, "len": 1,
    # Lists: models as data.
    "dot": 2, "flatten": None, "zip": None, "uniform": 2, "gauss": 2, "read_table": 1,
}
# Calls that are statements of their own, with the argument counts they accept.
STATEMENT_FUNCTIONS: dict[str, tuple[int, ...]] = {
    "backward": (1, 2), "graph": (1,), "gradcheck": (2,), "draw": (1, 2), "random_seed": (1,),
    # Seeing the chain rule (docs/language.md).
    "explain": (1,), "paths": (2,), "walk": (1, 2),
}
# The one built-in that takes a text argument (a file name): the rest take values only.
TEXT_FUNCTIONS = frozenset({"read_table"})
# `gradcheck` takes 2 arguments or more (an output and its variables, maybe a step and a
# tolerance); its entry above is the least.
RESERVED_NAMES = frozenset(VALUE_FUNCTIONS) | frozenset(STATEMENT_FUNCTIONS)


@dataclass(frozen=True, slots=True)
class Builtin:
    arity: tuple[int, ...] | None  # None: one or more
    build: Callable


def arity_text(accepted: tuple[int, ...] | None) -> str:
    if accepted is None:
        return "1 or more arguments"
    wanted = " or ".join(str(count) for count in accepted)
    return f"{wanted} argument{'' if accepted == (1,) else 's'}"


def _engine_unary(method):
    def build(compiler, call: tree.Call):
        span, origin = call.span, compiler.origin(call.span)
        engine_error = compiler.engine_error
        not_a_node = compiler.node_check(call.args[0], f"`{call.function}`")

        def combine(args, operand):
            if operand.__class__ is not Scalar:
                raise not_a_node(operand)
            try:
                node = method(operand)
            except ScalarAutodiffError as error:
                raise engine_error(error, span) from None
            node.tag = origin
            return node

        def fuse(operand_of):  # the closure with its operand's called inline: one call less
            def run(args):
                operand = operand_of(args)
                if operand.__class__ is not Scalar:
                    raise not_a_node(operand)
                try:
                    node = method(operand)
                except ScalarAutodiffError as error:
                    raise engine_error(error, span) from None
                node.tag = origin
                return node

            return run

        return combine, call.args, fuse

    return build


def _engine_binary(method):
    def build(compiler, call: tree.Call):
        span, origin = call.span, compiler.origin(call.span)
        engine_error = compiler.engine_error
        left_error = compiler.node_check(call.args[0], f"`{call.function}`")
        right_error = compiler.node_check(call.args[1], f"`{call.function}`")

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

        return combine, call.args

    return build


def _constant_of(read, count: bool = False):
    """A built-in whose result is a new constant holding ``read(operand)``."""

    def build(compiler, call: tree.Call):
        origin = compiler.origin(call.span, count)
        not_a_node = compiler.node_check(call.args[0], f"`{call.function}`")

        def combine(args, operand):
            if operand.__class__ is not Scalar:
                raise not_a_node(operand)
            node = Scalar.constant(read(operand))
            node.tag = origin
            return node

        return combine, call.args

    return build


def _build_grad(compiler, call: tree.Call):
    origin = compiler.origin(call.span)
    argument_span = call.args[0].span
    not_a_node = compiler.node_check(call.args[0], "`grad`")

    def combine(args, operand):
        if operand.__class__ is not Scalar:
            raise not_a_node(operand)
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

    return combine, call.args


def _topology_size(node: Scalar) -> int:
    return len(node.topology())


def _edge_count(node: Scalar) -> int:
    return sum(len(member.parents) for member in node.topology())


BUILTINS: dict[str, Builtin] = {
    "exp": Builtin((1,), _engine_unary(Scalar.exp)),
    "tanh": Builtin((1,), _engine_unary(Scalar.tanh)),
    "log": Builtin((1,), _engine_unary(Scalar.log)),
    "detach": Builtin((1,), _engine_unary(Scalar.detach)),
    "sqrt": Builtin((1,), _engine_unary(Scalar.sqrt)),
    "relu": Builtin((1,), _engine_unary(Scalar.relu)),
    "sigmoid": Builtin((1,), _engine_unary(Scalar.sigmoid)),
    "abs": Builtin((1,), _engine_unary(Scalar.abs)),
    "max": Builtin((2,), _engine_binary(Scalar.max)),
    "min": Builtin((2,), _engine_binary(Scalar.min)),
    "grad": Builtin((1,), _build_grad),
    "value": Builtin((1,), _constant_of(lambda node: node.value)),
    "node_count": Builtin((1,), _constant_of(_topology_size, count=True)),
    "edge_count": Builtin((1,), _constant_of(_edge_count, count=True)),
    "sum": Builtin(None, list_builtins.build_sum),
    "mean": Builtin(None, list_builtins.build_mean),
    "len": Builtin((1,), list_builtins.build_len),
    "dot": Builtin((2,), list_builtins.build_dot),
    "flatten": Builtin(None, list_builtins.build_flatten),
    "zip": Builtin(None, list_builtins.build_zip),
    "uniform": Builtin((2,), list_builtins.build_uniform),
    "gauss": Builtin((2,), list_builtins.build_gauss),
    "read_table": Builtin((1,), list_builtins.build_read_table),
}
if set(BUILTINS) != set(VALUE_FUNCTIONS):
    raise RuntimeError("every value function needs a builder")
