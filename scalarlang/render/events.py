"""JSON lines: one object per outcome, for ``--json`` (the schema: docs/json.md).

Finite numbers are JSON numbers; ``inf``, ``-inf`` and ``nan`` are strings; absent values are
null. Every object has ``event``, ``file`` (the source's name), ``line`` and ``column``
(1-based, of the statement); each source begins with a ``start`` event carrying ``version``.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, assert_never

from ..interpreter.outcomes import (
    BackwardShown,
    Bound,
    Charted,
    Defined,
    Drawn,
    Expected,
    Explained,
    Failed,
    GradcheckShown,
    GraphShown,
    JacobianShown,
    NodeState,
    Outcome,
    PathsShown,
    Printed,
    ListShown,
    TangentsShown,
    TextShown,
    ValueShown,
    WalkShown,
    WalkStep,
    Warned,
)
from ..engine.tensor_node import nest
from ..interpreter.tensor_outcomes import TensorExplained, TensorShown, VJPCheckShown
from ..interpreter.values import plain_values, shape
from ..language.diagnostics import help_and_notes
from ..language.source import Span
from .chart_events import chart_fields, number
from .forward_events import jacobian_fields, tangents_fields
from .messages import warning_message
from .tensor_events import tensor_explain_fields, tensor_fields, vjp_check_fields


def _clean(value: Any) -> Any:
    """``value`` with tuples as lists, floats as `number` says and anything else not JSON as
    its text: iteratively, since a `list` event's values nest as deep as the list."""
    if not isinstance(value, (list, tuple, dict)):
        return _clean_leaf(value)
    top: Any = {} if isinstance(value, dict) else []
    # (the items left, the container being filled, whether it is a dict) frames
    stack: list[tuple[Iterator, Any, bool]] = [(iter(value.items() if isinstance(value, dict) else value), top, isinstance(value, dict))]
    while stack:
        items, into, keyed = stack[-1]
        item = next(items, _END)
        if item is _END:
            stack.pop()
            continue
        key, item = item if keyed else (None, item)
        if isinstance(item, (list, tuple, dict)):
            inner: Any = {} if isinstance(item, dict) else []
            stack.append((iter(item.items() if isinstance(item, dict) else item), inner, isinstance(item, dict)))
            item = inner
        else:
            item = _clean_leaf(item)
        if keyed:
            into[key] = item
        else:
            into.append(item)
    return top


def _clean_leaf(value: Any) -> Any:
    if isinstance(value, float):
        return number(value)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return str(value)


_END: Any = object()


# The version of the schema of docs/json.md: raised when a key changes meaning or goes away
# (new events and new keys do not change it).
SCHEMA_VERSION = 1


def start_event(file: str | None) -> dict[str, Any]:
    """The first event of each source: which schema the lines after it follow."""
    return {"event": "start", "file": file, "line": None, "column": None, "version": SCHEMA_VERSION}


def _position(span: Span | None) -> dict[str, int | None]:
    if span is None:
        return {"line": None, "column": None}
    return {"line": span.line, "column": span.column}


def _head(event: str | None, file: str | None, span: Span | None) -> dict[str, Any]:
    return {"event": event, "file": file, **_position(span)}


def _node_fields(node: NodeState) -> dict[str, Any]:
    return {
        "label": node.label,
        "operation": node.operation,
        "value": node.value,
        "tracked": node.tracked,
        "gradient": node.gradient,
    }


def events_of(outcome: Outcome, file: str | None = None) -> list[dict[str, Any]]:
    """The JSON objects for ``outcome``: none for ``let`` and ``fn``, a walk's `backward` event
    and one `step` event per edge, one event for the rest."""
    if isinstance(outcome, WalkShown):
        backward = event_of(outcome.backward, file)
        assert backward is not None
        return [backward, *(_step_event(outcome, step, file) for step in outcome.steps)]
    event = event_of(outcome, file)
    return [] if event is None else [event]


