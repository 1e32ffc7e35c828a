"""The built-in functions of lists and data: `len`, `sum`, `mean`, `dot`, `flatten`, `zip`, the
random draws `uniform`, `gauss` and `shuffle` (and the statement `random_seed`), and
`read_table`. Their entries are in ``registry``; each is compiled as ``node_functions`` says.

`sum`, `mean` and `dot` are left folds of ordinary engine operations, so their graphs are what
`a + b + c` and `a*x + b*y` make; the nodes they make are labelled by the call. `uniform`,
`gauss` and `shuffle` draw from the session's generator (`random.Random`, seeded 0 when a
session starts); `gauss` is Python's formula with the engine's own log, sin and cos
(engine/normal.py), the same bits on every platform.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ...engine.errors import ScalarAutodiffError
from ...engine.normal import gauss
from ...engine.numbers import format_number
from ...engine.scalar import Scalar
from ...language import tree
from ..values import ListValue, TextValue, items_of, whole_number
from .arguments import nodes_check

if TYPE_CHECKING:
    from ..context import Compiling, Running


def _terms(compiler: Compiling, call: tree.Call) -> Callable[[tuple], tuple]:
    """``terms(values)``: the terms of a fold: the items of its one list argument (checked as
    the registry checks a list of nodes), or its arguments, each a node."""
    args, name = compiler.values(call), call.function
    of_list, single = nodes_check(compiler, name, args[0], "no terms"), len(args) == 1

    def terms(values: tuple) -> tuple:
        if single and values[0].__class__ is ListValue:
            of_list(values[0])
            return values[0]
        for value, expr in zip(values, args):
            if value.__class__ is not Scalar:
                raise compiler.node_check(expr, f"`{name}`")(value)
        return values

    return terms


def compile_sum(compiler: Compiling, call: tree.Call, mean: bool = False):
    """``sum(a, b, …)`` or ``sum(L)``: the left fold ``a + b + …``; `mean` divides it once by
    the count."""
    span, origin = call.span, compiler.origin(call.span)
    count_origin = compiler.origin(call.span, True)
    engine_error, terms_of = compiler.engine_error, _terms(compiler, call)

    def combine(args, *values):
        terms = terms_of(values)
        total = terms[0]
        try:
            for term in terms[1:]:
                total = total + term
                total.tag = origin
            if mean:
                divisor = Scalar.constant(len(terms))
                divisor.tag = count_origin
                total = total / divisor
                total.tag = origin
        except ScalarAutodiffError as error:
            raise engine_error(error, span) from None
        return total

    return combine, compiler.values(call)


def compile_mean(compiler: Compiling, call: tree.Call):
    return compile_sum(compiler, call, mean=True)


def compile_len(compiler: Compiling, call: tree.Call):
    """``len(L)``: a list's items, or a text's characters."""
    origin = compiler.origin(call.span, True)
    not_a_list = compiler.list_check(compiler.values(call)[0], "`len`")

    def length(args, value):
        if value.__class__ is not ListValue and value.__class__ is not TextValue:
            raise not_a_list()
        node = Scalar.constant(len(value))
        node.tag = origin
        return node

    return length, compiler.values(call)


def compile_dot(compiler: Compiling, call: tree.Call):
    """``dot(A, B)``: ``A[0]*B[0] + A[1]*B[1] + …``, a left fold of products."""
    span, origin, engine_error = call.span, compiler.origin(call.span), compiler.engine_error
    left_nodes, right_nodes = (nodes_check(compiler, "dot", arg, "no terms") for arg in compiler.values(call))

    def dot(args, left, right):  # (two lists: `LIST`; their items are checked below)
        if len(left) != len(right) or not left:
            raise compiler.fail(
                "wrong-arguments",
                f"`dot` takes two lists of one length, not {len(left)} and {len(right)}"
                if left or right else "`dot` of two empty lists has no terms",
                span,
                {"function": "dot", "lengths": [len(left), len(right)]},
            )
        left_nodes(left)
        right_nodes(right)
        try:
            total = left[0] * right[0]
            total.tag = origin
            for a, b in zip(left[1:], right[1:]):
                product = a * b
                product.tag = origin
                total = total + product
                total.tag = origin
        except ScalarAutodiffError as error:
            raise engine_error(error, span) from None
        return total

    return dot, compiler.values(call)


def compile_flatten(compiler: Compiling, call: tree.Call):
    """``flatten(L, …)``: every node (and text) held in the arguments, depth first, in order."""

    span = call.span

    def flatten(args, *values):
        compiler.check_written_whole(ListValue(values), span)
        return ListValue([item for value in values for item in items_of(value)])

    return flatten, compiler.values(call)


def compile_zip(compiler: Compiling, call: tree.Call):
    """``zip(A, B, …)``: the rows ``[A[i], B[i], …]``, as many as the shortest has items
    (each a list: `LIST`)."""

    def zip_lists(args, *values):
        return ListValue([ListValue(row) for row in zip(*values)])

    return zip_lists, compiler.values(call)


def _draw(name: str, draw_with):
    def build(compiler: Compiling, call: tree.Call):
        origin, random = compiler.origin(call.span), compiler.random

        def draw(args, first, second):  # (two nodes: `NODE`)
            number = draw_with(random, first._value, second._value)
            if number - number != 0.0:
                raise compiler.fail(
                    "non-finite-result", f"`{name}` drew a non-finite number {number}", call.span,
                    {"operation": name, "value": number},
                )
            node = Scalar.constant(number)
            node.tag = origin
            return node

        return draw, compiler.values(call)

    return build


compile_uniform = _draw("uniform", lambda random, low, high: random.uniform(low, high))
compile_gauss = _draw("gauss", gauss)  # (Python's random.gauss, with the engine's log, sin and cos)


def compile_shuffle(compiler: Compiling, call: tree.Call):
    """``shuffle(L)``: a new list of L's items in the order Python's ``random.shuffle`` gives
    them with the session's generator in the same state (makemore's ``random.seed(42);
    random.shuffle(words)`` is ``random_seed(42)`` then ``shuffle(words)``); L is unchanged."""
    random = compiler.random

    def shuffled(args, items):  # (a list: `LIST`)
        order = list(items)
        random.shuffle(order)
        return ListValue(order)

    return shuffled, compiler.values(call)


def compile_read_table(compiler: Compiling, call: tree.Call):
    """``read_table("FILE.csv")``: a list of rows of constants; the path is relative to the
    program's folder (the working folder for text that came from no file)."""
    (argument,) = call.args  # a text (its entry says so)
    name_of, origin = compiler.text_argument(argument, "`read_table`"), compiler.origin(call.span)
    folder = compiler.source.folder

    def table(args) -> Any:
        name = name_of(args)
        if not name:  # (the path would be the folder, "a directory")
            raise compiler.fail(
                "io-error", "the file name is empty: there is no file to read", argument.span,
                {"file": name, "line_in_file": None, "column_in_file": None},
            )
        path = Path(name) if folder is None else Path(folder) / name
        from .csv_reader import TableError, read_table  # (on first use: start-up reads no file)

        try:
            rows = read_table(path, name)
        except TableError as error:
            where = f"line {error.line}, column {error.column}: " if error.line is not None else ""
            raise compiler.fail(
                error.kind, f"`{name}`: {where}{error.message}", argument.span,
                {**error.fields, "line_in_file": error.line, "column_in_file": error.column},
            ) from None
        made = []
        for row in rows:
            cells = []
            for number in row:
                node = Scalar.constant(number)
                node.tag = origin
                cells.append(node)
            made.append(ListValue(cells))
        return ListValue(made)

    return table, ()


def compile_random_seed(run: Running, statement: tree.ExprStatement, call: tree.Call):
    """``random_seed(N)``: the session's generator starts again from N; shows nothing."""
    compiler = run.compiler
    seed_of, random = compiler.number(compiler.values(call)[0]), run.session.random
    argument = compiler.values(call)[0]

    def random_seed(show):
        seed = seed_of(None)
        whole = whole_number(seed)
        if whole is None:
            raise compiler.fail(
                "wrong-arguments", f"`random_seed` takes a whole number, not {format_number(seed)}",
                argument.span, {"function": "random_seed", "value": seed},
            )
        random.seed(whole)

    return random_seed
