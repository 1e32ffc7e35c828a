"""gradcheck's named `step:`/`tolerance:` and several variables in one call (issue 12)."""

from __future__ import annotations

import io
import json

import pytest

from scalarlang.language import tree as ast
from scalarlang.language.diagnostics import LanguageError
from scalarlang.engine.gradcheck import GRADCHECK_STEP, GRADCHECK_TOLERANCE
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Failed, GradcheckShown
from scalarlang.front.runner import ScriptOutput
from scalarlang.language.source import Source
from scalarlang.language.parser import parse_program

SETUP = "let a = var 2\nlet b = var 3\nlet c = var 0.5\nlet loss = a * b + c ** 2\n"


def outcomes_of(text: str) -> list:
    return list(Interpreter().run(Source("t.sad", SETUP + text)))


def checks(text: str) -> list[GradcheckShown]:
    outcomes = outcomes_of(text)
    failures = [o for o in outcomes if isinstance(o, Failed)]
    assert not failures, failures[0].diagnostic
    return [o for o in outcomes if isinstance(o, GradcheckShown)]


def failure(text: str):
    outcomes = outcomes_of(text)
    assert isinstance(outcomes[-1], Failed), outcomes
    assert not any(isinstance(o, GradcheckShown) for o in outcomes)
    return outcomes[-1].diagnostic


# ---- the AST ---------------------------------------------------------------------------------


def test_named_arguments_are_keywords_of_the_call_after_the_positional_ones():
    (statement,) = parse_program(Source("t", "gradcheck(loss, x, tolerance: 1e-6, step: (2))")).statements
    call = statement.expr
    assert isinstance(call, ast.Call)
    assert [type(arg) for arg in call.args] == [ast.Name, ast.Name]
    assert [(k.name, k.value.value) for k in call.keywords] == [("tolerance", 1e-6), ("step", 2.0)]
    tolerance = call.keywords[0]
    assert (tolerance.name_span.start, tolerance.name_span.end) == (19, 28)
    assert (tolerance.span.start, tolerance.span.end) == (19, 34)
    assert call.keywords[1].span.end == 45  # the value's parentheses are the keyword's


def test_a_call_without_names_has_no_keywords_and_equals_one_built_directly():
    (statement,) = parse_program(Source("t", "f(a, b)")).statements
    call = statement.expr
    assert call.keywords == ()
    assert call == ast.Call(call.span, "f", call.function_span, call.args)


def test_a_positional_argument_after_a_named_one_is_a_syntax_error():
    with pytest.raises(LanguageError) as raised:
        parse_program(Source("t", "gradcheck(loss, step: 1, x)"))
    assert raised.value.diagnostic.kind == "syntax-error"
    assert "cannot follow a named one" in raised.value.diagnostic.message
    assert raised.value.diagnostic.span.start == 25


# ---- named step and tolerance ------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments, step, tolerance",
    [
        ("", GRADCHECK_STEP, GRADCHECK_TOLERANCE),
        (", tolerance: 1e-6", GRADCHECK_STEP, 1e-6),
        (", step: 1e-4", 1e-4, GRADCHECK_TOLERANCE),
        (", step: 1e-3, tolerance: 1e-5", 1e-3, 1e-5),
        (", tolerance: 1e-5, step: 1e-3", 1e-3, 1e-5),
        (", 1e-4, 1e-6", 1e-4, 1e-6),
    ],
)
def test_the_step_and_tolerance_reach_the_check(arguments, step, tolerance):
    (shown,) = checks(f"gradcheck(loss, a{arguments})")
    assert shown.variable == "a"
    assert shown.check.tolerance == tolerance
    assert shown.check.step == step


def test_a_named_tolerance_is_printed():
    out, err = io.StringIO(), io.StringIO()
    ScriptOutput(out, err, width=200).run(Source("t.sad", SETUP + "gradcheck(loss, a, tolerance: 1e-7)"))
    assert "tolerance=1e-07 pass=true" in out.getvalue()


