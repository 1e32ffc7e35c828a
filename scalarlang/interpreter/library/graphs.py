"""Statements that walk a graph: ``backward(...)`` and ``walk(...)`` (a pass, committed only
when it is all finite; `walk` shows it edge by edge), ``graph(...)`` (its nodes), ``draw(...)``
(a picture), and the notes that name the nodes a pass error is about."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.errors import ScalarAutodiffError
from ...engine.numbers import format_parameter
from ...engine.passes import topology as topology_of
from ...engine.scalar import Scalar, ScalarOperation
from ...engine.tensor_node import TensorNode
from ...language import tree
from ...language.diagnostics import Diagnostic, LanguageError
from ..outcomes import BackwardShown, Drawn, WalkShown, WalkStep
from ..values import is_count, label_of, made_at, name_of, operation_text, source_label

if TYPE_CHECKING:
    from ..context import Compiling, Running


def compile_backward(run: Running, statement: tree.ExprStatement, call: tree.Call, walk: bool = False):
    """``backward(OUT[, SEED])``, or ``walk(OUT[, SEED])``: the same pass and commit, shown
    edge by edge (always: a walk is asked for, never an echo)."""
    compiler = run.compiler
    output_of = compiler.node_expression(compiler.values(call)[0], "`walk`" if walk else "`backward`")
    if len(call.args) == 2:
        seed_of, seed_span = compiler.number(compiler.values(call)[1]), call.args[1].span
    else:
        seed_of, seed_span = (lambda args: 1.0), call.span
    output_span, span = call.args[0].span, statement.span

    def backward(show):
        output = output_of(None)
        if walk and any(isinstance(node, TensorNode) for node in topology_of(output)):
            raise tensor_graph(compiler, output, "`walk`", output_span)  # (before a pass it cannot show)
        seed = seed_of(None)
        state, observer = run.state, run.session.pass_observer
        try:
            if not show and not walk and observer is None and not state.watches_passes:
                state.commit_unseen(output, seed)  # checks everything, then commits: atomic
                return
            backward_pass = output.reverse_pass(seed)
        except ScalarAutodiffError as error:
            raise pass_failure(compiler, error, output, seed_span, output_span) from None
        if walk and len(backward_pass.edges) > MAX_WALK_EDGES:
            raise compiler.fail(
                "too-long",
                f"this pass has {len(backward_pass.edges):,} operand edges; `walk` shows at most {MAX_WALK_EDGES:,}",
                span,
                {"edges": len(backward_pass.edges), "limit": MAX_WALK_EDGES},
                ("help: `backward` shows the same pass as tables, `explain(X)` one node's edges",),
            )
        if observer is not None and not run.muted:
            # --draw: the pass's picture is written before anything is committed, so a
            # picture that cannot be written leaves the stored gradients as they were.
            from ...pictures.errors import DrawingError

            topology = backward_pass.topology
            try:
                observer(backward_pass, label_of(output), lambda index: label_of(topology[index]))
            except DrawingError as error:
                raise compiler.drawing_error(error, span) from None
        state.commit(backward_pass, lambda: label_of(output))
        if walk:
            run.emit(walk_outcome(span, label_of(output), backward_pass))
        elif show:
            run.emit(backward_outcome(span, label_of(output), backward_pass))

    return backward


def tensor_graph(compiler: Compiling, output: Scalar, needed_by: str, span) -> LanguageError:
    """`tensor-graph`: ``needed_by`` (`walk`, `paths`) steps over the scalar edges of a graph;
    a tensor edge is one VJP standing for many of them, and the pass over a graph holding
    tensors keeps no per-edge records to step over. The one wording of the kind."""
    label = label_of(output)
    tensors = sum(1 for node in topology_of(output) if isinstance(node, TensorNode))
    scalar_output = not isinstance(output, TensorNode)
    return compiler.fail(
        "tensor-graph",
        f"{needed_by} shows graphs of scalar nodes; `{label}`'s graph holds {tensors:,} tensor "
        f"node{'' if tensors == 1 else 's'}, whose edges each stand for many scalar edges",
        span,
        {"output": label, "tensor_nodes": tensors},
        ("help: `explain(T)` shows a tensor node's edges: each VJP and the scalar edges it stands for"
         + (f"; `backward({label})` shows the pass as tables, `vjp_check({label})` compares each VJP with "
            "the sum of its scalar edges" if scalar_output else ""),),
    )


def compile_walk(run: Running, statement: tree.ExprStatement, call: tree.Call):
    return compile_backward(run, statement, call, walk=True)


def node_or_tensor(compiler: Compiling, expr: tree.Expr, needed_by: str):
    """An expression whose value must be a node, a scalar node or a tensor (`graph(T)`,
    `draw(T)`, `explain(T)`: a tensor is one node of its graph); else `not-a-node`."""
    evaluate, not_a_node = compiler.expression(expr), compiler.node_check(expr, needed_by)

    def node(args):
        found = evaluate(args)
        if found.__class__ is Scalar or isinstance(found, TensorNode):
            return found
        raise not_a_node(found)

    return node


def compile_graph(run: Running, statement: tree.ExprStatement, call: tree.Call):
    """``graph(EXPR)``: the nodes of EXPR's graph; changes nothing."""
    target = node_or_tensor(run.compiler, run.compiler.values(call)[0], "`graph`")
    return lambda show: run.emit(run.session.graph_of(target(None), statement.span))


# `walk` shows at most this many edges (one per Enter in the REPL): a larger pass is `too-long`.
MAX_WALK_EDGES = 500


