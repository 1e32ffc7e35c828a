"""What a statement produced when it shows a tensor: plain data, as every outcome
(outcomes.py, whose `Outcome` holds `TensorShown` and `TensorExplained`)."""

from __future__ import annotations

from ..language.plain_data import PlainData
from ..language.source import Span


class TensorState(PlainData):
    """A tensor node as it was when the statement ran: its values row major (a tensor's values
    never change), ``shape`` their dimensions."""

    __slots__ = __match_args__ = ("label", "operation", "shape", "values", "tracked")

    def __init__(self, label: str, operation: str, shape: tuple[int, ...], values: tuple[float, ...],
                 tracked: bool) -> None:
        self.label = label
        self.operation = operation
        self.shape = shape
        self.values = values
        self.tracked = tracked


class TensorShown(PlainData):
    """A bare expression's value line when its value is a tensor: its shape and a grid of its
    values (``engine.tensor_text.tensor_lines`` lays it out at the console's width)."""

    __slots__ = __match_args__ = ("span", "tensor")

    def __init__(self, span: Span, tensor: TensorState) -> None:
        self.span = span
        self.tensor = tensor


class TensorSummary(PlainData):
    """Many numbers in a line: their shape (``()`` for one number), the first few row major,
    and the one of largest magnitude with its index."""

    __slots__ = __match_args__ = ("shape", "first", "largest", "at")

    def __init__(self, shape: tuple[int, ...], first: tuple[float, ...], largest: float, at: tuple[int, ...]) -> None:
        self.shape = shape
        self.first = first
        self.largest = largest
        self.at = at


class TensorEdge(PlainData):
    """An edge of a tensor operation: ``node`` the consumer, ``operand`` the node it leads to
    (in ``slot``), the operation on its shapes (``[32, 30] @ [30, 200] → [32, 200]``), its
    VJP's formula, how many scalar edges it stands for and of what kind (multiply, scalar), and
    in a pass its contribution (None: not computed, the operand is untracked)."""

    __slots__ = __match_args__ = ("node", "slot", "operand", "shapes", "formula", "scalar_edges", "edge_kind",
                                  "operand_tracked", "contribution")

    def __init__(self, node: str, slot: int, operand: str, shapes: str, formula: str, scalar_edges: int,
                 edge_kind: str, operand_tracked: bool, contribution: TensorSummary | None = None) -> None:
        self.node = node
        self.slot = slot
        self.operand = operand
        self.shapes = shapes
        self.formula = formula
        self.scalar_edges = scalar_edges
        self.edge_kind = edge_kind
        self.operand_tracked = operand_tracked
        self.contribution = contribution


class TensorExplained(PlainData):
    """``explain(T)`` of a tensor node: its operand edges (how an adjoint reaching it goes on:
    each VJP, the shapes, the scalar edges it stands for), and, in the latest kept pass whose
    graph holds it, the adjoint that reached it and the edges into it from its consumers, whose
    contributions add up to it (``adds_up``: exactly, in the pass's order); its stored gradient
    and the passes that added to it since its last `zero_grad` (``passes``)."""

    __slots__ = __match_args__ = ("span", "label", "operation", "shape", "tracked", "operands", "pass_number",
                                  "pass_output", "adjoint", "consumers", "adds_up", "gradient", "passes", "note")

    def __init__(
        self,
        span: Span,
        label: str,
        operation: str,
        shape: tuple[int, ...],
        tracked: bool,
        operands: tuple[TensorEdge, ...],
        pass_number: int | None,
        pass_output: str | None,
        adjoint: TensorSummary | None,
        consumers: tuple[TensorEdge, ...],
        adds_up: bool,
        gradient: TensorSummary | None,
        passes: tuple[int, ...],
        note: str | None = None,
    ) -> None:
        self.span = span
        self.label = label
        self.operation = operation
        self.shape = shape
        self.tracked = tracked
        self.operands = operands
        self.pass_number = pass_number
        self.pass_output = pass_output
        self.adjoint = adjoint
        self.consumers = consumers
        self.adds_up = adds_up
        self.gradient = gradient
        self.passes = passes
        self.note = note
