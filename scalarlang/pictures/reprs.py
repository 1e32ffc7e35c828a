"""What Jupyter shows for engine objects: `Scalar._repr_svg_` calls this lazily."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import DrawingError
from .files import svg_text
from .picture import graph_picture

if TYPE_CHECKING:
    from ..engine.scalar import Scalar


def scalar_svg(node: Scalar) -> str | None:
    """The SVG of ``node``'s graph; None (Jupyter then shows the repr) when it cannot be drawn."""
    try:
        return svg_text(graph_picture(node))
    except DrawingError:
        return None
