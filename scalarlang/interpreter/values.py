"""The values of `.sad` besides nodes: lists (models as data), and how a person reads them.

A list is a `ListValue`: an immutable tuple of values (nodes or lists), so indexing, `len` and
iteration are Python's own. Lists never change: `descend` makes a new list of the same shape.
Walks over nested lists use explicit stacks, never recursion (a list nests at most as deep as
the source's brackets, but a model's lists are walked every step).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import cast

from ..engine.numbers import format_count, format_number
from ..engine.scalar import Scalar, ScalarOperation
from .labels import is_count


class ListValue(tuple):
    """A `.sad` list: its items are nodes (`Scalar`) and lists."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ListValue({list(self)!r})"


def is_list(value: object) -> bool:
    return value.__class__ is ListValue


def nodes_of(value: object) -> Iterator[tuple[Scalar, tuple[int, ...]]]:
    """Every node held in ``value`` (a node or a nested list), depth first in order, with its
    path of indices (``()`` for a node itself)."""
    stack: list[tuple[object, tuple[int, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if item.__class__ is ListValue:
            stack.extend((child, (*path, index)) for index, child in reversed(list(enumerate(item))))  # type: ignore[arg-type]
        elif item.__class__ is Scalar:
            yield item, path  # type: ignore[misc]


def path_text(name: str, path: tuple[int, ...]) -> str:
    """``W1[3][1]``."""
    return name + "".join(f"[{index}]" for index in path)


def rebuilt(value: ListValue, replace: Callable[[Scalar, tuple[int, ...]], Scalar]) -> ListValue:
    """A list of the same shape as ``value`` whose nodes are ``replace(node, path)``."""
    # Lists are built innermost first: a stack of (the list, its path, the items so far).
    stack: list[tuple[ListValue, tuple[int, ...], list]] = [(value, (), [])]
    while True:
        current, path, items = stack[-1]
        if len(items) == len(current):
            stack.pop()
            done = ListValue(items)
            if not stack:
                return done
            stack[-1][2].append(done)
            continue
        index = len(items)
        child = current[index]
        if child.__class__ is ListValue:
            stack.append((child, (*path, index), []))  # type: ignore[arg-type]
        else:
            items.append(replace(child, (*path, index)))  # type: ignore[arg-type]


def shape(value: ListValue) -> tuple[int, ...] | None:
    """The lengths of a rectangular list of nodes (``(16, 2)`` for 16 rows of 2); None when it
    is ragged or mixes nodes and lists."""
    dims: list[int] = []
    level: list = [value]
    while True:
        lengths = {len(item) for item in level}
        kinds = {item.__class__ is ListValue for items in level for item in items}
        if len(lengths) != 1:
            return None
        dims.append(lengths.pop())
        if not kinds or kinds == {False}:
            return tuple(dims)
        if kinds != {True}:
            return None
        level = [item for items in level for item in items]


def kind_of_nodes(value: ListValue) -> str:
    """What a list holds, in a word: "variables", "constants", "nodes" (mixed)."""
    operations = {node._operation for node, _ in nodes_of(value)}
    if operations == {ScalarOperation.VARIABLE}:
        return "variables"
    if operations == {ScalarOperation.CONSTANT}:
        return "constants"
    return "nodes"


def describe(value: object) -> str:
    """What a value is, for messages: "a list of 16", "an empty list", "a node"."""
    if value.__class__ is ListValue:
        return f"a list of {len(value)}" if value else "an empty list"  # type: ignore[arg-type]
    return "a node"


def shape_text(value: ListValue) -> str:
    """``16 × 2 variables``, ``3 constants``, ``a list of 4 (ragged)``, ``an empty list``."""
    if not value:
        return "an empty list"
    dims = shape(value)
    if dims is None:
        return f"a list of {len(value)} (ragged)"
    return " × ".join(f"{dim:,}" for dim in dims) + " " + kind_of_nodes(value)


def formatted_value(value: object, spec: str | None = None) -> str:
    """A value as a person reads it: a node's number (counts whole, or as a format spec such
    as ``.3f`` says), a list in brackets."""
    if value.__class__ is not ListValue:
        return _number_text(cast(Scalar, value), spec)
    pieces: list[str] = []
    # (the list, the next index) frames: "[" when a list starts, "]" when it ends.
    stack: list[list] = [[value, 0]]
    pieces.append("[")
    while stack:
        frame = stack[-1]
        current, index = frame
        if index == len(current):
            stack.pop()
            pieces.append("]")
            continue
        if index:
            pieces.append(", ")
        frame[1] = index + 1
        child = current[index]
        if child.__class__ is ListValue:
            pieces.append("[")
            stack.append([child, 0])
        else:
            pieces.append(_number_text(child, spec))
    return "".join(pieces)


def _number_text(node: Scalar, spec: str | None) -> str:
    if spec is not None:
        return format(node.value, spec)  # (checked when parsed)
    return format_count(node.value) if is_count(node) else format_number(node.value)


def plain_values(value: ListValue) -> list:
    """The list as nested Python lists of floats (for JSON)."""
    # (the list, the Python list being filled) frames, innermost last.
    result: list = []
    stack: list[tuple[Iterator, list]] = [(iter(value), result)]
    while stack:
        items, into = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
        elif item.__class__ is ListValue:
            inner: list = []
            into.append(inner)
            stack.append((iter(item), inner))
        else:
            into.append(item.value)  # type: ignore[attr-defined]
    return result
