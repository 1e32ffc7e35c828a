"""Walks over lists that need each item once: the labels of a list bound to a name
(`name_items`), `descend`'s new list (`rebuilt`, with its `Places`). (values.py has `distinct_nodes`, `shape`,
and the one walk of every occurrence in order, `items_of`, for `flatten`.)

Lists share items: `let L = [L, L]` holds one list twice, and `let L = [L]` in a loop nests as
deep as the loop runs. So these walks go through each distinct list once (a shared list costs
as much as a list held once), with explicit stacks (never recursion), and make nothing whose
size grows with the depth for each item (a place is a row of a flat table): binding a list
costs time linear in its distinct items, whatever its depth and sharing. Only what shows every
item (`print`, `flatten`, a `list` event) goes through every occurrence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..engine.scalar import Scalar
from .values import LABEL_LIMIT, ListValue, Named, named


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
