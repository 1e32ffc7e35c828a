"""`fn NAME(PARAMS) = EXPR`: how a definition parses and its syntax errors, what a call binds
(the argument node itself, evaluated once), which names a body sees and when, what a function
may call (built-ins and earlier functions, never itself, not even through a list), one
namespace with `let`, labels and errors that name the call, and the echo of a definition."""

from __future__ import annotations

import math

import pytest

from sessions import error_of, failure, printed, run_ok, session_after, shown
from shared import error, label, one, sexp, text_of
from scalarlang import ScalarOperation
from scalarlang.interpreter.outcomes import BackwardShown, Defined, ValueShown
from scalarlang.language.tree import FunctionDef
from scalarlang.render.events import event_of


# ---- parsing ------------------------------------------------------------------------------------


def test_fn_definitions():
    text = "fn predict(x, y) = w * x + b"
    statement = one(text)
    assert isinstance(statement, FunctionDef)
    assert (statement.name, statement.params) == ("predict", ("x", "y"))
    assert [text[s.start : s.end] for s in statement.param_spans] == ["x", "y"]
    assert text[statement.name_span.start : statement.name_span.end] == "predict"
    assert sexp(statement.body) == "(+ (* w x) b)" and label(text, statement) == text
    empty = one("fn one() = 1")
    assert empty.params == () and empty.param_spans == ()
    assert one("fn f(\n  x,\n  y\n) = x").params == ("x", "y")


@pytest.mark.parametrize(
    "text, message",
    [
        ("fn f(x, x) = x", "`x` is named twice"),
        ("fn f(1) = 1", "unexpected `1`, expected `)` or a name"),
        ("fn f(x)", "unexpected end of input, expected `=`"),
        ("fn (x) = 1", "unexpected `(`, expected a name"),
        ("fn f(var) = 1", "`var` is a keyword and cannot be used as a name"),
    ],
)
def test_fn_errors(text, message):
    assert error(text).message == message


# ---- calls ----------------------------------------------------------------------------------------


def test_a_parameter_is_the_argument_node_itself():
    session, _ = run_ok("let x = var 3\nfn sq(a) = a * a\nlet y = sq(x)")
    y, x = session.lookup("y"), session.lookup("x")
    assert [edge.parent for edge in y.parents] == [x, x]
    run_ok("backward(y)", session)
    assert x.gradient == 6.0


def test_an_argument_expression_is_evaluated_once():
    session, _ = run_ok("let x = var 3\nfn sq(a) = a * a\nlet y = sq(x + 1)")
    left, right = (edge.parent for edge in session.lookup("y").parents)
    assert left is right and left.operation is ScalarOperation.ADD


def test_other_names_are_looked_up_when_the_call_runs():
    session, outcomes = run_ok(
        "let w = var 1\nfn f(x) = w * x\nprint f(2)\nlet w = var 5\nprint f(2)"
    )
    assert printed(outcomes) == ["2", "10"]


def test_a_function_sees_the_latest_variable_after_descend():
    session, outcomes = run_ok(
        "let w = var 1\nfn f(x) = w * x\nlet loss = f(3)\nbackward(loss)\ndescend w by 0.1\nprint f(1)"
    )
    assert printed(outcomes) == ["0.7"]


def test_functions_call_builtins_and_earlier_functions():
    session, outcomes = run_ok("fn f(a) = tanh(a)\nfn g(a, b) = f(a) + f(b) * 2\nprint g(0, 0), g(1, 0)")
    assert printed(outcomes) == [f"0 {math.tanh(1.0):.12f}"]


def test_a_function_cannot_call_itself_or_a_later_one():
    diagnostic = failure("fn f(x) = f(x) + 1")
    assert diagnostic.kind == "unknown-function" and "cannot call itself" in diagnostic.message
    diagnostic = failure("fn f(x) = g(x)\nfn g(x) = x")
    assert diagnostic.kind == "unknown-function" and "no function `g`" in diagnostic.message
    assert any("defined before it" in note for note in diagnostic.notes)


