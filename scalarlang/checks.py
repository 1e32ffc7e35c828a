"""Statements that check: ``assert``, ``expect`` and ``gradcheck``."""

from __future__ import annotations

import math

from . import ast
from .diagnostics import Diagnostic, LanguageError
from .engine import ScalarOperation
from .errors import ScalarAutodiffError
from .gradcheck import GRADCHECK_STEP, GRADCHECK_TOLERANCE, scalar_gradient_check
from .kinds import RUNTIME_KINDS
from .labels import LABEL_LIMIT, cut, shorten, suggestion
from .numbers import format_exponent, format_number
from .outcomes import Expected, GradcheckShown
from .replay import Replay
from .statements import pass_failure

# An inner error's message quoted by `expectation-failed` is cut to this many characters.
MESSAGE_LIMIT = 300

COMPARISONS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def compile_gradcheck(run, statement: ast.ExprStatement, call: ast.Call):
    compiler, labels = run.compiler, run.labels
    output_of, variable_of = compiler.expression(call.args[0]), compiler.expression(call.args[1])
    numbers = (compiler.number(call.args[2]), compiler.number(call.args[3])) if len(call.args) == 4 else None
    span = statement.span

    def gradcheck(show):
        output = output_of(None)
        variable = variable_of(None)
        step, tolerance = GRADCHECK_STEP, GRADCHECK_TOLERANCE
        if numbers is not None:
            step, tolerance = numbers[0](None), numbers[1](None)
        try:
            backward_pass = output.reverse_pass()
        except ScalarAutodiffError as error:
            raise pass_failure(compiler, labels, error, output, call.span, call.args[0].span) from None
        topology = backward_pass.topology
        position = next((i for i, node in enumerate(topology) if node is variable), None)
        if variable.operation is not ScalarOperation.VARIABLE or position is None:
            where = "is not a variable" if variable.operation is not ScalarOperation.VARIABLE else (
                f"is not in the graph of `{labels.label_of(output)}`"
            )
            raise compiler.fail(
                "not-a-variable",
                f"gradcheck needs a tracked variable of the output's graph; `{labels.label_of(variable)}` {where}",
                call.args[1].span,
            )
        analytic = backward_pass.nodes[position].pass_adjoint
        try:
            check = scalar_gradient_check(variable.value, analytic, step, tolerance, Replay(topology, position))
        except ScalarAutodiffError as error:
            where = call.args[2].span if error.kind == "invalid-gradcheck-step" else (
                call.args[3].span if error.kind == "invalid-gradcheck-tolerance" else call.span
            )
            raise compiler.engine_error(error, where) from None
        if not check.passed:
            raise compiler.fail(
                "gradcheck-failed",
                f"gradient check of `{labels.label_of(output)}` by `{labels.label_of(variable)}` failed: "
                f"analytic {format_number(check.analytic)}, numerical {format_number(check.numerical)}, "
                f"scaled error {format_exponent(check.scaled_error)} > tolerance {format_exponent(check.tolerance)}",
                call.span,
                fields={
                    "analytic": check.analytic,
                    "numerical": check.numerical,
                    "scaled_error": check.scaled_error,
                    "tolerance": check.tolerance,
                },
            )
        run.emit(GradcheckShown(span, labels.label_of(output), labels.label_of(variable), check))

    return gradcheck


# ---- assertions and expectations ------------------------------------------------------------


def compile_assert(run, statement: ast.Assert):
    compiler = run.compiler
    left_of, right_of = compiler.number(statement.left), compiler.number(statement.right)
    tolerance_of = None if statement.tolerance is None else compiler.number(statement.tolerance)
    left_text, right_text = compiler.text_of(statement.left), compiler.text_of(statement.right)
    op, span, compare = statement.op, statement.span, COMPARISONS[statement.op]

    def check(show):
        left, right = left_of(None), right_of(None)
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


def compile_expect(run, statement: ast.Expect):
    """``expect K1: expect K2: ... STATEMENT``, without recursion over the chain: the kinds
    are checked outermost first, the innermost statement runs and is always undone, then each
    ``expect`` judges what the one inside it did."""
    source = run.compiler.source
    chain: list[ast.Expect] = []
    inner: ast.Statement = statement
    while isinstance(inner, ast.Expect):
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
            suggestion(last.kind, sorted(RUNTIME_KINDS)),
        )

    def expect(show):
        # A failure is kept as its diagnostic: the exception would hold this frame in its
        # traceback, a reference cycle (see `Session.run_program`).
        result = unknown if unknown is not None else run.trial(inner)
        for link in reversed(chain):
            result = _judge(link, result, source)
        if isinstance(result, Diagnostic):
            raise LanguageError(result)
        if show:
            run.emit(result)

    return expect


def _judge(expect: ast.Expect, result, source):
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