def backward_outcome(span, label: str, backward_pass) -> BackwardShown:
    """What `backward` shows of a pass: its tables, with the session's labels and values."""
    topology = backward_pass.topology
    return BackwardShown(
        span,
        label,
        backward_pass,
        tuple([label_of(node) for node in topology]),
        tuple([operation_text(node) for node in topology]),
        frozenset([index for index, node in enumerate(topology) if is_count(node)]),
    )


def compile_draw(run: Running, statement: tree.ExprStatement, call: tree.Call):
    """``draw(EXPR)``, ``draw(EXPR, "FILE")``: the picture of EXPR's graph as it is now.

    It shows in loop bodies and under ``quiet`` too: a picture is asked for, never an echo."""
    from ...pictures import DrawingError, graph_picture, picture_format, write_picture  # on first use

    compiler, args = run.compiler, call.args  # an expression, maybe a text (its entry says so)
    target = node_or_tensor(compiler, compiler.values(call)[0], "`draw`")
    path_of = compiler.text_argument(args[1], "`draw`") if len(args) == 2 else None
    target_span, file_span, span = args[0].span, args[-1].span, statement.span

    def draw(show):
        node = target(None)
        path = path_of(None) if path_of is not None else None
        try:
            output_format = picture_format(path) if path is not None else None
            picture = graph_picture(node, label_of)
        except DrawingError as error:
            where = target_span if error.kind == "graph-too-large" else file_span
            raise compiler.drawing_error(error, where) from None
        if path is not None:
            try:
                # (under `expect` too: the statement runs; a file is not the session's state)
                write_picture(picture, path)
            except DrawingError as error:
                raise compiler.drawing_error(error, file_span) from None
        run.emit(Drawn(span, label_of(node), picture, path, output_format))

    return draw


def pass_failure(compiler: Compiling, error, output, seed_span, output_span) -> LanguageError:
    if error.kind == "non-finite-seed":
        return compiler.engine_error(error, seed_span)
    failure = compiler.engine_error(error, output_span)
    notes = _node_notes(compiler, error, output)
    if notes:
        diagnostic = failure.diagnostic
        return LanguageError(Diagnostic(
            diagnostic.kind, diagnostic.message, diagnostic.span, diagnostic.source, diagnostic.fields, notes
        ))
    if error.kind == "untracked-output":
        diagnostic = failure.diagnostic
        return LanguageError(Diagnostic(
            diagnostic.kind, diagnostic.message, diagnostic.span, diagnostic.source, diagnostic.fields,
            (_untracked_hint(output),),
        ))
    return failure


# Fields of pass errors that are topology indices, in the order their notes are shown.
_INDEX_FIELDS = ("child", "parent", "node")


def _node_notes(compiler: Compiling, error, output: Scalar) -> tuple[str, ...]:
    """``node 5 is s, made at 4:9 by x * h``: the nodes a pass error names by topology index."""
    indices = []
    for field in _INDEX_FIELDS:
        index = error.fields.get(field)
        if isinstance(index, int) and index not in indices:
            indices.append(index)
    if not indices:
        return ()
    topology = output.topology()
    notes = []
    for index in indices:
        if not 0 <= index < len(topology):
            continue
        node = topology[index]
        note = f"node {index} is `{label_of(node)}`"
        made = made_at(node)
        if made is not None:
            source, span = made
            where = f"{span.line}:{span.column}" if source is compiler.source else f"{source.name}:{span.line}:{span.column}"
            note += f", made at {where} by `{source_label(source.text, span)}`"
        notes.append(note)
    return tuple(notes)


def _untracked_hint(output: Scalar) -> str:
    """How to make the output trackable: name a constant leaf it was made from."""
    for node in output.topology():
        if node.operation is ScalarOperation.CONSTANT:
            name = name_of(node)
            if name is not None and isinstance(node, TensorNode):  # (its values: a grid, not a number)
                return (
                    f"help: `{label_of(output)}` depends on no variable: `{name}` is a constant tensor; "
                    f"make it a variable with `let {name} = var {name}`"
                )
            if name is not None:
                return (
                    f"help: `{label_of(output)}` depends on no variable: `{name}` is a constant; "
                    f"make it a variable with `let {name} = var {format_parameter(node.value)}`"
                )
    return (
        f"help: `{label_of(output)}` depends on no variable; "
        "make one with `var`, e.g. `let x = var 2`"
    )


# ---- walk -------------------------------------------------------------------------------------


def walk_outcome(span, label: str, backward_pass) -> WalkShown:
    """The edges of a committed pass one by one, each with every tracked node's adjoint after it."""
    topology = backward_pass.topology
    labels = _unique_labels(topology)
    tracked = [index for index, node in enumerate(topology) if node._gradient is not None]
    current = {index: 0.0 for index in tracked}
    if topology and topology[-1]._gradient is not None:
        current[len(topology) - 1] = backward_pass.seed
    start = tuple((labels[index], current[index]) for index in tracked)
    steps = []
    for edge in backward_pass.edges:
        if edge.parent_tracked:
            current[edge.parent] = edge.parent_adjoint_after
        steps.append(WalkStep(
            edge.reverse_index, labels[edge.child], edge.operand, labels[edge.parent], edge.upstream,
            edge.local_derivative, edge.contribution, edge.parent_tracked, edge.parent_adjoint_before,
            edge.parent_adjoint_after, tuple((labels[index], current[index]) for index in tracked),
        ))
    return WalkShown(span, backward_outcome(span, label, backward_pass), start, tuple(steps))


def _unique_labels(topology: list[Scalar]) -> list[str]:
    """Each node's label; a label two nodes share gets the topology index (`x #3`)."""
    labels = [label_of(node) for node in topology]
    seen: dict[str, int] = {}
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
    return [label if seen[label] == 1 else f"{label} #{index}" for index, label in enumerate(labels)]
