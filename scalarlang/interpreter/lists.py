"""Lists: their literals and comprehensions, compiled for the `Compiler`, and the walks over
lists that need each item once.

A list is a `values.ListValue`, a value like a node: a literal's items are evaluated in order
(a number, possibly negated, is a fresh constant of that value, as a table's entry was), and a
comprehension runs its `for`s as nested loops (the first outermost) with its names in argument
slots of its own, so they are bound only inside it. (Indexing is an operator: operations.py.)

The walks: the labels of a list bound to a name (`name_items`), `descend`'s new list
(`rebuilt`, with its `Places`), and what writing a value costs (`size_of`, `check_written`, a
hole's least length), known before anything is written. (values.py has `distinct_nodes`,
`shape`, `lists_innermost_first`, and the one walk of every occurrence in order, `items_of`,
for `flatten`.)

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
from typing import TYPE_CHECKING, Any, cast

from ..engine.scalar import Scalar
from ..engine.tensor import Tensor
from ..engine.tensor_linear import index as tensor_index
from ..engine.tensor_shapes import show_shape
from ..engine.tensor_text import is_tensor, shown_cells
from ..language import tree
from ..language.diagnostics import LanguageError
from ..language.plain_data import PlainData
from ..language.source import Span
from .context import MAX_ITEMS
from .failures import first_item
from .values import (
    LABEL_LIMIT, MAX_LIST, MAX_TEXT, ListValue, Named, TextValue, describe, lists_innermost_first, named,
)

if TYPE_CHECKING:
    from .context import Compiling

# As for `for` loops: at most this many iterations of one range (and of comprehensions in all
# while one statement runs, `context.MAX_ITEMS`; calls of `fn` functions, `context.MAX_CALLS`).
MAX_RANGE = 1_000_000
_DONE = object()


def literal(args: Any, *items: Any) -> ListValue:
    return ListValue(items)


def literal_items(node: tree.ListLiteral) -> tuple[tree.Expr, ...]:
    """The items to evaluate: `-2.5` becomes the constant -2.5 (one node, as in a table)."""
    return tuple(
        tree.Number(item.span, -item.operand.value)
        if isinstance(item, tree.Unary) and isinstance(item.operand, tree.Number)
        else item
        for item in node.items
    )


def comprehension(compiler: Compiling, node: tree.Comprehension) -> Callable:
    """``[ITEM for ... in ... for ... in ...]`` as one operation with no operands: it
    evaluates its sources and its item itself, once per combination of its names."""
    saved = compiler.params, compiler.slots
    params: dict[str, int] = dict(saved[0] or {})
    slots = saved[1]
    clauses: list[Callable[[tuple], Iterator[tuple]]] = []
    frames = 0  # the Python frames its parts take when they run, deepest first
    try:
        for clause in node.clauses:
            compiler.params, compiler.slots = dict(params), slots
            clause_values, clause_frames = _clause(compiler, clause)
            clauses.append(clause_values)
            frames = max(frames, clause_frames)
            for offset, name in enumerate(clause.names):
                params[name] = slots + offset
            slots += len(clause.names)
        compiler.params, compiler.slots = params, slots
        item, item_frames = compiler.depth_of(node.item)
    finally:
        compiler.params, compiler.slots = saved
    last, frames = len(clauses), max(frames, item_frames)

    def run(args: tuple | None) -> ListValue:
        start = args if args is not None else ()
        made: list = []
        loops = [(clauses[0](start), start)]  # one iterator a clause, with the slots so far
        budget = compiler.budget
        while loops:
            values, slots_so_far = loops[-1]
            bound = next(values, _DONE)
            if bound is _DONE:
                loops.pop()
                continue
            budget.left -= 1
            if budget.left < 0:
                raise compiler.fail(
                    "too-long",
                    f"the comprehensions of this statement run more than {MAX_ITEMS:,} iterations in all",
                    node.span,
                    {"limit": MAX_ITEMS},
                )
            slots_now = slots_so_far + bound  # type: ignore[operator]
            if len(loops) == last:
                made.append(item(slots_now))
            else:
                loops.append((clauses[len(loops)](slots_now), slots_now))
        return ListValue(made)

    run.frames = frames + 1  # type: ignore[attr-defined]  # (read by the compiler's depth)
    return run


def _clause(compiler: Compiling, clause: tree.ForClause) -> tuple[Callable[[tuple], Iterator[tuple]], int]:
    """``for NAMES in SOURCE``: given the slots so far, an iterator of the values of its names;
    and the Python frames its source takes to evaluate."""
    names = clause.names
    if clause.stop is not None:
        return _range_clause(compiler, clause)
    source, frames = compiler.depth_of(clause.source)
    not_a_list = compiler.list_check(clause.source, "`for … in`")
    width = len(names)
    rows_of = tensor_rows(compiler, clause.source, width)

    def values(slots: tuple) -> Iterator[tuple]:
        items = source(slots)
        if items.__class__ is TextValue:  # its characters, as Python's `for c in text`
            if width == 1:
                return ((TextValue(char),) for char in items)
            items = characters_of(TextValue(items[:1]))  # (a character is no row: `table-width`)
        if items.__class__ is Tensor:  # its rows, each made when the comprehension reaches it
            count, row = rows_of(items)
            return (row(at) for at in range(count))
        if items.__class__ is not ListValue:
            raise not_a_list(items)
        if width == 1:
            return ((item,) for item in items)
        return _rows(compiler, clause, items, width)

    return values, frames


def tensor_rows(compiler: Compiling, clause_source: tree.Expr, names: int) -> Callable[[Tensor], tuple[int, Callable[[int], tuple]]]:
    """`for row in T` and `[… for row in T]`, as numpy and PyTorch iterate: the number of rows
    of a tensor (its first dimension) and, for each, the values its ``names`` take: the
    sub-tensor ``T[i]`` (of a rank-1 tensor the element, a scalar node), made as indexing
    makes it (an edge to T) when the loop reaches it and labelled `T[i]`; with several names
    (`for x1, x2 in X`), that row's own rows, one a name, `T[i][0]`, `T[i][1]`, …"""
    forms: list[str] = []  # how the source is indexed in a label: `T{}` or `(A @ B){}`, found once

    def tagged(node: Any, path: str) -> Any:
        if not forms:
            text = compiler.text_of(clause_source)
            forms.append("{}%s" if first_item(text) == f"{text}[0]" else "({})%s")
        node.tag = compiler.origin(clause_source.span, form=forms[0] % path)
        return node

    def rows(value: Tensor) -> tuple[int, Callable[[int], tuple]]:
        shape = value._shape
        if names > 1 and (len(shape) < 2 or shape[1] != names):
            found = "a scalar node" if len(shape) == 1 else f"a tensor {show_shape(shape[1:])}"
            raise compiler.fail(
                "table-width",
                f"`for` names {names}, but each row of `{compiler.text_of(clause_source)}` ({describe(value)}) is {found}",
                clause_source.span,
                {"names": names},
            )

        def values(at: int) -> tuple:
            row = tagged(tensor_index(value, at), f"[{at}]")
            if names == 1:
                return (row,)
            return tuple(tagged(tensor_index(row, j), f"[{at}][{j}]") for j in range(names))

        return shape[0], values

    return rows


