"""Expressions compiled once into Python closures, then run as often as a loop asks.

`Compiler.expression` turns an `tree.Expr` into ``evaluate(args) -> value`` (a node, or a
list: `values.ListValue`), where ``args`` is the tuple of the values in slots: the arguments of
the function being called, then the names of the comprehensions being run (None when there
are none). The
work a tree-walking evaluator would repeat on every run (which built-in a name means, its
arity, spans, labels' source positions) is done once here.

The tree is walked once, without recursion, into postfix items ``(combine, operand count)``.
A shallow expression becomes nested closures (one Python call per node, the four arithmetic
operators fused with their operands); one deeper than `CLOSURE_DEPTH` (a chain of 100,000
terms, 1,000 nested parentheses) runs the same items on an explicit stack, so Python's
recursion limit is never near. Both run the same ``combine`` functions: the same nodes, the
same errors, in the same order.

Errors of a call the compiler can already see (a statement used as a value, a wrong argument
count) become items that raise when they are reached, so a statement fails with the first
error its evaluation meets, as before. Inside a function body (``early``) they are raised at
once: `fn` reports them where the function is defined.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any, Callable

from ..engine.errors import ScalarAutodiffError
from ..engine.numbers import format_number
from ..engine.scalar import Scalar
from ..engine.tensor import Tensor
from ..language import tree
from ..language.diagnostics import LanguageError
from ..language.source import Source, Span
from . import calls, lists, operations, texts
from .context import Budget, Function
from .failures import drawing_failure, engine_failure, failure, not_a_list, not_a_node, not_a_text
from .operations import NUMBERS, literal_value
from .library.registry import LIBRARY
from .values import (
    LABEL_LIMIT, MAX_LIST, ListValue, Made, TextValue, formatted_value, occurrences, shorten, suggestion, whole_number,
)

if TYPE_CHECKING:
    from .context import Builtins

Evaluate = Callable[[tuple | None], Any]  # a Scalar, a ListValue or a TextValue
# Deeper expressions run on an explicit stack (Python's recursion limit is 1,000 frames).
CLOSURE_DEPTH = 100
# `did you mean` compares a name with at most this many of the latest bindings.
SUGGESTION_CANDIDATES = 5_000


class Compiler:
    """Compiles the expressions of one source (or one function body) against a session."""

    def __init__(
        self,
        names: dict,
        source: Source,
        params: tuple[str, ...] | None = None,
        function: str | None = None,
        random: Any = None,
        budget: Budget | None = None,
        library: Builtins = LIBRARY,
    ):
        self.names = names
        self.source = source
        # Names in argument slots: a function's parameters, then comprehensions' names.
        self.params = {name: index for index, name in enumerate(params)} if params is not None else None
        self.slots = len(params) if params is not None else 0
        self.early = params is not None  # a function body: calls are resolved now
        self.function = function  # the function whose body this is: its nodes' labels say so
        self.random = random  # the session's generator (`random.Random`), for `uniform`, `gauss`
        self.budget = budget if budget is not None else Budget()  # the session's, for comprehensions
        self.call_depth = 0  # the deepest function a function body calls
        self.library = library  # the built-ins the session was handed
        # In a function body, (start, end, count, form) -> the tag of the nodes made there, so that
        # the body's own result is known by its tag (`Function.origin`); keyed by offsets,
        # which stand for the span in one source (hashing a span computes its line and column).
        self._origins: dict[tuple[int, int, bool, str | None], Made] | None = {} if self.early else None

    # ---- helpers the built-ins use ---------------------------------------------------------

    def origin(self, span: Span, count: bool = False, form: str | None = None) -> Made:
        """The tag of the nodes the expression at ``span`` makes: one object per expression
        (``form``: of a part a built-in makes, see `Made`)."""
        origins = self._origins
        if origins is None:
            return Made(self.source, span, count, self.function, form)
        key = (span.start, span.end, count, form)
        made = origins.get(key)
        if made is None:
            made = origins[key] = Made(self.source, span, count, self.function, form)
        return made

    def fail(self, kind: str, message: str, span: Span, fields=None, notes=()) -> LanguageError:
        return failure(self.source, kind, message, span, fields, notes)

    def engine_error(self, error: ScalarAutodiffError, span: Span) -> LanguageError:
        return engine_failure(self.source, error, span)

    def drawing_error(self, error, span: Span) -> LanguageError:
        """A picture's or a chart's `DrawingError` (a `ChartError` too) at ``span``."""
        return drawing_failure(self.source, error, span)

    def check_written_whole(self, value: object, span: Span) -> None:
        """`too-long` when ``value`` is a list that holds more than `MAX_LIST` items (lists
        included), counted as often as they are held: a value line, `print`, a text's hole or
        `flatten` writing it whole would not end (a list doubled sixty times holds 2^60)."""
        if value.__class__ is ListValue:
            count = occurrences(value)  # type: ignore[arg-type]
            if count > MAX_LIST:
                raise self.fail(
                    "too-long",
                    f"this list holds {count:,} items (lists included), a shared list counted each time it is held;"
                    f" a list shown, printed or flattened may hold at most {MAX_LIST:,}",
                    span, {"length": count, "limit": MAX_LIST},
                )

    def whole(self, value: float, span: Span, what: str) -> int:
        """``value`` as a count or a range's end: a whole number, else `not-a-count`."""
        number = whole_number(value)
        if number is None:
            raise self.fail("not-a-count", f"{what} must be a whole number, not {format_number(value)}", span, {"value": value})
        return number

    def text_of(self, expr) -> str:
        return shorten(self.source.slice(expr.span))

    def node_check(self, expr: tree.Expr, needed_by: str) -> Callable[[Any], LanguageError]:
        """The error for a list where ``expr`` should give a node (its words made only when it
        happens: every operator of a program is compiled with one)."""
        return lambda value: not_a_node(self.source, value, self.text_of(expr), expr.span, needed_by)

    def list_check(self, expr: tree.Expr, needed_by: str) -> Callable[..., LanguageError]:
        """The error for a node (or a text: pass the value) where ``expr`` should give a list
        (made when it happens)."""
        return lambda value=None: not_a_list(self.source, self.text_of(expr), expr.span, needed_by, value)

    @staticmethod
    def values(call: tree.Call) -> tuple[tree.Expr, ...]:
        """A checked call's arguments as values (a text in quotes among them is a text; where
        the entry takes a file name, it is read with `text_argument`)."""
        return call.args

    def body_compiler(self, names: dict, params: tuple[str, ...], function: str) -> Compiler:
        """The compiler of the body of ``function`` (`fn`) in this source: its parameters in
        argument slots, calls resolved when it is compiled."""
        return Compiler(names, self.source, params, function, self.random, self.budget, self.library)

    # ---- the public entry points ----------------------------------------------------------

    def number(self, expr: tree.Expr) -> Callable[[tuple | None], float]:
        """A plain number (a seed, a count, a rate): a literal is read directly."""
        return self.number_and_frames(expr)[0]

    def number_and_frames(self, expr: tree.Expr) -> tuple[Callable[[tuple | None], float], int]:
        """`number`, and how many Python frames running it takes at most."""
        literal = literal_value(expr)
        if literal is not None:
            return (lambda args: literal), 1
        evaluate, frames = self.depth_of(expr)
        not_a_node_error = self.node_check(expr, "a number here")  # (a count, a rate, a seed)

        def number(args):
            value = evaluate(args)
            if value.__class__ is not Scalar:
                raise not_a_node_error(value)
            return value._value

        return number, frames + 1

    def text(self, item: tree.Expr) -> Callable[[tuple | None], str]:
        """A print item (or a text in quotes, a file name): a string with its holes filled, or
        a value as `print` shows it (counts as whole numbers, a text as it is)."""
        evaluate, span = self.expression(item), item.span

        def text(args):
            value = evaluate(args)
            self.check_written_whole(value, span)
            return formatted_value(value)

        return text

    def text_argument(self, item: tree.Expr, needed_by: str) -> Callable[[tuple | None], str]:
        """A built-in's text argument (a file name, a title): a text in quotes (its holes
        filled), or an expression whose value must be a text (`read_text(path)`,
        `title: names[0]`), else `not-a-text`."""
        if isinstance(item, tree.StringLiteral):
            return self.text(item)
        evaluate, text, span = self.expression(item), self.text_of(item) or "this", item.span

        def text_value(args):
            value = evaluate(args)
            if value.__class__ is not TextValue:
                raise not_a_text(self.source, value, text, span, needed_by)
            return str(value)

        return text_value

    def node_expression(self, expr: tree.Expr, needed_by: str) -> Callable[[tuple | None], Scalar]:
        """An expression whose value must be a node (`backward(OUT)`, `draw(OUT)`)."""
        evaluate, not_a_node_error = self.expression(expr), self.node_check(expr, needed_by)

        def node(args):
            value = evaluate(args)
            if value.__class__ is not Scalar:
                raise not_a_node_error(value)
            return value

        return node

    def expression(self, expr: tree.Expr) -> Evaluate:
        items, depth = self._postfix(expr)
        if depth > CLOSURE_DEPTH:
            return stack_runner(items)
        return closures_of(items)

    def depth_of(self, expr: tree.Expr) -> tuple[Evaluate, int]:
        """The compiled expression and how many Python frames running it takes at most."""
        items, depth = self._postfix(expr)
        if depth > CLOSURE_DEPTH:
            return stack_runner(items), 3
        return closures_of(items), depth

    # ---- the walk ---------------------------------------------------------------------------

    def _postfix(self, expr: tree.Expr) -> tuple[list, int]:
        """Post-order items ``(combine, operand count, fuse)`` and the tree's depth.

        An operation is put back on the work stack below its operands, as its item, and comes
        off once their items are out: the operations waiting at any moment are the path to
        the node at hand, so the most that ever wait, plus one, is the depth."""
        items: list = []
        add_item = items.append
        work: list = [expr]
        push, pop = work.append, work.pop
        leaf_of, inner_of = self._leaf, self._inner
        waiting = deepest = 0
        while work:
            node = pop()
            if node.__class__ is tuple:  # an operation whose operands' items are out
                add_item(node)
                waiting -= 1
                continue
            leaf = leaf_of(node)
            if leaf is not None:
                add_item((leaf, 0, None))
                continue
            combine, children, fuse = inner_of(node)
            if not children:
                add_item((combine, 0, None))
                # (a comprehension runs its parts itself: the frames they take count too)
                frames = waiting + getattr(combine, "frames", 1) - 1
                if frames > deepest:
                    deepest = frames
                continue
            push((combine, len(children), fuse))
            waiting += 1
            if waiting > deepest:
                deepest = waiting
            for child in reversed(children):
                push(child)
        return items, deepest + 1

    def _leaf(self, node: tree.Expr):
        if node.__class__ is tree.Number:
            return self._number(node.value, Scalar.constant, node.span)
        if node.__class__ is tree.Name:
            return self._name(node)
        if node.__class__ is tree.Leaf:
            literal = literal_value(node.operand)
            if literal is not None:  # `var inf`: the variable is what is non-finite
                return self._number(literal, Scalar.variable if node.kind == "var" else Scalar.constant, node.span)
        return None

    def _number(self, value: float, make, span: Span):
        origin = self.origin(span)
        if value - value != 0.0:
            source = self.source

            def non_finite(args):
                try:
                    make(value)
                except ScalarAutodiffError as error:
                    raise engine_failure(source, error, span) from None

            return non_finite

        def number(args):
            node = make(value)
            node.tag = origin
            return node

        return number

    def _name(self, node: tree.Name):
        key = node.name
        if self.params is not None and key in self.params:
            return itemgetter(self.params[key])
        get, span = self.names.get, node.span

        def name(args):
            value = get(key)
            kind = value.__class__  # (identity tests, a node's first: the path of training)
            if kind is Scalar or kind is Tensor or kind is ListValue or kind is TextValue:
                return value
            raise self.name_failure(key, value, span)

        return name

    def name_failure(self, key: str, value: object, span: Span) -> LanguageError:
        if isinstance(value, Function):
            return self.fail(
                "not-a-value",
                f"`{key}` is a function, not a value; call it: `{value.signature()}`",
                span,
                {"name": key},
            )
        builtin = self.library.values.get(key)
        if builtin is not None:  # `let f = floor`, `print sum + 1`
            return self.fail(
                "not-a-value",
                f"`{key}` is a built-in function, not a value; call it: `{builtin.usage[0]}`",
                span,
                {"name": key},
            )
        statement = self.library.statements.get(key)
        if statement is not None:  # `let b = backward`
            return self.fail(
                "not-a-value", f"`{key}` is a statement, not a value: `{statement.usage[0]}`", span, {"name": key}
            )
        from ..language.hints import name_hint  # (on first use: only a failure asks)

        candidates = list(self.names)[-SUGGESTION_CANDIDATES:] + list(self.library.values)
        return self.fail(
            "undefined-name",
            f"`{shorten(key, LABEL_LIMIT)}` is not defined",
            span,
            {"name": key},
            name_hint(key) or suggestion(key, candidates),
        )

    def _inner(self, node: tree.Expr):
        """``(combine, operand expressions, fuse)`` of a node that has operands."""
        if isinstance(node, tree.Binary):
            if node.op in operations.ARITHMETIC:
                combine, fuse = operations.arithmetic(self, node)
                return combine, (node.left, node.right), fuse
            if node.op == "**":
                literal = literal_value(node.right)
                if literal is not None and literal - literal == 0.0:
                    # A number exponent is read as written: the constant it would make is
                    # never part of the graph.
                    return operations.literal_power(self, node, literal), (node.left,), None
                return operations.power(self, node), (node.left, node.right), None
            if node.op == "@":
                return operations.matmul(self, node), (node.left, node.right), None
            if node.op == "//":
                return operations.floor_division(self, node), (node.left, node.right), None
            return operations.remainder(self, node), (node.left, node.right), None
        if isinstance(node, tree.StringLiteral):
            return texts.string_literal(self, node)
        if isinstance(node, tree.Unary):
            return operations.negation(self, node), (node.operand,), None
        if isinstance(node, tree.Leaf):
            return operations.leaf(self, node), (node.operand,), None
        if isinstance(node, tree.Call):
            return calls.compile_call(self, node)
        if isinstance(node, tree.Compare):
            return operations.compare(self, node), (node.left, node.right), None
        if isinstance(node, tree.Index):
            return operations.index(self, node), (node.target, node.index), None
        if isinstance(node, tree.ListLiteral):
            return lists.literal, lists.literal_items(node), None
        if isinstance(node, tree.Comprehension):
            return lists.comprehension(self, node), (), None
        raise TypeError(f"unknown expression {type(node).__name__}")

    def defined_function(self, name: str, span: Span, needed_by: str) -> Function:
        """The function defined with `fn` that ``name`` holds now (`boundary(F, …)`: the
        built-in ``needed_by``), else the error a call of it would give."""
        value = self.names.get(name)
        if not isinstance(value, Function):
            if name in self.library.values:  # `boundary(tanh, data)`: a built-in, wrapped by `fn`
                raise self.fail(
                    "wrong-arguments",
                    f"`{name}` is a built-in; `{needed_by}` takes a function defined with `fn`"
                    f" (`fn f(x1, x2) = {name}(x1 + x2)`, then `f`)",
                    span,
                    {"function": needed_by, "builtin": name},
                )
            raise calls.unknown_function(self, name, value, span)
        return value

    def resolve_failure(self, call: tree.Call, function: object) -> LanguageError:
        """Why the function a call names when it runs cannot be called (see ``calls``)."""
        return calls.resolve_failure(self, call, function)

    def not_nodes(self, left: tree.Expr, right: tree.Expr, needed_by: str):
        """The error for ``left OP right`` when one of them is a list (the left one first)."""
        left_error, right_error = self.node_check(left, needed_by), self.node_check(right, needed_by)
        # (a tensor beside a list: the list is what is wrong; two tensors `%`: the left one)
        return lambda a, b: left_error(a) if a.__class__ is not Scalar and (a.__class__ is not Tensor or b.__class__ in NUMBERS) else right_error(b)




