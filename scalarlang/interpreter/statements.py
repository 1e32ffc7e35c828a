"""Simple statements compiled into actions: ``action(show)`` runs the statement once.

An action computes everything that can fail first and changes the session only after that,
so a failing statement binds no name and changes no stored gradient. ``show`` is False in
loop bodies, under ``quiet`` and with ``--quiet``: then a statement that only echoes (a
binding, a value line, a pass's tables, ``descend``) builds no outcome at all; ``print``,
``graph`` and ``gradcheck`` show either way. Bindings also build none when the front end
shows none (``run.echo`` False: scripts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..engine.numbers import format_number
from ..engine.errors import ScalarAutodiffError
from ..engine.scalar import Scalar, ScalarOperation
from ..engine.tensor import Tensor
from ..engine.tensor_node import TensorNode
from ..language import tree
from ..language.diagnostics import LanguageError
from ..language.source import Span
from .context import Function
from .expressions import MAX_CALL_DEPTH, Compiler
from .failures import raising
from .outcomes import Bound, Defined, ListShown, NodeState, Printed, TextShown, ValueShown, Warned
from .tensor_outcomes import TensorShown, TensorState
from .library.registry import call_problem
from .list_walks import Places, check_written, name_items, rebuilt
from .tensor_values import tensor_summary
from .values import (
    ListValue,
    Named,
    TextValue,
    describe,
    distinct_nodes,
    formatted_value,
    is_count,
    label_of,
    named,
    operation_text,
    shape_text,
    text_summary,
)

if TYPE_CHECKING:
    from .context import Compiling, Running


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


def reserved(compiler: Compiling, name: str, span, what: str) -> LanguageError | None:
    if not compiler.library.is_reserved(name):
        return None
    return compiler.fail(
        "reserved-name",
        f"`{name}` is a built-in function and cannot be {what}",
        span,
        {"name": name},
        ("help: pick another name",),
    )


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
        node = evaluate(None)
        if node.__class__ is ListValue:
            name_items(node, name)
            state.bind(name, node)
            if show and echo:
                run.emit(Defined(span, name, f"= {shape_text(node)}"))
            return
        if node.__class__ is TextValue:
            state.bind(name, node)
            if show and echo:
                run.emit(Defined(span, name, f"= {text_summary(node)}"))
            return
        tag = node.tag
        if tag.__class__ is not Named:  # a new node: its first name (before it is bound)
            made, label = seen
            if tag is not made or label is None:
                label = named(node, name)
                seen = (tag, label)
            node.tag = label
        state.bind(name, node)
        if show and echo:
            if node.__class__ is Tensor:  # `W = 30 × 200 tensor variable`
                run.emit(Defined(span, name, f"= {tensor_summary(node)}"))
            else:
                run.emit(Bound(span, name, node_state(node, name)))

    return let


def compile_function(run: Running, statement: tree.FunctionDef):
    compiler = run.compiler
    problem = reserved(compiler, statement.name, statement.name_span, "defined with `fn`")
    for param, param_span in zip(statement.params, statement.param_spans):  # (each once: the parser says so)
        problem = problem or reserved(compiler, param, param_span, "a parameter")
    if problem is not None:
        return raising(problem)
    name, span, params = statement.name, statement.span, statement.params

    def define(show):
        body_compiler = Compiler(
            run.names, compiler.source, params, function=name, random=compiler.random, budget=compiler.budget,
            library=compiler.library,
        )
        self_call = _calls_itself(statement)
        if self_call is not None:
            raise compiler.fail(
                "unknown-function",
                f"`{name}` cannot call itself: functions in .sad do not recurse",
                self_call,
                {"function": name},
                ("help: repeat a step with `repeat N { … }` or `for i in A..B { … }`",),
            )
        body, frames = body_compiler.depth_of(statement.body)
        depth = frames + body_compiler.call_depth
        if depth > MAX_CALL_DEPTH:
            raise compiler.fail(
                "too-deep",
                f"`{name}` nests calls {depth} levels deep; at most {MAX_CALL_DEPTH}",
                statement.name_span,
                {"depth": depth, "limit": MAX_CALL_DEPTH},
            )
        function = Function(name, params, body, body_compiler.origin(statement.body.span), depth, span)
        run.state.bind(name, function)
        if show and run.echo:
            run.emit(Defined(span, name, f"is the function {function.signature()}"))

    return define


def _calls_itself(statement: tree.FunctionDef):
    stack: list[tree.Expr] = [statement.body]
    while stack:
        node = stack.pop()
        if isinstance(node, tree.Call) and node.function == statement.name:
            return node.function_span
        stack.extend(tree.operands(node))
    return None


def compile_descend(run: Running, statement: tree.Descend):
    compiler = run.compiler
    rate = compiler.number(statement.rate)
    names, spans, span = statement.names, statement.name_spans, statement.span  # (each once: the parser says so)
    targets = tuple(zip(names, spans))
    get, echo, state = run.names.get, run.echo, run.state
    warned = False  # the `no-backward` warning shows once per statement, not per iteration

    def stepped(name_span, step: float, item: object, places: Places, place: int, made: dict, olds: list) -> Any:
        """The new variable of one item, checked: nothing is bound before all are known. A
        variable held twice (in a list, or by two of the names) gets one new variable."""
        if item.__class__ is Tensor:
            return _stepped_tensor(compiler, name_span, step, item, places, place, made, olds)  # type: ignore[arg-type]
        if not isinstance(item, Scalar) or item._operation is not ScalarOperation.VARIABLE:
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
        fresh = made[node] = _fresh(value, places.label(place))
        olds.append((node, place))
        return fresh

    def descend(show: bool) -> None:
        nonlocal warned
        step = rate(None)
        new: list[tuple[str, object]] = []
        made: dict[Scalar, Scalar] = {}  # each variable stepped -> its new variable
        lists: dict[int, ListValue] = {}  # the id of each list rebuilt -> its new list
        places = Places()
        olds: list[tuple[Scalar, int]] = []  # each variable stepped, and the place it was first found
        for name, name_span in targets:
            value = get(name)
            if value.__class__ is ListValue:
                new.append((name, rebuilt(value, places, places.name(name), lambda node, place: stepped(
                    name_span, step, node, places, place, made, olds), lists)))
            else:
                new.append((name, stepped(name_span, step, value, places, places.name(name), made, olds)))
        # Every new value is known and finite: only now is any name bound again.
        unreached = None if warned else _unreached(olds, places, state.reached)
        for name, fresh in new:
            state.bind(name, fresh)
            if show and echo:
                if fresh.__class__ is ListValue:
                    run.emit(Defined(span, name, f"= {shape_text(fresh)}"))  # type: ignore[arg-type]
                elif fresh.__class__ is Tensor:
                    run.emit(Defined(span, name, f"= {tensor_summary(fresh)}"))  # type: ignore[arg-type]
                else:
                    run.emit(Bound(span, name, node_state(fresh, name)))  # type: ignore[arg-type]
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
    for node, _ in olds:
        if node in reached:
            return None
        if node.__class__ is Tensor:
            if any(node._gradient):  # (a tensor variable: any element's gradient not 0)
                return None
        elif node._gradient != 0.0:
            return None
    return tuple(places.text(place) for _, place in olds)


def _fresh(value: float, label: str) -> Scalar:
    """`descend`'s new variable, labelled by the name (or the list path) it is bound to."""
    fresh = Scalar.variable(value)
    fresh.tag = Named(label)
    return fresh


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