def event_of(outcome: Outcome, file: str | None = None) -> dict[str, Any] | None:
    """The JSON object for ``outcome`` of the source named ``file``; None for outcomes a script
    does not print (``let``, ``fn``). A walk gives several (`events_of`): here its `backward`
    event alone."""
    fields: dict[str, Any]
    match outcome:
        case Bound() | Defined():
            return None
        case WalkShown():
            return event_of(outcome.backward, file)
        case Failed():
            return _error_event(outcome, file)
        case ValueShown():
            fields = {"event": "value", **_node_fields(outcome.node)}
        case ListShown():
            dims = shape(outcome.value)
            fields = {"event": "list", "shape": list(dims) if dims is not None else None, "values": plain_values(outcome.value)}
        case Printed():
            fields = {"event": "print", "text": outcome.text}
        case TextShown():
            fields = {"event": "text", "value": outcome.text}
        case TensorShown():
            fields = {"event": "tensor", **tensor_fields(outcome.tensor)}
        case BackwardShown():
            fields = {
                "event": "backward",
                "label": outcome.label,
                "seed": outcome.backward_pass.seed,
                "nodes": list(_pass_nodes(outcome)),
                "edges": list(_pass_edges(outcome)),
            }
        case GraphShown():
            fields = {
                "event": "graph", "label": outcome.label, "nodes": list(_graph_nodes(outcome)),
                "edge_count": outcome.edge_count,
            }
        case GradcheckShown():
            check = outcome.check
            fields = {
                "event": "gradcheck",
                "label": outcome.label,
                "variable": outcome.variable,
                "input": check.input,
                "analytic": check.analytic,
                "numerical": check.numerical,
                "step": check.step,
                "tolerance": check.tolerance,
                "scaled_error": check.scaled_error,
                "passed": check.passed,
            }
        case Drawn():
            picture = outcome.picture
            fields = {
                "event": "draw",
                "label": outcome.label,
                "path": outcome.path,
                "format": outcome.format,
                "node_count": len(picture.nodes),
                "edge_count": len(picture.edges),
                # Without a file the picture itself: its DOT text, for `dot -Tsvg`.
                "dot": outcome.dot if outcome.path is None else None,
            }
        case Charted():
            fields = {"event": "plot", **chart_fields(outcome.chart, outcome.path)}
        case Explained():
            fields = _explain_fields(outcome)
        case TensorExplained():
            fields = tensor_explain_fields(outcome)
        case VJPCheckShown():
            fields = vjp_check_fields(outcome)
        case PathsShown():
            fields = _paths_fields(outcome)
        case TangentsShown():
            fields = tangents_fields(outcome)
        case JacobianShown():
            fields = jacobian_fields(outcome)
        case Expected():
            fields = {"event": "expected", "kind": outcome.kind, "message": outcome.message}
        case Warned():
            fields = {"event": "warning", "kind": outcome.kind, "message": warning_message(outcome), "names": list(outcome.names)}
        case _:
            assert_never(outcome)
    event = _head(None, file, outcome.span)
    event.update(fields)
    return _clean(event)


def _error_event(outcome: Failed, file: str | None) -> dict[str, Any]:
    """The `error` event: the diagnostic's kind, message, help, notes, related places and fields."""
    diagnostic = outcome.diagnostic
    if diagnostic.source is not None:
        file = diagnostic.source.name
    elif file is None:
        file = diagnostic.fields.get("file")
    helps, notes = help_and_notes(diagnostic)
    event: dict[str, Any] = {
        **_head("error", file, diagnostic.span),
        "kind": diagnostic.kind,
        "message": diagnostic.message,
        "help": helps,
        "notes": notes,
        "related": [{"message": note.message, **_position(note.span)} for note in diagnostic.related],
    }
    for key, value in diagnostic.fields.items():
        event.setdefault(key, value)
    return _clean(event)


