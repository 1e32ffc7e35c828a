"""Walks over lists that need each item once: the nodes a list holds (`distinct_nodes`), the
labels of a list bound to a name (`name_items`), `descend`'s new list (`rebuilt`); and the one
walk of every occurrence in order (`flat_nodes`, for `flatten`).

Lists share items: `let L = [L, L]` holds one list twice, and `let L = [L]` in a loop nests as
deep as the loop runs. So these walks go through each distinct list once (a shared list costs
as much as a list held once), with explicit stacks (never recursion), and make nothing whose
size grows with the depth for each item (a `Place` links to its list's): binding a list costs
time linear in its distinct items, whatever its depth and sharing. Only what shows every item
(`print`, `flatten`, a `list` event) goes through every occurrence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..engine.scalar import Scalar
from .values import LABEL_LIMIT, ListValue, Named, named


def flat_nodes(value: object) -> Iterator[Scalar]:
    """Every node held in ``value``, depth first in order, as often as it is held."""
    if value.__class__ is not ListValue:
        if value.__class__ is Scalar:
            yield value  # type: ignore[misc]
        return
    stack: list[Iterator] = [iter(value)]  # type: ignore[call-overload]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
        elif item.__class__ is ListValue:
            stack.append(iter(item))
        elif item.__class__ is Scalar:
            yield item


_END = object()


class Place:
    """Where an item of a list bound to a name sits (`W1[3][1]`), linked to its list's place so
    that a walk makes each in constant time however deep the list: ``label`` is the path as a
    label shows it (it stops growing past `LABEL_LIMIT`, where labels are cut), ``text()`` the
    whole path, made when a message needs it."""

    __slots__ = ("label", "up", "index")

    def __init__(self, label: str, up: Place | None = None, index: int = 0):
        self.label = label
        self.up = up
        self.index = index

    def item(self, index: int) -> Place:
        label = self.label
        return Place(label if len(label) > LABEL_LIMIT else f"{label}[{index}]", self, index)

    def text(self) -> str:
        indices: list[int] = []
        place = self
        while place.up is not None:
            indices.append(place.index)
            place = place.up
        return place.label + "".join(f"[{index}]" for index in reversed(indices))


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
    # frames, innermost last; a label stops growing past `LABEL_LIMIT`, as `Place.label` does.
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
    value: ListValue, place: Place, replace: Callable[[Scalar, Place], Scalar], made: dict[int, ListValue]
) -> ListValue:
    """A list of the same shape as ``value`` whose nodes are ``replace(node, place)``, depth first
    in order; a list held twice is rebuilt once, and held twice in the result. ``made``: the id
    of each list rebuilt -> its new list (the caller keeps both alive), shared by the lists of
    one `descend`."""
    again = made.get(id(value))
    if again is not None:
        return again
    # Lists are built innermost first: a stack of (the list, its place, the items so far).
    stack: list[tuple[ListValue, Place, list]] = [(value, place, [])]
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
                stack.append((child, where.item(index), []))  # type: ignore[arg-type]
        else:
            items.append(replace(child, where.item(index)))  # type: ignore[arg-type]
