"""Top-level `let`s of a repeated shape, run straight from their compact form.

A long straight-line program is mostly ``let`` statements of a few shapes (``let aN = aN-1 *
1.0000001 + k``). Each is stored compact (see `compact`); giving it back as AST nodes and
walking them (`direct`) cost two thirds of running it. For a postfix shape seen twice, this
module writes a function that runs such a statement from the compact form's values: name
look-ups, the engine's operations, the label entries, the binding. It covers what the walker
does itself: numbers, names, the four arithmetic operators, negation and `var`/`const`; the
shape of anything else (a call, a table) gets none, and an operator outside the four (`**`,
`%`: the same shape) makes the function hand the statement back.

Nothing is written until every step that can fail has succeeded: a statement that would fail
(an unknown name, a non-finite result, a literal out of range, a reserved name, an operator
outside the four) returns False having changed nothing, and the driver runs it the usual way,
which makes the diagnostic. When it succeeds it has made the same nodes, label entries (in the
same order; their spans found again when read: see `labels.Entry`) and binding as
`statements.run_let_once`; tests/test_run_paths.py checks that.
"""

from __future__ import annotations

import functools
import marshal
import re
from typing import Any, Callable

from ..language import tree
from .builtins import RESERVED_NAMES
from ..language.compact import _decode
from ..engine.scalar import Scalar, ScalarOperation, _leaf
from .expressions import ARITHMETIC
from ..language.shapes import _TEMPLATE_BITS, _TEMPLATE_MASK, _TEMPLATES, template_match
from ..language.source import Span, indexed_span

# A function is written for a postfix shape the second time it is run, for this many shapes
# and operations at most (as `compact` bounds its decoders).
MAX_SHAPES = 2_048
MAX_OPERATIONS = 400

Straight = Callable[..., bool]  # (run, values, lines) or (run, match, item, StatementSpans)

_runners: dict[bytes, Straight] = {}  # `_none` for a shape that has no function
_seen: set[bytes] = set()


def run_straight(run: Any, item: bytes, lines: Any, text: Any) -> bool:
    """Run the compact statement `item` (bytes: a shape the parser had not learnt) if its
    shape has a function and nothing in it fails; False (nothing changed) to run it the
    usual way. (Ints: `run_straight_ints`.)"""
    operations, values = marshal.loads(item)
    runner = _runners.get(operations)
    if runner is None:
        if not _learn(operations):
            return False
        runner = _runners[operations]
    if not runner(run, values, lines):
        return False
    labels = run.labels
    if labels.straight_table is not labels.entries and len(labels.straight_table) > labels.straight_limit:
        run._settle(True)  # (the driver settles the nursery itself)
    return True


def run_straight_ints(run: Any, items: Any, index: int, stop: int, lines: Any, text: Any, lasting: bool) -> int:
    """Run the items from `index` on, before `stop`, while each is an int (a statement of a
    shape the parser learnt) whose shape has a function and runs; the index of the first not
    run. Between two statements the nursery is settled as the driver does it (`Run.steps`)."""
    templates, labels, settle = _TEMPLATES, run.labels, run._settle
    table, limit = labels.straight_table, labels.straight_limit
    spans = StatementSpans(text, lines)
    while index < stop:
        item = items[index]
        if item.__class__ is not int:
            break
        template = templates[item & _TEMPLATE_MASK]  # (`shapes.template_match`, inline: per statement)
        runner = template.runner
        if runner is None:
            runner = template.runner = write_matched(template) or _none
        if not runner(run, template.lean.match(text, item >> _TEMPLATE_BITS), item, spans):
            break
        index += 1
        if len(table) > limit:
            settle(lasting)
            table, limit = labels.straight_table, labels.straight_limit
    return index


def _learn(operations: bytes) -> bool:
    """Whether the shape has just been given its entry (on its second run)."""
    if operations not in _seen:
        if len(_seen) < MAX_SHAPES:
            _seen.add(operations)
        return False
    if len(_runners) >= MAX_SHAPES:
        return False
    _runners[operations] = (write(operations) if len(operations) <= MAX_OPERATIONS else None) or _none
    return True


# ---- the shape as nodes holding value positions ----------------------------------------------
# `compact`'s own decoder makes the statement, each value given as its position (an `_At`):
# a name's field, a number's, a span's start and end hold where the value would be.


class StatementSpans:
    """The spans of the nodes that statements of learnt shapes made, found when a label is
    read: their label entries hold the statement's int item and ``where``, the groups of its
    match (and which end of each) that the span runs between (see `labels.Entry`). Making
    four Spans' offsets a statement as it runs took a fifth of a long straight-line
    program's time and a third of its memory; a label is read for a few of its nodes."""

    __slots__ = ("lines", "text")

    def __init__(self, text: str, lines: Any):
        self.text = text
        self.lines = lines

    def span(self, item: int, where: tuple[int, int, int, int]) -> Span:
        regs = template_match(item, self.text)[1].regs
        return indexed_span(regs[where[0]][where[1]], regs[where[2]][where[3]], self.lines)


class _At(int):
    """The position of a value in the compact form."""


