"""Functions defined with ``fn``: the compiled function, and what a call of one runs."""

from __future__ import annotations

from ..engine.scalar import Scalar
from ..language import tree
from ..language.diagnostics import LanguageError
from .failures import with_note
from ..language.source import Span


class Function:
    """A function defined by ``fn``: its body compiled with its parameters as argument slots."""

    __slots__ = ("name", "params", "arity", "body", "origin", "depth", "span")

    def __init__(self, name: str, params: tuple[str, ...], body, origin, depth: int, span: Span):
        self.name = name
        self.params = params
        self.arity = len(params)
        self.body = body
        self.origin = origin  # the tag of the body's own result node
        self.depth = depth
        self.span = span

    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


def invocation(compiler, call: tree.Call, fixed: Function | None):
    """``(combine, operands, fuse)`` of a call of a function defined with ``fn``: ``fixed``
    when the compiler resolved it (in a function body), else looked up when the call runs."""
    call_origin, get = compiler.origin(call.span), compiler.names.get
    note = f"in the call `{compiler.text_of(call)}` at {call.span.line}:{call.span.column}"
    name, count = call.function, len(call.args)

    def call_with(operands: tuple):
        function = fixed if fixed is not None else get(name)
        if function.__class__ is not Function or function.arity != count:
            raise compiler.resolve_failure(call, function)
        try:
            result = function.body(operands)
        except LanguageError as error:
            raise with_note(error, note) from None
        if result.__class__ is Scalar and result.tag is function.origin:  # made by the body itself
            result.tag = call_origin  # named by the call
        return result

    def combine(args, *operands):
        return call_with(operands)

    def fuse(*operand_closures):
        if len(operand_closures) == 1:
            (first,) = operand_closures
            return lambda args: call_with((first(args),))
        if len(operand_closures) == 2:
            first, second = operand_closures
            return lambda args: call_with((first(args), second(args)))
        if len(operand_closures) == 3:
            first, second, third = operand_closures
            return lambda args: call_with((first(args), second(args), third(args)))
        if len(operand_closures) == 4:
            first, second, third, fourth = operand_closures
            return lambda args: call_with((first(args), second(args), third(args), fourth(args)))
        if len(operand_closures) == 5:
            first, second, third, fourth, fifth = operand_closures
            return lambda args: call_with((first(args), second(args), third(args), fourth(args), fifth(args)))
        return lambda args: call_with(tuple([operand(args) for operand in operand_closures]))

    return combine, call.args, fuse
