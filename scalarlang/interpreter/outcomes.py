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

from typing import TYPE_CHECKING

from ..engine.gradcheck import ScalarGradientCheck
from ..engine.records import BackwardPass
from ..language.diagnostics import Diagnostic
from ..language.plain_data import PlainData
from ..language.source import Span
from .values import ListValue

from .tensor_outcomes import TensorExplained, TensorShown, VJPCheckShown

if TYPE_CHECKING:
    from ..pictures.charts import Chart
    from ..pictures.picture import Picture


class NodeState(PlainData):
    """A node as it was when the statement ran."""

    __slots__ = __match_args__ = ("label", "operation", "value", "tracked", "gradient", "count")

    def __init__(
        self, label: str, operation: str, value: float, tracked: bool, gradient: float | None, count: bool = False
    ) -> None:
        self.label = label
        self.operation = operation
        self.value = value
        self.tracked = tracked
        self.gradient = gradient
        # A count (`len`, `node_count`, a loop index): its value is shown as a whole number.
        self.count = count


class ValueShown(PlainData):
    """A bare expression's value line."""

    __slots__ = __match_args__ = ("span", "node")

    def __init__(self, span: Span, node: NodeState) -> None:
        self.span = span
        self.node = node


class ListShown(PlainData):
    """A bare expression's value line when its value is a list (lists never change, so the
    value itself is kept; ``values.formatted_value`` says it)."""

    __slots__ = __match_args__ = ("span", "value")

    def __init__(self, span: Span, value: ListValue) -> None:
        self.span = span
        self.value = value


class TextShown(PlainData):
    """A bare expression's value line when its value is a text."""

    __slots__ = __match_args__ = ("span", "text")

    def __init__(self, span: Span, text: str) -> None:
        self.span = span
        self.text = text


class Bound(PlainData):
    """``let NAME = ...``: silent in scripts, echoed by the REPL."""

    __slots__ = __match_args__ = ("span", "name", "node")

    def __init__(self, span: Span, name: str, node: NodeState) -> None:
        self.span = span
        self.name = name
        self.node = node


class Defined(PlainData):
    """``fn NAME(...) = ...`` or ``let NAME = [ ... ]`` (a list): silent in scripts, echoed by
    the REPL as ``description``."""

    __slots__ = __match_args__ = ("span", "name", "description")

    def __init__(self, span: Span, name: str, description: str) -> None:
        self.span = span
        self.name = name
        self.description = description


class Printed(PlainData):
    __slots__ = __match_args__ = ("span", "text")

    def __init__(self, span: Span, text: str) -> None:
        self.span = span
        self.text = text


class GraphNode(PlainData):
    __slots__ = __match_args__ = ("index", "label", "operation", "value", "count", "tracked", "gradient", "operands",
                                  "shape")

    def __init__(
        self,
        index: int,
        label: str,
        operation: str,
        value: float | tuple[float, ...],
        count: bool,
        tracked: bool,
        gradient: float | tuple[float, ...] | None,
        operands: tuple[int, ...],
        shape: tuple[int, ...] = (),
    ) -> None:
        self.index = index
        self.label = label
        self.operation = operation  # as tables show it: `pow 2`
        self.value = value  # a tensor node's: its values, row major
        self.count = count  # its value is shown as a whole number
        self.tracked = tracked
        self.gradient = gradient
        self.operands = operands
        self.shape = shape  # a tensor node's; () for a scalar node


class BackwardShown(PlainData):
    """A pass's records (the engine's, which never change) and, by topology index, how each
    node reads: its label and its operation (`pow 2`); ``counts``: the topology indices of the
    nodes whose values are shown as whole numbers."""

    __slots__ = __match_args__ = ("span", "label", "backward_pass", "labels", "operations", "counts")

    def __init__(
        self,
        span: Span,
        label: str,
        backward_pass: BackwardPass,
        labels: tuple[str, ...],
        operations: tuple[str, ...],
        counts: frozenset[int] = frozenset(),
    ) -> None:
        self.span = span
        self.label = label
        self.backward_pass = backward_pass
        self.labels = labels
        self.operations = operations
        self.counts = counts


