"""Simple statements compiled into actions: ``action(show)`` runs the statement once: `let`,
`fn`, `descend`, a value line (or a statement-like call, through its entry), `print`,
`zero_grad`, and the statements that check, `assert` and `expect`.

An action computes everything that can fail first and changes the session only after that,
so a failing statement binds no name and changes no stored gradient. ``show`` is False in
loop bodies, under ``quiet`` and with ``--quiet``: then a statement that only echoes (a
binding, a value line, a pass's tables, ``descend``) builds no outcome at all; ``print``,
``graph`` and ``gradcheck`` show either way. Bindings also build none when the front end
shows none (``run.echo`` False: scripts).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

from ..engine.numbers import format_number
from ..engine.errors import ScalarAutodiffError
from ..engine.node import new_leaf
from ..engine.scalar import Scalar, ScalarOperation
from ..engine.tensor import Tensor
from ..engine.tensor_node import TensorNode
from ..engine.tensor_text import tensor_summary
from ..language import tree
from ..language.diagnostics import Diagnostic, LanguageError
from ..language.source import Span
from . import texts
from .calls import reserved
from .failures import RUNTIME_KINDS, kind_suggestion, raising
from .operations import COMPARISONS, compared, number_of
from .outcomes import Bound, Defined, Expected, ListShown, NodeState, Printed, TextShown, ValueShown, Warned
from .tensor_outcomes import TensorShown, TensorState
from .library.registry import call_problem
from .lists import Places, check_written, name_items, rebuilt
from .values import (
    LABEL_LIMIT, ListValue, Named, TextValue, cut, describe, distinct_nodes, formatted_value, is_count, label_of, named,
    operation_text, shape_text, shorten, text_summary,
)

if TYPE_CHECKING:
    from .context import Compiling, Running

_VARIABLE = ScalarOperation.VARIABLE


def node_state(node: Scalar, label: str | None = None) -> NodeState:
    return NodeState(
        label_of(node) if label is None else label,
        operation_text(node),
        node.value,
        node.tracks_gradient,
        node.gradient,
        is_count(node),
    )


def tensor_state(tensor: TensorNode, label: str | None = None) -> TensorState:
    return TensorState(
        label_of(tensor) if label is None else label,  # type: ignore[arg-type]
        str(tensor.operation),
        tuple(tensor.shape),
        tensor.values,
        tensor.tracks_gradient,
    )


def binding(span: Span, name: str, value: Any) -> Bound | Defined:
    """What binding ``value`` to ``name`` shows: a node's state; a list's shape (`W = 16 × 2
    variables`), a text's summary, a tensor's (`W = 30 × 200 tensor variable`)."""
    if value.__class__ is ListValue:
        return Defined(span, name, f"= {shape_text(value)}")
    if value.__class__ is TextValue:
        return Defined(span, name, f"= {text_summary(value)}")
    if value.__class__ is Tensor:
        return Defined(span, name, f"= {tensor_summary(value)}")
    return Bound(span, name, node_state(value, name))


# ---- bindings -----------------------------------------------------------------------------


def compile_let(run: Running, statement: tree.Let):
    problem = reserved(run.compiler, statement.name, statement.name_span, "bound with `let`")
    if problem is not None:
        return raising(problem)
    name, span, state, echo = statement.name, statement.span, run.state, run.echo
    evaluate = run.compiler.expression(statement.value)
    # The tag the last new node came with and the `Named` it got, in one cell (an interrupt
    # cannot split them): in a loop, the same expression makes every node, so one `Named`.
    seen: tuple = (None, None)

    def let(show):
        nonlocal seen
        value = evaluate(None)
        if value.__class__ is ListValue:
            name_items(value, name)
        elif value.__class__ is not TextValue and value.tag.__class__ is not Named:
            made, label = seen  # a new node: its first name (before it is bound)
            if value.tag is not made or label is None:
                label = named(value, name)
                seen = (value.tag, label)
            value.tag = label
        state.bind(name, value)
        if show and echo:
            run.emit(binding(span, name, value))

    return let


def compile_descend(run: Running, statement: tree.Descend):
    compiler = run.compiler
    rate = compiler.number(statement.rate)
    names, spans, span = statement.names, statement.name_spans, statement.span  # (each once: the parser says so)
    targets = tuple(zip(names, spans))
    get, echo, state = run.names.get, run.echo, run.state
    warned = False  # the `no-backward` warning shows once per statement, not per iteration
    # Each name's place comes first in every iteration's `Places`, and the new variables a name
    # gets share one tag, as a loop's `let` gives the nodes its expression makes one `Named`.
    name_places = tuple((-1, 0, name) for name in names)
    name_tags = tuple(Named(name) for name in names)

    def stepped(name_span, step: float, item: object, places: Places, place: int, made: dict, olds: list) -> Any:
        """The new variable of one item, checked: nothing is bound before all are known. A
        variable held twice (in a list, or by two of the names) gets one new variable."""
        if item.__class__ is Tensor:
            return _stepped_tensor(compiler, name_span, step, item, places, place, made, olds)  # type: ignore[arg-type]
        if not isinstance(item, Scalar) or item._operation is not _VARIABLE:
            raise _not_a_variable(compiler, places.text(place), item, name_span)
        node = item
        again = made.get(node)
        if again is not None:
            return again
        gradient = cast(float, node._gradient)  # a variable is tracked
        value = node._value - step * gradient
        if value - value != 0.0:
            raise compiler.fail(
                "non-finite-leaf",
                f"variable scalar value {format_number(value)} must be finite: `{places.text(place)}` would be "
                f"{format_number(node._value)} - {format_number(step)} × {format_number(gradient)}",
                name_span,
                {"operation": "variable", "value": value, "name": places.text(place)},
            )
        tag = name_tags[place] if place < len(name_tags) else Named(places.label(place))
        # (value is a finite float: a variable of it needs no check of Scalar.variable's)
        fresh = made[node] = new_leaf(Scalar, value, _VARIABLE, 0.0, tag)
        olds.append((node, place))
        return fresh

    def descend(show: bool) -> None:
        nonlocal warned
        step = rate(None)
        new: list[tuple[str, object]] = []
        made: dict[Scalar, Scalar] = {}  # each variable stepped -> its new variable
        lists: dict[int, ListValue] = {}  # the id of each list rebuilt -> its new list
        places = Places(name_places)
        olds: list[tuple[Scalar, int]] = []  # each variable stepped, and the place it was first found
        place = 0
        for name, name_span in targets:
            value = get(name)
            if value.__class__ is ListValue:
                new.append((name, rebuilt(value, places, place, lambda node, at: stepped(
                    name_span, step, node, places, at, made, olds), lists)))
            else:
                new.append((name, stepped(name_span, step, value, places, place, made, olds)))
            place += 1
        # Every new value is known and finite: only now is any name bound again.
        unreached = None if warned else _unreached(olds, places, state.reached)
        for name, fresh in new:
            state.bind(name, fresh)
            if show and echo:
                run.emit(binding(span, name, fresh))
        if unreached is not None:
            warned = True
            run.emit(Warned(span, "no-backward", unreached))

    return descend


def _stepped_tensor(compiler: Compiling, name_span, step: float, item: Tensor, places: Places, place: int,
                    made: dict, olds: list) -> Tensor:
    """A tensor variable's new variable: each element ``value - step * gradient``."""
    if not item.is_variable:
        raise compiler.fail(
            "not-a-variable",
            f"`descend` needs tracked variables; `{places.text(place)}` is a tensor of operation {item.operation}",
            name_span, {"name": places.text(place), "operation": str(item.operation)},
            ("help: make one with `let NAME = var tensor(L)` or `var randn(S, …)`",),
        )
    again = made.get(item)
    if again is not None:
        return again
    try:
        fresh = item.descended(step)
    except ScalarAutodiffError as error:
        raise compiler.engine_error(error, name_span) from None
    fresh.tag = Named(places.label(place))
    made[item] = fresh
    olds.append((item, place))
    return fresh


