"""Simple statements compiled into actions: ``action(show)`` runs the statement once.

An action computes everything that can fail first and changes the session only after that,
so a failing statement binds no name and changes no stored gradient. ``show`` is False in
loop bodies, under ``quiet`` and with ``--quiet``: then a statement that only echoes (a
binding, a value line, a pass's tables, ``descend``) builds no outcome at all; ``print``,
``graph`` and ``gradcheck`` show either way. Bindings also build none when the front end
shows none (``run.echo`` False: scripts).
"""

from __future__ import annotations

from ..language import tree
from .builtins import RESERVED_NAMES, STATEMENT_FUNCTIONS
from ..language.diagnostics import Diagnostic, LanguageError
from ..engine.scalar import Scalar, ScalarOperation
from ..engine.errors import ScalarAutodiffError
from .builtins import arity_text
from .expressions import MAX_CALL_DEPTH, Compiler, Function
from .labels import operation_text, source_label
from ..engine.numbers import format_number, format_parameter
from .outcomes import (
    BackwardShown,
    Bound,
    Defined,
    Drawn,
    NodeState,
    Printed,
    ValueShown,
)

def node_state(labels, node: Scalar, label: str | None = None) -> NodeState:
    return NodeState(
        labels.label_of(node) if label is None else label,
        operation_text(node),
        node.value,
        node.tracks_gradient,
        node.gradient,
        labels.is_count(node),
    )


def reserved(compiler: Compiler, name: str, span, what: str) -> LanguageError | None:
    if name not in RESERVED_NAMES:
        return None
    return compiler.fail(
        "reserved-name",
        f"`{name}` is a built-in function and cannot be {what}",
        span,
        {"name": name},
        ("help: pick another name",),
    )


def _raising(error: LanguageError):
    diagnostic = error.diagnostic

    def action(show):
        raise LanguageError(diagnostic)

    return action


# ---- bindings -----------------------------------------------------------------------------


def compile_let(run, statement: tree.Let):
    problem = reserved(run.compiler, statement.name, statement.name_span, "bound with `let`")
    if problem is not None:
        return _raising(problem)
    name, span, bind, labels, echo = statement.name, statement.span, run.bind, run.labels, run.echo
    if isinstance(statement.value, tree.Table):
        table = statement.value
        description = f"= a table of {len(table.rows)} row{'' if len(table.rows) == 1 else 's'} of {table.width}"

        def let_table(show):
            bind(name, table)
            if show and echo:
                run.emit(Defined(span, name, description))

        return let_table
    evaluate = run.compiler.expression(statement.value)
    label, names = labels.name, run.names

    def let(show):
        node = evaluate(None)
        if run.journal is None:
            names[name] = node
        else:
            bind(name, node)
        label(node, name)
        if show and echo:
            run.emit(Bound(span, name, node_state(labels, node, name)))

    return let


def run_let_once(run, statement: tree.Let, show: bool) -> None:
    """The action `compile_let` makes, run once without making it (a statement outside any
    loop: the closure and its cells would be made for one call). The same steps, in order."""
    name, value = statement.name, statement.value
    if name in RESERVED_NAMES or isinstance(value, tree.Table):
        compile_let(run, statement)(show)
        return
    node = run.once.evaluate(value, None)
    if run.journal is None:
        run.names[name] = node
    else:
        run.bind(name, node)
    labels = run.labels
    labels.name(node, name)
    if show and run.echo:
        run.emit(Bound(statement.span, name, node_state(labels, node, name)))


def compile_function(run, statement: tree.FunctionDef):
    compiler = run.compiler
    problem = reserved(compiler, statement.name, statement.name_span, "defined with `fn`")
    for param, param_span in zip(statement.params, statement.param_spans):
        problem = problem or reserved(compiler, param, param_span, "a parameter")
    seen: set[str] = set()
    for param, param_span in zip(statement.params, statement.param_spans):
        if param in seen and problem is None:
            problem = compiler.fail(
                "wrong-arguments", f"`{param}` is a parameter of `{statement.name}` twice", param_span, {"name": param}
            )
        seen.add(param)
    if problem is not None:
        return _raising(problem)
    name, span, params = statement.name, statement.span, statement.params

    def define(show):
        body_compiler = Compiler(run.names, run.labels, compiler.source, params)
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
        run.bind(name, function)
        if show and run.echo:
            run.emit(Defined(span, name, f"is the function {function.signature()}"))

    return define


def _calls_itself(statement: tree.FunctionDef):
    stack = [statement.body]
    while stack:
        node = stack.pop()
        if isinstance(node, tree.Call):
            if node.function == statement.name:
                return node.function_span
            stack.extend(arg for arg in node.args if not isinstance(arg, tree.StringLiteral))
            stack.extend(keyword.value for keyword in node.keywords)
        elif isinstance(node, tree.Binary):
            stack.extend((node.left, node.right))
        elif isinstance(node, (tree.Unary, tree.Leaf)):
            stack.append(node.operand)
    return None


