"""The parsed form of a long program: each top-level statement kept as one bytes object.

A statement's AST is half a dozen nodes and as many spans, about 1,100 bytes of Python
objects for `let a2 = a1 * 1.0000001 + 2`; a 50 MB script of such lines took 5.9 GB. The whole
program is still parsed (and so checked) before anything runs, but as each top-level
statement is reduced the parser stores it here in postfix form, marshalled: its nodes'
classes, fields and span offsets, about 150 bytes, and no object for the garbage collector to
scan. ``Statements`` gives the nodes back, equal to the ones the builder made, when a
statement is read (the interpreter reads each top-level statement once, when it runs it).

A statement holding a block (a loop, an `if`) is kept as it is: the interpreter caches the
compiled statements of blocks by identity, and such statements are few. So is any statement
whose spans do not index the program's own text.

Encoding and decoding walk the tree with explicit stacks (a chain of 100,000 terms is a tree
that deep) and the postfix form is flat, so neither recursion nor marshal's nesting limit is
ever near.
"""

from __future__ import annotations

import dataclasses
import marshal
from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter
from typing import Any, Callable, overload

from . import tree
from .frozen import constructor
from .source import LineIndex, Span, indexed_span

# Every node class a statement can hold, by code; Block is not among them (see above).
_CLASSES: tuple[type, ...] = (
    tree.Number, tree.Name, tree.Unary, tree.Binary, tree.Keyword, tree.Call, tree.Leaf, tree.Table,
    tree.Text, tree.StringLiteral, tree.Let, tree.ExprStatement, tree.Print, tree.ZeroGrad,
    tree.Assert, tree.Expect, tree.FunctionDef, tree.Descend, tree.Quiet,
)
_CODES = {cls: index for index, cls in enumerate(_CLASSES)}
_FIELDS = tuple(tuple(field.name for field in dataclasses.fields(cls)) for cls in _CLASSES)
_SIZES = tuple(len(fields) for fields in _FIELDS)
_MAKERS = tuple(constructor(cls) for cls in _CLASSES)
_span = indexed_span

# Operations of the postfix form; a node of class code k is the operation _NODE + k. A tuple's
# operation is followed by its length, a base-128 number (7 bits a byte, the last byte < 128).
_LITERAL, _SPAN, _TUPLE, _EMPTY, _NODE = 0, 1, 2, 3, 4
_GETTERS = tuple(attrgetter(*fields) for fields in _FIELDS)  # every class has two or more
# A decoder is generated for a postfix shape seen twice (a long program repeats a few shapes),
# up to this many shapes and this many operations; others take the general loop.
_DECODER_SHAPES = 2_048
_DECODER_OPERATIONS = 400


class _Unfit(Exception):
    """The statement is kept as it is (a block inside, or a span of another text)."""


class _Finish:
    """On the encoder's work stack: the parts of a node or tuple are out, now the node."""

    __slots__ = ("operation",)

    def __init__(self, operation: bytes):
        self.operation = operation


_FINISH_NODE = tuple(_Finish(bytes((_NODE + code,))) for code in range(len(_CLASSES)))


def _length(size: int) -> bytes:
    out = bytearray()
    while size >= 128:
        out.append(128 | (size & 127))
        size >>= 7
    out.append(size)
    return bytes(out)


def encode(statement: tree.Statement, lines: LineIndex) -> bytes | tree.Statement:
    """The compact form of a statement whose spans index `lines`; the statement itself when it
    cannot have one."""
    try:
        operations, values = _postfix(statement, lines)
    except _Unfit:
        return statement
    return marshal.dumps((bytes(operations), values))


def _postfix(statement: tree.Statement, lines: LineIndex) -> tuple[bytearray, list]:
    operations = bytearray()
    values: list = []
    op, add, value = operations.append, operations.extend, values.append
    codes, getters, finish_node = _CODES, _GETTERS, _FINISH_NODE
    work: list = [statement]
    pop, push, extend = work.pop, work.append, work.extend
    while work:
        item = pop()
        cls = item.__class__
        if cls is Span:
            if item._where is not lines:
                raise _Unfit
            op(_SPAN)
            value(item.start)
            value(item.end)
            continue
        code = codes.get(cls)
        if code is not None:
            push(finish_node[code])
            extend(reversed(getters[code](item)))
        elif cls is _Finish:
            add(item.operation)
        elif cls is str or cls is float or item is None or cls is int:
            op(_LITERAL)  # names, operators, numbers, a table's width
            value(item)
        elif cls is tuple:
            if not item:
                op(_EMPTY)
            elif item[0].__class__ in codes or item[0].__class__ is Span:
                push(_Finish(bytes((_TUPLE,)) + _length(len(item))))  # nodes or spans
                extend(reversed(item))
            else:
                op(_LITERAL)  # a table's rows, a `fn`'s parameters
                value(item)
        else:  # a Block, or anything this form does not know
            raise _Unfit
    return operations, values


def decode(data: bytes, lines: LineIndex) -> tree.Statement:
    """The statement `encode` made `data` from, its spans indexing `lines` again."""
    operations, values = marshal.loads(data)
    return decode_values(operations, values, lines)


