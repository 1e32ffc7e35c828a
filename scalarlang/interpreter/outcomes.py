"""What running a statement produced, as data for the front ends to render.

The interpreter yields these one statement at a time; ``render`` turns them into text and
``events`` into JSON lines. An outcome is plain data, its labels and the texts of its values
resolved when it is made, so it may be kept and shown later (a notebook or the playground
render a batch of them at once). A statement makes one only when it is to be shown (see
``statements``): a pass in a loop body builds no tables of labels. Every renderer dispatches
with ``match`` and ``typing.assert_never``, so an outcome added to `Outcome` without a
renderer is a type error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engine.gradcheck import ScalarGradientCheck
from ..engine.records import BackwardPass
from ..language.diagnostics import Diagnostic
from ..language.source import Span
from .values import ListValue

if TYPE_CHECKING:
    from ..pictures.charts import Chart
    from ..pictures.picture import Picture

@dataclass(frozen=True, slots=True)
class NodeState:
    """A node as it was when the statement ran."""

    label: str
    operation: str
    value: float
    tracked: bool
    gradient: float | None
    # A count (`len`, `node_count`, a loop index): its value is shown as a whole number.
    count: bool = False


@dataclass(frozen=True, slots=True)
class ValueShown:
    """A bare expression's value line."""

    span: Span
    node: NodeState


@dataclass(frozen=True, slots=True)
class ListShown:
    """A bare expression's value line when its value is a list (lists never change, so the
    value itself is kept; ``values.formatted_value`` says it)."""

    span: Span
    value: ListValue


@dataclass(frozen=True, slots=True)
class TensorState:
    """A tensor node as it was when the statement ran: its values row major (a tensor's values
    never change), ``shape`` their dimensions."""

    label: str
    operation: str
    shape: tuple[int, ...]
    values: tuple[float, ...]
    tracked: bool


@dataclass(frozen=True, slots=True)
class TensorShown:
    """A bare expression's value line when its value is a tensor: its shape and a grid of its
    values (``tensor_values.tensor_lines`` lays it out at the console's width)."""

    span: Span
    tensor: TensorState


@dataclass(frozen=True, slots=True)
class TextShown:
    """A bare expression's value line when its value is a text."""

    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class Bound:
    """``let NAME = ...``: silent in scripts, echoed by the REPL."""

    span: Span
    name: str
    node: NodeState


@dataclass(frozen=True, slots=True)
class Defined:
    """``fn NAME(...) = ...`` or ``let NAME = [ ... ]`` (a list): silent in scripts, echoed by
    the REPL as ``description``."""

    span: Span
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Printed:
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class GraphNode:
    index: int
    label: str
    operation: str  # as tables show it: `pow 2`
    value: float | tuple[float, ...]  # a tensor node's: its values, row major
    count: bool  # its value is shown as a whole number
    tracked: bool
    gradient: float | tuple[float, ...] | None
    operands: tuple[int, ...]
    shape: tuple[int, ...] = ()  # a tensor node's; () for a scalar node


@dataclass(frozen=True, slots=True)
class BackwardShown:
    """A pass's records (the engine's, which never change) and, by topology index, how each
    node reads: its label and its operation (`pow 2`); ``counts``: the topology indices of the
    nodes whose values are shown as whole numbers."""

    span: Span
    label: str
    backward_pass: BackwardPass
    labels: tuple[str, ...]
    operations: tuple[str, ...]
    counts: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class EdgeShare:
    """One operand edge into a node in a pass: its consumer, slot, the consumer's pass adjoint
    (the upstream), the local derivative, and their product, the edge's contribution."""

    consumer: str
    slot: int
    upstream: float | None
    local: float | None
    contribution: float
    # An edge of a tensor operation (`T * s`, `tensor(L)`): its VJP's formula, in place of the
    # upstream and the local derivative (None), which are whole tensors there.
    formula: str | None = None


@dataclass(frozen=True, slots=True)
class Explained:
    """``explain(X)``: X's pass adjoint as the sum of its edges' contributions in the latest
    kept pass whose graph holds X, and its stored gradient as the sum of the pass adjoints
    committed since its last `zero_grad` (``passes``: (pass number, adjoint), oldest first).

    ``complete`` says the passes add up to the gradient; when they do not (passes older than
    the session keeps, or a `zero_grad` between), ``note`` says why, as it says why there is
    nothing to explain (an untracked node, one in no pass)."""

    span: Span
    label: str
    tracked: bool
    pass_number: int | None
    pass_output: str | None
    pass_adjoint: float | None
    seeded: bool  # X is the pass's output: its adjoint is the seed, not a sum of edges
    edges: tuple[EdgeShare, ...]
    gradient: float | None
    passes: tuple[tuple[int, float], ...]
    complete: bool
    note: str | None = None


