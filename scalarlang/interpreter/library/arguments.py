"""The kinds of a built-in's arguments, checked once, here, with one wording for each failure:
a compile function whose entry says `NODE`, `LIST`, `STRING`, `NODES` or `TEXTS` for an
argument is given that argument's value already checked (`checked` wraps what it compiled).

    NODE    a node                       not-a-node   `xs` is a list of 3, not a node
    LIST    a list                       not-a-list   `x` is a node, not a list: `zip` takes a list
    STRING  a text (as a value)          not-a-text   `x` is a node, not a text: `lines` takes a text
    NODES   a list of nodes              not-a-list, not-a-node of `xs[i]` (`f` of each item), and
            (not empty, when the entry    wrong-arguments `f` of an empty list: it has no terms
            says what an empty one lacks)
    TEXTS   a list of texts              not-a-list, not-a-text of `xs[i]` (`f` of each item)

(`TEXT`, a file name or a title, is checked where the call is compiled, and compiled by
`Compiling.text_argument`; `VALUE` and `FUNCTION` are the compile function's own.)
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, Callable

from ...engine.scalar import Scalar
from ...language import tree
from ...language.diagnostics import LanguageError
from ..failures import not_a_node, not_a_text
from ..values import ListValue, TextValue

if TYPE_CHECKING:
    from ..context import Compiling


class Kind(StrEnum):
    """What an argument (or a named option's value) is."""

    VALUE = "value"  # an expression: what it must give is the compile function's to check
    NODE = "node"  # an expression whose value must be a node
    LIST = "list"  # ... a list
    STRING = "string"  # ... a text
    NODES = "nodes"  # ... a list of nodes (with items, if the entry says what an empty one lacks)
    TEXTS = "texts"  # ... a list of texts
    TEXT = "text"  # a file name, a title: a text in quotes, or an expression that may give one
    FUNCTION = "function"  # the bare name of a function defined with `fn`


Check = Callable[[Any], None]


def checked(
    name: str, kind_of: Callable[[int], Kind], empty: str | None, compiler: Compiling, call: tree.Call, built: tuple
) -> tuple:
    """``(combine, operands, fuse)`` of a call of ``name`` with each operand checked as its kind
    (``kind_of(index)``) says before ``combine`` sees it; ``empty``: what an empty list of nodes
    lacks. (A checked call's compile function gives no fused form: a node's check makes one.)"""
    combine, operands = built[0], built[1]
    fuse = built[2] if len(built) == 3 else None
    checks = [argument_check(name, kind_of(index), empty, compiler, arg) for index, arg in enumerate(call.args)]
    if not any(checks):
        return combine, operands, fuse
    if len(operands) != len(checks) or any(operand is not arg for operand, arg in zip(operands, call.args)):
        raise TypeError(f"`{name}`'s arguments have kinds: its operands are its arguments")
    if len(checks) == 1:
        one, fused = _one_checked(kind_of(0), checks[0] or _anything, compiler, operands[0], name, combine)
        return one, operands, fused
    if len(checks) == 2:
        return _two_checked([_class_of(kind_of(index)) for index in range(2)], checks, combine), operands, None
    every = [check or _anything for check in checks]

    def many(args, *values):
        for check, value in zip(every, values):
            check(value)
        return combine(args, *values)

    return many, operands, None


def _one_checked(kind: Kind, check: Check, compiler: Compiling, expr: tree.Expr, name: str, combine: Callable):
    """``(combine, fuse)`` of one operand, checked first; a node's check is inline and fused
    with its operand's closure (`exp`, `tanh` and the like run in every training step)."""
    if kind is Kind.NODE:
        not_a_node_error = compiler.node_check(expr, f"`{name}`")

        def node(args, value):
            if value.__class__ is not Scalar:
                raise not_a_node_error(value)
            return combine(args, value)

        def fuse(operand_of):
            def run(args):
                value = operand_of(args)
                if value.__class__ is not Scalar:
                    raise not_a_node_error(value)
                return combine(args, value)

            return run

        return node, fuse

    def one(args, value):
        check(value)
        return combine(args, value)

    return one, None


class _Never:
    """No value's class: a check of items always runs (``value.__class__ is not _Never``)."""


_CLASSES = {Kind.NODE: Scalar, Kind.LIST: ListValue, Kind.STRING: TextValue}


def _class_of(kind: Kind) -> type:
    """The class a value of ``kind`` has, when that is all there is to check."""
    return _CLASSES.get(kind, _Never)


def _two_checked(classes: list[type], checks: list[Check | None], combine: Callable):
    """``combine`` of two operands, each checked first: a class compared inline (`dot`,
    `uniform` run in training loops), the check called only when it differs or when items
    need it; an unchecked operand untouched."""
    (first_class, second_class), (first, second) = classes, checks
    if first is None and second is not None:

        def second_of_two(args, left, right):
            if right.__class__ is not second_class:
                second(right)
            return combine(args, left, right)

        return second_of_two
    if second is None and first is not None:

        def first_of_two(args, left, right):
            if left.__class__ is not first_class:
                first(left)
            return combine(args, left, right)

        return first_of_two
    assert first is not None and second is not None  # (`checked` has some check to make)

    def two(args, left, right):
        if left.__class__ is not first_class:
            first(left)
        if right.__class__ is not second_class:
            second(right)
        return combine(args, left, right)

    return two


def _anything(value: object) -> None:
    return None


def argument_check(name: str, kind: Kind, empty: str | None, compiler: Compiling, expr: tree.Expr) -> Check | None:
    """The check of one argument of ``kind`` (None: the compile function's own)."""
    needed_by = f"`{name}`"
    if kind is Kind.NODE:
        not_a_node_error = compiler.node_check(expr, needed_by)

        def node(value):
            if value.__class__ is not Scalar:
                raise not_a_node_error(value)

        return node
    if kind is Kind.LIST:
        not_a_list_error = compiler.list_check(expr, needed_by)

        def a_list(value):
            if value.__class__ is not ListValue:
                raise not_a_list_error(value)

        return a_list
    if kind is Kind.STRING:
        source, text, span = compiler.source, compiler.text_of(expr), expr.span

        def string(value):
            if value.__class__ is not TextValue:
                raise not_a_text(source, value, text, span, needed_by)

        return string
    if kind is Kind.NODES:
        return nodes_check(compiler, name, expr, empty)
    if kind is Kind.TEXTS:
        not_a_list_error = compiler.list_check(expr, needed_by)
        source, text, span = compiler.source, compiler.text_of(expr), expr.span

        def texts(value):
            if value.__class__ is not ListValue:
                raise not_a_list_error(value)
            for index, item in enumerate(value):
                if item.__class__ is not TextValue:
                    raise not_a_text(source, item, f"{text}[{index}]", span, f"`{name}` of each item")

        return texts
    return None


def nodes_check(compiler: Compiling, name: str, expr: tree.Expr, empty: str | None) -> Check:
    """A list of nodes (with items, when ``empty`` says what an empty one lacks)."""
    not_a_list_error = compiler.list_check(expr, f"`{name}`")

    def nodes(value):
        if value.__class__ is not ListValue:
            raise not_a_list_error(value)
        if not value and empty is not None:
            raise empty_list(compiler, name, expr, empty)
        for item in value:  # (the index only when one is not: this runs in training loops)
            if item.__class__ is not Scalar:
                index = next(index for index, item in enumerate(value) if item.__class__ is not Scalar)
                raise item_not_a_node(compiler, name, expr, index, value[index])

    return nodes


def empty_list(compiler: Compiling, name: str, expr: tree.Expr, lacks: str) -> LanguageError:
    """`wrong-arguments`: an empty list where the function needs an item (``lacks``: what it
    has not, `no terms`, `no largest item`)."""
    return compiler.fail(
        "wrong-arguments", f"`{name}` of an empty list: it has {lacks}", expr.span, {"function": name, "length": 0},
    )


def item_not_a_node(compiler: Compiling, name: str, expr: tree.Expr, index: int, item: object) -> LanguageError:
    """`not-a-node` for item ``index`` of the list argument ``expr``; a list there (a table
    where a list of values belongs) is helped to one row or a comprehension over the rows."""
    text = compiler.text_of(expr)
    error = not_a_node(compiler.source, item, f"{text}[{index}]", expr.span, f"`{name}` of each item")
    if item.__class__ is not ListValue:
        return error
    call = f"{name}({text}[0]" + (", TARGET)" if name == "cross_entropy" else ")")
    each = f"[{name}(row, TARGET) for row in {text}]" if name == "cross_entropy" else f"[{name}(row) for row in {text}]"
    return with_help(error, f"help: `{name}` takes a list of values: of one row, `{call}`; of every row, `{each}`")


def with_help(error: LanguageError, help_note: str) -> LanguageError:
    """``error`` with ``help_note`` in place of its own help (the general one does not fit)."""
    return LanguageError(error.diagnostic.replaced(notes=(help_note,)))
