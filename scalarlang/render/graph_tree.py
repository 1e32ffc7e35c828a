"""`draw(EXPR)` without a file, as text: the graph as a tree drawn from the output down.

Each node shows its label, operation, value and stored gradient; each line under a node is one
operand edge, ``slot N, d LOCAL``, so ``x * x`` shows two lines into one ``x``. A node already
drawn is named again with ``(above)`` instead of its subtree: every unique node is drawn once
and every operand edge has its line. The walk is iterative (an explicit stack), and a branch
deeper than the width allows says so, with the SVG as the way to see all of it; a line longer
than the width is cut with `…`. The same on a terminal and through a pipe.
"""

from __future__ import annotations

from rich.text import Text

from ..pictures.picture import Picture, PictureNode
from .styles import STYLES

# Each level indents the tree by this many columns; below it a branch stops, so that the
# lines keep at least half of the width for the nodes themselves.
_STEP = 3


def graph_tree_lines(picture: Picture, width: int) -> list[Text]:
    """``graph of loss``, then the output node and, under it, each operand edge's node."""
    nodes = {node.index: node for node in picture.nodes}
    operands: dict[int, list] = {}
    for edge in picture.edges:
        operands.setdefault(edge.child, []).append(edge)
    for edges in operands.values():
        edges.sort(key=lambda edge: edge.slot)
    output = next((node for node in picture.nodes if node.is_output), picture.nodes[-1])
    deepest = max(1, (width // 2) // _STEP)
    lines = [Text(picture.title, STYLES["dim"])]
    drawn: set[int] = set()
    # (node, the prefix of its own line, the prefix of the lines under it, the edge's text)
    stack: list[tuple[PictureNode, str, str, str, int]] = [(output, "", "", "", 0)]
    while stack:
        node, lead, under, edge_text, depth = stack.pop()
        line = Text(lead + edge_text)
        line.append(node.label, STYLES["label"])
        if node.index in drawn:
            line.append(" (above)", STYLES["dim"])
            lines.append(line)
            continue
        drawn.add(node.index)
        line.append("  " + " · ".join(node.lines), STYLES["dim"])
        lines.append(line)
        below = operands.get(node.index, [])
        if below and depth + 1 > deepest:
            lines.append(Text(f"{under}└─ … deeper: a .svg shows it", STYLES["dim"]))
            drawn.discard(node.index)  # (drawn again where it is reached higher up, if it is)
            continue
        for at in range(len(below) - 1, -1, -1):  # pushed last first: popped in slot order
            edge = below[at]
            last = at == len(below) - 1
            stack.append((
                nodes[edge.parent],
                under + ("└─ " if last else "├─ "),
                under + ("   " if last else "│  "),
                f"{', '.join(edge.lines)}: ",
                depth + 1,
            ))
    for line in lines:
        line.truncate(width, overflow="ellipsis")
    return lines
