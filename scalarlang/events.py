"""JSON lines: one object per outcome, for ``--json``.

Finite numbers are JSON numbers; ``inf``, ``-inf`` and ``nan`` are strings; absent values are
null. Every object has ``event``, ``line`` and ``column`` (1-based, of the statement).
"""

from __future__ import annotations

import json
import math
from typing import Any

from .outcomes import (
    BackwardShown,
    Bound,
    Expected,
    Failed,
    GradcheckShown,
    GraphShown,
    NodeState,
    Outcome,
    Printed,
    ValueShown,
)
from .source import Span


def number(value: float | None) -> float | str | None:
    if value is None or not isinstance(value, float) or math.isfinite(value):
        return value
    if value != value:
        return "nan"
    return "inf" if value > 0 else "-inf"


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return number(value)
    if isinstance(value, (list, tuple)):
        return [_clean(item) for item in value]
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return str(value)


def _position(span: Span | None) -> dict[str, int | None]:
    if span is None:
        return {"line": None, "column": None}
    return {"line": span.line, "column": span.column}


def _node_fields(node: NodeState) -> dict[str, Any]:
    return {
        "label": node.label,
        "operation": node.operation,
        "value": node.value,
        "tracked": node.tracked,
        "gradient": node.gradient,
    }


def event_of(outcome: Outcome) -> dict[str, Any] | None:
    """The JSON object for ``outcome``; None for outcomes a script does not print (``let``)."""
    if isinstance(outcome, Bound):
        return None
    if isinstance(outcome, Failed):
        diagnostic = outcome.diagnostic
        event = {"event": "error", **_position(diagnostic.span), "kind": diagnostic.kind, "message": diagnostic.message}
        if diagnostic.source is not None:
            event["file"] = diagnostic.source.name
        for key, value in diagnostic.fields.items():
            event.setdefault(key, value)
        return _clean(event)
    event: dict[str, Any] = {"event": None, **_position(outcome.span)}
    if isinstance(outcome, ValueShown):
        event.update(event="value", **_node_fields(outcome.node))
    elif isinstance(outcome, Printed):
        event.update(event="print", text=outcome.text)
    elif isinstance(outcome, BackwardShown):
        backward_pass = outcome.backward_pass
        labels = outcome.labels
        nodes = []
        for record in backward_pass.nodes:
            nodes.append(
                {
                    "topology_index": record.topology_index,
                    "label": labels(record.topology_index),
                    "operation": str(record.operation),
                    "value": record.value,
                    "tracked": record.tracked,
                    "pass_adjoint": record.pass_adjoint,
                    "accumulated_gradient": record.accumulated_gradient,
                }
            )
        edges = [
            {
                "reverse_index": edge.reverse_index,
                "child": edge.child,
                "parent": edge.parent,
                "operand": edge.operand,
                "local_derivative": edge.local_derivative,
                "upstream": edge.upstream,
                "contribution": edge.contribution,
                "parent_tracked": edge.parent_tracked,
                "parent_adjoint_before": edge.parent_adjoint_before,
                "parent_adjoint_after": edge.parent_adjoint_after,
            }
            for edge in backward_pass.edges
        ]
        event.update(event="backward", label=outcome.label, seed=backward_pass.seed, nodes=nodes, edges=edges)
    elif isinstance(outcome, GraphShown):
        nodes = [
            {
                "index": node.index,
                "label": outcome.labels(node.index),
                "operation": node.operation,
                "value": node.value,
                "tracked": node.tracked,
                "gradient": node.gradient,
                "operands": list(node.operands),
            }
            for node in outcome.nodes
        ]
        event.update(event="graph", label=outcome.label, nodes=nodes, edge_count=outcome.edge_count)
    elif isinstance(outcome, GradcheckShown):
        check = outcome.check
        event.update(
            event="gradcheck",
            label=outcome.label,
            variable=outcome.variable,
            input=check.input,
            analytic=check.analytic,
            numerical=check.numerical,
            step=check.step,
            tolerance=check.tolerance,
            scaled_error=check.scaled_error,
            passed=check.passed,
        )
    elif isinstance(outcome, Expected):
        event.update(event="expected", kind=outcome.kind, message=outcome.message)
    return _clean(event)


def dumps(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
