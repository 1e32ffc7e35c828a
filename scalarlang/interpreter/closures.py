"""Postfix items of a compiled expression turned into something to run: nested closures for
a shallow tree, an explicit value stack for a deep one (see ``expressions``).

An item is ``(combine, operand count, fuse)``: ``combine(args, *operand nodes)`` makes the
node; ``fuse(*operand closures)``, when given, makes the closure with its operands called
inline, one Python call less per node (the arithmetic operators, engine functions, calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.errors import ScalarAutodiffError
from ..engine.scalar import Scalar
from .failures import engine_failure

if TYPE_CHECKING:
    from .expressions import Evaluate


def arithmetic(operation, span, origin, source, not_nodes):
    """``left OP right``; ``not_nodes(left, right)`` is the error when one is a list."""

    def combine(args, left, right):
        if left.__class__ is not Scalar or right.__class__ is not Scalar:
            raise not_nodes(left, right)
        try:
            node = operation(left, right)
        except ScalarAutodiffError as error:
            raise engine_failure(source, error, span) from None
        node.tag = origin
        return node

    return combine


def fused(operation, span, origin, source, not_nodes):
    """The closure of ``left OP right`` with its operands' closures called inline."""

    def fuse(left, right):
        def run(args):
            a = left(args)
            b = right(args)
            if a.__class__ is not Scalar or b.__class__ is not Scalar:
                raise not_nodes(a, b)
            try:
                node = operation(a, b)
            except ScalarAutodiffError as error:
                raise engine_failure(source, error, span) from None
            node.tag = origin
            return node

        return run

    return fuse


def closures_of(items: list):
    closures: list = []
    for combine, count, fuse in items:
        if count == 0:
            closures.append(combine)
            continue
        operands = closures[len(closures) - count :]
        del closures[len(closures) - count :]
        if fuse is not None:
            closures.append(fuse(*operands))
        elif count == 1:
            closures.append(_one(combine, operands[0]))
        elif count == 2:
            closures.append(_two(combine, operands[0], operands[1]))
        else:
            closures.append(_many(combine, tuple(operands)))
    return closures[0]


def _one(combine, operand):
    return lambda args: combine(args, operand(args))


def _two(combine, left, right):
    return lambda args: combine(args, left(args), right(args))


def _many(combine, operands):
    return lambda args: combine(args, *[operand(args) for operand in operands])


def stack_runner(items: list) -> Evaluate:
    plan = tuple((combine, count) for combine, count, _ in items)

    def run(args: tuple | None) -> Scalar:
        values: list = []
        push = values.append
        for combine, count in plan:
            if count == 0:
                push(combine(args))
            elif count == 1:
                push(combine(args, values.pop()))
            else:
                operands = values[len(values) - count :]
                del values[len(values) - count :]
                push(combine(args, *operands))
        return values[0]

    return run
