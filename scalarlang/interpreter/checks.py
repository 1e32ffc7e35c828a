"""Statements that check: ``assert``, ``expect`` and ``gradcheck``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

from ..engine.errors import ScalarAutodiffError
from ..engine.gradcheck import GRADCHECK_STEP, GRADCHECK_TOLERANCE, scalar_gradient_check
from ..engine.numbers import format_exponent, format_number
from ..engine.replay import Replay
from ..engine.scalar import ScalarOperation
from ..language import tree
from ..language.diagnostics import Diagnostic, LanguageError
from . import texts
from .failures import RUNTIME_KINDS
from .graphs import pass_failure
from .operations import COMPARISONS, compared, literal_value, number_of
from .outcomes import Expected, GradcheckShown
from .values import LABEL_LIMIT, cut, label_of, shorten, suggestion, text_summary

if TYPE_CHECKING:
    from .control import Run
    from .expressions import Compiler

# An inner error's message quoted by `expectation-failed` is cut to this many characters.
MESSAGE_LIMIT = 300


def compile_gradcheck(run: Run, statement: tree.ExprStatement, call: tree.Call):
    """``gradcheck(OUT, X, ...)``: each variable checked against one reverse pass of OUT, all
    before any line is shown, so a failing check shows nothing (and changes nothing)."""
    compiler = run.compiler
    # `step:`, `tolerance:` (the registry has checked the names and that each is given once)
    named = cast(dict[str, tree.Expr], {keyword.name: keyword.value for keyword in call.keywords})
    output_of = compiler.node_expression(compiler.values(call)[0], "`gradcheck`")
    rest = list(compiler.values(call)[1:])
    variables_of = [compiler.node_expression(arg, "`gradcheck`") for arg in rest]
    # `gradcheck(OUT, X, STEP, TOLERANCE)` unless all three are tracked variables (known when
    # it runs); a number literal among the last two settles it now.
    maybe_numbers = len(rest) == 3 and not named
    if maybe_numbers and any(literal_value(arg) is not None for arg in rest[1:]):
        variables_of = variables_of[:1]
    elif len(rest) > 1:  # (`gradcheck(OUT, 3)` stays `not-a-variable`, as it always was)
        _no_numbers_among_variables(compiler, rest)
    numbers_of = [compiler.number(arg) for arg in rest[1:]] if maybe_numbers else []
    named_of = {name: (compiler.number(value), value.span) for name, value in named.items()}
    span = statement.span

    def gradcheck(show):
        output = output_of(None)
        variables = [variable_of(None) for variable_of in variables_of]
        given = {name: (number_of(None), where) for name, (number_of, where) in named_of.items()}
        if maybe_numbers and not all(_is_variable(v) for v in variables[1:]):
            variables = variables[:1]
        if maybe_numbers and len(variables) == 1:
            given = {"step": (numbers_of[0](None), rest[1].span), "tolerance": (numbers_of[1](None), rest[2].span)}
        step, step_span = given.get("step", (GRADCHECK_STEP, call.span))
        tolerance, tolerance_span = given.get("tolerance", (GRADCHECK_TOLERANCE, call.span))
        try:
            backward_pass = output.reverse_pass()
        except ScalarAutodiffError as error:
            raise pass_failure(compiler, error, output, call.span, call.args[0].span) from None
        shown = []
        for variable, arg in zip(variables, rest):
            position = _position(compiler, output, variable, backward_pass.topology, arg)
            analytic = backward_pass.nodes[position].pass_adjoint
            try:
                check = scalar_gradient_check(
                    variable.value, analytic, step, tolerance, Replay(backward_pass.topology, position)
                )
            except ScalarAutodiffError as error:
                where = step_span if error.kind == "invalid-gradcheck-step" else (
                    tolerance_span if error.kind == "invalid-gradcheck-tolerance" else call.span
                )
                raise compiler.engine_error(error, where) from None
            if not check.passed:
                # Among several variables the caret shows which one failed.
                where = call.span if len(variables) == 1 else arg.span
                raise _check_failed(compiler, output, variable, check, where)
            shown.append(GradcheckShown(span, label_of(output), label_of(variable), check))
        for outcome in shown:
            run.emit(outcome)

    return gradcheck


def _no_numbers_among_variables(compiler: Compiler, variables: list[tree.Expr]) -> None:
    """A number literal where a variable belongs (`gradcheck(loss, x, 1e-4)`) is most likely
    a step or tolerance: say how to give them."""
    for arg in variables:
        if literal_value(arg) is not None:
            raise compiler.fail(
                "wrong-arguments",
                f"`gradcheck` checks variables; `{compiler.text_of(arg)}` is a number"
                " (positionally a step and a tolerance come together: `gradcheck(OUT, X, STEP, TOLERANCE)`)",
                arg.span,
                {"function": "gradcheck"},
                ("help: give them by name: `gradcheck(OUT, X, step: 1e-4, tolerance: 1e-6)`",),
            )


def _is_variable(node) -> bool:
    return node.operation is ScalarOperation.VARIABLE


def _position(compiler: Compiler, output, variable, topology, arg) -> int:
    """Where `variable` is in the output's topology; not a variable of that graph is an error."""
    position = next((i for i, node in enumerate(topology) if node is variable), None)
    if _is_variable(variable) and position is not None:
        return position
    where = "is not a variable" if not _is_variable(variable) else (
        f"is not in the graph of `{label_of(output)}`"
    )
    raise compiler.fail(
        "not-a-variable",
        f"gradcheck needs a tracked variable of the output's graph; `{label_of(variable)}` {where}",
        arg.span,
    )