class EdgeShare(PlainData):
    """One operand edge into a node in a pass: its consumer, slot, the consumer's pass adjoint
    (the upstream), the local derivative, and their product, the edge's contribution. An edge
    of a tensor operation (`T * s`, `tensor(L)`) has its VJP's formula instead of the upstream
    and the local derivative (None), which are whole tensors there."""

    __slots__ = __match_args__ = ("consumer", "slot", "upstream", "local", "contribution", "formula")

    def __init__(self, consumer: str, slot: int, upstream: float | None, local: float | None, contribution: float,
                 formula: str | None = None) -> None:
        self.consumer = consumer
        self.slot = slot
        self.upstream = upstream
        self.local = local
        self.contribution = contribution
        self.formula = formula


class Explained(PlainData):
    """``explain(X)``: X's pass adjoint as the sum of its edges' contributions in the latest
    kept pass whose graph holds X, and its stored gradient as the sum of the pass adjoints
    committed since its last `zero_grad` (``passes``: (pass number, adjoint), oldest first).

    ``complete`` says the passes add up to the gradient; when they do not (passes older than
    the session keeps, or a `zero_grad` between), ``note`` says why, as it says why there is
    nothing to explain (an untracked node, one in no pass)."""

    __slots__ = __match_args__ = ("span", "label", "tracked", "pass_number", "pass_output", "pass_adjoint", "seeded", "edges", "gradient", "passes", "complete", "note")

    def __init__(
        self,
        span: Span,
        label: str,
        tracked: bool,
        pass_number: int | None,
        pass_output: str | None,
        pass_adjoint: float | None,
        seeded: bool,
        edges: tuple[EdgeShare, ...],
        gradient: float | None,
        passes: tuple[tuple[int, float], ...],
        complete: bool,
        note: str | None = None,
    ) -> None:
        self.span = span
        self.label = label
        self.tracked = tracked
        self.pass_number = pass_number
        self.pass_output = pass_output
        self.pass_adjoint = pass_adjoint
        self.seeded = seeded  # X is the pass's output: its adjoint is the seed, not a sum of edges
        self.edges = edges
        self.gradient = gradient
        self.passes = passes
        self.complete = complete
        self.note = note


class PathShown(PlainData):
    """One path from an output down to a node through operand edges: the labels from the
    output to the node, the local derivative of each edge, and their product; ``slots``: each
    edge's operand slot (`x * x` gives two paths whose labels are alike, told apart by their slots)."""

    __slots__ = __match_args__ = ("labels", "locals", "product", "slots")

    def __init__(
        self, labels: tuple[str, ...], locals: tuple[float, ...], product: float, slots: tuple[int, ...] = ()
    ) -> None:
        self.labels = labels
        self.locals = locals
        self.product = product
        self.slots = slots


class PathsShown(PlainData):
    """``paths(OUT, X)``: every path and the sum of their products, which is X's pass adjoint
    in a pass from OUT with seed 1 (``pass_adjoint``, computed apart, for comparison)."""

    __slots__ = __match_args__ = ("span", "output", "variable", "count", "paths", "total", "pass_adjoint")

    def __init__(
        self,
        span: Span,
        output: str,
        variable: str,
        count: int,
        paths: tuple[PathShown, ...],
        total: float,
        pass_adjoint: float,
    ) -> None:
        self.span = span
        self.output = output
        self.variable = variable
        self.count = count
        self.paths = paths
        self.total = total
        self.pass_adjoint = pass_adjoint


