"""The values of `.sad` and how a person reads them: the labels of nodes, counts, and lists
(models as data).

A node's label is the first name bound to it with `let`, else the source text of the
expression that made it. It lives on the node itself, in the engine's ``tag`` slot, as one of
two small immutable objects: a `Made` (where an expression is in its source, made once per
expression when it is compiled and shared by every node that expression makes) or a `Named`
(the first name bound to the node, made once per `let` where it can be). Recording a label is
one slot store and no allocation per node, there is no table to keep in step with the nodes,
and an interrupt can never leave half a label: a store happens or it does not. A node with no
tag (made by Python code) is shown by its operation; one with a tag the session did not make
(``Scalar.variable(2, label="w")``) by that tag's text. Counts (`len`, `node_count`, a loop's
index) are shown as whole numbers.

A list is a `ListValue`: an immutable tuple of values (nodes, texts or lists), so indexing, `len`
and iteration are Python's own. A text is a `TextValue`: an immutable `str`, a constant with no
node and no gradient. Lists never change: `descend` makes a new list of the same shape.
Walks over nested lists use explicit stacks, never recursion: a loop nests a list as deep as it
runs (`let L = [L]`), and one list may be held many times (`let L = [L, L]`): the walks that
need each item once go through each distinct list once (`distinct_nodes`, `shape`, and
lists.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
import re
from typing import cast

from ..engine.numbers import format_count, format_number, format_parameter
from ..engine.scalar import Scalar, ScalarOperation
from ..engine.tensor import Tensor
from ..engine.tensor_node import TensorNode
from ..language.source import Source, Span
from ..engine.tensor_errors import show_shape
from ..engine.tensor_text import is_tensor, tensor_inline, tensor_text

# Labels made from source text are cut to this many characters, whitespace collapsed; so are
# names longer than that, in labels and messages.
LABEL_LIMIT = 60


class Made:
    """The tag of the nodes one expression makes: its source, its span, whether it is a count,
    the function whose body it is in (its nodes are shown `layer: relu(...)`), and the form of
    a part a built-in makes on the way, where ``{}`` stands for the span's text
    (`logsumexp({})` for the logsumexp node inside `softmax(z)`)."""

    __slots__ = ("source", "span", "count", "function", "form")

    def __init__(self, source: Source, span: Span, count: bool = False, function: str | None = None,
                 form: str | None = None):
        self.source = source
        self.span = span
        self.count = count
        self.function = function
        self.form = form

    def __str__(self) -> str:
        text = source_label(self.source.text, self.span)
        if self.form is not None:
            text = shorten(self.form.replace("{}", text), LABEL_LIMIT)
        if self.function is None:
            return text
        return shorten(f"{self.function}: {text}", LABEL_LIMIT)


class Named:
    """The tag of a node bound to a name: the first name, whether it is a count, and where the
    node was made (None for one made by a statement rather than an expression: a loop's
    index, a table's row, `descend`'s new variable)."""

    __slots__ = ("name", "count", "made")

    def __init__(self, name: str, count: bool = False, made: Made | None = None):
        self.name = name
        self.count = count
        self.made = made

    def __str__(self) -> str:
        name = self.name
        return name if len(name) <= LABEL_LIMIT else shorten(name, LABEL_LIMIT)


def named(node: Scalar, name: str) -> Named | None:
    """The `Named` tag binding ``name`` to ``node`` would give it (None: it has a name
    already). Never journaled: a node that gets its first name was made by the input that
    binds it (a node from an earlier input is reached only through a name, so it has one)."""
    tag = node.tag
    if tag.__class__ is Named:
        return None
    if tag.__class__ is Made:
        return Named(name, tag.count, tag)
    return Named(name)


def label_of(node: Scalar) -> str:
    """The first name bound to ``node``, else the source text that made it."""
    tag = node.tag
    if tag is None:
        return str(node.operation)
    return str(tag)


def name_of(node: Scalar) -> str | None:
    """The name bound to ``node`` first, if any."""
    tag = node.tag
    return tag.name if tag.__class__ is Named else None


def made_at(node: Scalar) -> tuple[Source, Span] | None:
    """Where the node was made, when the session saw it made."""
    tag = node.tag
    if tag.__class__ is Named:
        tag = tag.made
    if tag.__class__ is Made:
        return tag.source, tag.span
    return None


def is_count(node: Scalar) -> bool:
    tag = node.tag
    return (tag.__class__ is Made or tag.__class__ is Named) and cast(Made, tag).count


def operation_text(node: Scalar) -> str:
    """The operation as tables show it: ``pow 2`` carries its exponent."""
    operation = node.operation
    if operation is ScalarOperation.POW:
        return f"pow {format_parameter(cast(float, node.exponent))}"  # a pow node has one
    return str(operation)


# Runs of non-space characters, in pieces no longer than a label can show.
_LABEL_PIECE = re.compile(r"\S{1,%d}" % (LABEL_LIMIT + 1))


def source_label(text: str, span: Span) -> str:
    """The span's text, whitespace collapsed, cut to ``LABEL_LIMIT``. Reads no more than a label
    can show (after collapsing): chains of 100,000 terms have huge spans."""
    start, end = span.start, span.end
    if end - start <= 2 * LABEL_LIMIT:  # most spans: split and join is the cheapest way
        return shorten(text[start:end], LABEL_LIMIT)
    pieces: list[str] = []
    length, previous_end = 0, start
    for piece in _LABEL_PIECE.finditer(text, start, end):
        if pieces and piece.start() != previous_end:
            pieces.append(" ")
            length += 1
        pieces.append(piece.group())
        length += len(piece.group())
        previous_end = piece.end()
        if length > LABEL_LIMIT:
            break
    return shorten("".join(pieces), LABEL_LIMIT)


def suggestion(word: str, candidates: list[str]) -> tuple[str, ...]:
    """The ``help: did you mean`` note for the candidate closest to ``word``, if one is close.
    A word longer than a label is not compared (difflib's time grows with its square)."""
    if len(word) > LABEL_LIMIT:
        return ()
    import difflib  # (on first use: only a failure asks)

    close = difflib.get_close_matches(word, candidates, n=1)
    return (f"help: did you mean `{close[0]}`?",) if close else ()


def whole_number(value: float) -> int | None:
    """``value`` as an int when it is a whole number (a count, an index, a seed), else None."""
    return int(value) if value - value == 0.0 and value.is_integer() else None


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten(text: str, limit: int = LABEL_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- texts -----------------------------------------------------------------------------------

# The longest text, in characters (`read_text`, `+`, `join`, a string's holes filled), and the
# longest list `+` makes: beyond them is `too-long`, before the memory runs out.
MAX_TEXT = 10_000_000
MAX_LIST = 10_000_000


class TextValue(str):
    """A `.sad` text: a `str` (its length, indexing and equality are Python's), a constant with
    no node and no gradient. What makes a new text wraps it again: Python's own operations
    give a plain `str`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"TextValue({str.__repr__(self)})"


def is_text(value: object) -> bool:
    return value.__class__ is TextValue


# How a text is written as a literal (`"a\n\"b\""`): the escapes `.sad` has, braces doubled
# (`{` starts a hole); other control characters as Python writes them, since no literal can.
_LITERAL_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "{": "{{", "}": "}}"}


def quoted(text: str) -> str:
    """``text`` as a `.sad` literal, as a value line, a list and `:vars` show it."""
    pieces = ['"']
    for char in text:
        escaped = _LITERAL_ESCAPES.get(char)
        if escaped is not None:
            pieces.append(escaped)
        elif char.isprintable():
            pieces.append(char)
        else:
            pieces.append(repr(char)[1:-1])  # `\t`, `\r`, `\x00`, `\u2028`
    pieces.append('"')
    return "".join(pieces)


def characters(count: int) -> str:
    """``a text of 5 characters``, ``a text of 1 character``, ``an empty text``."""
    if count == 0:
        return "an empty text"
    return f"a text of {count:,} character{'' if count == 1 else 's'}"


def text_summary(text: str, limit: int = LABEL_LIMIT) -> str:
    """A text in one short line: quoted whole when it is short, else its start and its length."""
    shown = quoted(text)
    if len(shown) <= limit:
        return shown
    return f"{cut(shown[:-1], limit)}\" ({characters(len(text))})"


# ---- lists -----------------------------------------------------------------------------------

class ListValue(tuple):
    """A `.sad` list: its items are nodes (`Scalar`), texts (`TextValue`) and lists.

    Not slotted: a list of lists can be marked `all_named` (`lists.name_items`); each
    list costs 8 bytes more for it, and a marked one its dict."""

    all_named = False  # every node it holds (at any depth) has a `Named` tag

    def __repr__(self) -> str:
        return f"ListValue({formatted_items(self, repr, MAX_TEXT)})"


def is_list(value: object) -> bool:
    return value.__class__ is ListValue


def distinct_nodes(value: object) -> Iterator[Scalar]:
    """The nodes held in ``value`` (a node, a tensor or a nested list), each distinct list
    walked once, in no particular order (a node held in two lists may come twice)."""
    return (item for item in distinct_items(value)  # type: ignore[misc]
            if item.__class__ is Scalar or item.__class__ is Tensor)


def distinct_items(value: object) -> Iterator[object]:
    """The items held in ``value`` that are not lists (nodes and texts), each distinct list
    walked once, in no particular order; ``value`` itself when it is not a list."""
    if value.__class__ is not ListValue:
        yield value
        return
    seen = {id(value)}
    stack: list = [value]
    while stack:
        for item in stack.pop():
            if item.__class__ is not ListValue:
                yield item
            elif id(item) not in seen:
                seen.add(id(item))
                stack.append(item)


def lists_innermost_first(value: ListValue) -> Iterator[ListValue]:
    """Each distinct list ``value`` holds, and ``value`` last, each after every list it holds:
    a fold over a list (its shape, its count of items) sees each list once, its lists done,
    however deep or shared it is. (A list is scanned again once the lists it waited on are.)"""
    done: set[int] = set()  # ids of the lists given (alive: ``value`` holds them)
    stack: list[ListValue] = [value]
    while stack:
        current = stack[-1]
        if id(current) in done:
            stack.pop()
            continue
        waiting = [item for item in current if item.__class__ is ListValue and id(item) not in done]
        if waiting:
            stack.extend(waiting)
            continue
        stack.pop()
        done.add(id(current))
        yield current


def items_of(value: object) -> Iterator[object]:
    """Every item held in ``value`` that is not a list (nodes and texts), depth first in order,
    as often as it is held; ``value`` itself when it is not a list."""
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if item.__class__ is ListValue:
            stack.extend(reversed(item))  # type: ignore[call-overload]
        else:
            yield item


def flat_nodes(value: object) -> Iterator[Scalar]:
    """Every node held in ``value``, depth first in order, as often as it is held."""
    return (item for item in items_of(value) if item.__class__ is Scalar)  # type: ignore[misc]


def shape(value: ListValue) -> tuple[int, ...] | None:
    """The lengths of a rectangular list of nodes (``(16, 2)`` for 16 rows of 2); None when it
    is ragged or mixes nodes and lists."""
    # A shape is a number, an index into ``dims``: (its length, the shape of each of its items,
    # or -1: nodes). Each is made once (``known``), so two are compared as numbers; nothing
    # nests (a chain of linked objects as deep as the list would be freed as deeply nested).
    dims: list[tuple[int, int]] = []
    known: dict[tuple[int, int], int] = {}
    shapes: dict[int, int] = {}  # id of a distinct list -> its shape
    for current in lists_innermost_first(value):
        found = _shape_of(current, shapes, dims, known)
        if found is None:
            return None  # a ragged list anywhere makes the whole ragged
        shapes[id(current)] = found
    lengths: list[int] = []
    level = shapes[id(value)]
    while level != -1:
        length, level = dims[level]
        lengths.append(length)
    return tuple(lengths)


def _shape_of(value: ListValue, shapes: dict[int, int], dims: list[tuple[int, int]], known: dict) -> int | None:
    lists = [item for item in value if item.__class__ is ListValue]
    inner = -1
    if lists:
        if len(lists) != len(value):
            return None
        inner = shapes[id(lists[0])]
        if any(shapes[id(item)] != inner for item in lists):
            return None
    key = (len(value), inner)
    found = known.get(key)
    if found is None:
        found = known[key] = len(dims)
        dims.append(key)
    return found


def kind_of_nodes(value: ListValue) -> str:
    """What a list holds, in a word: "variables", "constants", "nodes" (mixed), "texts",
    "tensors", "items" (of several of these kinds)."""
    texts = any(item.__class__ is TextValue for item in distinct_items(value))
    operations = {node._operation for node in distinct_nodes(value) if node.__class__ is Scalar}
    if any(is_tensor(item) for item in distinct_items(value)):
        return "items" if texts or operations else "tensors"
    if texts:
        return "items" if operations else "texts"
    if operations == {ScalarOperation.VARIABLE}:
        return "variables"
    if operations == {ScalarOperation.CONSTANT}:
        return "constants"
    return "nodes"


def describe(value: object) -> str:
    """What a value is, for messages: "a list of 16", "an empty list", "a text of 5
    characters", "a tensor [2, 3]", "a node"."""
    if value.__class__ is ListValue:
        return f"a list of {len(value)}" if value else "an empty list"  # type: ignore[arg-type]
    if value.__class__ is TextValue:
        return characters(len(value))  # type: ignore[arg-type]
    if is_tensor(value):
        return f"a tensor {show_shape(value.shape)}"  # type: ignore[attr-defined]
    return "a node"


def shape_text(value: ListValue) -> str:
    """``16 × 2 variables``, ``3 constants``, ``a list of 4 (ragged)``, ``an empty list``."""
    if not value:
        return "an empty list"
    dims = shape(value)
    if dims is None:
        return f"a list of {len(value)} (ragged)"
    return " × ".join(f"{dim:,}" for dim in dims) + " " + kind_of_nodes(value)


def formatted_value(value: object, spec: str | None = None, limit: int | None = None) -> str:
    """A value as a person reads it: a node's number (counts whole, or as a format spec such
    as ``.3f`` says), a text as it is, a list in brackets (its texts quoted; ``limit``: cut
    with "…" once longer than that many characters)."""
    if value.__class__ is TextValue:
        return str(value)
    if is_tensor(value):
        return tensor_text(cast(TensorNode, value), spec=spec)
    if value.__class__ is not ListValue:
        return _number_text(cast(Scalar, value), spec)
    return formatted_items(value, lambda node: _number_text(node, spec), limit)


def formatted_items(value: ListValue, text_of: Callable[[Scalar], str], limit: int | None = None) -> str:
    """A list in brackets, each node as ``text_of`` says; past ``limit`` characters, cut with
    "…" (a list that holds a shared list many times over may be too long to write whole)."""
    pieces: list[str] = []
    written = 0
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
            piece = "["
            stack.append([child, 0])
        else:
            piece = quoted(child) if child.__class__ is TextValue else tensor_inline(child) if is_tensor(child) else text_of(child)
        pieces.append(piece)
        if limit is not None:
            written += len(piece) + (2 if index else 0)  # (and its ", ")
            if written > limit:
                pieces.append("…")
                break
    return "".join(pieces)


def shown_value(value: object, limit: int | None = None) -> str:
    """A value as a value line shows it: a text quoted (so that its ends and newlines show),
    anything else as `formatted_value` writes it."""
    if value.__class__ is TextValue:
        return quoted(value)
    return formatted_value(value, None, limit)


def _number_text(node: Scalar, spec: str | None) -> str:
    if spec is not None:
        return format(node.value, spec)  # (checked when parsed)
    return format_count(node.value) if is_count(node) else format_number(node.value)


def occurrences(value: ListValue) -> int:
    """The items ``value`` holds at any depth, lists included, each counted as often as it is
    held (a list held twice counts twice, with its items): what a value line writes, `flatten`
    walks. Each distinct list is counted once, so a list doubled sixty times is counted at once."""
    counts: dict[int, int] = {}  # id of a distinct list -> its count (alive: ``value`` holds it)
    for current in lists_innermost_first(value):
        counts[id(current)] = sum(1 + counts[id(item)] if item.__class__ is ListValue else 1 for item in current)
    return counts[id(value)]


def plain_values(value: ListValue) -> list:
    """The list as nested Python lists of floats and strings (for JSON)."""
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
        elif item.__class__ is TextValue:
            into.append(str(item))
        elif is_tensor(item):  # as a `tensor` event writes it
            into.append({"shape": list(item.shape), "values": item.tolist()})  # type: ignore[attr-defined]
        else:
            into.append(item.value)  # type: ignore[attr-defined]
    return result
