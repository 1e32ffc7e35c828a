"""Walks over lists that need each item once: the labels of a list bound to a name
(`name_items`), `descend`'s new list (`rebuilt`, with its `Places`), and what writing a value
costs (`size_of`, `check_written`, a hole's least length), known before anything is written.
(values.py has `distinct_nodes`, `shape`, `lists_innermost_first`, and the one walk of every
occurrence in order, `items_of`, for `flatten`.)

Lists share items: `let L = [L, L]` holds one list twice, and `let L = [L]` in a loop nests as
deep as the loop runs. So these walks go through each distinct list once (a shared list costs
as much as a list held once), with explicit stacks (never recursion), and make nothing whose
size grows with the depth for each item (a place is a row of a flat table): binding a list
costs time linear in its distinct items, whatever its depth and sharing. Only what shows every
item (`print`, `flatten`, a `list` event) goes through every occurrence.

What writing costs: a value line, `print` and a string's holes are refused (`too-long`) from
these sizes before their text is built (a list of texts printed whole once took 149 s and
2.5 GB to fail; a hole's format spec `{x:>1000000000}` built its text of 10⁹ characters, then
refused it). A value written whole holds at most `MAX_LIST` items (lists included) and
`MAX_TEXT` characters of texts, each counted as often as it is held; a text made by a string's
holes is at most `MAX_TEXT` characters, and the least it could be is known from its parts: its
literal text, its texts, at least a character for each item of its lists (a number's at least
its format spec's width).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from ..engine.scalar import Scalar
from ..language.diagnostics import LanguageError
from ..language.plain_data import PlainData
from ..language.source import Span
from .values import LABEL_LIMIT, MAX_LIST, MAX_TEXT, ListValue, Named, TextValue, lists_innermost_first, named
from .tensor_values import is_tensor, shown_cells


_END = object()  # an exhausted iterator's marker


class Places:
    """Where the items of lists bound to names sit (`W1[3][1]`): a place is a number, made in
    constant time however deep its list, for a row of a flat table (the place of its list,
    its index, its label). ``label(place)`` is the path as a label shows it (it stops growing
    past `LABEL_LIMIT`, where labels are cut), ``text(place)`` the whole path, made when a
    message needs it. Flat, not linked objects: freeing a chain of objects each holding the
    next nests as deep as the chain, which the browser's Python does not measure."""

    __slots__ = ("rows",)

    def __init__(self) -> None:
        self.rows: list[tuple[int, int, str]] = []

    def name(self, name: str) -> int:
        self.rows.append((-1, 0, name))
        return len(self.rows) - 1

    def item(self, place: int, index: int) -> int:
        label = self.rows[place][2]
        self.rows.append((place, index, label if len(label) > LABEL_LIMIT else f"{label}[{index}]"))
        return len(self.rows) - 1

    def label(self, place: int) -> str:
        return self.rows[place][2]

    def text(self, place: int) -> str:
        indices: list[int] = []
        up, index, label = self.rows[place]
        while up != -1:
            indices.append(index)
            up, index, label = self.rows[up]
        return label + "".join(f"[{index}]" for index in reversed(indices))


def name_items(value: ListValue, name: str) -> None:
    """Each node held in a list bound to ``name`` is labelled by its path (`W1[3][1]`), unless it
    has a name already: by its first path depth first, each distinct list walked once.

    A list of lists walked to its end is marked ``all_named`` (every node it holds has a
    `Named` tag, which a node never loses), and binding a list that holds it skips it: `let L =
    [L]` in a loop costs one item a step, not the whole depth. (A list of nodes alone is not
    marked: the mark costs its list a dict, about 180 bytes, and looking at its nodes' tags
    costs no more than the walk that reached it.)"""
    if value.all_named:
        return
    # (the list's iterator, the list, its label, the next index, whether it holds a list)
    # frames, innermost last; a label stops growing past `LABEL_LIMIT`, as `Places.label` does.
    stack: list[list] = [[iter(value), value, name, 0, False]]
    while stack:
        frame = stack[-1]
        item = next(frame[0], _END)
        index = frame[3]
        frame[3] = index + 1
        if item.__class__ is Scalar:
            if item.tag.__class__ is not Named:
                label = frame[2]
                item.tag = named(item, label if len(label) > LABEL_LIMIT else f"{label}[{index}]")
        elif item.__class__ is ListValue:
            frame[4] = True
            if not item.all_named:
                label = frame[2]
                stack.append([iter(item), item, label if len(label) > LABEL_LIMIT else f"{label}[{index}]", 0, False])
        elif item is _END:
            stack.pop()
            if frame[4]:
                frame[1].all_named = True


def rebuilt(
    value: ListValue, places: Places, place: int, replace: Callable[[Scalar, int], Scalar], made: dict[int, ListValue]
) -> ListValue:
    """A list of the same shape as ``value`` (at ``place``) whose nodes are ``replace(node, its
    place)``, depth first in order; a list held twice is rebuilt once, and held twice in the
    result. ``made``: the id of each list rebuilt -> its new list (the caller keeps both
    alive), shared by the lists of one `descend`."""
    again = made.get(id(value))
    if again is not None:
        return again
    # Lists are built innermost first: a stack of (the list, its place, the items so far).
    stack: list[tuple[ListValue, int, list]] = [(value, place, [])]
    while True:
        current, where, items = stack[-1]
        if len(items) == len(current):
            stack.pop()
            done = made[id(current)] = ListValue(items)
            if not stack:
                return done
            stack[-1][2].append(done)
            continue
        index = len(items)
        child = current[index]
        if child.__class__ is ListValue:
            again = made.get(id(child))
            if again is not None:
                items.append(again)
            else:
                stack.append((child, places.item(where, index), []))  # type: ignore[arg-type]
        else:
            items.append(replace(child, places.item(where, index)))  # type: ignore[arg-type]


# ---- what writing a value costs ------------------------------------------------------------


class Size(PlainData):
    """What a value holds, counted as often as it is held: ``items`` (lists included, 0 for a
    value that is not a list), ``lists`` (the lists among them), ``numbers`` (its nodes; 1
    for a node) and ``characters`` (of its texts)."""

    __slots__ = __match_args__ = ("items", "lists", "numbers", "characters")

    def __init__(self, items: int, lists: int, numbers: int, characters: int):
        self.items = items
        self.lists = lists
        self.numbers = numbers
        self.characters = characters


def size_of(value: object) -> Size:
    """The size of ``value``, each distinct list walked once (a list doubled sixty times is
    measured at once)."""
    if value.__class__ is TextValue:
        return Size(0, 0, 0, len(value))  # type: ignore[arg-type]
    if is_tensor(value):  # as many numbers as its text shows
        return Size(0, 0, shown_cells(value.shape), 0)  # type: ignore[attr-defined]
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
                elif is_tensor(item):
                    numbers += shown_cells(item.shape)
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


class SpecLength(PlainData):
    """The least a format spec writes of a number (a node's value is finite): ``width``
    characters, and ``digits`` (`.1000f` writes 1000 decimals, `.1000g` may write one)."""

    __slots__ = __match_args__ = ("width", "digits")

    def __init__(self, width: int, digits: int):
        self.width = width
        self.digits = digits

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
    if is_tensor(value):  # each number its text shows
        return shown_cells(value.shape) * spec.least()  # type: ignore[attr-defined]
    return spec.least()
