"""Statements that show the chain rule on the learner's own graph: ``explain(X)`` and
``paths(OUT, X)`` (``walk(OUT[, SEED])``, backward's pass shown edge by edge, is in ``graphs``).

- ``explain`` reads the session's history of committed passes (``history``): X's pass adjoint
  as the sum of its edges' contributions, its stored gradient as the sum of its pass adjoints.
- ``paths`` counts the paths from OUT down to X first (over the topology, operands before
  results), and lists them, each with its local derivatives and their product, only when there
  are at most `MAX_PATHS`: their sum is X's pass adjoint in a pass from OUT with seed 1.

`explain` and `paths` change nothing. Walks over graphs use explicit stacks, never recursion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ...engine.errors import ScalarAutodiffError
from ...engine.records import BackwardPass
from ...engine.scalar import Scalar
from ...engine.tensor_node import TensorNode
from ...engine.tensor_formulas import tensor_edges, vjp_formula
from ...engine.tensor_operations import TensorOperation
from ...engine.tensor_passes import TensorBackwardPass
from ...language import tree
from .graphs import node_or_tensor, pass_failure, tensor_graph
from .tensor_chain_rule import tensor_explained
from ..outcomes import EdgeShare, Explained, PathShown, PathsShown
from ..state import History, KeptPass
from ..values import label_of

if TYPE_CHECKING:
    from ..context import Running

# `paths` lists at most this many paths; more is the error `too-many-paths` with the count.
MAX_PATHS = 1_000


def compile_explain(run: Running, statement: tree.ExprStatement, call: tree.Call):
    target = node_or_tensor(run.compiler, run.compiler.values(call)[0], "`explain`")
    span = statement.span

    def explain(show):
        value = target(None)
        if isinstance(value, TensorNode):  # one node whose edges are VJPs
            run.emit(tensor_explained(value, run.state.history, span))
        else:
            run.emit(explained(value, run.state.history, span))

    return explain


def explained(node: Scalar, history: History | None, span) -> Explained:
    label = label_of(node)
    if node._gradient is None:
        untracked = f"`{label}` is untracked ({node.operation}): no pass gives it an adjoint, and it has no gradient"
        return Explained(span, label, False, None, None, None, False, (), None, (), True, untracked)
    latest, held, zeroed = history.passes_through(node) if history is not None else (None, [], False)
    passes = [(kept.number, _adjoint(kept.backward_pass, index)) for kept, index in held]
    gradient = node._gradient
    total = 0.0
    for _, adjoint in passes:
        total += adjoint  # the engine's own order: stored + pass adjoint, pass after pass
    complete = total == gradient
    note: str | None = None
    if latest is None:
        note = f"`{label}` was in no backward pass the session keeps"
        if history is not None and (history.dropped or history.skipped):
            note += " (it keeps the latest passes of up to 100,000 numbers in all)"
        return Explained(span, label, True, None, None, None, False, (), gradient, tuple(passes), complete, note)
    kept, index = latest
    edges = tuple(_edges_into(kept, index))
    seeded = kept.backward_pass.topology[-1] is node
    if zeroed and not passes:
        note = f"`{label}` was zeroed since pass {kept.number}: its gradient holds no pass yet"
    elif not complete:
        note = "earlier passes are no longer kept: the ones kept do not add up to the gradient"
    return Explained(
        span, label, True, kept.number, kept.output, _adjoint(kept.backward_pass, index), seeded, edges,
        gradient, tuple(passes), complete, note,
    )


def _adjoint(backward_pass: BackwardPass, index: int) -> float:
    """A scalar node's pass adjoint, in a pass over scalar nodes or one holding tensors."""
    if isinstance(backward_pass, TensorBackwardPass):
        return cast(float, backward_pass.adjoint(index))
    return backward_pass._adjoints[index]


def _edges_into(kept: KeptPass, index: int):
    """The pass's edges into topology node ``index``, in visiting order."""
    backward_pass = kept.backward_pass
    topology = backward_pass.topology
    if isinstance(backward_pass, TensorBackwardPass):
        yield from _tensor_pass_edges_into(backward_pass, index)
        return
    for edge in backward_pass.edges:
        if edge.parent == index:
            yield EdgeShare(
                label_of(topology[edge.child]), edge.operand, edge.upstream, edge.local_derivative, edge.contribution
            )