def test_named_values_may_be_expressions_of_names():
    (shown,) = checks("let t = 1e-3\ngradcheck(loss, a, tolerance: t * 2)")
    assert shown.check.tolerance == 2e-3


# ---- several variables ---------------------------------------------------------------------------


def test_several_variables_are_checked_in_order_one_line_each():
    shown = checks("gradcheck(loss, a, b, c)")
    assert [(s.label, s.variable) for s in shown] == [("loss", "a"), ("loss", "b"), ("loss", "c")]
    assert [s.check.analytic for s in shown] == [3.0, 2.0, 1.0]
    assert all(s.check.tolerance == GRADCHECK_TOLERANCE for s in shown)


def test_named_arguments_apply_to_every_variable():
    shown = checks("gradcheck(loss, c, a, step: 1e-3, tolerance: 1e-4)")
    assert [s.variable for s in shown] == ["c", "a"]
    assert all((s.check.step, s.check.tolerance) == (1e-3, 1e-4) for s in shown)


def test_three_tracked_variables_after_the_output_are_variables_not_a_step_and_tolerance():
    assert [s.variable for s in checks("gradcheck(loss, a, b, c)")] == ["a", "b", "c"]


def test_the_four_argument_form_with_numbers_keeps_its_meaning():
    (shown,) = checks("let s = const 1e-4\nlet t = 1e-6\ngradcheck(loss, a, s, t)")
    assert (shown.variable, shown.check.step, shown.check.tolerance) == ("a", 1e-4, 1e-6)
    (shown,) = checks("gradcheck(loss, b, 1e-3, 1e-5)")
    assert (shown.variable, shown.check.step, shown.check.tolerance) == ("b", 1e-3, 1e-5)


def test_one_line_and_one_json_event_per_variable():
    out, err = io.StringIO(), io.StringIO()
    ScriptOutput(out, err, width=200).run(Source("t.sad", SETUP + "gradcheck(loss, a, b, c)"))
    lines = [line for line in out.getvalue().splitlines() if line.startswith("gradcheck")]
    assert [line.split(":")[0] for line in lines] == ["gradcheck loss by a", "gradcheck loss by b", "gradcheck loss by c"]
    out = io.StringIO()
    ScriptOutput(out, io.StringIO(), json_lines=True).run(Source("t.sad", SETUP + "gradcheck(loss, a, b, c)"))
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    gradchecks = [event for event in events if event.get("event") == "gradcheck"]
    assert [(e["label"], e["variable"], e["analytic"]) for e in gradchecks] == [
        ("loss", "a", 3.0), ("loss", "b", 2.0), ("loss", "c", 1.0)
    ]
    assert all(e["passed"] and e["tolerance"] == GRADCHECK_TOLERANCE for e in gradchecks)


def test_a_failing_variable_fails_the_statement_naming_it_and_shows_nothing():
    session = Interpreter()
    list(session.run(Source("t.sad", SETUP + "backward(loss)")))
    before = {name: session.bindings[name].gradient for name in ("a", "b", "c")}
    # `a` passes (linear: exact); a big step makes the central difference of exp(b) poor.
    outcomes = list(session.run(Source("t.sad", "gradcheck(a * 4 + exp(b), a, b, c, step: 0.5)")))
    diagnostic = outcomes[-1].diagnostic
    assert diagnostic.kind == "gradcheck-failed"
    assert "by `b`" in diagnostic.message
    assert diagnostic.span.start == len("gradcheck(a * 4 + exp(b), a, ")
    assert not any(isinstance(o, GradcheckShown) for o in outcomes)
    assert {name: session.bindings[name].gradient for name in ("a", "b", "c")} == before


def test_the_failing_variable_is_the_one_named_when_the_first_pass():
    # `c` is not in the graph of `a * b`: the first two pass, the third fails.
    diagnostic = failure("gradcheck(a * b, a, b, c)")
    assert diagnostic.kind == "not-a-variable"
    assert "`c`" in diagnostic.message
    assert diagnostic.span.start == len(SETUP) + len("gradcheck(a * b, a, b, ")


