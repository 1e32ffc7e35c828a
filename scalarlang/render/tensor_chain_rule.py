"""``explain(T)`` of a tensor node as text: its operand edges (each VJP, the shapes, the scalar
edges it stands for), the adjoint that reached it in the latest pass as the sum of its
consumers' contributions, and its stored gradient; many numbers in a line each (a summary:
shape, first values, largest magnitude). Every line fits the width (chain_rule.py's
`sentence` wraps at blanks)."""

from __future__ import annotations

from rich.text import Text

from ..engine.numbers import format_number
from ..interpreter.tensor_outcomes import TensorEdge, TensorExplained, TensorSummary
from ..engine.tensor_errors import show_shape
from .chain_rule import _label, _name, _note
from .wrapping import INDENT, sentence


def summary_text(summary: TensorSummary) -> str:
    """``[2, 2] 1, 2, 3, … (largest 4 at [1, 1])``; one number: itself."""
    if not summary.shape:
        return format_number(summary.largest)
    first = ", ".join(format_number(value) for value in summary.first)
    count = 1
    for dimension in summary.shape:
        count *= dimension
    if count > len(summary.first):
        first += ", …"
    at = ", ".join(str(index) for index in summary.at)
    return f"{show_shape(summary.shape)} {first} (largest {format_number(summary.largest)} at [{at}])"


def _edges_text(edge: TensorEdge) -> str:
    word = "edge" if edge.scalar_edges == 1 else "edges"
    return f"{edge.scalar_edges:,} {edge.edge_kind} {word}"


def tensor_explain_lines(shown: TensorExplained, width: int) -> list[Text]:
    label = _label(shown.label)
    lines: list[Text] = sentence(
        [_name(label), f": {shown.operation} {show_shape(shown.shape)}"
         + (", tracked" if shown.tracked else ", untracked")], width)
    if shown.operands:
        lines += sentence([f"{INDENT}its operand edges ({shown.operands[0].shapes}), each one VJP for many scalar edges:"],
                          width, INDENT * 2)
        for edge in shown.operands:
            untracked = "" if edge.operand_tracked else "; untracked: the pass computes nothing for it"
            lines += sentence([f"{INDENT * 2}slot {edge.slot} to ", _name(_label(edge.operand)),
                               f": {edge.formula} ({_edges_text(edge)}{untracked})"], width, INDENT * 3)
    if shown.pass_number is not None and shown.adjoint is not None:
        lines += sentence([_name(label), f": pass adjoint in pass {shown.pass_number} (backward from ",
                           _name(_label(shown.pass_output or "?")), ")"], width)
        lines += sentence([f"{INDENT}{summary_text(shown.adjoint)}"], width, INDENT * 2)
        if not shown.consumers:
            lines += sentence([f"{INDENT}no edge leads into it in this pass"], width, INDENT * 2)
        else:
            relation = "the sum" if shown.adds_up else "about the sum (rounding)"
            lines += sentence([f"{INDENT}= {relation} of the contributions of the edges into it:"], width, INDENT * 2)
            for edge in shown.consumers:
                lines += sentence([
                    f"{INDENT * 2}from ", _name(_label(edge.node)), f", slot {edge.slot} ({edge.shapes}): {edge.formula}"
                    f" ({_edges_text(edge)})"], width, INDENT * 3)
                if edge.contribution is not None:
                    lines += sentence([f"{INDENT * 3}{summary_text(edge.contribution)}"], width, INDENT * 4)
    if shown.gradient is not None:
        passes = ", ".join(str(number) for number in shown.passes)
        since = f"passes {passes}" if len(shown.passes) > 1 else f"pass {passes}" if passes else "no pass kept"
        lines += sentence([_name(label), f": stored gradient since its last zero_grad ({since})"], width)
        lines += sentence([f"{INDENT}{summary_text(shown.gradient)}"], width, INDENT * 2)
    if shown.note is not None:
        lines += _note(shown.note, width)
    return lines
