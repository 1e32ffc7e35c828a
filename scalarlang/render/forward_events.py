"""The JSON fields of forward mode's events (`tangents`, `jacobian`: docs/json.md); events.py
adds the keys every event has and writes the numbers as it writes every number."""

from __future__ import annotations

from typing import Any

from ..interpreter.outcomes import JacobianShown, TangentsShown


def tangents_fields(outcome: TangentsShown) -> dict[str, Any]:
    return {
        "event": "tangents",
        "label": outcome.label,
        "inputs": list(outcome.inputs),
        "direction": list(outcome.direction),
        "nodes": [
            {
                "index": node.index,
                "label": node.label,
                "operation": node.operation,
                "value": node.value,
                "tangent": node.tangent,
                "input": node.input,
                "terms": [
                    {"operand": term.operand, "local": term.local, "operand_tangent": term.operand_tangent,
                     "product": term.product}
                    for term in node.terms
                ],
            }
            for node in outcome.nodes
        ],
        "tangent": outcome.tangent,
        "passes": 1,
        "visited": len(outcome.nodes),
    }


def jacobian_fields(outcome: JacobianShown) -> dict[str, Any]:
    return {
        "event": "jacobian",
        "outputs": list(outcome.outputs),
        "inputs": list(outcome.inputs),
        "forward": [list(row) for row in outcome.forward],
        "reverse": [list(row) for row in outcome.reverse],
        "forward_passes": outcome.forward_passes,
        "forward_visits": outcome.forward_visits,
        "reverse_passes": outcome.reverse_passes,
        "reverse_visits": outcome.reverse_visits,
        "largest_difference": outcome.largest_difference,
    }