def compile_descend(run, statement: tree.Descend):
    compiler, labels = run.compiler, run.labels
    rate = compiler.number(statement.rate)
    names, spans, span = statement.names, statement.name_spans, statement.span
    for index, name in enumerate(names):
        if name in names[:index]:
            return _raising(compiler.fail(
                "wrong-arguments", f"`{name}` is named twice in `descend`", spans[index], {"name": name}
            ))
    targets = tuple(zip(names, spans))
    named = tuple((name, None, False) for name in names)
    entries, get, bound, echo = labels.entries, run.names.get, run.names, run.echo

    def descend(show):
        step = rate(None)
        values = []
        for name, name_span in targets:
            node = get(name)
            if node.__class__ is not Scalar or node._operation is not ScalarOperation.VARIABLE:
                raise _not_a_variable(compiler, name, node, name_span)
            value = node._value - step * node._gradient
            if value - value != 0.0:
                raise compiler.fail(
                    "non-finite-leaf",
                    f"variable scalar value {format_number(value)} must be finite: `{name}` would be "
                    f"{format_number(node._value)} - {format_number(step)} × {format_number(node._gradient)}",
                    name_span,
                    {"operation": "variable", "value": value, "name": name},
                )
            values.append(value)
        # Every new value is known and finite: only now is any name bound again.
        journal = run.journal
        for (name, _), value, entry in zip(targets, values, named):
            fresh = Scalar.variable(value)
            entries[fresh] = entry  # a fresh node: its label is the name
            if journal is None:
                bound[name] = fresh
            else:
                run.bind(name, fresh)
            if show and echo:
                run.emit(Bound(span, name, node_state(labels, fresh, name)))

    return descend


def _not_a_variable(compiler, name, node, span):
    if node is None or node.__class__ is not Scalar:
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


def compile_expression_statement(run, statement: tree.ExprStatement):
    expr = statement.expr
    if isinstance(expr, tree.Call) and expr.keywords and expr.function in STATEMENT_FUNCTIONS:
        if expr.function != "gradcheck":
            return _raising(run.compiler.named_argument_problem(expr))
    if isinstance(expr, tree.Call) and expr.function == "draw":
        return _compile_draw(run, statement, expr)
    if isinstance(expr, tree.Call) and expr.function in STATEMENT_FUNCTIONS:
        accepted = STATEMENT_FUNCTIONS[expr.function]
        # `gradcheck(OUT, X, ...)` checks any number of variables: 2 arguments or more.
        count_ok = len(expr.args) >= 2 if expr.function == "gradcheck" else len(expr.args) in accepted
        if not count_ok or any(isinstance(arg, tree.StringLiteral) for arg in expr.args):
            return _raising(run.compiler.fail(
                "wrong-arguments",
                f"`{expr.function}` takes "
                + ("2 or more arguments" if expr.function == "gradcheck" else arity_text(accepted))
                + f", got {len(expr.args)}",
                expr.span,
                {"function": expr.function, "expected": list(accepted), "got": len(expr.args)},
            ))
        if expr.function == "backward":
            return _compile_backward(run, statement, expr)
        if expr.function == "graph":
            target = run.compiler.expression(expr.args[0])
            return lambda show: run.emit(run.session.graph_of(target(None), statement.span))
        from .checks import compile_gradcheck  # here: checks imports this module

        return compile_gradcheck(run, statement, expr)
    evaluate, labels, span = run.compiler.expression(expr), run.labels, statement.span

    def value_line(show):
        node = evaluate(None)
        if show:
            run.emit(ValueShown(span, node_state(labels, node)))

    return value_line


def _compile_backward(run, statement: tree.ExprStatement, call: tree.Call):
    compiler, labels = run.compiler, run.labels
    output_of = compiler.expression(call.args[0])
    if len(call.args) == 2:
        seed_of, seed_span = compiler.number(call.args[1]), call.args[1].span
    else:
        seed_of, seed_span = (lambda args: 1.0), call.span
    output_span, span = call.args[0].span, statement.span

    def backward(show):
        output = output_of(None)
        seed = seed_of(None)
        journal = run.journal
        observer = run.session.pass_observer
        try:
            if journal is None and not show and observer is None:
                output.backward_with_seed(seed)  # checks everything, then commits: atomic
                return
            backward_pass = output.reverse_pass(seed)
        except ScalarAutodiffError as error:
            raise pass_failure(compiler, labels, error, output, seed_span, output_span) from None
        if observer is not None and not run.muted:
            # --draw: the pass's picture is written before anything is committed, so a
            # picture that cannot be written leaves the stored gradients as they were.
            from ..pictures.errors import DrawingError

            topology = backward_pass.topology
            try:
                observer(backward_pass, labels.label_of(output), lambda index: labels.label_of(topology[index]))
            except DrawingError as error:
                raise compiler.fail(error.kind, error.message, span, error.fields) from None
        if journal is not None:
            journal.remember_gradients(backward_pass.topology)
        backward_pass._commit()
        if show:
            topology = backward_pass.topology
            run.emit(BackwardShown(
                span,
                labels.label_of(output),
                backward_pass,
                lambda index: labels.label_of(topology[index]),
                lambda index: operation_text(topology[index]),
                lambda index: labels.formatted(topology[index]),
            ))

    return backward


