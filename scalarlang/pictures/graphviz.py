"""Running Graphviz's ``dot``, when it is installed.

``find_dot`` is the one place that looks for it, so tests can pretend it is missing.
"""

from __future__ import annotations

import shutil
import subprocess

from .errors import GRAPHVIZ_FAILED, INSTALL_HINT, MISSING_GRAPHVIZ, DrawingError

# Pictures are kept small enough for dot to take a few seconds (files.GRAPHVIZ_NODE_LIMIT);
# this bounds a hang all the same.
TIMEOUT_SECONDS = 20.0


def find_dot() -> str | None:
    """The path of Graphviz's ``dot`` on PATH, or None."""
    return shutil.which("dot")


def require_dot(output_format: str) -> str:
    dot = find_dot()
    if dot is None:
        raise DrawingError(
            MISSING_GRAPHVIZ,
            f"writing .{output_format} needs Graphviz's `dot`, which is not on PATH; {INSTALL_HINT}"
            + ("; `.svg` and `.dot` work without it" if output_format != "svg" else ""),
            format=output_format,
        )
    return dot


def run_dot(dot_text: str, output_format: str, dot: str | None = None) -> bytes:
    """``dot -T<format>`` of ``dot_text``; its failures are `graphviz-failed`."""
    dot = dot if dot is not None else require_dot(output_format)
    try:
        completed = subprocess.run(
            [dot, f"-T{output_format}"],
            input=dot_text.encode("utf-8"),
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise DrawingError(
            GRAPHVIZ_FAILED, f"Graphviz's `dot` took more than {TIMEOUT_SECONDS:g} s and was stopped", format=output_format
        ) from None
    except OSError as error:
        raise DrawingError(GRAPHVIZ_FAILED, f"Graphviz's `dot` could not be run: {error.strerror or error}") from None
    if completed.returncode != 0:
        detail = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DrawingError(
            GRAPHVIZ_FAILED,
            f"Graphviz's `dot` failed (exit status {completed.returncode})" + (f": {detail[0]}" if detail else ""),
            format=output_format,
            status=completed.returncode,
        )
    return completed.stdout
