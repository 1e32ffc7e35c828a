"""What writing values costs, known from their parts before anything is written: a value line,
`print` and a string's holes are refused (`too-long`) from these sizes before their text is
built (a list of texts printed whole once took 149 s and 2.5 GB to fail; a hole's format spec
`{x:>1000000000}` built its text of 10⁹ characters, then refused it).

A value written whole holds at most `MAX_LIST` items (lists included) and `MAX_TEXT`
characters of texts, each counted as often as it is held; a text made by a string's holes is
at most `MAX_TEXT` characters, and the least it could be is known from its parts: its literal
text, its texts, at least a character for each item of its lists (a number's at least its
format spec's width).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from ..language.diagnostics import LanguageError
from ..language.source import Span
from .values import MAX_LIST, MAX_TEXT, ListValue, TextValue, lists_innermost_first


@dataclass(frozen=True)
class Size:
    """What a value holds, counted as often as it is held: ``items`` (lists included, 0 for a
    value that is not a list), ``lists`` (the lists among them), ``numbers`` (its nodes; 1
    for a node) and ``characters`` (of its texts)."""

    items: int
    lists: int
    numbers: int
    characters: int


def size_of(value: object) -> Size:
    """The size of ``value``, each distinct list walked once (a list doubled sixty times is
    measured at once)."""
    if value.__class__ is TextValue:
        return Size(0, 0, 0, len(value))  # type: ignore[arg-type]
    if value.__class__ is not ListValue:
        return Size(0, 0, 1, 0)
    # id of a distinct list -> its size (alive: ``value`` holds it)
    sizes: dict[int, tuple[int, int, int, int]] = {}
    for current in lists_innermost_first(value):  # type: ignore[arg-type]
        items = lists = numbers = characters = 0
        for item in current:
            kind = item.__class__
            if kind is ListValue:
                inner = sizes[id(item)]
                items += 1 + inner[0]
                lists += 1 + inner[1]
                numbers += inner[2]
                characters += inner[3]
            else:
                items += 1
                if kind is TextValue:
                    characters += len(item)
                else:
                    numbers += 1
        sizes[id(current)] = (items, lists, numbers, characters)
    return Size(*sizes[id(value)])


def check_written(
    fail: Callable[..., LanguageError], values: Sequence[object], spans: Sequence[Span], by: str
) -> None:
    """`too-long` (made by ``fail``, the compiler's) at the first of ``values`` (written one
    after another: a value line's, the items of a `print`) by which they hold more than
    `MAX_LIST` items or `MAX_TEXT` characters of texts in all. ``by``: what writes them."""
    items = characters = 0
    lists = False
    for index, (value, span) in enumerate(zip(values, spans)):
        if value.__class__ is not ListValue and value.__class__ is not TextValue:
            continue
        size = size_of(value)
        items += size.items
        characters += size.characters
        lists = lists or value.__class__ is ListValue
        what = "this list holds" if not index else f"the items {by} writes, up to this one, hold"
        if items > MAX_LIST:
            raise fail(
                "too-long",
                f"{what} {items:,} items (lists included), a shared list counted each time it is held;"
                f" a list shown, printed or flattened may hold at most {MAX_LIST:,}",
                span, {"length": items, "limit": MAX_LIST},
            )
        if characters > MAX_TEXT:
            raise fail(
                "too-long",
                f"{what} {characters:,} characters of texts"
                + (", a shared list's counted each time it is held" if lists else "")
                + f"; {by} may write at most {MAX_TEXT:,}",
                span, {"length": characters, "limit": MAX_TEXT},
                ("help: print the texts one at a time (a `for` over the list)",) if lists else (),
            )


# ---- a string's holes --------------------------------------------------------------------------

# Python's format spec of a float: [[fill]align][sign][z][#][0][width][grouping][.precision[grouping]][type]
_SPEC = re.compile(
    r"(?:.?[<>=^])?[-+ ]?z?(?P<alternate>#)?0?(?P<width>\d*)[,_]?(?:\.(?P<precision>\d*)[,_]?)?(?P<type>[a-zA-Z%]?)\Z",
    re.DOTALL,
)


@dataclass(frozen=True)
class SpecLength:
    """The least a format spec writes of a number (a node's value is finite): ``width``
    characters, and ``digits`` (`.1000f` writes 1000 decimals, `.1000g` may write one)."""

    width: int
    digits: int

    def least(self) -> int:
        return max(1, self.width, self.digits)


def spec_length(spec: str | None) -> SpecLength:
    match = _SPEC.match(spec or "")
    if match is None:  # (not reached: the parser checked the spec as Python does)
        return SpecLength(1, 0)
    width = int(match["width"] or 0)
    precision = int(match["precision"] or 0)
    kind = match["type"]
    exact = kind in ("f", "F", "e", "E", "%") or (match["alternate"] is not None and kind in ("g", "G"))
    return SpecLength(width, precision if exact else 0)


def least_hole_length(value: object, spec: SpecLength) -> int:
    """The least number of characters a hole writes of ``value``: a text as it is; a list
    its brackets, a `, ` between items, each text quoted and each number at least its spec's
    width (a character); a number likewise."""
    if value.__class__ is TextValue:
        return len(value)  # type: ignore[arg-type]
    if value.__class__ is ListValue:
        size = size_of(value)
        texts = size.items - size.lists - size.numbers
        separators = size.items - size.lists - 1  # (a list of n items has n - 1; fewer for an empty one)
        return (
            2 * (size.lists + 1) + 2 * separators + size.characters + 2 * texts
            + size.numbers * max(1, spec.width)
        )
    return spec.least()
