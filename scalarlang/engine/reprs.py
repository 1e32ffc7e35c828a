"""Jupyter's rich displays of engine objects, supplied by the layers above the engine.

The engine draws nothing and renders no HTML: `Scalar._repr_svg_` and
`BackwardPass._repr_html_` look their display up here and return None while none is
registered, which Jupyter takes as "no such display" (it shows the plain repr).
`scalarlang/__init__.py` registers the picture of a graph and the tables of a pass with
functions that import the drawing and rendering code on first use.
"""

from __future__ import annotations

from typing import Any, Callable

SCALAR_SVG = "scalar-svg"
BACKWARD_PASS_HTML = "backward-pass-html"

Display = Callable[[Any], "str | None"]

_displays: dict[str, Display] = {}


def register(kind: str, function: Display) -> None:
    """Show engine objects of ``kind`` (`SCALAR_SVG`, `BACKWARD_PASS_HTML`) with ``function``,
    which returns the SVG or HTML text, or None when it has none."""
    if kind not in (SCALAR_SVG, BACKWARD_PASS_HTML):
        raise ValueError(f"no engine display of kind {kind!r}")
    _displays[kind] = function


def display(kind: str, shown: object) -> str | None:
    """The registered display of ``shown``; None when no function is registered for ``kind``."""
    function = _displays.get(kind)
    return None if function is None else function(shown)