class WalkStep(PlainData):
    """One edge of a walked pass, in the reverse walk's order, and every tracked node's pass
    adjoint after it (``adjoints``: (label, adjoint), in topology order)."""

    __slots__ = __match_args__ = ("index", "consumer", "slot", "operand", "upstream", "local", "contribution", "operand_tracked", "before", "after", "adjoints")

    def __init__(
        self,
        index: int,
        consumer: str,
        slot: int,
        operand: str,
        upstream: float,
        local: float,
        contribution: float,
        operand_tracked: bool,
        before: float | None,
        after: float | None,
        adjoints: tuple[tuple[str, float], ...],
    ) -> None:
        self.index = index
        self.consumer = consumer
        self.slot = slot
        self.operand = operand
        self.upstream = upstream
        self.local = local
        self.contribution = contribution
        self.operand_tracked = operand_tracked
        self.before = before
        self.after = after
        self.adjoints = adjoints


class WalkShown(PlainData):
    """``walk(OUT[, SEED])``: the pass and commit of ``backward`` (``backward``: its tables),
    and its edges one by one (``start``: every tracked node's adjoint before the first edge)."""

    __slots__ = __match_args__ = ("span", "backward", "start", "steps")

    def __init__(
        self, span: Span, backward: BackwardShown, start: tuple[tuple[str, float], ...], steps: tuple[WalkStep, ...]
    ) -> None:
        self.span = span
        self.backward = backward
        self.start = start
        self.steps = steps


class GraphShown(PlainData):
    __slots__ = __match_args__ = ("span", "label", "nodes", "edge_count")

    def __init__(self, span: Span, label: str, nodes: tuple[GraphNode, ...], edge_count: int) -> None:
        self.span = span
        self.label = label
        self.nodes = nodes
        self.edge_count = edge_count


class GradcheckShown(PlainData):
    __slots__ = __match_args__ = ("span", "label", "variable", "check")

    def __init__(self, span: Span, label: str, variable: str, check: ScalarGradientCheck) -> None:
        self.span = span
        self.label = label
        self.variable = variable
        self.check = check


class TangentTerm(PlainData):
    """One term of a tangent's sum: an operand edge's local derivative times the operand's
    tangent (``operand``: the operand's index in the trace), and their product."""

    __slots__ = __match_args__ = ("operand", "local", "operand_tangent", "product")

    def __init__(self, operand: int, local: float, operand_tangent: float, product: float) -> None:
        self.operand = operand
        self.local = local
        self.operand_tangent = operand_tangent
        self.product = product


class TangentNode(PlainData):
    """One node of a forward pass, in the order visited: its tangent, and for a node with
    operands the terms whose left fold it is (a leaf has none; ``input``: a leaf the direction
    moves)."""

    __slots__ = __match_args__ = ("index", "label", "operation", "value", "tangent", "input", "terms")

    def __init__(self, index: int, label: str, operation: str, value: float, tangent: float, input: bool,
                 terms: tuple[TangentTerm, ...]) -> None:
        self.index = index
        self.label = label
        self.operation = operation
        self.value = value
        self.tangent = tangent
        self.input = input
        self.terms = terms


class TangentsShown(PlainData):
    """``tangents(Y, X)``, ``tangents(Y, [X…], [V…])``: the evaluation trace of one forward
    pass over Y's graph (``direction``: each input's number, ``along_one``: one input moved
    by 1, the form ``dY/dX``)."""

    __slots__ = __match_args__ = ("span", "label", "inputs", "direction", "along_one", "nodes", "tangent")

    def __init__(self, span: Span, label: str, inputs: tuple[str, ...], direction: tuple[float, ...],
                 along_one: bool, nodes: tuple[TangentNode, ...], tangent: float) -> None:
        self.span = span
        self.label = label
        self.inputs = inputs
        self.direction = direction
        self.along_one = along_one
        self.nodes = nodes
        self.tangent = tangent


