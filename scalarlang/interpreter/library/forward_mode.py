"""Forward mode beside reverse mode: ``jvp(Y, X)`` (a value), ``tangents(Y, X)`` and
``jacobian([Y…], [X…])`` (statements), on the engine's forward passes (engine/forward.py).

- ``jvp(Y, X)``: the directional derivative of Y along X (tangent 1 on X), or with
  ``jvp(Y, [X…], [V…])`` along the direction V: a new constant.
- ``tangents``: the evaluation trace of that forward pass, every node in the order visited
  with its value and its tangent as a sum over its edges.
- ``jacobian``: the matrix by n forward passes and by m reverse passes, with their costs.

None of them changes the session: no gradient, no pass in its history, no name, no label (a
reverse pass of `jacobian` is the engine's `reverse_pass`, which commits nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...engine.errors import ScalarAutodiffError
from ...engine.forward_errors import (
    DirectionLengthMismatch,
    ForwardInputNotVariable,
    JacobianTooLarge,
    NonFiniteTangent,
    TensorInForwardMode,
)
from ...engine.numbers import format_number
from ...engine.scalar import Scalar
from ...language import tree
from ...language.diagnostics import LanguageError
from ..outcomes import JacobianShown, TangentNode, TangentsShown, TangentTerm
from ..values import ListValue, label_of
from .arguments import nodes_check

if TYPE_CHECKING:
    from ...engine.forward import ForwardTrace
    from ..context import Compiling, Running


# ---- jvp --------------------------------------------------------------------------------------


def compile_jvp(compiler: Compiling, call: tree.Call):
    """``jvp(Y, X[, V])``: a constant holding Y's tangent (the registry has checked Y is a node)."""
    origin = compiler.origin(call.span)
    read = _Arguments(compiler, "jvp", call)

    def combine(args, output, inputs, direction=None):
        trace = read.trace(output, inputs, direction)
        node = Scalar.constant(trace.tangent)
        node.tag = origin
        return node

    return combine, compiler.values(call)


# ---- tangents ---------------------------------------------------------------------------------


def compile_tangents(run: Running, statement: tree.ExprStatement, call: tree.Call):
    compiler = run.compiler
    read = _Arguments(compiler, "tangents", call)
    output_of = compiler.node_expression(call.args[0], "`tangents`")
    inputs_of = compiler.expression(call.args[1])
    direction_of = compiler.expression(call.args[2]) if len(call.args) == 3 else None
    span = statement.span

    def tangents(show):
        output = output_of(None)
        inputs = inputs_of(None)
        direction = None if direction_of is None else direction_of(None)
        trace = read.trace(output, inputs, direction)
        along_one = inputs.__class__ is Scalar and direction is None
        run.emit(tangents_shown(span, output, read.inputs(inputs), trace, along_one))

    return tangents


def tangents_shown(span, output: Scalar, inputs: list[Scalar], trace: ForwardTrace, along_one: bool) -> TangentsShown:
    """The trace as plain data: labels resolved, each node's terms as the pass added them."""
    nodes = []
    for index, node in enumerate(trace.topology):
        record = trace.node(index)
        terms = tuple(TangentTerm(t.operand, t.local_derivative, t.operand_tangent, t.product) for t in record.terms)
        nodes.append(TangentNode(index, label_of(node), _operation(node), record.value, record.tangent, record.seeded, terms))
    labels = tuple(map(label_of, inputs))
    return TangentsShown(span, label_of(output), labels, trace.direction, along_one, tuple(nodes), trace.tangent)


def _operation(node: Scalar) -> str:
    exponent = node.exponent
    return str(node.operation) if exponent is None else f"pow {format_number(exponent)}"


# ---- jacobian ---------------------------------------------------------------------------------

# The limits of one Jacobian (too-long past them, before any pass): its passes' node visits
# (n forward passes over the outputs' graph, one reverse pass per output over its own), a few
# seconds of work; and the entries of its matrix (each mode's), as many as a statement's calls.
MAX_JACOBIAN_VISITS = 10_000_000
MAX_JACOBIAN_ENTRIES = 1_000_000


def compile_jacobian(run: Running, statement: tree.ExprStatement, call: tree.Call):
    compiler = run.compiler
    outputs_of = compiler.expression(call.args[0])
    inputs_of = compiler.expression(call.args[1])
    outputs_check = nodes_check(compiler, "jacobian", call.args[0], "no outputs")
    read = _Arguments(compiler, "jacobian", call)
    span = statement.span

    def jacobian_of(show):
        outputs = _nodes(outputs_of(None), outputs_check)
        inputs = read.inputs(inputs_of(None))
        entries = len(outputs) * len(inputs)
        if entries > MAX_JACOBIAN_ENTRIES:
            raise _too_large(compiler, call, outputs, inputs,
                             f"its matrix would have {len(outputs):,} × {len(inputs):,} = {entries:,} entries; "
                             f"a Jacobian may have at most {MAX_JACOBIAN_ENTRIES:,}",
                             {"entries": entries, "limit": MAX_JACOBIAN_ENTRIES})
        from ...engine.forward import jacobian  # (on first use: start-up imports no forward mode)

        try:
            result = jacobian(outputs, inputs, MAX_JACOBIAN_VISITS)
        except JacobianTooLarge as error:
            least, more = ("", "") if error.complete else ("at least ", " or more")
            raise _too_large(compiler, call, outputs, inputs,
                             f"its passes would visit {least}{error.visits:,} nodes ({len(inputs):,} forward "
                             f"{'pass' if len(inputs) == 1 else 'passes'} over a graph of {error.nodes:,} nodes{more}, "
                             f"and a reverse pass per output over its own); a Jacobian may make at most "
                             f"{MAX_JACOBIAN_VISITS:,} node visits",
                             {"visits": error.visits, "limit": MAX_JACOBIAN_VISITS}) from None
        except ScalarAutodiffError as error:
            raise read.failure(error, outputs, inputs) from None
        run.emit(JacobianShown(
            span, tuple(map(label_of, outputs)), tuple(map(label_of, inputs)), result.forward, result.reverse,
            result.forward_passes, result.forward_visits, result.reverse_passes, result.reverse_visits,
            result.largest_difference,
        ))

    return jacobian_of


