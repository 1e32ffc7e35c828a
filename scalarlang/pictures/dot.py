"""DOT text of a picture, for Graphviz and for `.dot` files.

Deterministic: nodes are ``n0``, ``n1``... by topology index and are written in that order,
edges in the picture's order. Texts go into HTML-like labels, XML-escaped: there Graphviz
reads a backslash as itself, so a label can never turn into an escape such as ``\\N``.
Statements are spread over short lines (a label's table a row a line: Graphviz ignores the
whitespace between its elements), so the text a terminal prints fits its width.
"""

from __future__ import annotations

from html import escape

from .picture import Picture, PictureEdge, PictureNode

FONT = "monospace"  # fontconfig's monospace: DejaVu Sans Mono on most Linux machines
TRACKED_COLOUR = "#1f4e79"
UNTRACKED_COLOUR = "#7f7f7f"
OUTPUT_FILL = "#fff2cc"
NODE_FILL = "#eef4fb"
_INDENT = "    "


def to_dot(picture: Picture) -> str:
    lines = [
        "digraph scalarlang {",
        f"  graph [label=<{_xml(picture.title)}>, labelloc=t,",
        f"    rankdir=TB, nodesep=0.5, ranksep=0.5, pad=0.15, fontname={FONT}, fontsize=12];",
        f"  node [shape=box, margin=\"0.14,0.06\", style=\"rounded,filled\", fontname={FONT},",
        f"    fontsize=11, color=\"{TRACKED_COLOUR}\", fillcolor=\"{NODE_FILL}\"];",
        f"  edge [fontname={FONT}, fontsize=10, arrowsize=0.7,",
        f"    color=\"{TRACKED_COLOUR}\", fontcolor=\"{TRACKED_COLOUR}\"];",
    ]
    for node in picture.nodes:
        lines.extend(_node_lines(node))
    for edge in picture.edges:
        lines.extend(_edge_lines(edge))
    lines.append("}")
    return "\n".join(lines) + "\n"


def node_id(index: int) -> str:
    return f"n{index}"


def _node_lines(node: PictureNode) -> list[str]:
    rows = [f"<tr><td><b>{_xml(node.label)}</b></td></tr>"] + [f"<tr><td>{_xml(line)}</td></tr>" for line in node.lines]
    attributes = []
    if not node.tracked:
        attributes.append(f"style=\"rounded,dashed\", color=\"{UNTRACKED_COLOUR}\", fontcolor=\"{UNTRACKED_COLOUR}\"")
    if node.is_output:
        attributes.append(f"fillcolor=\"{OUTPUT_FILL}\", penwidth=2")
    return _statement(node_id(node.index), rows, 1, attributes)


def _edge_lines(edge: PictureEdge) -> list[str]:
    rows = [f'<tr><td align="left">{_xml(line)}</td></tr>' for line in edge.lines]
    attributes = []
    if not edge.tracked:
        attributes.append(f"style=dashed, color=\"{UNTRACKED_COLOUR}\", fontcolor=\"{UNTRACKED_COLOUR}\"")
    return _statement(f"{node_id(edge.child)} -> {node_id(edge.parent)}", rows, 2, attributes)


def _statement(head: str, rows: list[str], padding: int, attributes: list[str]) -> list[str]:
    """``head [label=<table>, attributes];``, the table's rows a line each. A borderless
    table: its padding keeps an edge's text off the neighbouring arrow."""
    lines = [f'  {head} [label=<<table border="0" cellborder="0" cellspacing="0" cellpadding="{padding}">']
    lines.extend(_INDENT + row for row in rows)
    lines[-1] += "</table>>" + "".join(f",\n{_INDENT}{attribute}" for attribute in attributes) + "];"
    return lines


def _xml(text: str) -> str:
    return escape(text, quote=True)
