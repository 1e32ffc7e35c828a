"""Tensors as JSON: a `tensor` event's fields (``{"shape": [2, 3], "values": [[…], […]]}``,
every value, nested one list per dimension), `explain_tensor`'s (its edges and summaries) and
`vjp_check`'s (each tensor node's row, each of its checked operands, the verdict).
Numbers are written as every event writes them (events.py cleans the event)."""

from __future__ import annotations

from typing import Any

from ..engine.tensor_node import nest
from ..interpreter.tensor_outcomes import (
    NodeVJPChecked, OperandVJPChecked, TensorEdge, TensorExplained, TensorState, TensorSummary, VJPCheckShown,
)


def tensor_fields(tensor: TensorState) -> dict[str, Any]:
    """A tensor as JSON: ``{"shape": [2, 3], "values": [[…], […]]}``, its values nested one
    list per dimension, each number as every event writes one."""
    return {
        "label": tensor.label,
        "operation": tensor.operation,
        "tracked": tensor.tracked,
        "shape": list(tensor.shape),
        "values": nest(tensor.values, tensor.shape),
    }


def _summary(summary: TensorSummary | None) -> dict[str, Any] | None:
    if summary is None:
        return None
    return {"shape": list(summary.shape), "first": list(summary.first), "largest": summary.largest, "at": list(summary.at)}


def _tensor_edge(edge: TensorEdge) -> dict[str, Any]:
    return {
        "node": edge.node, "slot": edge.slot, "operand": edge.operand, "shapes": edge.shapes, "formula": edge.formula,
        "scalar_edges": edge.scalar_edges, "edge_kind": edge.edge_kind, "operand_tracked": edge.operand_tracked,
        "contribution": _summary(edge.contribution),
    }


def tensor_explain_fields(outcome: TensorExplained) -> dict[str, Any]:
    return {
        "event": "explain_tensor",
        "label": outcome.label,
        "operation": outcome.operation,
        "shape": list(outcome.shape),
        "tracked": outcome.tracked,
        "operands": [_tensor_edge(edge) for edge in outcome.operands],
        "pass": outcome.pass_number,
        "output": outcome.pass_output,
        "adjoint": _summary(outcome.adjoint),
        "consumers": [_tensor_edge(edge) for edge in outcome.consumers],
        "adds_up": outcome.adds_up,
        "gradient": _summary(outcome.gradient),
        "passes": list(outcome.passes),
        "note": outcome.note,
    }


def _operand_checked(operand: OperandVJPChecked) -> dict[str, Any]:
    return {
        "slot": operand.slot, "operand": operand.operand, "shape": list(operand.shape),
        "scalar_edges": operand.scalar_edges, "largest_difference": operand.largest_difference,
        "scaled_error": operand.scaled_error, "element": list(operand.element), "vjp": operand.tensor,
        "scalar": operand.scalar, "passed": operand.passed,
    }


def _node_checked(node: NodeVJPChecked) -> dict[str, Any]:
    return {
        "index": node.index, "label": node.label, "operation": node.operation, "shapes": node.shapes,
        "scalar_edges": node.scalar_edges, "largest_difference": node.largest_difference,
        "scaled_error": node.scaled_error, "passed": node.passed, "problem": node.problem,
        "operands": [_operand_checked(operand) for operand in node.operands],
    }


def vjp_check_fields(outcome: VJPCheckShown) -> dict[str, Any]:
    return {
        "event": "vjp_check",
        "label": outcome.label,
        "nodes": [_node_checked(node) for node in outcome.nodes],
        "scalar_edges": outcome.scalar_edges,
        "largest_difference": outcome.largest_difference,
        "scaled_error": outcome.scaled_error,
        "tolerance": outcome.tolerance,
        "passed": outcome.passed,
    }