def test_calls_in_a_body_are_fixed_when_it_is_defined_so_redefinitions_cannot_recurse():
    session, outcomes = run_ok(
        "fn f(x) = x + 1\nfn g(x) = f(x) * 2\nfn f(x) = g(x) + 100\nprint g(1), f(1)"
    )
    assert printed(outcomes) == ["4 104"]


def test_functions_nesting_comprehensions_are_too_deep_not_a_crash():
    lines = ["fn f0(a) = a + 1"]
    for k in range(1, 31):
        terms = " + ".join([f"f{k - 1}(a)"] + ["1"] * 90)
        lines.append(f"fn f{k}(a) = [{terms} for i in 0..1][0]")
    lines.append("print f30(1)")
    error = error_of("\n".join(lines))
    assert error.kind == "too-deep" and "nests calls" in error.message


def test_a_function_cannot_call_itself_through_a_list_an_index_or_a_comparison():
    for body in ("[f(x)]", "[f(x)][0]", "f(x) < 1", "[x for i in f(x)]", "[1, 2][f(x)]"):
        error = error_of(f"fn f(x) = x + 100\nfn f(x) = {body}")
        assert error.kind == "unknown-function" and "cannot call itself" in error.message, body


# ---- names, errors, labels, echo ----------------------------------------------------------------


def test_builtin_names_are_reserved():
    for program in ("let exp = 1", "fn tanh(x) = x", "fn f(sum) = sum", "for len in 0..2 { }",
                    "for a, mean in [(1, 2)] { }", "let backward = 1"):
        diagnostic = failure(program)
        assert diagnostic.kind == "reserved-name", program


def test_let_and_fn_share_one_namespace_and_replace_each_other():
    session, outcomes = run_ok("fn f(x) = x\nlet f = 2\nprint f")
    assert printed(outcomes) == ["2"] and session.functions == {}
    session, _ = run_ok("let f = 2\nfn f(x) = x * 3\nprint f(2)")
    assert session.lookup("f") is None and session.functions == {"f": "f(x)"}


def test_calling_a_value_and_using_a_function_as_a_value_are_clear_errors():
    diagnostic = failure("let y = 1\ny(2)")
    assert diagnostic.kind == "unknown-function" and diagnostic.message == "`y` is a value, not a function"
    diagnostic = failure("fn f(x) = x\nlet y = f + 1")
    assert diagnostic.kind == "not-a-value" and "`f(x)`" in diagnostic.message
    # A list is a value: it prints, in brackets; where a node is needed it is `not-a-node`.
    session, outcomes = run_ok("let t = [1, 2]\nprint t")
    assert printed(outcomes) == ["[1, 2]"]
    diagnostic = failure("let t = [1, 2]\nlet y = t * 1")
    assert diagnostic.kind == "not-a-node" and diagnostic.message == "`t` is a list of 2, not a node"
    # (`+` of a list joins lists: a node after it is `not-a-list`)
    diagnostic = failure("let t = [1, 2]\nlet y = t + 1")
    assert diagnostic.kind == "not-a-list" and diagnostic.message == "`1` is a node, not a list: `+` of a list takes a list"
    diagnostic = failure("let t = [1, 2]\nt(1)")
    assert diagnostic.kind == "unknown-function" and diagnostic.message == "`t` is a list, not a function"


@pytest.mark.parametrize(
    "program, message",
    [
        ("let f = floor", "`floor` is a built-in function, not a value; call it: `floor(X)`"),
        ("print sum + 1", "`sum` is a built-in function, not a value; call it: `sum(L)`"),
        ("let b = backward", "`backward` is a statement, not a value: `backward(EXPR)`"),
    ],
)
def test_a_built_in_named_where_a_value_belongs_says_how_to_call_it(program, message):
    # (It said "`floor` is not defined", then "did you mean `floor`?".)
    diagnostic = failure(program)
    assert (diagnostic.kind, diagnostic.message, diagnostic.notes) == ("not-a-value", message, ())