def _explain_fields(outcome: Explained) -> dict[str, Any]:
    return {
        "event": "explain",
        "label": outcome.label,
        "tracked": outcome.tracked,
        "pass": outcome.pass_number,
        "output": outcome.pass_output,
        "pass_adjoint": outcome.pass_adjoint,
        "edges": [
            {
                "consumer": edge.consumer,
                "slot": edge.slot,
                "upstream": edge.upstream,
                "local": edge.local,
                "contribution": edge.contribution,
                "formula": edge.formula,
            }
            for edge in outcome.edges
        ],
        "gradient": outcome.gradient,
        "passes": [{"pass": number, "adjoint": adjoint} for number, adjoint in outcome.passes],
        "note": outcome.note,
    }


def _paths_fields(outcome: PathsShown) -> dict[str, Any]:
    return {
        "event": "paths",
        "output": outcome.output,
        "variable": outcome.variable,
        "count": outcome.count,
        "paths": [
            {"labels": list(path.labels), "slots": list(path.slots), "locals": list(path.locals), "product": path.product}
            for path in outcome.paths
        ],
        "total": outcome.total,
        "pass_adjoint": outcome.pass_adjoint,
    }


def _step_event(outcome: WalkShown, step: WalkStep, file: str | None) -> dict[str, Any]:
    """One edge of a walk: its fields, and every tracked node's pass adjoint after it."""
    return {
        **_head("step", file, outcome.span),
        "index": step.index,
        "consumer": step.consumer,
        "slot": step.slot,
        "operand": step.operand,
        "upstream": number(step.upstream),
        "local": number(step.local),
        "contribution": number(step.contribution),
        "operand_tracked": step.operand_tracked,
        "before": number(step.before),
        "after": number(step.after),
        "adjoints": {label: number(adjoint) for label, adjoint in step.adjoints},
    }


# The records of passes and graphs are made JSON-ready as they are built (numbers through
# `number`), so the many of a large graph skip `_clean`.


def _pass_nodes(outcome: BackwardShown) -> Iterator[dict[str, Any]]:
    labels = outcome.labels
    topology = outcome.backward_pass.topology
    for record in outcome.backward_pass.nodes:
        shape = getattr(topology[record.topology_index], "_shape", ())  # a tensor node's
        yield {
            "topology_index": record.topology_index,
            "label": labels[record.topology_index],
            "operation": str(record.operation),
            "value": _numbers(record.value, shape),
            "tracked": record.tracked,
            "pass_adjoint": _numbers(record.pass_adjoint, shape),
            "accumulated_gradient": _numbers(record.accumulated_gradient, shape),
        }


def _numbers(value: Any, shape: tuple[int, ...]) -> Any:
    """A number, or a tensor node's numbers (row major) nested one list per dimension."""
    if isinstance(value, (tuple, list)):
        return nest(value, shape)
    return number(value)


def _pass_edges(outcome: BackwardShown) -> Iterator[dict[str, Any]]:
    for edge in outcome.backward_pass.edges:
        yield {
            "reverse_index": edge.reverse_index,
            "child": edge.child,
            "parent": edge.parent,
            "operand": edge.operand,
            "local_derivative": number(edge.local_derivative),
            "upstream": number(edge.upstream),
            "contribution": number(edge.contribution),
            "parent_tracked": edge.parent_tracked,
            "parent_adjoint_before": number(edge.parent_adjoint_before),
            "parent_adjoint_after": number(edge.parent_adjoint_after),
        }


def _graph_nodes(outcome: GraphShown) -> Iterator[dict[str, Any]]:
    for node in outcome.nodes:
        yield {
            "index": node.index,
            "label": node.label,
            "operation": node.operation,
            "value": _numbers(node.value, node.shape),
            "tracked": node.tracked,
            "gradient": _numbers(node.gradient, node.shape),
            "operands": list(node.operands),
        }


