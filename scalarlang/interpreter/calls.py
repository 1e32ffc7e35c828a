"""Calls compiled for the `Compiler`: a built-in's node (its registry entry compiles it), a
function defined with ``fn`` (`Function`) and its invocation, and what is wrong with a call (a
statement used as a value, a wrong argument count, an unknown function, with the hints that
help: the built-ins, the functions defined so far, Python's `range(n)`); and the definition of
such a function, the statement ``fn`` (its body compiled once, no recursion, its depth of
calls bounded), with the names it may not take: a built-in's."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ..engine.scalar import Scalar
from ..engine.tensor import Tensor
from ..language import tree
from ..language.diagnostics import LanguageError
from ..language.source import Span
from .context import MAX_CALLS, Function
from .failures import raising, with_note
from .outcomes import Defined
from .library.registry import arity, call_problem as builtin_problem, options_problem
from .values import LABEL_LIMIT, ListValue, TextValue, shorten, suggestion

BUILTINS_NOTE = "note: the REPL's `:help` lists every built-in function by task (docs/language.md too)"

if TYPE_CHECKING:
    from .context import Compiling, Running

# How deep calls of functions may nest, in Python frames (a function calling one that calls
# another ...): a definition that would go deeper is `too-deep`.
MAX_CALL_DEPTH = 400


def invocation(compiler: Compiling, call: tree.Call, fixed: Function | None):
    """``(combine, operands, fuse)`` of a call of a function defined with ``fn``: ``fixed``
    when the compiler resolved it (in a function body), else looked up when the call runs."""
    call_origin, get = compiler.origin(call.span), compiler.names.get
    note = f"in the call `{compiler.text_of(call)}` at {call.span.line}:{call.span.column}"
    name, count, budget = call.function, len(call.args), compiler.budget

    def call_with(operands: tuple):
        function = fixed if fixed is not None else get(name)
        if function.__class__ is not Function or function.arity != count:
            raise compiler.resolve_failure(call, function)
        budget.calls -= 1
        if budget.calls < 0:
            raise _too_many_calls(compiler, call)
        try:
            result = function.body(operands)
        except LanguageError as error:
            raise with_note(error, note) from None
        if result.__class__ is Scalar and result.tag is function.origin:  # made by the body itself
            result.tag = call_origin  # named by the call
        return result

    def combine(args, *operands):
        return call_with(operands)

    def fuse(*operand_closures):
        if len(operand_closures) == 1:
            (first,) = operand_closures
            return lambda args: call_with((first(args),))
        if len(operand_closures) == 2:
            first, second = operand_closures
            return lambda args: call_with((first(args), second(args)))
        if len(operand_closures) == 3:
            first, second, third = operand_closures
            return lambda args: call_with((first(args), second(args), third(args)))
        if len(operand_closures) == 4:
            first, second, third, fourth = operand_closures
            return lambda args: call_with((first(args), second(args), third(args), fourth(args)))
        if len(operand_closures) == 5:
            first, second, third, fourth, fifth = operand_closures
            return lambda args: call_with((first(args), second(args), third(args), fourth(args), fifth(args)))
        return lambda args: call_with(tuple([operand(args) for operand in operand_closures]))

    return combine, call.args, fuse


def _too_many_calls(compiler: Compiling, call: tree.Call) -> LanguageError:
    """`too-long` at the call past the statement's budget of calls (as a loop's iterations)."""
    return compiler.fail(
        "too-long",
        f"this statement has called functions defined with `fn` {MAX_CALLS:,} times, the most one statement may",
        call.span,
        {"calls": MAX_CALLS, "limit": MAX_CALLS},
        ("help: a function that calls another twice, which calls another twice, ... makes calls that double at"
         " each level: thirty levels make 2^30",),
    )


def compile_call(compiler: Compiling, call: tree.Call):
    name = call.function
    problem = call_problem(compiler, call)
    if problem is not None:
        if compiler.early:
            raise problem
        return _raiser(problem), (), None
    builtin = compiler.library.values.get(name)
    if builtin is not None:
        built = builtin.compiled(compiler, call)
        return built[0], built[1], built[2] if len(built) == 3 else None
    if compiler.early:
        function = compiler.names[name]
        compiler.call_depth = max(compiler.call_depth, function.depth)
        return invocation(compiler, call, function)
    return invocation(compiler, call, None)

def call_problem(compiler: Compiling, call: tree.Call) -> LanguageError | None:
    """What is wrong with a call the compiler can see, if anything."""
    name = call.function
    if name in compiler.library.statements:
        return compiler.fail(
            "unknown-function",
            f"`{name}` is a statement and gives no value; use it on a line of its own",
            call.function_span,
            {"function": name},
        )
    builtin = compiler.library.values.get(name)
    if builtin is not None:
        return builtin_problem(builtin, call, compiler.fail)
    if call.keywords:
        return options_problem(None, call, compiler.fail)
    if not compiler.early:
        return None  # a function of the session: looked up when the call runs
    value = compiler.names.get(name)
    if isinstance(value, Function):
        return arity_problem(compiler, call, len(value.params))
    return unknown_function(compiler, name, value, call.function_span, _python_hint(compiler, call) if value is None else ())

def unknown_function(compiler: Compiling, name: str, value: object, span: Span, first: tuple[str, ...] = ()) -> LanguageError:
    if value.__class__ is Scalar or value.__class__ is ListValue or value.__class__ is TextValue or value.__class__ is Tensor:
        what = {Scalar: "a value", ListValue: "a list", TextValue: "a text", Tensor: "a tensor"}[value.__class__]
        return compiler.fail("unknown-function", f"`{name}` is {what}, not a function", span, {"function": name})
    functions = [key for key, item in compiler.names.items() if isinstance(item, Function)]
    notes = list(first) or list(suggestion(name, list(compiler.library.values) + functions))
    # (The built-ins are too many to list in every error: the help lists them by task.)
    notes.append(BUILTINS_NOTE)
    if functions:
        notes.append("note: the functions defined so far are " + ", ".join(functions[-20:]))
    if compiler.early:
        notes.append("note: a function can call built-ins and the functions defined before it, never itself")
    return compiler.fail(
        "unknown-function", f"there is no function `{shorten(name, LABEL_LIMIT)}`", span, {"function": name}, notes
    )

def resolve_failure(compiler: Compiling, call: tree.Call, function: object) -> LanguageError:
    """Why the function a call names when it runs cannot be called."""
    if not isinstance(function, Function):
        # Python's `range(n)`, `ord(c)`, `str(x)`: the `.sad` form, before the list of built-ins.
        first = _python_hint(compiler, call) if function is None else ()
        return unknown_function(compiler, call.function, function, call.function_span, first)
    return cast(LanguageError, arity_problem(compiler, call, len(function.params)))  # (a count that differs)


def _python_hint(compiler: Compiling, call: tree.Call) -> tuple[str, ...]:
    """The `.sad` form of a Python function's call (`ord(c)`, `str(x)`, `range(n)`)."""
    from ..language.hints import call_hint  # (on first use: only a failure asks)

    argument = compiler.text_of(call.args[0]) if call.args else None
    return call_hint(call, argument if argument is not None and len(argument) <= 30 else None)


def _raiser(error: LanguageError):
    diagnostic = error.diagnostic

    def fail(args):
        raise LanguageError(diagnostic)

    return fail


def arity_problem(compiler: Compiling, call: tree.Call, count: int) -> LanguageError | None:
    """A call of a function defined with `fn` with another number of arguments than it has
    parameters."""
    if len(call.args) == count:
        return None
    expected = arity(count)
    return compiler.fail(
        "wrong-arguments",
        f"`{call.function}` takes {expected.text()}, got {len(call.args)}",
        call.span,
        {"function": call.function, "expected": expected.expected(), "got": len(call.args)},
    )


# ---- `fn`: defining a function -------------------------------------------------------------


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



def compile_function(run: Running, statement: tree.FunctionDef):
    compiler = run.compiler
    problem = reserved(compiler, statement.name, statement.name_span, "defined with `fn`")
    for param, param_span in zip(statement.params, statement.param_spans):  # (each once: the parser says so)
        problem = problem or reserved(compiler, param, param_span, "a parameter")
    if problem is not None:
        return raising(problem)
    name, span, params = statement.name, statement.span, statement.params

    def define(show):
        body_compiler = compiler.body_compiler(run.names, params, name)
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
