"""The sentences of warnings, shared by the text (``text.py``) and the JSON events."""

from __future__ import annotations

from ..engine.numbers import format_count
from ..interpreter.outcomes import Warned

# A warning names at most this many nodes, then says how many more there are.
WARNING_NAMES = 5


def warning_message(warned: Warned) -> str:
    """The warning's sentence (the text's and the JSON event's `message`)."""
    names = warned.names
    shown = ", ".join(f"`{name}`" for name in names[:WARNING_NAMES])
    if len(names) > WARNING_NAMES:
        shown += f" and {format_count(float(len(names) - WARNING_NAMES))} more"
    them = "it" if len(names) == 1 else "them"
    span = warned.span
    return (
        f"`descend` at {span.line}:{span.column} steps {shown} by zero gradients: no backward pass"
        f" reached {them} since {'it was' if len(names) == 1 else 'they were'} made or zeroed"
        " (call `backward(LOSS)` before `descend`)"
    )