# ---- postfix items into something to run ----------------------------------------------------


def closures_of(items: list):
    closures: list = []
    for combine, count, fuse in items:
        if count == 0:
            closures.append(combine)
            continue
        operands = closures[len(closures) - count :]
        del closures[len(closures) - count :]
        if fuse is not None:
            closures.append(fuse(*operands))
        elif count == 1:
            closures.append(_one(combine, operands[0]))
        elif count == 2:
            closures.append(_two(combine, operands[0], operands[1]))
        else:
            closures.append(_many(combine, tuple(operands)))
    return closures[0]


def _one(combine, operand):
    return lambda args: combine(args, operand(args))


def _two(combine, left, right):
    return lambda args: combine(args, left(args), right(args))


def _many(combine, operands):
    return lambda args: combine(args, *[operand(args) for operand in operands])


def stack_runner(items: list) -> Evaluate:
    plan = tuple((combine, count) for combine, count, _ in items)

    def run(args: tuple | None) -> Scalar:
        values: list = []
        push = values.append
        for combine, count in plan:
            if count == 0:
                push(combine(args))
            elif count == 1:
                push(combine(args, values.pop()))
            else:
                operands = values[len(values) - count :]
                del values[len(values) - count :]
                push(combine(args, *operands))
        return values[0]

    return run