def event_pieces(outcome: Outcome, file: str | None = None) -> Iterator[str]:
    """The JSON lines of ``outcome``, newlines included, in pieces that join to the
    ``dumps(event) + "\n"`` of each of ``events_of(outcome, file)``.

    A pass or graph of a million nodes is written a batch of records at a time: building its
    event whole would cost about a kilobyte per record before the first byte is written.
    """
    match outcome:
        case WalkShown():
            yield from event_pieces(outcome.backward, file)
            for step in outcome.steps:
                yield dumps(_step_event(outcome, step, file)) + "\n"
        case BackwardShown():
            head = {**_head("backward", file, outcome.span), "label": outcome.label, "seed": outcome.backward_pass.seed}
            lists = {"nodes": _pass_nodes(outcome), "edges": _pass_edges(outcome)}
            yield from _streamed(head, lists, {})
        case GraphShown():
            head = {**_head("graph", file, outcome.span), "label": outcome.label}
            yield from _streamed(head, {"nodes": _graph_nodes(outcome)}, {"edge_count": outcome.edge_count})
        case _:  # one event, or none (`event_of` takes every kind of outcome)
            event = event_of(outcome, file)
            if event is not None:
                yield dumps(event) + "\n"


_BATCH = 1_000


def _streamed(head: dict[str, Any], lists: dict[str, Iterator[dict]], tail: dict[str, Any]) -> Iterator[str]:
    """``{**head, **lists, **tail}`` as ``dumps`` writes it, each list a batch at a time."""
    yield dumps(_clean(head))[:-1]  # without its closing brace
    for key, records in lists.items():
        yield f", {dumps(key)}: ["
        batch: list[str] = []
        separator = ""
        for record in records:
            batch.append(_one_line(_ENCODER.encode(record)))  # (records are built here: shallow)
            if len(batch) == _BATCH:
                yield separator + ", ".join(batch)
                batch, separator = [], ", "
        if batch:
            yield separator + ", ".join(batch)
        yield "]"
    for key, value in tail.items():
        yield f", {dumps(key)}: {dumps(_clean(value))}"
    yield "}\n"


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
# Line breaks to Python's str.splitlines and to JavaScript that JSON leaves unescaped: a line
# holding one would be read as two. (JSON escapes the others, all below U+0020.)
_SEPARATORS = (("\x85", "\\u0085"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))
_CONTAINERS = (list, tuple, dict)


def dumps(event: Any) -> str:
    """One JSON value on one line, whoever splits the lines; lists nested to any depth (a `list`
    event's values nest as deep as the list; json's own encoder recurses)."""
    return _one_line(_encoded(event))


def _one_line(text: str) -> str:
    if text.isascii():
        return text
    for separator, escape in _SEPARATORS:
        if separator in text:
            text = text.replace(separator, escape)
    return text


def _flat(items: Iterable[Any]) -> bool:
    return not any(isinstance(item, _CONTAINERS) for item in items)


def _encoded(value: Any) -> str:
    """``value`` as json's encoder writes it: a container that holds containers is opened here,
    with an explicit stack; the rest (numbers, texts, containers of those) by the encoder."""
    pieces: list[str] = []
    # (the items left, whether they are a dict's, how many are written) frames
    stack: list[list] = []
    item = value
    while True:
        if isinstance(item, dict) and not _flat(item.values()):
            pieces.append("{")
            stack.append([iter(item.items()), True, 0])
        elif isinstance(item, (list, tuple)) and not _flat(item):
            pieces.append("[")
            stack.append([iter(item), False, 0])
        else:
            pieces.append(_ENCODER.encode(item))
        while stack:  # the next item to write, closing the containers that are done
            frame = stack[-1]
            following = next(frame[0], _END)
            if following is _END:
                pieces.append("}" if frame[1] else "]")
                stack.pop()
                continue
            if frame[2]:
                pieces.append(", ")
            frame[2] += 1
            if frame[1]:
                key, following = following
                pieces.append(_ENCODER.encode(str(key)) + ": ")
            item = following
            break
        else:
            return "".join(pieces)