class _Positions:
    """What `compact._decode` reads values from: each position for its value."""

    def __getitem__(self, index: int) -> _At:
        return _At(index)


def _tree(operations: bytes) -> Any:
    return _decode(operations, _Positions(), None)  # type: ignore[arg-type]


class _Unfit(Exception):
    """The shape has no function (it holds something the walker does not do itself)."""


def _none(*_: Any) -> bool:
    """The function of a shape that has none: every statement the usual way."""
    return False


def write(operations: bytes) -> Straight | None:
    """The function ``run(run, values, lines)`` running a `let` of this postfix shape from
    its compact form's values, or None."""
    return _written(
        operations, lambda index: f"v[{index}]", lambda index: _UNKNOWN, "def run(run, v, L):\n", {},
        lambda start, end: f"(source, (v[{start}], v[{end}], L), False)",
    )


def write_matched(template: Any) -> Straight | None:
    """The function ``run(run, match, item, spans)`` running a `let` of a shape the parser
    learnt (`shapes.Template`) from its match in the text, or None: the values are read as
    the template's `fill_groups` reads them, a number by `float` alone (the parse checked
    that none is rounded to zero), and the ones the shape fixes (operators, `var`/`const`)
    are known already; the label entries name the item and groups of each node's span
    (`StatementSpans`)."""
    pieces, names = template.pieces
    offset, number, fixed_value = _patterns()
    read = [number.sub(r"float(\1)", piece) for piece in pieces]
    fixed = [_UNKNOWN if fixed_value.fullmatch(piece) is None else eval(piece, dict(names)) for piece in pieces]  # noqa: S307 - `c[k]` only

    def made(start: int, end: int) -> str:
        """A made entry whose span `StatementSpans` finds again (`r[group][0 or 1]`: an end
        of a group, the only form `fill_groups` reads offsets in)."""
        first, last = offset.fullmatch(pieces[start]), offset.fullmatch(pieces[end])
        if first is None or last is None:
            raise _Unfit
        return f"(source, p, False, ({first[1]}, {first[2]}, {last[1]}, {last[2]}), W)"

    header = "def run(run, m, p, W):\n    g = m.groups()\n"
    return _written(template.operations, read.__getitem__, fixed.__getitem__, header, names, made)


@functools.cache  # (compiled when first needed: start-up pays for every regex)
def _patterns() -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """In `fill_groups`' code: a group's start or end, a number (zero checked), a value the
    shape fixes (an operator, a keyword)."""
    return (
        re.compile(r"r\[(\d+)\]\[([01])\]"),
        re.compile(r"\(float\((g\[\d+\])\) or n\(\1\)\)"),
        re.compile(r"c\[\d+\]"),
    )

_UNKNOWN = object()  # a value known only when the statement runs
_OPERATORS = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV"}


def _written(
    operations: bytes, value: Callable[[int], str], fixed: Callable[[int], Any], header: str, names: dict,
    entry_of: Callable[[int, int], str],
) -> Straight | None:
    try:
        code = header + _body(_tree(operations), value, fixed, entry_of)
    except _Unfit:
        return None
    namespace: dict[str, Any] = {
        "Scalar": Scalar, "LEAF": _leaf, "CONSTANT": ScalarOperation.CONSTANT,
        "VARIABLE": ScalarOperation.VARIABLE, "A": ARITHMETIC,
        "RESERVED": RESERVED_NAMES, **{name: ARITHMETIC[op] for op, name in _OPERATORS.items()}, **names,
    }
    exec(code, namespace)  # noqa: S102 - generated from operation codes and value positions only
    return namespace["run"]