def _unreached(olds: list[tuple[Scalar, int]], places: Places, reached) -> tuple[str, ...] | None:
    """The names of the variables `descend` steps when no backward pass wrote their gradients:
    every one is 0 and no committed pass reached any since it was made or zeroed; else None.
    (A pass that reached a variable and added 0 to it, `w * 0`, is not a forgotten `backward`.)"""
    if not olds:
        return None
    for node, _ in olds:  # (the gradients first: training's every step ends at its first)
        if node.__class__ is Tensor:
            if any(node._gradient):  # (a tensor variable: any element's gradient not 0)
                return None
        elif node._gradient != 0.0:
            return None
        if node in reached:
            return None
    return tuple(places.text(place) for _, place in olds)


def _not_a_variable(compiler: Compiling, name: str, node: object, span: Span) -> LanguageError:
    if isinstance(node, (ListValue, TextValue)):
        return compiler.fail(
            "not-a-variable",
            f"`descend` needs tracked variables; `{name}` is {describe(node)}",
            span,
            {"name": name, "operation": "list" if isinstance(node, ListValue) else "text"},
        )
    if not isinstance(node, Scalar):
        return compiler.name_failure(name, node, span)
    return compiler.fail(
        "not-a-variable",
        f"`descend` needs tracked variables; `{name}` is {operation_text(node)}"
        + ("" if node.tracks_gradient else " (untracked)"),
        span,
        {"name": name, "operation": str(node.operation)},
        ("help: make one with `let NAME = var VALUE`",),
    )