def _check_failed(compiler: Compiler, output, variable, check, span) -> LanguageError:
    return compiler.fail(
        "gradcheck-failed",
        f"gradient check of `{label_of(output)}` by `{label_of(variable)}` failed: "
        f"analytic {format_number(check.analytic)}, numerical {format_number(check.numerical)}, "
        f"scaled error {format_exponent(check.scaled_error)} > tolerance {format_exponent(check.tolerance)}",
        span,
        fields={
            "analytic": check.analytic,
            "numerical": check.numerical,
            "scaled_error": check.scaled_error,
            "tolerance": check.tolerance,
        },
    )


# ---- assertions and expectations ------------------------------------------------------------


def compile_assert(run: Run, statement: tree.Assert):
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


# What people call the kinds, from Python's exceptions and other languages' words.
KIND_SYNONYMS = {
    "division-by-zero": "non-finite-result", "zero-division": "non-finite-result",
    "zero-division-error": "non-finite-result", "divide-by-zero": "non-finite-result",
    "overflow": "non-finite-result", "overflow-error": "non-finite-result", "nan": "non-finite-result",
    "value-error": "non-finite-result", "math-domain-error": "non-finite-result",
    "name-error": "undefined-name", "undefined": "undefined-name", "not-defined": "undefined-name",
    "type-error": "wrong-arguments", "arity": "wrong-arguments",
    "index-error": "index-out-of-range", "out-of-range": "index-out-of-range",
    "assertion-error": "assertion-failed", "assertion": "assertion-failed",
    "key-error": "undefined-name", "file-not-found": "io-error", "file-not-found-error": "io-error",
    "timeout": "too-long",
}


def kind_suggestion(kind: str) -> tuple[str, ...]:
    """The `help:` note for a kind that is not one: the kind people mean by a common synonym
    (`division-by-zero` is `non-finite-result`), else the closest kind by spelling."""
    meant = KIND_SYNONYMS.get(kind)
    if meant is not None:
        return (f"help: did you mean `{meant}`? (`{kind}` is not a kind of `.sad`)",)
    return suggestion(kind, sorted(RUNTIME_KINDS))


def compile_expect(run: Run, statement: tree.Expect):
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