def test_wrong_argument_counts_and_duplicate_parameters():
    assert failure("fn f(x) = x\nf(1, 2)").kind == "wrong-arguments"
    assert failure("fn f(x) = x\nfn g(y) = f()").kind == "wrong-arguments"
    assert failure("fn f(x, x) = x").kind == "syntax-error"  # the parser's
    assert failure("sum()").kind == "wrong-arguments"
    assert failure("max()").kind == "wrong-arguments"
    assert failure("max(1)").kind == "not-a-list"  # max of one argument: of a list


def test_an_unknown_function_lists_the_functions_that_exist():
    diagnostic = failure("fn predict(x) = x\nfoo(1)")
    assert diagnostic.kind == "unknown-function"
    assert any(note.startswith("note: the REPL's `:help` lists every built-in function") for note in diagnostic.notes)
    assert any("predict" in note for note in diagnostic.notes)


def test_a_call_result_is_labelled_by_the_call_and_an_error_names_the_call():
    session, outcomes = run_ok("let x = var 2\nfn sq(a) = a * a\nsq(x) + 1")
    assert session.label_of(session.lookup("x").parents[0].parent if False else session.lookup("x")) == "x"
    (line,) = shown(outcomes, ValueShown)
    assert line.node.label == "sq(x) + 1"
    session, outcomes = run_ok("let x = var 2\nfn sq(a) = a * a\nbackward(sq(x))")
    (backward_shown,) = shown(outcomes, BackwardShown)
    assert backward_shown.label == "sq(x)"
    diagnostic = failure("fn f(a) = log(a)\nf(0)")
    assert diagnostic.kind == "non-finite-result" and diagnostic.notes == ("in the call `f(0)` at 2:1",)


def test_function_definitions_echo_in_the_repl_only():
    session, outcomes = run_ok("fn f(a, b) = a + b\nlet t = [1, 2]")
    assert [type(outcome) for outcome in outcomes] == [Defined, Defined]
    assert text_of(outcomes) == ""
    assert text_of(outcomes, echo=True) == "f is the function f(a, b)\nt = 2 constants\n"
    assert event_of(outcomes[0]) is None


def test_a_function_body_labels_its_parts_with_the_function():
    session = session_after("let z = [var 1, var 2]\nfn f(v) = softmax(v)[0] * 2\nlet y = f(z)")
    labels = [session.label_of(node) for node in session["y"].topology()]
    assert labels == [
        "z[0]", "f: max(v)", "f: v[0] - max(v)", "f: exp(v[0] - max(v))", "z[1]", "f: v[1] - max(v)",
        "f: exp(v[1] - max(v))", "f: sum(exp(v - max(v)))", "f: softmax(v)[0]", "f: 2", "y",
    ]


@pytest.mark.parametrize(
    "program, note",
    [
        # PyTorch's torch.autograd.grad(y, x): grad takes one node, the one whose gradient is read
        ("let x = var 2\nlet y = x * x\nprint grad(y, x)",
         "help: the derivative of y with respect to x is `backward(y)`, then `grad(x)`: its gradient from that pass"),
        # sympy's diff(y, x), a derivative(...) of one's own: no such function
        ("let w = var 2\nlet loss = w * w\nprint derivative(loss, w)",
         "help: the derivative of loss with respect to w is `backward(loss)`, then `grad(w)`: its gradient from that pass"),
        ("let x = var 2\nprint diff(x * x, x)",
         "help: the derivative of OUT with respect to x is `backward(OUT)`, then `grad(x)`: its gradient from that pass"),
    ],
)
def test_a_derivative_asked_for_as_a_function_of_two_nodes_gets_backward_then_grad(program, note):
    diagnostic = failure(program)
    assert diagnostic.kind in ("wrong-arguments", "unknown-function")
    assert diagnostic.notes[0] == note


def test_grad_with_another_wrong_count_keeps_its_forms():
    assert failure("let x = var 2\nprint grad()").notes[0].startswith("help: `grad(")