# ---- expressions and commands ---------------------------------------------------------------


def compile_expression_statement(run: Running, statement: tree.ExprStatement):
    expr = statement.expr
    call = run.compiler.library.statements.get(expr.function) if isinstance(expr, tree.Call) else None
    if call is not None:  # a statement-like call: checked against its entry, then compiled by it
        problem = call_problem(call, cast(tree.Call, expr), run.compiler.fail)
        if problem is not None:
            return raising(problem)
        return call.compile(run, statement, cast(tree.Call, expr))
    evaluate, span = run.compiler.expression(expr), statement.span

    def value_line(show):
        value = evaluate(None)
        if show:
            if value.__class__ is ListValue:
                check_written(run.compiler.fail, (value,), (span,), "a value line")
                run.emit(ListShown(span, value))
            elif value.__class__ is TextValue:
                run.emit(TextShown(span, str(value)))
            elif value.__class__ is Tensor:
                run.emit(TensorShown(span, tensor_state(value)))
            else:
                run.emit(ValueShown(span, node_state(value)))

    return value_line


def compile_print(run: Running, statement: tree.Print):
    """``print A, B``: the values one after another, a space between them (a text as it is,
    counts as whole numbers). Their size is known before their text is built: more than a
    list may hold is `too-long`, and so are more characters of texts than a text may have."""
    compiler = run.compiler
    evaluators = tuple(compiler.expression(item) for item in statement.items)
    spans = tuple(item.span for item in statement.items)
    span = statement.span

    def print_line(show):
        values = [evaluate(None) for evaluate in evaluators]
        check_written(compiler.fail, values, spans, "`print`")
        run.emit(Printed(span, " ".join([formatted_value(value) for value in values])))

    return print_line


def compile_zero_grad(run: Running, statement: tree.ZeroGrad):
    target = None if statement.target is None else run.compiler.expression(statement.target)
    not_a_node = None if statement.target is None else run.compiler.node_check(statement.target, "`zero_grad`")

    def zero_grad(show):
        if target is None:  # every node a name holds, in a list too
            outputs = [node for value in run.names.values() for node in distinct_nodes(value)]
        else:
            output = target(None)
            if output.__class__ is not Scalar and output.__class__ is not Tensor:
                raise not_a_node(output)
            outputs = [output]
        run.state.zero(outputs, target is None)

    return zero_grad


# ---- statements that check --------------------------------------------------------------------

# An inner error's message quoted by `expectation-failed` is cut to this many characters.
MESSAGE_LIMIT = 300


