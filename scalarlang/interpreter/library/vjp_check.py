"""The statement `vjp_check(LOSS)`: the bridge from scalars to tensors.

For every tensor node of LOSS's graph, the engine (`engine/vjp_check.py`) makes the same
operation again from scalar nodes, pushes the node's adjoint back through those scalar edges and
compares what they give each operand element with what the node's VJP gives it. This module
words it for the learner: the session's labels, the operation on its shapes, the element that
differs most; its errors with their spans. A failed check is shown (its table names the node and
the element) and then is the error `vjp-check-failed`, as a failed `gradcheck` is an error: a
script stops there with exit status 1, and `expect vjp-check-failed:` can expect it.

Nothing of the session changes: the engine's pass writes no stored gradient, the history keeps
no pass of it, and nothing is drawn from the session's generator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...engine.errors import ScalarAutodiffError
from ...engine.gradcheck import GRADCHECK_TOLERANCE
from ...engine.numbers import format_exponent, format_number
from ...engine.passes import topology as topology_of
from ...engine.tensor_formulas import operation_shapes, tensor_edges
from ...engine.tensor_operations import TensorOperation
from ...engine.tensor_shapes import Shape
from ...language import tree
from ...language.diagnostics import LanguageError
from ..tensor_outcomes import NodeVJPChecked, OperandVJPChecked, VJPCheckShown
from ..values import label_of
from .graphs import pass_failure

if TYPE_CHECKING:
    from ...engine.vjp_check import NodeVJPCheck, OperandVJPCheck
    from ..context import Compiling, Running


def compile_vjp_check(run: Running, statement: tree.ExprStatement, call: tree.Call):
    """``vjp_check(LOSS[, tolerance: T])``: every tensor VJP of LOSS's graph against the sum of
    its scalar edges; shown whether or not it passed, then, failed, the error."""
    compiler = run.compiler
    loss_expr = compiler.values(call)[0]
    loss_of = compiler.node_expression(loss_expr, "`vjp_check`")
    given = {keyword.name: keyword.value for keyword in call.keywords}  # (checked by the registry)
    tolerance_expr = given.get("tolerance")
    tolerance_of = compiler.number(tolerance_expr) if tolerance_expr is not None else None
    tolerance_span = tolerance_expr.span if tolerance_expr is not None else call.span
    loss_span, span = loss_expr.span, statement.span

    def check(show):
        # On first use, and through the package: `engine.vjp_check` names both the function and
        # its module, and importing the module by its path would leave the package's name bound
        # to the module (`from scalarlang.engine import vjp_check` then gives a module).
        from ...engine import vjp_check

        loss = loss_of(None)
        tolerance = tolerance_of(None) if tolerance_of is not None else GRADCHECK_TOLERANCE
        try:
            result = vjp_check(loss, tolerance)
        except ScalarAutodiffError as error:
            if error.kind == "invalid-gradcheck-tolerance":
                raise compiler.engine_error(error, tolerance_span) from None
            raise pass_failure(compiler, error, loss, call.span, loss_span) from None
        topology = topology_of(loss)
        if not result.nodes:
            raise _no_tensor_vjp(compiler, loss, topology, loss_span)
        nodes = tuple(_node_checked(check, topology[check.node]) for check in result.nodes)
        shown = VJPCheckShown(
            span, label_of(loss), nodes, result.scalar_edges,
            max(node.largest_difference for node in nodes), max(node.scaled_error for node in nodes),
            result.tolerance, result.passed,
        )
        run.emit(shown)  # (a failed check too: its table is what says where)
        if not shown.passed:
            raise _check_failed(compiler, shown, call.span)

    return check


def _node_checked(check: NodeVJPCheck, node: Any) -> NodeVJPChecked:
    edges = tensor_edges(node)
    operands = tuple(_operand_checked(operand, edges[operand.slot][0]) for operand in check.operands)
    return NodeVJPChecked(
        check.node, label_of(node), str(node.operation), operation_shapes(node), check.scalar_edges, operands,
        check.largest_difference, check.scaled_error, check.passed, check.problem,
    )


def _operand_checked(check: OperandVJPCheck, operand: Any) -> OperandVJPChecked:
    nan = float("nan")
    tensor, scalar = nan, nan  # (a VJP of the wrong size has no element to show)
    if len(check.tensor) == len(check.scalar):
        at = _flat(check.element, check.shape)
        tensor, scalar = check.tensor[at], check.scalar[at]
    return OperandVJPChecked(
        check.slot, label_of(operand), check.shape, check.scalar_edges, check.largest_difference,
        check.scaled_error, check.element, tensor, scalar, check.passed,
    )


def _flat(element: Shape, shape: Shape) -> int:
    """The row-major position of ``element`` in ``shape`` (``()``: the only one)."""
    flat = 0
    for index, dimension in zip(element, shape):
        flat = flat * dimension + index
    return flat


def _no_tensor_vjp(compiler: Compiling, loss, topology, span) -> LanguageError:
    """`no-tensor-vjp`: nothing to check, no tensor operation in the graph, or none the pass
    computes a VJP for (each untracked). The one wording of the kind."""
    label = label_of(loss)
    tensors = sum(1 for node in topology if node._operation.__class__ is TensorOperation)
    if tensors:
        found = (f"its {tensors:,} tensor operation{'' if tensors == 1 else 's'} "
                 f"depend{'s' if tensors == 1 else ''} on no variable")
    else:
        found = "it holds scalar nodes only"
    return compiler.fail(
        "no-tensor-vjp",
        f"`vjp_check` compares the VJPs of tensor operations with their scalar edges; `{label}`'s graph has "
        f"none to compare: {found}",
        span,
        {"output": label, "tensor_operations": tensors},
        (f"help: `gradcheck({label}, X)` checks a variable's adjoint against a central difference",),
    )


def _check_failed(compiler: Compiling, shown: VJPCheckShown, span) -> LanguageError:
    """`vjp-check-failed`, naming the node that failed worst and the element that differs."""
    failures = shown.failures
    worst = next((node for node in failures if node.problem is not None), None) or max(
        failures, key=lambda node: node.scaled_error)
    operand = worst.failing
    where = f"`{worst.label}` ({worst.operation}, {worst.shapes})"
    fields: dict[str, Any] = {
        "node": worst.label, "operation": worst.operation, "failed": len(failures), "tolerance": shown.tolerance,
    }
    if operand is None:
        message = f"vjp_check of `{shown.label}` could not check {where}: {worst.problem}"
    else:
        message = (
            f"vjp_check of `{shown.label}` failed at {where}: its VJP gives `{operand.element_name}` "
            f"{format_number(operand.tensor)} where its {operand.scalar_edges:,} scalar "
            f"edge{'' if operand.scalar_edges == 1 else 's'} give {format_number(operand.scalar)}: scaled error "
            f"{format_exponent(operand.scaled_error)} > tolerance {format_exponent(shown.tolerance)}"
        )
        fields.update({
            "operand": operand.operand, "element": list(operand.element), "vjp": operand.tensor,
            "scalar": operand.scalar, "scaled_error": operand.scaled_error,
        })
    notes: tuple[str, ...] = ()
    if len(failures) > 1:
        names = ", ".join(f"`{node.label}`" for node in failures)
        notes = (f"note: {len(failures)} of {len(shown.nodes)} tensor nodes failed: {names}",)
    return compiler.fail("vjp-check-failed", message, span, fields, notes)