def decode_values(operations: bytes, values: list, lines: LineIndex) -> tree.Statement:
    """The statement of this postfix shape and these values (what `encode` marshals)."""
    decoder = _decoders.get(operations)
    if decoder is not None:
        return decoder(values, lines)
    if operations in _seen:
        if len(_decoders) < _DECODER_SHAPES and len(operations) <= _DECODER_OPERATIONS:
            decoder = _decoders[operations] = _generate(operations)
            return decoder(values, lines)
    elif len(_seen) < _DECODER_SHAPES:
        _seen.add(operations)
    return _decode(operations, values, lines)


_decoders: dict[bytes, Any] = {}
_seen: set[bytes] = set()


def _steps(operations: bytes) -> Iterator[tuple[int, int]]:
    """The operations of a postfix form with their arguments: ``(operation, tuple length)``."""
    at, end = 0, len(operations)
    while at < end:
        operation = operations[at]
        at += 1
        size = 0
        if operation == _TUPLE:
            shift = 0
            while True:
                byte = operations[at]
                at += 1
                size |= (byte & 127) << shift
                shift += 7
                if byte < 128:
                    break
        yield operation, size


def _decode(operations: bytes, values: list, lines: LineIndex) -> tree.Statement:
    stack: list = []
    push = stack.append
    at = 0
    span = _span
    for operation, size in _steps(operations):
        if operation == _LITERAL:
            push(values[at])
            at += 1
        elif operation == _SPAN:
            push(span(values[at], values[at + 1], lines))
            at += 2
        elif operation == _TUPLE:
            parts = tuple(stack[-size:])
            del stack[-size:]
            push(parts)
        elif operation == _EMPTY:
            push(())
        else:
            code = operation - _NODE
            size = _SIZES[code]  # at least 2: every node has a span and more
            fields = stack[-size:]
            del stack[-size:]
            push(_MAKERS[code](*fields))
    (statement,) = stack
    return statement


def _generate(operations: bytes) -> Any:
    """A function ``decode(values, lines)`` for one postfix shape: the general loop's steps
    written out, one line per node, no loop and no stack."""
    stack: list[str] = []
    body: list[str] = []
    at = 0
    for operation, size in _steps(operations):
        if operation == _LITERAL:
            stack.append(f"v[{at}]")
            at += 1
        elif operation == _SPAN:
            stack.append(f"S(v[{at}], v[{at + 1}], L)")
            at += 2
        elif operation == _EMPTY:
            stack.append("()")
        else:
            count = size if operation == _TUPLE else _SIZES[operation - _NODE]
            parts = ", ".join(stack[len(stack) - count :])
            del stack[len(stack) - count :]
            made = f"({parts},)" if operation == _TUPLE else f"M[{operation - _NODE}]({parts})"
            body.append(f"    t{len(body)} = {made}\n")
            stack.append(f"t{len(body) - 1}")
    (result,) = stack
    code = f"def decode(v, L):\n{''.join(body)}    return {result}\n"
    namespace: dict[str, Any] = {"S": _span, "M": _MAKERS}
    exec(code, namespace)  # noqa: S102 - generated from operation codes only
    return namespace["decode"]


class Statements(Sequence):
    """A program's statements, compact ones given back as nodes when read: bytes (see
    `encode`), or ints, which `rebuild` reads again from the program's text (`shapes`: a
    statement of a shape the parser learnt is kept as where it is and which shape). Equal to
    any sequence of the same statements, a tuple included."""

    __slots__ = ("_items", "_lines", "_text", "_rebuild")

    def __init__(
        self,
        items: Iterable[Any],
        lines: LineIndex | None = None,
        text: str | None = None,
        rebuild: Callable[[int, str, LineIndex], tree.Statement] | None = None,
    ):
        self._items: tuple = tuple(items)
        self._lines = lines
        self._text = text
        self._rebuild = rebuild

    def _node(self, item: Any) -> tree.Statement:
        cls = item.__class__
        if cls is bytes:
            assert self._lines is not None  # compact items come with their text's lines
            return decode(item, self._lines)
        if cls is int:
            assert self._rebuild is not None and self._text is not None and self._lines is not None
            return self._rebuild(item, self._text, self._lines)
        return item

    @overload
    def __getitem__(self, index: int) -> tree.Statement: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[tree.Statement, ...]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return tuple(self._node(item) for item in self._items[index])
        return self._node(self._items[index])

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[tree.Statement]:
        node = self._node
        for item in self._items:
            yield node(item)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Statements):
            other = tuple(other)
        if not isinstance(other, tuple):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def held(self) -> tuple[tuple, LineIndex | None, str | None]:
        """The statements as held (compact ones as bytes or ints), the lines their spans
        index and the text."""
        return self._items, self._lines, self._text

    def compact_count(self) -> int:
        """How many statements are held compact (for tests and the memory benchmark)."""
        return sum(1 for item in self._items if item.__class__ is bytes or item.__class__ is int)


__all__ = ["Statements", "decode", "decode_values", "encode"]
