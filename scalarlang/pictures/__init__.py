"""Pictures of graphs and backward passes: DOT, SVG (with or without Graphviz) and PNG.

    picture = graph_picture(loss, label=session.label_of)
    write_picture(picture, "loss.svg")

The engine knows nothing of this package; the interpreter, the notebook extension and the
Python API use it.
"""

from .dot import to_dot
from .errors import DRAWING_KINDS, INSTALL_HINT, DrawingError
from .files import FORMATS, pass_file_name, picture_format, render, svg_text, write_picture
from .graphviz import find_dot
from .passes import PassDrawer
from .picture import MAX_NODES, Picture, PictureEdge, PictureNode, graph_picture, pass_picture
from .svg import to_svg

__all__ = [
    "DRAWING_KINDS", "FORMATS", "INSTALL_HINT", "MAX_NODES", "DrawingError", "PassDrawer", "Picture", "PictureEdge",
    "PictureNode", "find_dot", "graph_picture", "pass_file_name", "pass_picture", "picture_format", "render", "svg_text",
    "to_dot", "to_svg", "write_picture",
]
