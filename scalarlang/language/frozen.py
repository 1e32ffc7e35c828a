"""Fast construction of frozen slots classes (AST nodes, spans), for the parser.

A frozen dataclass's ``__init__`` stores each field with ``object.__setattr__`` (its own
``__setattr__`` refuses), which makes building one four times dearer than a plain slots
object: the AST builder makes about a dozen (spans and nodes) per statement, a fifth of a
parse. ``constructor(cls)`` returns a function taking the fields in order that fills a plain
twin class with the same slots and then gives the object its real class (CPython allows the
switch between classes whose slots are the same). The result is an ordinary instance of
``cls``: equal, hashed, printed and frozen as one made by ``cls(...)``. Where that cannot be
checked (no slots, a ``__post_init__``, another Python), ``cls`` itself is returned.
``filler`` does the same for any slots class and a function it must agree with (``Span``
is not a dataclass: ``Span.indexed``).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable


@functools.cache  # the builder and `compact` ask for the same classes: made once
def constructor(cls: type) -> Callable[..., Any]:
    """A function ``make(field, ...)`` equivalent to ``cls(field, ...)``, only faster."""
    try:
        names = tuple(field.name for field in dataclasses.fields(cls))
    except TypeError:  # not a dataclass
        return cls
    if getattr(cls, "__slots__", None) != names or hasattr(cls, "__post_init__"):
        return cls
    return filler(cls, names, cls)


def filler(
    cls: type, names: tuple[str, ...], reference: Callable[..., Any], probe: tuple = ()
) -> Callable[..., Any]:
    """A function ``make(value, ...)`` that gives the slots `names` (all of `cls`'s, in
    order) those values, checked to make what `reference` makes from the same values (`probe`,
    or 0, 1, 2 ...); `reference` itself where that fails."""
    try:
        twin = type(f"_{cls.__name__}Fields", (), {"__slots__": names})
        stores = "".join(f"    obj.{name} = {name}\n" for name in names)
        code = f"def make({', '.join(names)}):\n    obj = new(twin)\n{stores}    obj.__class__ = cls\n    return obj\n"
        namespace: dict[str, Any] = {"new": object.__new__, "twin": twin, "cls": cls}
        exec(code, namespace)  # noqa: S102 - generated from slot names only, as dataclasses does
        make = namespace["make"]
        probe = probe or tuple(range(len(names)))
        made, expected = make(*probe), reference(*probe)
        if type(made) is not cls or made != expected or repr(made) != repr(expected):
            return reference
        return make
    except (TypeError, ValueError):
        return reference


__all__ = ["constructor", "filler"]