def _too_large(compiler: Compiling, call: tree.Call, outputs: list[Scalar], inputs: list[Scalar], why: str,
               fields: dict[str, int]) -> LanguageError:
    """`too-long`: a Jacobian past one of its limits, refused before any pass."""
    return compiler.fail(
        "too-long",
        f"`jacobian` of {len(outputs):,} {_plural(len(outputs), 'output')} by {len(inputs):,} "
        f"{_plural(len(inputs), 'input')}: {why}",
        call.span,
        {"outputs": len(outputs), "inputs": len(inputs), **fields},
        ("help: `jvp(Y, X)` is one column (one forward pass), `backward(Y)` one row (one reverse pass)",),
    )


def _nodes(value: Any, check) -> list[Scalar]:
    """A node, or a list of nodes (``check`` says what is wrong with any other value)."""
    if value.__class__ is Scalar:
        return [value]
    check(value)
    return list(value)


# ---- the arguments and their errors -----------------------------------------------------------


class _Arguments:
    """How one call of ``name`` reads its inputs (a node or a list of nodes) and its direction
    (a node or a list of nodes, whose values are the numbers), and words the engine's errors
    with the learner's labels at the argument they are about."""

    def __init__(self, compiler: Compiling, name: str, call: tree.Call):
        self.compiler = compiler
        self.name = name
        self.call = call
        self.inputs_check = nodes_check(compiler, name, call.args[1], "no inputs")
        self.direction_check = nodes_check(compiler, name, call.args[2], None) if len(call.args) == 3 else None

    def inputs(self, value: Any) -> list[Scalar]:
        return _nodes(value, self.inputs_check)

    def trace(self, output: Scalar, inputs_value: Any, direction_value: Any) -> ForwardTrace:
        inputs = self.inputs(inputs_value)
        if direction_value is None and inputs_value.__class__ is ListValue:
            raise self.compiler.fail(
                "wrong-arguments",
                f"`{self.name}` of a list of inputs moves them along a direction: give it as a third argument",
                self.call.span,
                {"function": self.name},
                (f"help: one number per input: `{self.name}(Y, [X1, X2], [1, 0])`",),
            )
        direction = None
        if direction_value is not None:
            assert self.direction_check is not None
            direction = [node._value for node in _nodes(direction_value, self.direction_check)]
        from ...engine.forward import forward_trace  # (on first use)

        try:
            return forward_trace(output, inputs, direction)
        except ScalarAutodiffError as error:
            raise self.failure(error, [output], inputs) from None

    def failure(self, error: ScalarAutodiffError, outputs: list[Scalar], inputs: list[Scalar]) -> LanguageError:
        compiler, name, args = self.compiler, self.name, self.call.args
        if isinstance(error, ForwardInputNotVariable):
            culprit = inputs[error.input]
            operation = str(culprit.operation)
            made = operation not in ("constant", "detached")
            return compiler.fail(
                "not-a-variable",
                f"`{name}` moves variables; `{label_of(culprit)}` is {error.operation}, not a variable",
                args[1].span,
                {"operation": operation, "input": error.input},
                ("help: its tangent follows from its operands': give the variables it is made of",) if made else (),
            )
        if isinstance(error, DirectionLengthMismatch):
            return compiler.fail(
                error.kind,
                f"`{name}` has {error.inputs} {_plural(error.inputs, 'input')} and a direction of "
                f"{error.direction} {_plural(error.direction, 'number')}: one number per input",
                args[2].span if len(args) == 3 else self.call.span,
                error.fields,
            )
        if isinstance(error, TensorInForwardMode):
            node = _node_at(outputs, error.node)
            return compiler.fail(
                error.kind, f"forward mode is for scalar graphs: `{label_of(node)}` ({error.operation}) is a tensor or takes one",
                args[0].span, error.fields,
            )
        if isinstance(error, NonFiniteTangent):
            node = _node_at(outputs, error.node)
            return compiler.fail(
                error.kind, f"the tangent of `{label_of(node)}` ({error.operation}) is {format_number(error.tangent)}",
                args[0].span, error.fields,
            )
        return compiler.engine_error(error, self.call.span)


def _node_at(outputs: list[Scalar], index: int) -> Scalar:
    """Node ``index`` of the forward pass over the outputs' graphs (their topologies, each
    adding what the ones before it did not have: engine/forward.py's order)."""
    seen: set[int] = set()
    order: list[Scalar] = []
    for output in outputs:
        for node in output.topology():
            if id(node) not in seen:
                seen.add(id(node))
                order.append(node)
    return order[index]


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"