# ---- errors ------------------------------------------------------------------------------------


def test_an_unknown_name_for_gradcheck_suggests_step_and_tolerance():
    diagnostic = failure("gradcheck(loss, a, tol: 1)")
    assert diagnostic.kind == "wrong-arguments"
    assert "`tol`" in diagnostic.message
    assert any("`tolerance`" in note for note in diagnostic.notes)
    assert any("`step:` and `tolerance:`" in note for note in diagnostic.notes)


def test_a_name_given_twice_is_wrong_arguments():
    diagnostic = failure("gradcheck(loss, a, step: 1e-4, tolerance: 1e-6, step: 1e-3)")
    assert diagnostic.kind == "wrong-arguments"
    assert "`step:` is given twice" in diagnostic.message


@pytest.mark.parametrize(
    "call",
    ["exp(a, x: 1)", "backward(loss, seed: 2)", "graph(loss, depth: 1)", "draw(loss, scale: 2)",
     "print f(a, y: 1)", "let z = dot([a], [b], key: 1)"],
)
def test_a_named_argument_to_any_other_function_is_wrong_arguments(call):
    diagnostic = failure("fn f(x) = x\n" + call)
    assert diagnostic.kind == "wrong-arguments"
    assert "takes no named arguments" in diagnostic.message


def test_too_few_arguments_say_two_or_more():
    diagnostic = failure("gradcheck(loss)")
    assert diagnostic.kind == "wrong-arguments"
    assert "2 or more arguments" in diagnostic.message


@pytest.mark.parametrize("call", ["gradcheck(loss, a, 1e-4)", "gradcheck(loss, a, b, 1e-4, 1e-6)", "gradcheck(loss, a, -1)"])
def test_a_number_where_a_variable_belongs_hints_at_the_names(call):
    diagnostic = failure(call)
    assert diagnostic.kind == "wrong-arguments"
    assert "is a number" in diagnostic.message
    assert any("step:" in note for note in diagnostic.notes)


def test_the_two_argument_form_with_a_number_is_still_not_a_variable():
    assert failure("gradcheck(loss, 3)").kind == "not-a-variable"


def test_an_untracked_value_where_a_variable_belongs_is_not_a_variable():
    diagnostic = failure("let k = const 1\ngradcheck(loss, a, k)")
    assert diagnostic.kind == "not-a-variable"
    assert "`k`" in diagnostic.message


def test_an_invalid_named_step_or_tolerance_points_at_its_value():
    diagnostic = failure("gradcheck(loss, a, b, step: -1)")
    assert diagnostic.kind == "invalid-gradcheck-step"
    assert diagnostic.span.start == len(SETUP) + len("gradcheck(loss, a, b, step: ")
    diagnostic = failure("gradcheck(loss, a, tolerance: 0)")
    assert diagnostic.kind == "invalid-gradcheck-tolerance"
    assert diagnostic.span.start == len(SETUP) + len("gradcheck(loss, a, tolerance: ")


def test_the_command_prints_one_line_per_variable(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "g.sad"
    script.write_text(SETUP + "gradcheck(loss, a, b, tolerance: 1e-6)\n")
    result = subprocess.run(
        [sys.executable, "-m", "scalarlang", "--json", str(script)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    gradchecks = [e for e in events if e.get("event") == "gradcheck"]
    assert [(e["variable"], e["tolerance"]) for e in gradchecks] == [("a", 1e-6), ("b", 1e-6)]


def test_the_repl_help_shows_the_named_and_several_variable_forms():
    from scalarlang.render.text import Renderer, make_console
    from scalarlang.front.repl_core import ReplCore

    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=120, color="never"), echo_bindings=True))
    assert core.handle(":help") is True
    out = stream.getvalue()
    assert "gradcheck(OUT, X, Y, …[, step: S][, tolerance: T])" in out
    assert "gradcheck(OUT, X, STEP, TOLERANCE)" in out
    assert "Y, Z are variables if both are tracked, else STEP and TOLERANCE" in out