@dataclass(frozen=True, slots=True)
class TensorSummary:
    """Many numbers in a line: their shape (``()`` for one number), the first few row major,
    and the one of largest magnitude with its index."""

    shape: tuple[int, ...]
    first: tuple[float, ...]
    largest: float
    at: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TensorEdge:
    """An edge of a tensor operation: ``node`` the consumer, ``operand`` the node it leads to
    (in ``slot``), the operation on its shapes (``[32, 30] @ [30, 200] → [32, 200]``), its
    VJP's formula, how many scalar edges it stands for and of what kind (multiply, scalar), and
    in a pass its contribution (None: not computed, the operand is untracked)."""

    node: str
    slot: int
    operand: str
    shapes: str
    formula: str
    scalar_edges: int
    edge_kind: str
    operand_tracked: bool
    contribution: TensorSummary | None = None


@dataclass(frozen=True, slots=True)
class TensorExplained:
    """``explain(T)`` of a tensor node: its operand edges (how an adjoint reaching it goes on:
    each VJP, the shapes, the scalar edges it stands for), and, in the latest kept pass whose
    graph holds it, the adjoint that reached it and the edges into it from its consumers, whose
    contributions add up to it (``adds_up``: exactly, in the pass's order); its stored gradient
    and the passes that added to it since its last `zero_grad` (``passes``)."""

    span: Span
    label: str
    operation: str
    shape: tuple[int, ...]
    tracked: bool
    operands: tuple[TensorEdge, ...]
    pass_number: int | None
    pass_output: str | None
    adjoint: TensorSummary | None
    consumers: tuple[TensorEdge, ...]
    adds_up: bool
    gradient: TensorSummary | None
    passes: tuple[int, ...]
    note: str | None = None


@dataclass(frozen=True, slots=True)
class PathShown:
    """One path from an output down to a node through operand edges: the labels from the
    output to the node, the local derivative of each edge, and their product; ``slots``: each
    edge's operand slot (`x * x` gives two paths whose labels are alike, told apart by their slots)."""

    labels: tuple[str, ...]
    locals: tuple[float, ...]
    product: float
    slots: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PathsShown:
    """``paths(OUT, X)``: every path and the sum of their products, which is X's pass adjoint
    in a pass from OUT with seed 1 (``pass_adjoint``, computed apart, for comparison)."""

    span: Span
    output: str
    variable: str
    count: int
    paths: tuple[PathShown, ...]
    total: float
    pass_adjoint: float


@dataclass(frozen=True, slots=True)
class WalkStep:
    """One edge of a walked pass, in the reverse walk's order, and every tracked node's pass
    adjoint after it (``adjoints``: (label, adjoint), in topology order)."""

    index: int
    consumer: str
    slot: int
    operand: str
    upstream: float
    local: float
    contribution: float
    operand_tracked: bool
    before: float | None
    after: float | None
    adjoints: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class WalkShown:
    """``walk(OUT[, SEED])``: the pass and commit of ``backward`` (``backward``: its tables),
    and its edges one by one (``start``: every tracked node's adjoint before the first edge)."""

    span: Span
    backward: BackwardShown
    start: tuple[tuple[str, float], ...]
    steps: tuple[WalkStep, ...]


@dataclass(frozen=True, slots=True)
class GraphShown:
    span: Span
    label: str
    nodes: tuple[GraphNode, ...]
    edge_count: int


@dataclass(frozen=True, slots=True)
class GradcheckShown:
    span: Span
    label: str
    variable: str
    check: ScalarGradientCheck


@dataclass(frozen=True, slots=True)
class Expected:
    """``expect KIND: ...`` saw the error it expected."""

    span: Span
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class Warned:
    """The statement ran, but likely not as meant; the run goes on. ``kind`` says what:
    `no-backward`: a ``descend`` stepped by gradients that no backward pass wrote (every one 0,
    and no committed pass reached ``names`` since they were made or zeroed: a training loop
    that forgot ``backward``). Shown once per statement, not once per iteration."""

    span: Span
    kind: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Failed:
    """The statement (or the whole program, for a syntax error) failed."""

    diagnostic: Diagnostic
    # The text of our own traceback, for ``internal-error`` only (shown with --debug).
    traceback: str | None = None
    # The program did not parse, so nothing ran (the command exits 2 rather than 1).
    static: bool = False


@dataclass(frozen=True, slots=True)
class Drawn:
    """``draw(EXPR)``: a picture to show (a notebook draws it, a terminal prints its DOT text);
    ``draw(EXPR, "FILE")``: the picture was written to ``path``."""

    span: Span
    label: str
    picture: Picture
    path: str | None = None
    format: str | None = None  # of the file: svg, png or dot

    @property
    def dot(self) -> str:
        from ..pictures.dot import to_dot

        return to_dot(self.picture)


@dataclass(frozen=True, slots=True)
class Charted:
    """``plot(...)`` or ``boundary(...)``: a chart (pictures/charts.py: data, drawn by each
    front end as text, SVG or a JSON event) of ``label`` (the plotted list's source text, or
    the boundary's function); with ``file:``, written to ``path`` (``format``: svg or txt)."""

    span: Span
    label: str
    chart: Chart
    path: str | None = None
    format: str | None = None


Outcome = (
    ValueShown | ListShown | Bound | Defined | Printed | BackwardShown | GraphShown | GradcheckShown
    | Explained | PathsShown | WalkShown | Drawn | Charted | Expected | Warned | Failed | TextShown
    | TensorShown | TensorExplained
)
