"""The statement `gradcheck`: each variable's pass adjoint against a central difference."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from ...engine.errors import ScalarAutodiffError
from ...engine.gradcheck import GRADCHECK_STEP, GRADCHECK_TOLERANCE, scalar_gradient_check
from ...engine.numbers import format_exponent, format_number
from ...engine.passes import topology
from ...engine.scalar import Scalar, ScalarOperation
from ...engine.tensor import Tensor
from ...language import tree
from ...language.diagnostics import LanguageError
from ..operations import literal_value
from ..outcomes import GradcheckShown
from ..values import label_of
from .graphs import pass_failure

if TYPE_CHECKING:
    from ..context import Compiling, Running



def compile_gradcheck(run: Running, statement: tree.ExprStatement, call: tree.Call):
    """``gradcheck(OUT, X, ...)``: each variable checked against one reverse pass of OUT, all
    before any line is shown, so a failing check shows nothing (and changes nothing)."""
    compiler = run.compiler
    # `step:`, `tolerance:` (the registry has checked the names and that each is given once)
    named = cast(dict[str, tree.Expr], {keyword.name: keyword.value for keyword in call.keywords})
    output_of = compiler.node_expression(compiler.values(call)[0], "`gradcheck`")
    rest = list(compiler.values(call)[1:])
    variables_of = [_variable_expression(compiler, arg) for arg in rest]
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
        from ...engine.replay import Replay  # (on first use: start-up imports no gradient check)
        from ...engine.tensor_gradcheck import graph_scalar_check

        shown = []
        for variable, arg in zip(variables, rest):
            if variable.__class__ is Tensor:
                shown.append(_tensor_check(run, output, variable, arg, step, tolerance, (step_span, tolerance_span), span))
                continue
            position = _position(compiler, output, variable, backward_pass.topology, arg)
            analytic = backward_pass.nodes[position].pass_adjoint
            try:
                if any(node.__class__ is Tensor for node in backward_pass.topology):
                    check = graph_scalar_check(output, variable, analytic, step, tolerance)
                else:
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


def _variable_expression(compiler: Compiling, arg: tree.Expr):
    """A variable to check: a node or a tensor."""
    evaluate, not_a_node_error = compiler.expression(arg), compiler.node_check(arg, "`gradcheck`")

    def variable(args):
        value = evaluate(args)
        if value.__class__ is not Scalar and value.__class__ is not Tensor:
            raise not_a_node_error(value)
        return value

    return variable


def _tensor_check(run: Running, output, tensor, arg: tree.Expr, step: float, tolerance: float, spans, span):
    """A tensor variable's check, element by element (every element up to 1,000; beyond, 100
    drawn with the session's generator): shown by its worst element, for now."""
    compiler = run.compiler
    if not _is_variable(tensor) or not any(node is tensor for node in topology(output)):
        _position(compiler, output, tensor, topology(output), arg)  # (raises: not-a-variable)
    from ...engine.tensor_gradcheck import graph_gradient_check  # (on first use)

    try:
        result = graph_gradient_check(output, tensor, run.state.random, step, tolerance)
    except ScalarAutodiffError as error:
        where = spans[0] if error.kind == "invalid-gradcheck-step" else (
            spans[1] if error.kind == "invalid-gradcheck-tolerance" else span
        )
        raise compiler.engine_error(error, where) from None
    worst = result.worst
    at = result.elements[result.checks.index(worst)]
    count = len(result.elements)
    which = f"{count} drawn elements" if result.drawn else f"{count} element{'' if count == 1 else 's'}"
    if not result.passed:
        raise _check_failed(compiler, output, tensor, worst, arg.span, f"{label_of(tensor)}{list(at)}")
    return GradcheckShown(span, label_of(output), f"{label_of(tensor)} ({which}; worst {list(at)})", worst)


def _no_numbers_among_variables(compiler: Compiling, variables: list[tree.Expr]) -> None:
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


def _position(compiler: Compiling, output, variable, topology, arg) -> int:
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


def _check_failed(compiler: Compiling, output, variable, check, span, name: str | None = None) -> LanguageError:
    return compiler.fail(
        "gradcheck-failed",
        f"gradient check of `{label_of(output)}` by `{name or label_of(variable)}` failed: "
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