def _body(root: Any, read: Callable[[int], str], fixed: Callable[[int], Any], entry_of: Callable[[int, int], str]) -> str:
    """The statements of the function, each value written as ``read(its position)``, or
    known when the shape fixes it (``fixed(its position)``, else `_UNKNOWN`); a node's
    label entry as ``entry_of(its span's start position, end position)``."""

    def _entry(span: Any) -> str:
        if span.__class__ is not Span or span.start.__class__ is not _At or span.end.__class__ is not _At:
            raise _Unfit
        return entry_of(span.start, span.end)  # (a span when read: `labels.Entry`)

    def _value(at: Any) -> str:
        if at.__class__ is not _At:
            raise _Unfit
        return read(at)

    def _fixed(at: Any) -> Any:
        if at.__class__ is not _At:
            raise _Unfit
        return fixed(at)

    if root.__class__ is not tree.Let:
        raise _Unfit
    name, value = root.name, root.value
    checks = [f"    name = {_value(name)}\n    if name in RESERVED:\n        return False\n"]
    compute: list[str] = []  # inside the try: every step that can fail
    commit: list[str] = []  # the label entries, in the order the walker makes the nodes
    made = 0

    def fresh() -> str:
        nonlocal made
        made += 1
        return f"n{made}"

    # Post-order without recursion: (node, None) is a first visit, (node, True) a node whose
    # operands are done (their variables on `results`).
    work: list = [(value, None)]
    results: list[str] = []
    while work:
        node, ready = work.pop()
        cls = node.__class__
        if cls is tree.Name:
            result = fresh()
            compute.append(f"        {result} = get({_bare(_value(node.name))})\n")
            compute.append(f"        if {result}.__class__ is not Scalar:\n            return False\n")
            results.append(result)
        elif cls is tree.Number:
            results.append(_number(fresh(), _value(node.value), _entry(node.span), compute, commit))
        elif cls is tree.Binary:
            if ready is None:
                work += [(node, True), (node.right, None), (node.left, None)]
                continue
            right, left = results.pop(), results.pop()
            operator, result = fresh(), fresh()
            known = _fixed(node.op)
            if known is _UNKNOWN:
                checks.append(f"    {operator} = A.get({_value(node.op)})\n    if {operator} is None:\n        return False\n")
            elif known in _OPERATORS:
                operator = _OPERATORS[known]
            else:  # `**`, `%`: the walker calls the compiler's own function
                raise _Unfit
            compute.append(f"        {result} = {operator}({left}, {right})\n")
            commit.append(f"    E[{result}] = {_entry(node.span)}\n")
            results.append(result)
        elif cls is tree.Unary:
            if ready is None:
                work += [(node, True), (node.operand, None)]
                continue
            if _fixed(node.op) is _UNKNOWN:
                checks.append(f"    if {_value(node.op)} != '-':\n        return False\n")
            elif _fixed(node.op) != "-":
                raise _Unfit
            result = fresh()
            compute.append(f"        {result} = {results.pop()}.neg()\n")
            commit.append(f"    E[{result}] = {_entry(node.span)}\n")
            results.append(result)
        elif cls is tree.Leaf:
            literal = _literal(node.operand)
            if literal is None and ready is None:  # of a value: the value first
                work += [(node, True), (node.operand, None)]
                continue
            kind = _fixed(node.kind)
            if kind is _UNKNOWN:
                make = fresh()
                compute.append(f"        {make} = VARIABLE if {_value(node.kind)} == 'var' else CONSTANT\n")
            else:
                make = "VARIABLE" if kind == "var" else "CONSTANT"
            if literal is not None:  # (the walker makes no node for the literal)
                sign, number = literal
                if sign is not None and _fixed(sign) is _UNKNOWN:
                    checks.append(f"    if {_value(sign)} != '-':\n        return False\n")
                elif sign is not None and _fixed(sign) != "-":
                    raise _Unfit
                number_read = _value(number) if sign is None else "-" + _value(number)
                results.append(_number(fresh(), number_read, _entry(node.span), compute, commit, make))
            else:
                result = fresh()
                operand = results.pop()
                compute.append(f"        {result} = LEAF({operand}._value, {make}, {_gradient(make)})\n")
                commit.append(f"    E[{result}] = {_entry(node.span)}\n")
                results.append(result)
        else:
            raise _Unfit
    (result,) = results
    if value.__class__ is tree.Name:  # a node made before: `Labels.name` looks for its entry
        label = f"    run.labels.name({result}, name)\n"
    else:  # made here, its entry the last: named as `Labels.name` names a new node
        made_entry = commit.pop().split(" = ", 1)[1].rstrip("\n")
        commit.append(f"    E[{result}] = (name, {made_entry}, False)\n")
        label = ""
    return (
        "".join(checks)
        + "    names = run.names\n    get = names.get\n    try:\n"
        + "".join(compute)
        + "    except Exception:\n        return False\n"
        + "    source = run.once.source\n    E = run.labels.straight_table\n"
        + "".join(commit)
        + f"    if run.journal is None:\n        names[name] = {result}\n    else:\n        run.bind(name, {result})\n"
        + label
        + "    return True\n"
    )


def _gradient(make: str) -> str:
    """A new leaf's gradient: None for a constant, 0.0 for a variable."""
    if make in ("CONSTANT", "VARIABLE"):
        return "None" if make == "CONSTANT" else "0.0"
    return f"None if {make} is CONSTANT else 0.0"


def _bare(read: str) -> str:
    """A name's text without `intern` (to look a name up, the text itself will do)."""
    return read[2:-1] if read.startswith("i(") and read.endswith(")") else read


def _number(result: str, value: str, entry: str, compute: list[str], commit: list[str], make: str = "CONSTANT") -> str:
    """A number leaf's node (a non-finite literal fails: the usual way reports it). A finite
    float is what `Scalar.constant` and `Scalar.variable` check for: the leaf is made at once."""
    compute.append(f"        f = {value}\n        if f - f != 0.0:\n            return False\n")
    compute.append(f"        {result} = LEAF(f, {make}, {_gradient(make)})\n")
    commit.append(f"    E[{result}] = {entry}\n")
    return result


def _literal(operand: Any) -> tuple | None:
    """(the sign's position or None, the number's) of a literal operand of `var`/`const`
    (``literal_value``: a number, possibly negated), else None."""
    if operand.__class__ is tree.Number:
        return None, operand.value
    if operand.__class__ is tree.Unary and operand.operand.__class__ is tree.Number:
        return operand.op, operand.operand.value
    return None
