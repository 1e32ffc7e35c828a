"""Operators and element-wise built-ins on nodes: the values of `+ - * / **`, `//` and the
functions of one or more numbers (`exp`, `tanh`, `sqrt`, `relu`, `sum`, `mean`, `floor`, …),
the engine operation each expression makes, its operands in the slot they were written, a
number literal a fresh constant; `//` and `floor` against Python's (hypothesis, negative
numbers included). The engine's own operators: test_engine_ops.py."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import scalarlang
from sessions import error_of, failure, only, printed, run_ok, session_after
from shared import property_examples
from scalarlang import ScalarOperation
from scalarlang.interpreter.outcomes import ValueShown


# ---- values and operations ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("8 - 2 - 1", 5.0),
        ("8 / 4 / 2", 1.0),
        ("-2 * 3", -6.0),
        ("- -2", 2.0),
        ("2 * -3", -6.0),
        ("1 - -1", 2.0),
        (".5 + 1e-3", 0.501),
        ("1.5e307 / 1.5e307", 1.0),
        ("exp(0)", 1.0),
        ("tanh(0)", 0.0),
        ("log(1)", 0.0),
        ("value(2) * 3", 6.0),
    ],
)
def test_arithmetic_values(text, value):
    _, outcomes = run_ok(text)
    assert only(outcomes, ValueShown).node.value == pytest.approx(value, rel=1e-15, abs=0)


@pytest.mark.parametrize(
    "text, operation",
    [
        ("x + 1", "add"),
        ("x - 1", "sub"),
        ("x * 2", "mul"),
        ("x / 2", "div"),
        ("-x", "neg"),
        ("exp(x)", "exp"),
        ("tanh(x)", "tanh"),
        ("log(x)", "log"),
        ("detach(x)", "detached"),
        ("grad(x)", "constant"),
        ("value(x)", "constant"),
        ("3", "constant"),
        ("var x", "variable"),
        ("const x", "constant"),
    ],
)
def test_each_expression_makes_the_engine_operation(text, operation):
    _, outcomes = run_ok(f"let x = var 2\n{text}")
    assert only(outcomes, ValueShown).node.operation == operation


def test_operands_are_in_the_slot_where_they_were_written():
    session, _ = run_ok("let x = var 2\nlet a = 3 * x\nlet b = x * 3")
    a, b = session.lookup("a"), session.lookup("b")
    assert a.parents[0].parent.operation is ScalarOperation.CONSTANT
    assert a.parents[1].parent is session.lookup("x")
    assert b.parents[0].parent is session.lookup("x")
    assert b.parents[1].parent.operation is ScalarOperation.CONSTANT


def test_a_number_literal_is_a_fresh_constant_each_time():
    session, _ = run_ok("let y = 3 * 3")
    left, right = (edge.parent for edge in session.lookup("y").parents)
    assert left is not right
    assert left.operation is ScalarOperation.CONSTANT and left.value == 3.0


# ---- power and the built-ins of several numbers --------------------------------------------------


def test_power_uses_the_exponents_value_and_rejects_a_tracked_one():
    session, _ = run_ok("let x = var 3\nlet e = const 2\nlet y = x ** e\nlet z = -x ** 2\nlet t = 2 ** 3 ** 2")
    y = session.lookup("y")
    assert y.value == 9.0 and y.exponent == 2.0 and len(y.parents) == 1
    assert session.lookup("z").value == -9.0 and session.lookup("t").value == 512.0
    diagnostic = failure("let x = var 3\nx ** x")
    assert diagnostic.kind == "tracked-exponent"
    assert diagnostic.notes == ("help: for a tracked exponent write `exp(x * log(x))`",)
    assert failure("let x = const -8\nx ** 0.5").kind == "non-finite-result"


def test_new_builtins():
    session, outcomes = run_ok(
        "print sqrt(4), relu(-1), relu(2), sigmoid(0), abs(-3), max(1, 2), min(1, 2), sum(1, 2, 3), mean(1, 2, 3, 6)"
    )
    assert printed(outcomes) == ["2 0 2 0.5 3 2 1 6 3"]
    assert failure("sqrt(-1)").kind == "non-finite-result"


def test_sum_and_mean_are_ordinary_nodes_and_edges():
    session, _ = run_ok("let a = var 1\nlet b = var 2\nlet c = var 3\nlet s = sum(a, b, c)\nlet m = mean(a, b)\nlet one = sum(a)")
    s, m = session.lookup("s"), session.lookup("m")
    assert s.operation is ScalarOperation.ADD and s.parents[1].parent is session.lookup("c")
    assert s.parents[0].parent.parents[0].parent is session.lookup("a")
    assert m.operation is ScalarOperation.DIV and m.parents[1].parent.value == 2.0
    assert session.lookup("one") is session.lookup("a")
    run_ok("backward(m)", session)
    assert session.lookup("a").gradient == 0.5


# ---- // and floor --------------------------------------------------------------------------------


FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12) | st.integers(-50, 50).map(float)


@settings(max_examples=property_examples(80), deadline=None)
@given(a=FINITE, b=FINITE)
@example(a=-1.0, b=2.2e-313)  # beyond the float range on the negative side: -inf
def test_floor_division_and_floor_agree_with_python(a, b):
    session = scalarlang.Session()
    result = session.run(f"let a = const {a!r}\nlet b = const {b!r}\nlet f = floor(a)\nlet q = a // b")
    assert session["f"].value == float(math.floor(a))
    if b == 0.0:
        assert result.error.kind == "non-finite-result"
        assert result.error.message.endswith("by 0 is not a number")
        return
    if not math.isfinite(a // b):  # beyond the float range: `1 // 5e-324`
        shown = "-inf" if a // b < 0 else "inf"
        assert result.error.kind == "non-finite-result" and f"not finite ({shown})" in result.error.message
        return
    assert result.error is None, result.text
    assert session["q"].value == a // b and math.copysign(1.0, session["q"].value) == math.copysign(1.0, a // b)


def test_floor_division_gives_constants_printed_whole():
    session = session_after("let x = var 7\nlet q = x // 2\nlet f = floor(x / 2)\nlet y = q * x + f * x")
    assert session.run("print q, f, -7 // 2, 7.5 // 2, floor(-0.5)").text == "3 3 -4 3 -1\n"
    assert session.run("backward(y)\nprint grad(x)").text.splitlines()[-1] == "6"  # no gradient through // or floor
    assert session.run("q").text == "q = 3 (constant, untracked)\n"
    error = error_of("let q = 1e308 // 1e-308")
    assert error.kind == "non-finite-result" and "not finite (inf)" in error.message
    assert error_of('let q = "a" // 2').kind == "not-a-node"
    assert error_of("let q = [1] // 2").kind == "not-a-node"
    assert error_of("let q = floor([1])").kind == "not-a-node"
    assert error_of("let q = floor(1, 2)").kind == "wrong-arguments"

def test_remainder_follows_pythons_sign_rule_and_is_a_constant():
    session, outcomes = run_ok("let x = var 7\nlet r = x % -3\nprint r, -7 % 3, 7.5 % 2")
    assert printed(outcomes) == [f"{7 % -3} {-7 % 3} {7.5 % 2}"]  # -2 2 1.5
    assert not session.lookup("r").tracks_gradient and session.lookup("r").parents == ()
    assert failure("print 1 % 0").kind == "non-finite-result"
