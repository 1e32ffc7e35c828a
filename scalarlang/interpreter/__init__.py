"""The interpreter: an `Interpreter` runs parsed `.sad` programs against the engine, one
statement at a time, and yields outcomes (data) for a front end to render."""

from .core import Interpreter

__all__ = ["Interpreter"]