def _compile_draw(run, statement: tree.ExprStatement, call: tree.Call):
    """``draw(EXPR)``, ``draw(EXPR, "FILE")``: the picture of EXPR's graph as it is now.

    It shows in loop bodies and under ``quiet`` too: a picture is asked for, never an echo."""
    from ..pictures import DrawingError, graph_picture, picture_format, render, write_picture  # on first use

    compiler, labels, args = run.compiler, run.labels, call.args
    if (
        len(args) not in (1, 2)
        or isinstance(args[0], tree.StringLiteral)
        or (len(args) == 2 and not isinstance(args[1], tree.StringLiteral))
    ):
        return _raising(compiler.fail(
            "wrong-arguments",
            '`draw` takes an expression and, optionally, a file name in quotes: draw(loss) or '
            'draw(loss, "loss.svg")',
            call.span,
            {"function": "draw", "expected": [1, 2], "got": len(args)},
        ))
    target = compiler.expression(args[0])
    path_of = compiler.text(args[1]) if len(args) == 2 else None
    target_span, file_span, span = args[0].span, args[-1].span, statement.span

    def draw(show):
        node = target(None)
        path = path_of(None) if path_of is not None else None
        try:
            output_format = picture_format(path) if path is not None else None
            picture = graph_picture(node, labels.label_of)
        except DrawingError as error:
            where = target_span if error.kind == "graph-too-large" else file_span
            raise compiler.fail(error.kind, error.message, where, error.fields) from None
        if path is not None:
            try:
                if run.muted:  # `expect` tries the statement: it makes the picture, writes nothing
                    render(picture, output_format)
                else:
                    write_picture(picture, path)
            except DrawingError as error:
                raise compiler.fail(error.kind, error.message, file_span, error.fields) from None
        run.emit(Drawn(span, labels.label_of(node), picture, path, output_format))

    return draw


def pass_failure(compiler, labels, error, output, seed_span, output_span) -> LanguageError:
    if error.kind == "non-finite-seed":
        return compiler.engine_error(error, seed_span)
    failure = compiler.engine_error(error, output_span)
    notes = _node_notes(compiler, labels, error, output)
    if notes:
        diagnostic = failure.diagnostic
        return LanguageError(Diagnostic(
            diagnostic.kind, diagnostic.message, diagnostic.span, diagnostic.source, diagnostic.fields, notes
        ))
    if error.kind == "untracked-output":
        diagnostic = failure.diagnostic
        return LanguageError(Diagnostic(
            diagnostic.kind, diagnostic.message, diagnostic.span, diagnostic.source, diagnostic.fields,
            (_untracked_hint(labels, output),),
        ))
    return failure


# Fields of pass errors that are topology indices, in the order their notes are shown.
_INDEX_FIELDS = ("child", "parent", "node")


def _node_notes(compiler, labels, error, output: Scalar) -> tuple[str, ...]:
    """``node 5 is s, made at 4:9 by x * h``: the nodes a pass error names by topology index."""
    indices = []
    for field in _INDEX_FIELDS:
        index = error.fields.get(field)
        if isinstance(index, int) and index not in indices:
            indices.append(index)
    if not indices:
        return ()
    topology = output.topology()
    notes = []
    for index in indices:
        if not 0 <= index < len(topology):
            continue
        node = topology[index]
        note = f"node {index} is `{labels.label_of(node)}`"
        made = labels.made_at(node)
        if made is not None:
            source, span = made
            where = f"{span.line}:{span.column}" if source is compiler.source else f"{source.name}:{span.line}:{span.column}"
            note += f", made at {where} by `{source_label(source.text, span)}`"
        notes.append(note)
    return tuple(notes)


def _untracked_hint(labels, output: Scalar) -> str:
    """How to make the output trackable: name a constant leaf it was made from."""
    for node in output.topology():
        if node.operation is ScalarOperation.CONSTANT:
            entry = labels.entry(node)
            if entry is not None and entry[0].__class__ is str:
                return (
                    f"help: `{labels.label_of(output)}` depends on no variable: `{entry[0]}` is a constant; "
                    f"make it a variable with `let {entry[0]} = var {format_parameter(node.value)}`"
                )
    return (
        f"help: `{labels.label_of(output)}` depends on no variable; "
        "make one with `var`, e.g. `let x = var 2`"
    )


def compile_print(run, statement: tree.Print):
    pieces = tuple(run.compiler.text(item) for item in statement.items)
    span = statement.span

    def print_line(show):
        run.emit(Printed(span, " ".join([piece(None) for piece in pieces])))

    return print_line


def compile_zero_grad(run, statement: tree.ZeroGrad):
    target = None if statement.target is None else run.compiler.expression(statement.target)

    def zero_grad(show):
        if target is None:
            outputs = [value for value in run.names.values() if value.__class__ is Scalar]
        else:
            outputs = [target(None)]
        journal = run.journal
        if journal is not None:
            for output in outputs:
                journal.remember_gradients(output.topology())
        for output in outputs:
            output.zero_grad()

    return zero_grad


