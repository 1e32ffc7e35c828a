"""What a statement produced when it shows a tensor: plain data, as every outcome
(outcomes.py, whose `Outcome` holds `TensorShown`, `TensorExplained` and `VJPCheckShown`)."""

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
    values (``tensor_values.tensor_lines`` lays it out at the console's width)."""

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


class OperandVJPChecked(PlainData):
    """One tracked operand edge of a node `vjp_check` checked: its ``slot``, the ``operand``'s
    label and ``shape`` (``()``: a scalar node), the scalar edges that reach its elements, the
    largest absolute difference between what the VJP gave it and what those scalar edges gave
    it, the largest scaled error and the ``element`` that has it (with both sides there)."""

    __slots__ = __match_args__ = ("slot", "operand", "shape", "scalar_edges", "largest_difference",
                                  "scaled_error", "element", "tensor", "scalar", "passed")

    def __init__(self, slot: int, operand: str, shape: tuple[int, ...], scalar_edges: int, largest_difference: float,
                 scaled_error: float, element: tuple[int, ...], tensor: float, scalar: float, passed: bool) -> None:
        self.slot = slot
        self.operand = operand
        self.shape = shape
        self.scalar_edges = scalar_edges
        self.largest_difference = largest_difference
        self.scaled_error = scaled_error
        self.element = element
        self.tensor = tensor
        self.scalar = scalar
        self.passed = passed

    @property
    def element_name(self) -> str:
        """``W1[0, 7]``: the operand's element that has the largest scaled error (a scalar
        operand: its label)."""
        if not self.shape:
            return self.operand
        return f"{self.operand}[{', '.join(str(index) for index in self.element)}]"


class NodeVJPChecked(PlainData):
    """One tensor node of the loss's graph: its topology ``index``, label, operation, the
    operation on its shapes (``[32, 30] @ [30, 200] → [32, 200]``), the scalar edges of its
    rebuilt operation, its tracked operands' checks, the largest difference and scaled error
    among them, and whether each passed; ``problem`` says why it could not be checked."""

    __slots__ = __match_args__ = ("index", "label", "operation", "shapes", "scalar_edges", "operands",
                                  "largest_difference", "scaled_error", "passed", "problem")

    def __init__(self, index: int, label: str, operation: str, shapes: str, scalar_edges: int,
                 operands: tuple[OperandVJPChecked, ...], largest_difference: float, scaled_error: float,
                 passed: bool, problem: str | None = None) -> None:
        self.index = index
        self.label = label
        self.operation = operation
        self.shapes = shapes
        self.scalar_edges = scalar_edges
        self.operands = operands
        self.largest_difference = largest_difference
        self.scaled_error = scaled_error
        self.passed = passed
        self.problem = problem

    @property
    def failing(self) -> OperandVJPChecked | None:
        """The operand that failed with the largest scaled error (None: none failed)."""
        failed = [operand for operand in self.operands if not operand.passed]
        return max(failed, key=lambda operand: operand.scaled_error) if failed else None


class VJPCheckShown(PlainData):
    """``vjp_check(LOSS)``: each tensor node of LOSS's graph, in topology order, its VJPs
    against the sum of the scalar edges they stand for; the totals and the verdict (passed
    when every node did) against ``tolerance``."""

    __slots__ = __match_args__ = ("span", "label", "nodes", "scalar_edges", "largest_difference", "scaled_error",
                                  "tolerance", "passed")

    def __init__(self, span: Span, label: str, nodes: tuple[NodeVJPChecked, ...], scalar_edges: int,
                 largest_difference: float, scaled_error: float, tolerance: float, passed: bool) -> None:
        self.span = span
        self.label = label
        self.nodes = nodes
        self.scalar_edges = scalar_edges
        self.largest_difference = largest_difference
        self.scaled_error = scaled_error
        self.tolerance = tolerance
        self.passed = passed

    @property
    def failures(self) -> tuple[NodeVJPChecked, ...]:
        return tuple(node for node in self.nodes if not node.passed)
