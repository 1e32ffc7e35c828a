"""The grammar of lists (what tables were): list literals on one line or several, ragged rows,
a list as an expression anywhere and followed by operators like any atom, any expression as
an item (texts too), indexing, comprehensions and comparisons, and the syntax errors of lists
(scalarlang.language.parser). What lists do when they run: test_lists.py, test_deep_lists.py
and test_list_properties.py."""

from __future__ import annotations

import math

import pytest

from shared import error, expr, label, one, parse, sexp
from scalarlang.language.tree import ExprStatement, ForEach, Let, ListLiteral, Name, Print, Repeat


@pytest.mark.parametrize(
    "text, shape",
    [
        ("[1, 2, 3]", "[1 2 3]"),
        ("[(1, 3), (2, 5)]", "[[1 3] [2 5]]"),
        ("[]", "[]"),
        ("[-1, -2.5, 1e3]", "[(neg 1) (neg 2.5) 1000]"),
        ("[(1, 2, 3),]", "[[1 2 3]]"),
        ("[(1, 2,), (3, 4)]", "[[1 2] [3 4]]"),
        ("[(7), 8]", "[7 8]"),
        ("[inf, -inf]", "[inf (neg inf)]"),
        ("[[1, 2], [3]]", "[[1 2] [3]]"),
    ],
)
def test_list_literals(text, shape):
    statement = one(f"let data = {text}")
    assert isinstance(statement, Let) and isinstance(statement.value, ListLiteral)
    assert sexp(statement.value) == shape
    assert label(f"let data = {text}", statement.value) == text


def test_a_list_with_nan_on_several_lines():
    text = "let data = [\n  (1, 3),   # first\n\n  (2, nan),\n]\nlet y = 1"
    first, second = parse(text).statements
    table = first.value
    assert isinstance(table, ListLiteral) and sexp(table.items[0]) == "[1 3]"
    (two, not_a_number) = table.items[1].items
    assert two.value == 2.0 and math.isnan(not_a_number.value)
    assert [label(text, row) for row in table.items] == ["(1, 3)", "(2, nan)"]
    assert label(text, first) == "let data = [\n  (1, 3),   # first\n\n  (2, nan),\n]"
    assert (table.span.end_line, second.span.line) == (5, 6)


def test_for_over_a_list_literal_and_a_name():
    literal = one("for x, y in [(1, 2)] { }")
    assert isinstance(literal, ForEach) and literal.names == ("x", "y")
    assert isinstance(literal.source, ListLiteral) and sexp(literal.source) == "[[1 2]]"
    text = "for x in data { let s = s + x }"
    named = one(text)
    assert isinstance(named, ForEach) and named.names == ("x",)
    assert isinstance(named.source, Name) and named.source.name == "data"
    assert [text[s.start : s.end] for s in named.name_spans] == ["x"]
    (body,) = named.body.statements
    assert isinstance(body, Let) and sexp(body.value) == "(+ s x)"
    # Any expression is a source (its value is checked when the loop runs).
    call = one("for w in flatten(W1, b1) { }")
    assert isinstance(call, ForEach) and sexp(call.source) == "(flatten W1 b1)"


def test_a_ragged_list_parses_row_by_row():
    text = "let t = [(1, 2), (3, 4), (5, 6, 7), 8]"
    value = one(text).value
    assert sexp(value) == "[[1 2] [3 4] [5 6 7] 8]"
    assert label(text, value.items[2]) == "(5, 6, 7)"
    assert sexp(one("let t = [1, (2, 3)]").value) == "[1 [2 3]]"


@pytest.mark.parametrize(
    "text, kind, shape",
    [
        ("print [1, 2]", Print, "[1 2]"),
        ("let x = 1 + [2]", Let, "(+ 1 [2])"),
        ("f([1])", ExprStatement, "(f [1])"),
        ("[1, 2]", ExprStatement, "[1 2]"),
        ("repeat [1] { }", Repeat, "[1]"),
        ("let x = -[1]", Let, "(neg [1])"),
    ],
)
def test_a_list_is_an_expression_anywhere(text, kind, shape):
    statement = one(text)
    assert isinstance(statement, kind)
    expression = {
        Print: lambda s: s.items[0], Let: lambda s: s.value, ExprStatement: lambda s: s.expr, Repeat: lambda s: s.count
    }[kind](statement)
    assert sexp(expression) == shape


@pytest.mark.parametrize(
    "text, shape",
    [("let t = [1, x]", "[1 x]"), ("let t = [(1, f(2))]", "[[1 (f 2)]]"), ("let t = [var 1, w * 2]", "[(var 1) (* w 2)]")],
)
def test_list_items_are_any_expressions(text, shape):
    assert sexp(one(text).value) == shape


def test_a_string_is_a_list_item_now():
    # (texts are values since issue 32: a list may hold them)
    items = one('let t = [1, "a"]').value.items
    assert [type(item).__name__ for item in items] == ["Number", "StringLiteral"]


def test_a_list_is_followed_by_operators_like_any_atom():
    assert sexp(one("let t = [1] + 2").value) == "(+ [1] 2)"
    assert sexp(one("let t = [1, 2][0] * 3").value) == "(* (index [1 2] 0) 3)"


@pytest.mark.parametrize(
    "text, shape",
    [
        ("L[0]", "(index L 0)"),
        ("L[-1]", "(index L (neg 1))"),
        ("W1[3][1]", "(index (index W1 3) 1)"),
        ("data[i][2] * s", "(* (index (index data i) 2) s)"),
        ("f(x)[i + 1]", "(index (f x) (+ i 1))"),
        ("-L[0] ** 2", "(neg (** (index L 0) 2))"),
        ("[x * 2 for x in L]", "[(* x 2) (for x L)]"),
        ("[a + b for a, b in zip(L, M)]", "[(+ a b) (for a b (zip L M))]"),
        ("[i * j for i in 0..3 for j in 0..i]", "[(* i j) (for i 0 3) (for j 0 i)]"),
        ("[[var 0 for j in 0..2] for i in 0..16]", "[[(var 0) (for j 0 2)] (for i 0 16)]"),
        ("a < b", "(< a b)"),
        ("a + 1 >= b * 2", "(>= (+ a 1) (* b 2))"),
        ("(a > 0) == (b > 0)", "(== (> a 0) (> b 0))"),
        ("var a < b", "(var (< a b))"),
    ],
)
def test_indexing_comprehensions_and_comparisons(text, shape):
    assert sexp(expr(text)) == shape
    assert label(text, expr(text)) == text


@pytest.mark.parametrize(
    "text, message",
    [
        ("let x = 1 < 2 < 3", "unexpected `<`, expected an operator or the end of the statement"),
        ("let x = L[]", "unexpected `]`, expected an expression"),
        ("let x = [x for a, b in 0..3]", "a range `A..B` binds one name"),
        ("let x = [x for x in 0..3, 4]", "unexpected `,`, expected `]` or `for`"),
    ],
)
def test_list_syntax_errors(text, message):
    assert error(text).message == message