def compile_assert(run: Running, statement: tree.Assert):
    compiler = run.compiler
    left_of, right_of = compared(compiler, statement.left), compared(compiler, statement.right)
    tolerance_of = None if statement.tolerance is None else compiler.number(statement.tolerance)
    left_text, right_text = compiler.text_of(statement.left), compiler.text_of(statement.right)
    op, span, compare = statement.op, statement.span, COMPARISONS[statement.op]
    # Not two numbers: two texts compare with `==` and `!=` (without `within`); else an error.
    of_texts = texts.comparison(compiler, op, statement.left, statement.right, "a number here")
    left_error = compiler.node_check(statement.left, "a number here")
    right_error = compiler.node_check(statement.right, "a number here")

    def check(show):
        left_value, right_value = left_of(None), right_of(None)
        left, right = number_of(left_value), number_of(right_value)
        if left is None or right is None:
            if tolerance_of is not None:
                raise left_error(left_value) if left is None else right_error(right_value)
            if of_texts(left_value, right_value):
                return
            raise compiler.fail(
                "assertion-failed",
                f"assertion failed: `{left_text}` is {text_summary(left_value)}, `{right_text}` is "
                f"{text_summary(right_value)}, so `{op}` does not hold",
                span,
                fields={"op": op, "left": str(left_value), "right": str(right_value)},
            )
        fields = {"op": op, "left": left, "right": right}
        if tolerance_of is not None:
            tolerance = tolerance_of(None)
            if not (math.isfinite(tolerance) and tolerance >= 0.0):
                raise compiler.fail(
                    "assertion-failed",
                    f"tolerance {format_number(tolerance)} must be finite and not negative",
                    statement.tolerance.span,
                    fields={**fields, "tolerance": tolerance},
                )
            difference = abs(left - right)
            if difference <= tolerance:
                return
            raise compiler.fail(
                "assertion-failed",
                f"assertion failed: `{left_text}` is {format_number(left)}, `{right_text}` is "
                f"{format_number(right)}, difference {format_number(difference)} exceeds {format_number(tolerance)}",
                span,
                fields={**fields, "tolerance": tolerance},
            )
        if compare(left, right):
            return
        raise compiler.fail(
            "assertion-failed",
            f"assertion failed: `{left_text}` is {format_number(left)}, `{right_text}` is "
            f"{format_number(right)}, so `{op}` does not hold",
            span,
            fields=fields,
        )

    return check


def compile_expect(run: Running, statement: tree.Expect):
    """``expect K1: expect K2: ... STATEMENT``, without recursion over the chain: the kinds
    are checked outermost first, the innermost statement runs and is always undone, then each
    ``expect`` judges what the one inside it did."""
    source = run.compiler.source
    chain: list[tree.Expect] = []
    inner: tree.Statement = statement
    while isinstance(inner, tree.Expect):
        chain.append(inner)
        if inner.kind not in RUNTIME_KINDS:
            break
        inner = inner.statement
    unknown = None
    if chain[-1].kind not in RUNTIME_KINDS:
        last = chain.pop()
        unknown = Diagnostic(
            "expectation-failed",
            f"`{shorten(last.kind, LABEL_LIMIT)}` is not an error kind a statement can fail with",
            last.kind_span,
            source,
            {"expected": last.kind},
            kind_suggestion(last.kind),
        )

    inner_actions = [None]  # the inner statement's action, compiled when it first runs

    def expect(show):
        # A failure is kept as its diagnostic: the exception would hold this frame in its
        # traceback, a reference cycle (see `Interpreter.run_program`).
        result = unknown if unknown is not None else run.trial(inner, inner_actions)
        for link in reversed(chain):
            result = _judge(link, result, source)
        if isinstance(result, Diagnostic):
            raise LanguageError(result)
        if show:
            run.emit(result)

    return expect


def _judge(expect: tree.Expect, result, source):
    """What ``expect`` makes of its statement's outcome (``result``: None, an `Expected` or a
    `Diagnostic`)."""
    if isinstance(result, Diagnostic):
        got = result
        if got.kind == expect.kind:
            return Expected(expect.span, got.kind, got.message)
        return Diagnostic(
            "expectation-failed",
            # Cut: in a chain of expects each message would hold all the inner ones.
            f"expected {expect.kind}, but the statement failed with {got.kind}: {cut(got.message, MESSAGE_LIMIT)}",
            got.span or expect.span,
            source,
            {"expected": expect.kind, "actual": got.kind},
        )
    return Diagnostic(
        "expectation-failed",
        f"expected {expect.kind}, but the statement succeeded",
        expect.statement.span,
        source,
        {"expected": expect.kind, "actual": None},
    )
