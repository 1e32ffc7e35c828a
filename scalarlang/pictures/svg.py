"""SVG of a laid-out picture, without Graphviz: boxes, curved arrows, labels.

Deterministic (coordinates to 0.1 px, elements in picture order) and self-contained, so it
can be embedded in HTML as it is. Texts are XML-escaped. Each node is a ``<g class="node"
data-index="TOPOLOGY INDEX">`` and each edge a ``<g class="edge" data-child data-parent
data-slot>``; with ``marks`` (for the notebook's walk player, whose script changes them) each
edge also says its place in the picture's order (``data-edge``) and each text of a node its
line (``data-line``: 0 is the label).
"""

from __future__ import annotations

from html import escape

from . import dot as colours
from .layout import (
    BOX_PAD_Y,
    EDGE_FONT_SIZE,
    EDGE_LINE_HEIGHT,
    MARGIN,
    NODE_FONT_SIZE,
    NODE_LINE_HEIGHT,
    TITLE_FONT_SIZE,
    Layout,
    layout,
)
from .picture import Picture

FONT = "'DejaVu Sans Mono', Menlo, Consolas, monospace"


def to_svg(picture: Picture, laid_out: Layout | None = None, *, marks: bool = False) -> str:
    laid_out = laid_out if laid_out is not None else layout(picture)
    width, height = laid_out.width, laid_out.height
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}pt" height="{_n(height)}pt"'
        f' viewBox="0 0 {_n(width)} {_n(height)}" font-family="{FONT}">',
        "<defs>",
        _marker("arrow", colours.TRACKED_COLOUR),
        _marker("arrow-untracked", colours.UNTRACKED_COLOUR),
        "</defs>",
        f'<rect x="0" y="0" width="{_n(width)}" height="{_n(height)}" fill="white"/>',
    ]
    if picture.title:
        out.append(
            f'<text class="title" x="{_n(width / 2)}" y="{_n(MARGIN + TITLE_FONT_SIZE)}" text-anchor="middle"'
            f' font-size="{TITLE_FONT_SIZE}">{_text(picture.title)}</text>'
        )
    for route in laid_out.routes:
        out.extend(_edge(picture.edges[route.edge], route, marks))
    for box in laid_out.boxes:
        out.extend(_box(picture.nodes[box.node], box, marks))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _marker(name: str, colour: str) -> str:
    return (
        f'<marker id="{name}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7"'
        f' orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
    )


def _edge(edge, route, marks: bool) -> list[str]:
    colour = colours.TRACKED_COLOUR if edge.tracked else colours.UNTRACKED_COLOUR
    dash = "" if edge.tracked else ' stroke-dasharray="4 3"'
    marker = "arrow" if edge.tracked else "arrow-untracked"
    mark = f' data-edge="{route.edge}"' if marks else ""
    out = [
        f'<g class="edge" data-child="{edge.child}" data-parent="{edge.parent}" data-slot="{edge.slot}"{mark}>',
        f'<path d="{_path(route.points)}" fill="none" stroke="{colour}" stroke-width="1.2"{dash}'
        f' marker-end="url(#{marker})"/>',
    ]
    for number, line in enumerate(edge.lines):
        baseline = route.label_y + (number + 1) * EDGE_LINE_HEIGHT - 3.0
        out.append(
            f'<text x="{_n(route.label_x)}" y="{_n(baseline)}" font-size="{EDGE_FONT_SIZE}" fill="{colour}"'
            f' xml:space="preserve">{_text(line)}</text>'
        )
    out.append("</g>")
    return out


def _path(points) -> str:
    """Curves with vertical tangents across the gaps, straight lines through the layers."""
    (x, y), rest = points[0], points[1:]
    parts = [f"M{_n(x)},{_n(y)}"]
    for step, (next_x, next_y) in enumerate(rest):
        if step % 2 == 0:
            middle = (y + next_y) / 2
            parts.append(f"C{_n(x)},{_n(middle)} {_n(next_x)},{_n(middle)} {_n(next_x)},{_n(next_y)}")
        else:
            parts.append(f"L{_n(next_x)},{_n(next_y)}")
        x, y = next_x, next_y
    return " ".join(parts)


def _box(node, box, marks: bool) -> list[str]:
    if node.tracked:
        stroke, dash, text_colour = colours.TRACKED_COLOUR, "", "black"
    else:
        stroke, dash, text_colour = colours.UNTRACKED_COLOUR, ' stroke-dasharray="4 3"', colours.UNTRACKED_COLOUR
    fill = colours.OUTPUT_FILL if node.is_output else colours.NODE_FILL
    stroke_width = "2" if node.is_output else "1.2"
    centre = box.x + box.width / 2
    out = [
        f'<g class="node" data-index="{node.index}">',
        f'<rect x="{_n(box.x)}" y="{_n(box.y)}" width="{_n(box.width)}" height="{_n(box.height)}" rx="6" ry="6"'
        f' fill="{fill}" stroke="{stroke}" stroke-width="{stroke_width}"{dash}/>',
    ]
    for number, line in enumerate((node.label,) + node.lines):
        baseline = box.y + BOX_PAD_Y + (number + 1) * NODE_LINE_HEIGHT - 3.5
        weight = ' font-weight="bold"' if number == 0 else ""
        mark = f' data-line="{number}"' if marks else ""
        out.append(
            f'<text x="{_n(centre)}" y="{_n(baseline)}" text-anchor="middle" font-size="{NODE_FONT_SIZE}"'
            f' fill="{text_colour}"{weight}{mark} xml:space="preserve">{_text(line)}</text>'
        )
    out.append("</g>")
    return out


def _text(text: str) -> str:
    # (html, not xml.sax.saxutils: that one imports urllib, 45 ms)
    return escape(text, quote=False)


def _n(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text
