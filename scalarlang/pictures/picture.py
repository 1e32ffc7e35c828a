"""The picture of a graph or of a backward pass, as plain data to lay out and draw.

One box per unique node (in topology order) and one arrow per operand edge, from the consumer
to its operand, so ``x*x`` gives two arrows into one ``x``, each with its own slot and local
derivative. Every number goes through the one formatter; every text is made safe to show
(control characters would break DOT and are not allowed in XML).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

from ..engine.numbers import format_number, format_parameter
from ..engine.passes import topology as topology_of
from ..engine.tensor_shapes import show_shape
from ..engine.tensor_formulas import tensor_edges, vjp_formula
from ..engine.tensor_node import TensorNode
from ..engine.tensor_operations import TensorOperation
from .errors import GRAPH_TOO_LARGE, DrawingError

if TYPE_CHECKING:
    from ..engine.scalar import Scalar
    from ..engine.records import BackwardPass

# Beyond this many nodes a picture is not legible (and Graphviz grows slow): refused.
MAX_NODES = 500
# A label longer than this is cut with an ellipsis: boxes stay a readable width.
LABEL_LIMIT = 40


@dataclass(frozen=True, slots=True)
class PictureNode:
    index: int  # topology index
    label: str
    lines: tuple[str, ...]  # shown under the label: operation, value, gradient...
    tracked: bool
    is_output: bool


@dataclass(frozen=True, slots=True)
class PictureEdge:
    child: int  # the consumer's topology index (the arrow starts there)
    parent: int  # the operand's topology index (the arrow ends there)
    slot: int
    lines: tuple[str, ...]  # the edge's label: slot and local derivative, for a pass more
    tracked: bool  # whether the operand is tracked (an untracked one gets no contribution)


@dataclass(frozen=True, slots=True)
class Picture:
    title: str
    nodes: tuple[PictureNode, ...]
    edges: tuple[PictureEdge, ...]  # graph: by consumer then slot; pass: in visiting order


def graph_picture(output: Scalar, label: Callable[[Scalar], str] | None = None) -> Picture:
    """The picture of ``output``'s graph: stored values and gradients, local derivatives. A
    tensor node is one box (its operation, shape and first values); an edge of a tensor
    operation is labelled with its VJP (``dA = dC @ Bᵀ``)."""
    topology = topology_of(output)
    _check_size(len(topology))
    label = label if label is not None else _index_labels(topology)
    position = {id(node): index for index, node in enumerate(topology)}
    last = len(topology) - 1
    nodes = []
    edges = []
    for index, node in enumerate(topology):
        gradient = node._gradient
        if isinstance(node, TensorNode):
            lines = tensor_box_lines(node)
        else:
            lines = (
                operation_text(node),
                f"value {format_number(node.value)}",
                "untracked" if gradient is None else f"grad {format_number(gradient)}",
            )
        nodes.append(PictureNode(index, clean_text(label(node)), lines, gradient is not None, index == last))
        edges.extend(_edges_of(node, index, position))
    return Picture(f"graph of {clean_text(label(output))}", tuple(nodes), tuple(edges))


# A tensor's box shows this many of its first values (row major).
BOX_VALUES = 3


def tensor_box_lines(node: TensorNode) -> tuple[str, ...]:
    """``matmul [32, 200]``, ``0.5, 1, -2, …``, ``tracked``: a tensor node in one box."""
    return (
        f"{node.operation} {show_shape(node.shape)}",
        _first_values(node._values),
        "tracked" if node._gradient is not None else "untracked",
    )


def pass_picture(backward_pass: BackwardPass, output_label: str, label_of_index: Callable[[int], str]) -> Picture:
    """The picture of one pass: each node's pass adjoint and gradient after it, each edge's
    visiting order (``#1`` is visited first), local derivative and contribution."""
    topology = backward_pass.topology
    _check_size(len(topology))
    last = len(topology) - 1
    if not backward_pass.edges and any(isinstance(node, TensorNode) for node in topology):
        return _tensor_pass_picture(backward_pass, output_label, label_of_index)
    nodes = []
    for record in backward_pass.nodes:
        index = record.topology_index
        detail: tuple[str, ...]
        if record.tracked:
            detail = (
                f"adjoint {format_number(record.pass_adjoint)}",
                f"grad {format_number(record.accumulated_gradient)}",
            )
        else:
            detail = ("untracked",)
        nodes.append(
            PictureNode(
                index,
                clean_text(label_of_index(index)),
                (operation_text(topology[index]), f"value {format_number(record.value)}") + detail,
                record.tracked,
                index == last,
            )
        )
    edges = []
    for edge in backward_pass.edges:
        contribution = format_number(edge.contribution)
        edges.append(
            PictureEdge(
                edge.child,
                edge.parent,
                edge.operand,
                (
                    f"#{edge.reverse_index} slot {edge.operand}",  # the # of the edge table
                    f"d {format_number(edge.local_derivative)}",
                    f"+= {contribution}" if edge.parent_tracked else f"{contribution} (untracked)",
                ),
                edge.parent_tracked,
            )
        )
    title = f"backward from {clean_text(output_label)} with seed {format_number(backward_pass.seed)}"
    return Picture(title, tuple(nodes), tuple(edges))


def _tensor_pass_picture(backward_pass: BackwardPass, output_label: str, label_of_index: Callable[[int], str]) -> Picture:
    """A pass over a graph holding tensor nodes, which keeps no per-edge records: each node
    with its value and pass adjoint (a tensor's by its shape and first values), each edge with
    its VJP (a scalar operation's with its local derivative)."""
    topology = backward_pass.topology
    last = len(topology) - 1
    position = {id(node): index for index, node in enumerate(topology)}
    nodes, edges = [], []
    for record in backward_pass.nodes:
        index = record.topology_index
        node = topology[index]
        lines: tuple[str, ...]
        if isinstance(node, TensorNode):
            lines = (f"{node.operation} {show_shape(node.shape)}", _first_values(node._values))
        else:
            lines = (operation_text(node), f"value {format_number(cast(float, record.value))}")
        if record.tracked:
            lines += (f"adjoint {_numbers_text(record.pass_adjoint)}", f"grad {_numbers_text(record.accumulated_gradient)}")
        else:
            lines += ("untracked",)
        nodes.append(PictureNode(index, clean_text(label_of_index(index)), lines, record.tracked, index == last))
        edges.extend(_edges_of(node, index, position))
    title = f"backward from {clean_text(output_label)} with seed {format_number(backward_pass.seed)}"
    return Picture(title, tuple(nodes), tuple(edges))


def _edges_of(node: Any, index: int, position: dict[int, int]) -> list[PictureEdge]:
    """A node's operand edges: a tensor operation's labelled with its VJP, a scalar
    operation's with its local derivative."""
    if node._operation.__class__ is TensorOperation or isinstance(node, TensorNode):
        return [
            PictureEdge(index, position[id(operand)], slot, (f"slot {slot}", vjp_formula(node, slot)),
                        operand._gradient is not None)
            for slot, (operand, _) in enumerate(tensor_edges(node))
        ]
    return [
        PictureEdge(index, position[id(edge.parent)], slot, (f"slot {slot}", f"d {format_number(edge.local_derivative)}"),
                    edge.parent.tracks_gradient)
        for slot, edge in enumerate(node.parents)
    ]


def _first_values(values: Sequence[float]) -> str:
    shown = ", ".join(format_number(value) for value in values[:BOX_VALUES])
    return shown + (", …" if len(values) > BOX_VALUES else "")


def _numbers_text(value: Any) -> str:
    """A number, or a tensor's first numbers."""
    if isinstance(value, (tuple, list)):
        return _first_values(value)
    return format_number(value)


def operation_text(node: Scalar) -> str:
    """The operation's name; a power shows its exponent (``pow 2``)."""
    exponent = getattr(node, "exponent", None)
    name = str(node.operation)
    if exponent is None:
        return name
    if isinstance(exponent, float) and exponent.is_integer():
        return f"{name} {int(exponent)}"
    return f"{name} {exponent}"


def clean_text(text: str, limit: int = LABEL_LIMIT) -> str:
    """One line of printable text: whitespace collapsed, control characters replaced, cut."""
    text = " ".join(str(text).split())
    text = "".join(ch if ch.isprintable() else "\ufffd" for ch in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _index_labels(topology) -> Callable[[Scalar], str]:
    """Without a session: a node's own label (`Scalar.variable(2, label="w")`), else its
    operation (the box shows its value under it), never a bare index."""
    return lambda node: node.label if node.label is not None else _operation_text(node)


def _operation_text(node: Scalar) -> str:
    exponent = getattr(node, "exponent", None)  # (a tensor node has none)
    return str(node.operation) if exponent is None else f"pow {format_parameter(exponent)}"


def _check_size(count: int) -> None:
    if count > MAX_NODES:
        raise DrawingError(
            GRAPH_TOO_LARGE,
            f"the graph has {count} nodes, too many to draw legibly (at most {MAX_NODES}); "
            "`graph(...)` lists them and `--json` has every one",
            nodes=count,
            limit=MAX_NODES,
        )