class JacobianShown(PlainData):
    """``jacobian([Y…], [X…])``: dY_i/dX_j by forward mode (one pass per input, over the graph
    of all the outputs) and by reverse mode (one pass per output), with each one's passes and
    node visits, and the largest difference between the two matrices."""

    __slots__ = __match_args__ = (
        "span", "outputs", "inputs", "forward", "reverse", "forward_passes", "forward_visits", "reverse_passes",
        "reverse_visits", "largest_difference",
    )

    def __init__(
        self,
        span: Span,
        outputs: tuple[str, ...],
        inputs: tuple[str, ...],
        forward: tuple[tuple[float, ...], ...],
        reverse: tuple[tuple[float, ...], ...],
        forward_passes: int,
        forward_visits: int,
        reverse_passes: int,
        reverse_visits: int,
        largest_difference: float,
    ) -> None:
        self.span = span
        self.outputs = outputs
        self.inputs = inputs
        self.forward = forward
        self.reverse = reverse
        self.forward_passes = forward_passes
        self.forward_visits = forward_visits
        self.reverse_passes = reverse_passes
        self.reverse_visits = reverse_visits
        self.largest_difference = largest_difference


class Expected(PlainData):
    """``expect KIND: ...`` saw the error it expected."""

    __slots__ = __match_args__ = ("span", "kind", "message")

    def __init__(self, span: Span, kind: str, message: str) -> None:
        self.span = span
        self.kind = kind
        self.message = message


class Warned(PlainData):
    """The statement ran, but likely not as meant; the run goes on. ``kind`` says what:
    `no-backward`: a ``descend`` stepped by gradients that no backward pass wrote (every one 0,
    and no committed pass reached ``names`` since they were made or zeroed: a training loop
    that forgot ``backward``). Shown once per statement, not once per iteration."""

    __slots__ = __match_args__ = ("span", "kind", "names")

    def __init__(self, span: Span, kind: str, names: tuple[str, ...]) -> None:
        self.span = span
        self.kind = kind
        self.names = names


class Failed(PlainData):
    """The statement (or the whole program, for a syntax error) failed."""

    __slots__ = __match_args__ = ("diagnostic", "traceback", "static")

    def __init__(self, diagnostic: Diagnostic, traceback: str | None = None, static: bool = False) -> None:
        self.diagnostic = diagnostic
        # The text of our own traceback, for ``internal-error`` only (shown with --debug).
        self.traceback = traceback
        # The program did not parse, so nothing ran (the command exits 2 rather than 1).
        self.static = static


class Drawn(PlainData):
    """``draw(EXPR)``: a picture to show (a notebook draws it, a terminal prints it as a tree);
    ``draw(EXPR, "FILE")``: the picture was written to ``path``."""

    __slots__ = __match_args__ = ("span", "label", "picture", "path", "format")

    def __init__(
        self, span: Span, label: str, picture: Picture, path: str | None = None, format: str | None = None
    ) -> None:
        self.span = span
        self.label = label
        self.picture = picture
        self.path = path
        self.format = format  # of the file: svg, png or dot

    @property
    def dot(self) -> str:
        from ..pictures.dot import to_dot

        return to_dot(self.picture)


class Charted(PlainData):
    """``plot(...)`` or ``boundary(...)``: a chart (pictures/charts.py: data, drawn by each
    front end as text, SVG or a JSON event) of ``label`` (the plotted list's source text, or
    the boundary's function); with ``file:``, written to ``path`` (``format``: svg or txt)."""

    __slots__ = __match_args__ = ("span", "label", "chart", "path", "format")

    def __init__(
        self, span: Span, label: str, chart: Chart, path: str | None = None, format: str | None = None
    ) -> None:
        self.span = span
        self.label = label
        self.chart = chart
        self.path = path
        self.format = format


Outcome = (
    ValueShown | ListShown | Bound | Defined | Printed | BackwardShown | GraphShown | GradcheckShown
    | Explained | PathsShown | WalkShown | Drawn | Charted | Expected | Warned | Failed | TextShown
    | TensorShown | TensorExplained | VJPCheckShown | TangentsShown | JacobianShown
)