def _tensor_pass_edges_into(backward_pass: TensorBackwardPass, index: int):
    """A scalar node's edges in a pass over a graph holding tensors (which keeps no per-edge
    records), in the pass's order: consumers from the output back, each one's slots in order.
    A scalar operation's edge has its upstream and local derivative; a tensor operation's its
    VJP's formula and its contribution, the VJP applied again to the consumer's adjoint."""
    topology = backward_pass.topology
    target = topology[index]
    for child in range(len(topology) - 1, index, -1):
        consumer = topology[child]
        if consumer._gradient is None or consumer._left is None:
            continue
        upstream = backward_pass.adjoint(child)
        if consumer._operation.__class__ is TensorOperation:
            for slot, (operand, vjp) in enumerate(tensor_edges(consumer)):
                if operand is target:
                    contribution = vjp(upstream if upstream.__class__ is float else list(cast(tuple, upstream)))
                    yield EdgeShare(label_of(consumer), slot, None, None, contribution, vjp_formula(consumer, slot))
            continue
        for slot, edge in enumerate(consumer.parents):
            if edge.parent is target:
                local = edge.local_derivative
                yield EdgeShare(label_of(consumer), slot, cast(float, upstream), local, cast(float, upstream) * local)


# ---- paths ------------------------------------------------------------------------------------


def compile_paths(run: Running, statement: tree.ExprStatement, call: tree.Call):
    compiler = run.compiler
    output_expr, variable_expr = compiler.values(call)
    output_of, variable_of = node_or_tensor(compiler, output_expr, "`paths`"), node_or_tensor(compiler, variable_expr, "`paths`")
    span, output_span = statement.span, call.args[0].span

    def paths(show):
        output, variable = output_of(None), variable_of(None)
        if isinstance(output, TensorNode) or isinstance(variable, TensorNode):
            raise tensor_graph(compiler, output, "`paths`", output_span)
        topology = output.topology()
        if any(node._operation.__class__ is TensorOperation for node in topology):
            raise tensor_graph(compiler, output, "`paths`", output_span)
        count = count_paths(topology, variable)
        if count > MAX_PATHS:
            raise compiler.fail(
                "too-many-paths",
                f"there are {count:,} paths from `{label_of(output)}` to `{label_of(variable)}`; "
                f"`paths` lists at most {MAX_PATHS:,}",
                span,
                {"count": count, "limit": MAX_PATHS},
                ("help: `explain(X)` shows the same sum edge by edge, however many paths there are",),
            )
        shown = tuple(
            PathShown(tuple(label_of(node) for node in nodes), locals_, _product(locals_), slots)
            for nodes, locals_, slots in enumerate_paths(topology, variable)
        )
        total = 0.0
        for path in shown:
            total += path.product
        try:
            adjoint = _pass_adjoint(output, variable, topology)
        except ScalarAutodiffError as error:
            raise pass_failure(compiler, error, output, output_span, output_span) from None
        run.emit(PathsShown(span, label_of(output), label_of(variable), count, shown, total, adjoint))

    return paths


def count_paths(topology: list[Scalar], variable: Scalar) -> int:
    """How many paths lead from the topology's output down to ``variable`` (each operand edge
    its own way: `x * x` gives two). One pass over the topology, operands before results."""
    ways: dict[int, int] = {id(variable): 1}
    for node in topology:
        if node is variable:
            continue
        total = sum(ways.get(id(edge.parent), 0) for edge in node.parents)
        if total:
            ways[id(node)] = total
    return ways.get(id(topology[-1]), 0) if topology else 0


def enumerate_paths(topology: list[Scalar], variable: Scalar):
    """Each path from the output to ``variable``: its nodes, its edges' local derivatives and
    their slots, depth first, operands in slot order. Only edges that lead to ``variable`` are
    followed."""
    leads = _leading_to(topology, variable)
    output = topology[-1]
    if id(output) not in leads:
        return
    # (the path's nodes so far, its locals, its slots, the next slot to try at its last node)
    stack: list[tuple[list[Scalar], list[float], list[int], int]] = [([output], [], [], 0)]
    while stack:
        nodes, locals_, slots, slot = stack.pop()
        last = nodes[-1]
        if last is variable:
            yield nodes, tuple(locals_), tuple(slots)
            continue
        edges = last.parents
        if slot < len(edges):
            stack.append((nodes, locals_, slots, slot + 1))  # the next slot, once this one is done
            edge = edges[slot]
            if id(edge.parent) in leads:
                stack.append(([*nodes, edge.parent], [*locals_, edge.local_derivative], [*slots, slot], 0))


def _leading_to(topology: list[Scalar], variable: Scalar) -> set[int]:
    leads = {id(variable)}
    for node in topology:
        if any(id(edge.parent) in leads for edge in node.parents):
            leads.add(id(node))
    return leads


def _product(locals_: tuple[float, ...]) -> float:
    product = 1.0
    for local in locals_:
        product *= local
    return product


def _pass_adjoint(output: Scalar, variable: Scalar, topology: list[Scalar]) -> float:
    """``variable``'s adjoint in a fresh pass from ``output`` with seed 1 (0 if untracked or
    not reached: every path's product is then 0 or there is none)."""
    if not output.tracks_gradient or not variable.tracks_gradient:
        return 0.0
    backward_pass = output.reverse_pass(1.0)
    index = next((i for i, node in enumerate(backward_pass.topology) if node is variable), None)
    return 0.0 if index is None else backward_pass._adjoints[index]