def characters_of(text: TextValue) -> ListValue:
    """A text's characters, in order, as a list of one-character texts."""
    return ListValue([TextValue(char) for char in text])


def _rows(compiler: Compiling, clause: tree.ForClause, items: ListValue, width: int) -> Iterator[tuple]:
    for row in items:
        if row.__class__ is not ListValue or len(row) != width:
            found = f"a row of {len(row)}" if row.__class__ is ListValue else describe(row)
            raise compiler.fail(
                "table-width",
                f"`for` names {width}, but an item of `{compiler.text_of(clause.source)}` is {found}",
                clause.source.span,
                {"names": width},
            )
        yield tuple(row)


def _range_clause(compiler: Compiling, clause: tree.ForClause) -> tuple[Callable[[tuple], Iterator[tuple]], int]:
    stop = cast(tree.Expr, clause.stop)  # a range clause has its end
    (start_of, start_frames), (stop_of, stop_frames) = compiler.number_and_frames(clause.source), compiler.number_and_frames(stop)
    frames = max(start_frames, stop_frames) + 1
    (name,) = clause.names
    tag = Named(name, True)  # each index is a count named by the comprehension's name

    def values(slots: tuple) -> Iterator[tuple]:
        start = compiler.whole(start_of(slots), clause.source.span, "the start of a range")
        end = compiler.whole(stop_of(slots), stop.span, "the end of a range")
        if end - start > MAX_RANGE:
            raise compiler.fail(
                "too-long",
                f"the range is {end - start:,} iterations; a loop may run at most {MAX_RANGE:,}",
                clause.span,
                {"iterations": end - start, "limit": MAX_RANGE},
            )
        return _counts(start, end, tag)

    return values, frames


def _counts(start: int, stop: int, tag: Named) -> Iterator[tuple]:
    for value in range(start, stop):
        node = Scalar.constant(value)
        node.tag = tag
        yield (node,)


# ---- walks of lists ---------------------------------------------------------------------------

_END = object()  # an exhausted iterator's marker


class Places:
    """Where the items of lists bound to names sit (`W1[3][1]`): a place is a number, made in
    constant time however deep its list, for a row of a flat table (the place of its list,
    its index, its label). ``label(place)`` is the path as a label shows it (it stops growing
    past `LABEL_LIMIT`, where labels are cut), ``text(place)`` the whole path, made when a
    message needs it. Flat, not linked objects: freeing a chain of objects each holding the
    next nests as deep as the chain, which the browser's Python does not measure."""

    __slots__ = ("rows",)

    def __init__(self, names: tuple[tuple[int, int, str], ...] = ()) -> None:
        """``names``: the rows of names placed first (`name`'s rows), at places 0, 1, ..."""
        self.rows: list[tuple[int, int, str]] = list(names)

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
