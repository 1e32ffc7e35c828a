"""``walk`` as text, whatever its graph: a graph of scalar nodes edge by edge (chain_rule.py's
lines), a graph holding tensor nodes node by node (here: each node with the adjoint that
reached it and its operand edges, each VJP with the contribution it adds, many numbers in a
line as `explain(T)` summarises them). The front ends read a walk through these functions:

- `walk_parts(shown, width)`: what a script prints, a part at a time;
- `walk_header(shown, width)`, `walk_step_lines(shown, index, width)`, `walk_end_parts(shown,
  width)`, `walk_end_lines(shown, width)`: the REPL's and the notebook player's pieces of it.
"""

from __future__ import annotations

from typing import Iterator

from rich.text import Text

from ..engine.numbers import format_number
from ..interpreter.outcomes import WalkShown
from ..engine.tensor_errors import show_shape
from ..interpreter.tensor_outcomes import TensorWalkEdge, TensorWalkStep
from . import chain_rule
from .chain_rule import _label, _name, _plural
from .tables import forward_tables, pass_tables
from .tensor_chain_rule import summary_text
from .wrapping import INDENT, prose, sentence


def is_tensor_walk(shown: WalkShown) -> bool:
    """A walk of a graph holding tensor nodes: its steps are nodes, not edges."""
    return bool(shown.steps) and isinstance(shown.steps[0], TensorWalkStep)


def step_word(shown: WalkShown) -> str:
    """What one step of the walk is: an edge, or a node (of a graph holding tensors)."""
    return "node" if is_tensor_walk(shown) else "edge"


def walk_parts(shown: WalkShown, width: int, row_limit: int = 200) -> Iterator[list[Text]]:
    """The forward graph (values only, so that the walk does not give its answers away first),
    the header, every step in order, then the pass's tables as ``backward`` shows them and the
    closing line."""
    yield from forward_tables(shown.backward, width, row_limit)
    yield walk_header(shown, width)
    for index in range(len(shown.steps)):
        yield walk_step_lines(shown, index, width)
    yield from walk_end_parts(shown, width, row_limit)


def walk_end_parts(shown: WalkShown, width: int, row_limit: int = 200) -> Iterator[list[Text]]:
    yield from pass_tables(shown.backward, width, row_limit)
    yield walk_end_lines(shown, width)


def walk_header(shown: WalkShown, width: int) -> list[Text]:
    if not is_tensor_walk(shown):
        return chain_rule.walk_header(shown, width)
    steps = len(shown.steps)
    edges = _edge_count(shown)
    return [
        *sentence([
            "walk from ", _name(_label(shown.backward.label)),
            f" with seed {format_number(shown.backward.backward_pass.seed)}: {steps:,} {_plural(steps, 'node')}"
            f" with {edges:,} operand {_plural(edges, 'edge')}, from the output back (a tensor edge is one VJP"
            " standing for many scalar edges)",
        ], width),
        *prose(f"{INDENT}each node: the adjoint that reached it, then each operand edge (slot) with its VJP (a"
               " scalar operation's: upstream × local) and the contribution it adds to its operand;", width, INDENT * 2),
        *prose(f"{INDENT}many numbers in a line: shape, first values, the largest magnitude and where it is",
               width, INDENT * 2),
    ]


def walk_step_lines(shown: WalkShown, index: int, width: int) -> list[Text]:
    step = shown.steps[index]
    if not isinstance(step, TensorWalkStep):
        return chain_rule.walk_step_lines(shown, index, width)
    label = _name(_label(step.node))
    shapes = step.edges[0].edge.shapes if step.edges and step.edges[0].local is None else ""
    kind = f"{step.operation} {show_shape(step.shape)}" if step.shape else f"{step.operation}, a scalar"
    lines = sentence([f"node {index + 1} of {len(shown.steps)}: ", label, f": {kind}"
                      + (f" ({shapes})" if shapes else "")], width)
    seed = " (the seed: it is the pass's output)" if step.seeded else ""
    lines += sentence([f"{INDENT}adjoint that reached it: {summary_text(step.adjoint)}{seed}"], width, INDENT * 3)
    for edge in step.edges:
        lines += _edge_lines(edge, step, width)
    return lines


def _edge_lines(walked: TensorWalkEdge, step: TensorWalkStep, width: int) -> list[Text]:
    edge = walked.edge
    operand = _name(_label(edge.operand))
    if walked.local is not None:  # a scalar operation's edge: upstream × local = contribution
        if edge.contribution is None:
            return sentence([f"{INDENT}slot {edge.slot} to ", operand, f": {summary_text(step.adjoint)} ×"
                             f" {format_number(walked.local)}; untracked: the pass computes nothing for it"],
                            width, INDENT * 3)
        lines = sentence([f"{INDENT}slot {edge.slot} to ", operand, f": {summary_text(step.adjoint)} ×"
                          f" {format_number(walked.local)} = {summary_text(edge.contribution)}"], width, INDENT * 3)
    else:
        count, word = edge.scalar_edges, "edge" if edge.scalar_edges == 1 else "edges"
        untracked = "" if edge.contribution is not None else "; untracked: the pass computes nothing for it"
        lines = sentence([f"{INDENT}slot {edge.slot} to ", operand, f": {edge.formula}"
                          f" ({count:,} {edge.edge_kind} {word}{untracked})"], width, INDENT * 3)
        if edge.contribution is None:
            return lines
        lines += sentence([f"{INDENT * 2}adds {summary_text(edge.contribution)}"], width, INDENT * 4)
    if walked.after is not None and walked.count > 1:
        lines += sentence([INDENT * 2, operand, f"'s adjoint now ({walked.count} contributions):",
                           f" {summary_text(walked.after)}"], width, INDENT * 4)
    return lines


def walk_end_lines(shown: WalkShown, width: int) -> list[Text]:
    if not is_tensor_walk(shown):
        return chain_rule.walk_end_lines(shown, width)
    steps, edges = len(shown.steps), _edge_count(shown)
    return sentence([
        f"walked {steps:,} {_plural(steps, 'node')} ({edges:,} operand {_plural(edges, 'edge')}) from ",
        _name(_label(shown.backward.label)), ": each gradient grew by its pass adjoint, as `backward` commits a pass",
    ], width)


def _edge_count(shown: WalkShown) -> int:
    count = 0
    for step in shown.steps:
        if isinstance(step, TensorWalkStep):
            count += len(step.edges)
    return count
