"""Pictures as bytes of a format, and as files whose extension picks the format.

SVG is laid out by Graphviz when ``dot`` is on PATH and by our own layered layout otherwise;
PNG needs Graphviz; DOT is our own text. Every failure is a `DrawingError`, and the format
and Graphviz are checked before any work, so nothing is half-written.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .dot import to_dot
from .errors import GRAPH_TOO_LARGE, IO_ERROR, UNKNOWN_PICTURE_FORMAT, DrawingError
from . import graphviz
from .graphviz import require_dot, run_dot
from .picture import Picture
from .svg import to_svg

FORMATS = {".svg": "svg", ".png": "png", ".dot": "dot", ".gv": "dot"}
ENGINES = ("auto", "graphviz", "python")
# Graphviz lays out labelled edges slowly: 200 nodes take it seconds, 480 more than 30 s,
# where our layout takes half a second. Beyond this many nodes `auto` uses ours, and PNG
# (which only Graphviz makes) is refused.
GRAPHVIZ_NODE_LIMIT = 150


def picture_format(path: str | os.PathLike) -> str:
    """``svg``, ``png`` or ``dot`` from a file name, else `unknown-picture-format`."""
    suffix = Path(path).suffix.lower()
    output_format = FORMATS.get(suffix)
    if output_format is None:
        shown = f"`{suffix}`" if suffix else "no extension"
        raise DrawingError(
            UNKNOWN_PICTURE_FORMAT,
            f"cannot tell the picture format of {os.fspath(path)!r} ({shown}); use .svg, .png or .dot",
            path=os.fspath(path),
            extension=suffix,
        )
    return output_format


def render(picture: Picture, output_format: str, *, engine: str = "auto") -> bytes:
    """The picture as ``svg``, ``png`` or ``dot`` bytes.

    ``engine`` is ``auto`` (Graphviz when installed), ``graphviz`` (it or `missing-graphviz`)
    or ``python`` (our own layout; SVG only)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if output_format == "dot":
        return to_dot(picture).encode("utf-8")
    if output_format == "png":
        if engine == "python":
            raise DrawingError(UNKNOWN_PICTURE_FORMAT, "the pure-Python layout writes SVG only; PNG needs Graphviz")
        png_dot = require_dot("png")
        if len(picture.nodes) > GRAPHVIZ_NODE_LIMIT:
            raise DrawingError(
                GRAPH_TOO_LARGE,
                f"a PNG picture holds at most {GRAPHVIZ_NODE_LIMIT} nodes (Graphviz grows slow beyond), "
                f"this graph has {len(picture.nodes)}; write .svg instead",
                nodes=len(picture.nodes),
                limit=GRAPHVIZ_NODE_LIMIT,
            )
        return run_dot(to_dot(picture), "png", png_dot)
    if output_format != "svg":
        raise DrawingError(UNKNOWN_PICTURE_FORMAT, f"unknown picture format {output_format!r}; use svg, png or dot")
    dot: str | None  # Graphviz's dot, or None for our own layout
    if engine == "graphviz":
        dot = require_dot("svg")
    elif engine == "auto" and len(picture.nodes) <= GRAPHVIZ_NODE_LIMIT:
        dot = graphviz.find_dot()
    else:
        dot = None
    if dot is None:
        return to_svg(picture).encode("utf-8")
    return run_dot(to_dot(picture), "svg", dot)


def svg_text(picture: Picture, *, engine: str = "auto") -> str:
    return render(picture, "svg", engine=engine).decode("utf-8")


def write_picture(picture: Picture, path: str | os.PathLike, *, engine: str = "auto") -> Path:
    """Write the picture to ``path`` in the format its extension names; returns the path."""
    output_format = picture_format(path)
    data = render(picture, output_format, engine=engine)
    target = Path(path)
    try:
        with open(target, "wb") as file:
            file.write(data)
    except OSError as error:
        reason = error.strerror or str(error)
        raise DrawingError(
            IO_ERROR, f"cannot write {os.fspath(path)}: {reason}", path=os.fspath(path), reason=reason
        ) from None
    return target


# A label in a file name keeps letters, digits, `_` and `-`; `x*x` becomes `x_x`.
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
FILE_LABEL_LIMIT = 40


def pass_file_name(number: int, label: str) -> str:
    """``pass-001-loss.svg``: the ``number``-th pass of a run, named by its output's label."""
    safe = _UNSAFE.sub("_", label).strip("_")[:FILE_LABEL_LIMIT].rstrip("_") or "output"
    return f"pass-{number:03d}-{safe}.svg"
