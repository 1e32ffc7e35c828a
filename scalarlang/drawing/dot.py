"""DOT text of a picture, for Graphviz and for `.dot` files.

Deterministic: nodes are ``n0``, ``n1``... by topology index and are written in that order,
edges in the picture's order. Texts go into HTML-like labels, XML-escaped: there Graphviz
reads a backslash as itself, so a label can never turn into an escape such as ``\\N``.
"""

from __future__ import annotations

from html import escape

from .picture import Picture, PictureEdge, PictureNode

FONT = "DejaVu Sans Mono,Menlo,Consolas,monospace"
TRACKED_COLOUR = "#1f4e79"
UNTRACKED_COLOUR = "#7f7f7f"
OUTPUT_FILL = "#fff2cc"
NODE_FILL = "#eef4fb"


def to_dot(picture: Picture) -> str:
    lines = [
        "digraph scalarlang {",
        f"  graph [label=<{_xml(picture.title)}>, labelloc=t, fontname=\"{FONT}\", fontsize=12,"
        " rankdir=TB, nodesep=0.5, ranksep=0.5, pad=0.15];",
        f"  node [shape=box, margin=\"0.14,0.06\", style=\"rounded,filled\", fontname=\"{FONT}\", fontsize=11,"
        f" color=\"{TRACKED_COLOUR}\", fillcolor=\"{NODE_FILL}\"];",
        f"  edge [fontname=\"{FONT}\", fontsize=10, color=\"{TRACKED_COLOUR}\", fontcolor=\"{TRACKED_COLOUR}\", arrowsize=0.7];",
    ]
    lines.extend(_node_line(node) for node in picture.nodes)
    lines.extend(_edge_line(edge) for edge in picture.edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


def node_id(index: int) -> str:
    return f"n{index}"


def _node_line(node: PictureNode) -> str:
    rows = [f"<tr><td><b>{_xml(node.label)}</b></td></tr>"] + [f"<tr><td>{_xml(line)}</td></tr>" for line in node.lines]
    attributes = [f"label=<{_table(rows, 1)}>"]
    if not node.tracked:
        attributes.append(f"style=\"rounded,dashed\", color=\"{UNTRACKED_COLOUR}\", fontcolor=\"{UNTRACKED_COLOUR}\"")
    if node.is_output:
        attributes.append(f"fillcolor=\"{OUTPUT_FILL}\", penwidth=2")
    return f"  {node_id(node.index)} [{', '.join(attributes)}];"


def _edge_line(edge: PictureEdge) -> str:
    rows = [f'<tr><td align="left">{_xml(line)}</td></tr>' for line in edge.lines]
    attributes = [f"label=<{_table(rows, 2)}>"]
    if not edge.tracked:
        attributes.append(f"style=dashed, color=\"{UNTRACKED_COLOUR}\", fontcolor=\"{UNTRACKED_COLOUR}\"")
    return f"  {node_id(edge.child)} -> {node_id(edge.parent)} [{', '.join(attributes)}];"


def _table(rows: list[str], padding: int) -> str:
    # A borderless table: its padding keeps an edge's text off the neighbouring arrow.
    return f'<table border="0" cellborder="0" cellspacing="0" cellpadding="{padding}">{"".join(rows)}</table>'


def _xml(text: str) -> str:
    return escape(text, quote=True)
