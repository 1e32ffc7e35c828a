"""The grammar of blocks and the statements that hold them: loops, `if`, `descend`, `quiet`,
`**` and `%`, ranges, string arguments, keywords, incomplete input, nesting limits and the
hints for Python habits (scalarlang.language.parser and its modules): the AST of every form,
and its syntax errors; two properties (printing with the fewest parentheses, any layout of a
program). Lists: test_parser_lists.py; `fn`: test_functions.py; `expect`: test_expect.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shared import error, expr, label, one, parse, property_examples, sexp
from scalarlang.language import lexicon
from scalarlang.language.tree import (
    Binary,
    Block,
    Call,
    Descend,
    Expect,
    ExprStatement,
    ForEach,
    ForRange,
    FunctionDef,
    If,
    Let,
    ListLiteral,
    Name,
    Print,
    Quiet,
    Repeat,
    StringLiteral,
    Text,
)
from scalarlang.language.parser import KEYWORDS, MAX_NESTING, is_incomplete


# ---- `**` and `%` ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, shape",
    [
        ("x ** 2", "(** x 2)"),
        ("-x ** 2", "(neg (** x 2))"),
        ("2 ** 3 ** 2", "(** 2 (** 3 2))"),
        ("x ** -2", "(** x (neg 2))"),
        ("x ** -y ** 2", "(** x (neg (** y 2)))"),
        ("x ** --2", "(** x (neg (neg 2)))"),
        ("2 * x ** 2", "(* 2 (** x 2))"),
        ("x ** 2 * 3", "(* (** x 2) 3)"),
        ("(x + 1) ** 2", "(** (+ x 1) 2)"),
        ("f(x) ** g(y)", "(** (f x) (g y))"),
        ("a ** b ** c ** d", "(** a (** b (** c d)))"),
        ("-2 ** 2", "(neg (** 2 2))"),
        ("a % b", "(% a b)"),
        ("a % b % c", "(% (% a b) c)"),
        ("a * b % c / d", "(/ (% (* a b) c) d)"),
        ("a + b % c", "(+ a (% b c))"),
        ("-a % b", "(% (neg a) b)"),
        ("a % b ** 2", "(% a (** b 2))"),
        ("inf ** 2", "(** inf 2)"),
    ],
)
def test_power_and_remainder_precedence(text, shape):
    assert sexp(expr(text)) == shape


def test_power_spans_are_the_source_text():
    text = "a ** b ** -c"
    node = expr(text)
    assert label(text, node) == text
    assert label(text, node.right) == "b ** -c"
    assert label(text, node.right.right) == "-c"
    text = "(a) ** 2"
    assert label(text, expr(text)) == text


def test_a_long_power_chain_is_a_repetition_not_a_recursion():
    node = expr(" ** ".join(["x"] * 50_000))
    count = 0
    while isinstance(node, Binary):  # right-deep: x ** (x ** (...))
        assert isinstance(node.left, Name)
        node = node.right
        count += 1
    assert count == 49_999


# ---- ranges and `..` ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, start, stop",
    [("0..3", 0, 3), ("0..300", 0, 300), ("1.5..2", 1.5, 2), ("0 .. 3", 0, 3), ("2.e1..5", 20, 5)],
)
def test_range_bounds_lex_as_numbers_around_dotdot(text, start, stop):
    statement = one(f"for i in {text} {{ }}")
    assert isinstance(statement, ForRange)
    assert (statement.start.value, statement.stop.value) == (start, stop)


def test_numbers_still_take_a_trailing_or_leading_dot():
    assert expr("2.").value == 2.0 and expr(".5").value == 0.5 and expr("1.e3").value == 1000.0


def test_for_range_ast_and_spans():
    text = "for step in 0..n + 1 {\n  print step\n}"
    statement = one(text)
    assert isinstance(statement, ForRange)
    assert statement.name == "step" and label(text, statement) == text
    assert text[statement.name_span.start : statement.name_span.end] == "step"
    assert sexp(statement.start) == "0" and sexp(statement.stop) == "(+ n 1)"
    assert isinstance(statement.body, Block) and label(text, statement.body) == "{\n  print step\n}"
    (inner,) = statement.body.statements
    assert isinstance(inner, Print) and (inner.span.line, inner.span.column) == (2, 3)


# ---- blocks -------------------------------------------------------------------------------


def test_repeat_block_statements_separators_comments_and_blank_lines():
    text = "repeat 3 {\n  # a comment\n\n  let a = 1; let b = 2\n  print a, b   # trailing\n}"
    statement = one(text)
    assert isinstance(statement, Repeat) and sexp(statement.count) == "3"
    assert [type(s) for s in statement.body.statements] == [Let, Let, Print]
    assert label(text, statement) == text


@pytest.mark.parametrize(
    "text",
    ["repeat 2 { print 1 }", "repeat 2 {print 1}", "repeat 2 { print 1; }", "repeat 2 {\nprint 1\n}", "repeat 2 { print 1\n}"],
)
def test_closing_brace_after_the_last_statement_or_alone(text):
    (inner,) = one(text).body.statements
    assert isinstance(inner, Print)


def test_empty_blocks():
    assert one("repeat 2 { }").body.statements == ()
    assert one("repeat 2 {\n\n}").body.statements == ()


def test_blocks_nest_and_statements_after_a_block():
    text = "repeat 2 {\n  for i in 0..2 {\n    if i == 1 { print i }\n  }\n}\nlet z = 1"
    outer, after = parse(text).statements
    loop = outer.body.statements[0]
    assert isinstance(loop, ForRange)
    condition = loop.body.statements[0]
    assert isinstance(condition, If) and condition.otherwise is None
    assert isinstance(after, Let) and after.span.line == 6


@pytest.mark.parametrize("text", ["repeat 3\n{ }", "for i in 0..3\n{ }", "if a > b\n{ }"])
def test_the_opening_brace_is_on_the_headers_line(text):
    diagnostic = error(text)
    assert diagnostic.message.startswith("unexpected end of line, expected")
    assert diagnostic.notes == ("help: a block's `{` goes on the same line as its header: `repeat 3 {`",)


def test_a_statement_and_a_closing_brace_need_no_separator_but_two_statements_do():
    assert error("repeat 2 { let a = 1 let b = 2 }").message.startswith("unexpected `let`")


# ---- if / else ----------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_if_operators(op):
    statement = one(f"if a + 1 {op} b {{ print 1 }}")
    assert isinstance(statement, If)
    assert (statement.op, sexp(statement.left), sexp(statement.right)) == (op, "(+ a 1)", "b")


def test_if_else_and_else_if_chain():
    text = "if a < b { print 1 } else if a > b { print 2 } else { print 3 }"
    statement = one(text)
    assert label(text, statement) == text and statement.op == "<"
    middle = statement.otherwise
    assert isinstance(middle, Block) and len(middle.statements) == 1
    inner = middle.statements[0]
    assert isinstance(inner, If) and inner.op == ">"
    assert label(text, inner) == "if a > b { print 2 } else { print 3 }"
    assert label(text, middle) == label(text, inner)
    assert label(text, inner.otherwise) == "{ print 3 }"
    assert inner.otherwise.statements[0].items[0].value == 3


@pytest.mark.parametrize(
    "text",
    [
        "if a > b {\n  print 1\n} else {\n  print 2\n}",
        "if a > b {\n  print 1\n}\nelse {\n  print 2\n}",
        "if a > b { print 1 }\n\n  # why not\nelse { print 2 }",
    ],
)
def test_else_on_the_line_of_the_brace_or_a_later_one(text):
    statement = one(text)
    assert isinstance(statement, If) and statement.otherwise is not None
    assert statement.otherwise.statements[0].span.line == text.count("\n", 0, text.rindex("print")) + 1


def test_a_lone_else_and_elif():
    diagnostic = error("else { print 2 }")
    assert diagnostic.message == "`else` must follow the `}` of an `if`"
    assert error("if a > b { } elif a < b { }").notes == (
        "help: write `else if`: `if A > B { ... } else if A < B { ... }`",
    )


def test_if_needs_a_comparison():
    diagnostic = error("if a { print 1 }")
    assert diagnostic.message.startswith("unexpected `{`, expected a comparison")
    assert diagnostic.notes == ("help: an `if` compares two values: `if A > B { ... }`",)


# ---- fn, descend, quiet, string arguments ------------------------------------------------


def test_descend():
    text = "descend w, b by 0.1 * lr"
    statement = one(text)
    assert isinstance(statement, Descend) and statement.names == ("w", "b")
    assert [text[s.start : s.end] for s in statement.name_spans] == ["w", "b"]
    assert sexp(statement.rate) == "(* 0.1 lr)" and label(text, statement) == text
    assert error("descend w, w by 1").message == "`w` is named twice"
    assert error("descend w").message == "unexpected end of input, expected `,` or `by`"


def test_quiet_wraps_any_statement():
    statement = one("quiet backward(loss)")
    assert isinstance(statement, Quiet) and isinstance(statement.statement, ExprStatement)
    nested = one("quiet expect no-gradient: quiet let g = grad(c)")
    assert isinstance(nested.statement, Expect) and isinstance(nested.statement.statement, Quiet)
    loop = one("quiet repeat 2 { let a = 1 }")
    assert isinstance(loop.statement, Repeat)


def test_string_arguments_of_calls():
    text = 'draw(loss, "graph.svg")'
    call = one(text).expr
    assert isinstance(call, Call) and call.function == "draw"
    name, path = call.args
    assert isinstance(name, Name) and isinstance(path, StringLiteral)
    assert path.parts == (Text(path.parts[0].span, "graph.svg"),) and label(text, path) == '"graph.svg"'
    (hole,) = one('print "{f("a")} ok"').items[0].parts[:1]
    assert isinstance(hole, Call) and isinstance(hole.args[0], StringLiteral)


# ---- keywords and the lexicon ---------------------------------------------------------------


@pytest.mark.parametrize("word", ["fn", "repeat", "for", "in", "if", "else", "descend", "by", "quiet", "while", "break"])
def test_new_keywords_are_not_names(word):
    diagnostic = error(f"let {word} = 1")
    assert diagnostic.message == f"`{word}` is a keyword and cannot be used as a name"
    assert (diagnostic.span.start, diagnostic.span.end) == (4, 4 + len(word))
    assert error(f"for {word} in 0..3 {{ }}").message.endswith("is a keyword and cannot be used as a name")


def test_names_that_start_with_keywords_are_names():
    assert sexp(expr("format + index * iff + quietly")) == "(+ (+ format (* index iff)) quietly)"


def test_the_lexicon_is_read_from_the_grammar():
    assert KEYWORDS == lexicon.KEYWORDS
    # Every terminal of the grammar that is a word in quotes, and nothing else (read, not listed).
    grammar = (Path(__file__).resolve().parents[1] / "grammars" / "scalarlang.lark").read_text(encoding="utf-8")
    words = set(re.findall(r'^[A-Z_]+(?:\.\d+)?\s*:\s*"([a-z_]+)"\s*$', grammar, flags=re.MULTILINE))
    assert set(KEYWORDS) == words and {"let", "fn", "while", "inf"} <= words
    assert lexicon.VALUE_KEYWORDS == ("inf", "nan")
    assert {"**", "%", "..", "{", "}", "[", "]"} <= set(lexicon.OPERATORS.values())
    assert re.fullmatch(lexicon.NAME, "x_1") and not re.fullmatch(lexicon.NAME, "1x")
    assert re.match(lexicon.NUMBER, "0..3").group(0) == "0"
    assert re.fullmatch(lexicon.KIND, "non-finite-seed")


def test_read_terminals_of_a_grammar_text():
    text = 'A_B: "a\\"b"\nRX.2: /x\\/y/i\n// C: "c"\nrule: A_B\n'
    assert lexicon.read_terminals(text) == {"A_B": ("string", 'a"b'), "RX": ("regex", "x/y")}


# ---- incomplete input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "repeat 3 {",
        "repeat 3 {\n  let x = 1\n",
        "for i in 0..3 {\n  if i > 1 {\n    print i\n  }\n",
        "let data = [(1, 2),\n",
        "let data = [",
        "if a > b { print 1 } else {",
        'draw(x, "g.svg"',
        "fn f(x,",
    ],
)
def test_incomplete_while_a_brace_or_bracket_is_open(text):
    assert is_incomplete(error(text))


@pytest.mark.parametrize("text", ["repeat 3", "repeat 3 { print }", "if a > b", "repeat 3 { print \"a", "let t = [1 2"])
def test_not_incomplete(text):
    assert not is_incomplete(error(text))


# ---- nesting limits -------------------------------------------------------------------------


def test_blocks_nest_up_to_the_limit():
    n = MAX_NESTING
    parse("repeat 1 {\n" * n + "print 1\n" + "}\n" * n)
    text = "repeat 1 { " * (n + 1) + "}" * (n + 1)
    diagnostic = error(text)
    assert diagnostic.kind == "too-deep" and diagnostic.fields["limit"] == n
    assert diagnostic.message == "blocks nest deeper than 1000 levels"
    assert diagnostic.span.start == text.index("{") + (len("repeat 1 { ") * n)  # the 1001st `{`


def test_blocks_and_statement_prefixes_count_together_but_siblings_do_not():
    n = MAX_NESTING
    parse("quiet repeat 1 { " * (n // 2) + "}" * (n // 2))
    assert error("quiet repeat 1 { " * (n // 2 + 1) + "}" * (n // 2 + 1)).kind == "too-deep"
    # A thousand blocks one after another are not nested.
    parse("\n".join(["repeat 1 { quiet let x = 1 }"] * (n + 10)))
    # Closing a block goes back to its header's level.
    parse(("repeat 1 {\n" * (n - 1)) + "if a > b { } else { }\n" + "}\n" * (n - 1))


def test_else_if_chains_are_limited_and_100000_open_blocks_fail_fast():
    chain = "if a > b { }" + " else if a > b { }" * (MAX_NESTING + 1)
    assert error(chain).kind == "too-deep"
    parse("if a > b { }" + " else if a > b { }" * 900 + " else { }")
    assert error("repeat 1 {" * 100_000).kind == "too-deep"


# ---- hints for Python and micrograd habits ---------------------------------------------------


@pytest.mark.parametrize(
    "text, note",
    [
        ("let y = x ^ 2", "help: a power is written with `**`: `x ** 2`"),
        ("def f(x):", "help: a function is `fn f(x) = EXPR`: one expression, no `:` and no `return`"),
        ("for i in range(3):", "help: a loop's body is a block in braces: `for i in 0..3 { ... }`"),
        ("for k in range(2, 5):", "help: a loop's body is a block in braces: `for k in 2..5 { ... }`"),
        ("for x in data:", "help: a loop's body is a block in braces: `for x in data { ... }`"),
        ("w -= 0.1 * grad(w)", "help: `.sad` has no `-=`: write `let w = w - ...`; a gradient step is `descend w by LR`"),
        ("s += x", "help: `.sad` has no `+=`: write `let s = s + ...`; a gradient step is `descend s by LR`"),
        ("print x.grad", "help: a stored gradient is `grad(x)`"),
        ("loss.backward()", "help: a backward pass is `backward(loss)`"),
        ("w.zero_grad()", "help: gradients are reset with `zero_grad(w)` (or `zero_grad` for every name)"),
        ("w.data", "help: a value is `value(w)`; a gradient step is `descend w by LR`"),
        ("x.explain()", "help: `explain(x)` shows its pass adjoint and its stored gradient as sums"),
        ("loss.paths(x)", "help: `paths(loss, x)` lists the paths from `loss` down to `x`"),
        ("loss.paths", "help: `paths(loss, X)` lists the paths from `loss` down to X"),
        ("loss.walk()", "help: `walk(loss)` is `backward(loss)` shown edge by edge"),
        ("x.foo", "help: `.sad` has no attributes or methods: call a function, like `foo(x)`"),
        ("while x < 3:", "help: a loop's body is a block in braces: `while x < 3 { ... }`"),
        ("if a > b:", "help: a block is in braces, not after `:`: `if A > B { ... }`"),
        ("repeat 3:", "help: a block is in braces, not after `:`: `if A > B { ... }`"),
        ("let f(x) = x", "help: a function is defined with `fn NAME(P, ...) = EXPR`"),
        ("fn f(x) { x }", "help: a function's body is one expression after `=`: `fn f(x) = x * x`"),
        ("let r = 0..3", "help: `A..B` is a range of a `for` loop: `for i in 0..3 { ... }`"),
        ("repeat 3 { while x < 3:", "help: a loop's body is a block in braces: `while x < 3 { ... }`"),
        ("let a = 1; def g(x):", "help: a function is `fn f(x) = EXPR`: one expression, no `:` and no `return`"),
        ("fn f(x) = return x", "help: a function's body is the expression after `=`: `fn f(x) = x * x`"),
    ],
)
def test_hints_for_python_and_micrograd_habits(text, note):
    diagnostic = error(text)
    assert diagnostic.kind == "syntax-error"
    assert note in diagnostic.notes


@pytest.mark.parametrize("text", ["def + 1 +* 2", "while + 1 +* 2", "let x = def +* 1"])
def test_python_words_used_as_names_get_no_python_hint(text):
    assert error(text).notes == ()


def test_for_over_any_expression_parses_and_a_range_binds_one_name():
    # `range(10)` and `3` are expressions: whether they are lists is known when the loop runs
    # (the interpreter's tests check `range`'s hint and `not-a-list`).
    text = "for i in range(10) { print i }"
    statement = one(text)
    assert isinstance(statement, ForEach) and sexp(statement.source) == "(range 10)"
    assert label(text, statement.source) == "range(10)"
    assert sexp(one("for i in 3 { }").source) == "3"
    diagnostic = error("for a, b in 0..3 { }")
    assert diagnostic.message == "a range `A..B` binds one name"
    assert diagnostic.notes == ("help: `for i in 0..3 { ... }`; several names take a list's rows",)


@pytest.mark.parametrize(
    "text, line, bracket",
    [
        ("let x = f(1,\nlet y = 2", 2, ("(", 1, 10)),
        ("let x = f(1,\n  2\nprint x", 3, ("(", 1, 10)),
        ("let t = [1,\n2\nlet y = 3", 3, ("[", 1, 9)),
        ("let x = exp((1 +\n 2)\n\nx", 4, ("(", 1, 12)),
    ],
)
def test_a_bracket_left_open_is_pointed_back_at(text, line, bracket):
    # (tests/test_unclosed.py has more: blocks, the end of the input, the rendered excerpt)
    diagnostic = error(text)
    assert diagnostic.span.line == line
    (related,) = diagnostic.related
    assert related.message == f"the `{bracket[0]}` opened here is not closed"
    assert (related.span.line, related.span.column) == bracket[1:]


def test_no_pointing_back_on_the_brackets_own_line():
    assert error("let x = (1 + let)").related == ()
    assert error("let x = f(1,\n").related == ()  # the end of the input is on line 1


@pytest.mark.parametrize(
    "text, note",
    [
        ("let é = 1", "help: names are ASCII letters, digits and `_`: `[A-Za-z_][A-Za-z0-9_]*`"),
        ("if a > b and c > d { }", "help: an `if` compares two values; for more than one condition, nest `if`s"),
        ("if a > b && c > d { }", "help: an `if` compares two values; for more than one condition, nest `if`s"),
        ("let s = 'abc'", 'help: a text is written in double quotes: `"abc"`'),
        ("print 'say \"hi\"'", 'help: a text is written in double quotes: `"abc"`'),
    ],
)
def test_more_hints(text, note):
    assert note in error(text).notes


@pytest.mark.parametrize(
    "text, message",
    [
        ("for x indata { }", "unexpected `indata`, expected `,` or `in`"),
        ("descend w by0.1", "unexpected `by0`, expected `,` or `by`"),
        ("assert x == 1 within2", "unexpected `within2`, expected an operator, `within` or the end of the statement"),
    ],
)
def test_a_keyword_is_a_whole_word_even_where_no_name_fits(text, message):
    assert error(text).message == message


def test_a_keyword_may_touch_punctuation():
    assert sexp(one("descend w by(0.1)").rate) == "0.1"
    assert sexp(one("for x in[1] { }").source) == "[1]"


# ---- property: any expression printed with the fewest parentheses parses back to itself ----

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Precedence levels of the printed forms: a child printed at a lower level than its slot
# needs gets parentheses.
_LEAF, _SUM, _PRODUCT, _UNARY, _POWER, _ATOM = range(6)
_SLOTS = {  # op -> (level of the node, level its left needs, level its right needs)
    "+": (_SUM, _SUM, _PRODUCT), "-": (_SUM, _SUM, _PRODUCT),
    "*": (_PRODUCT, _PRODUCT, _UNARY), "/": (_PRODUCT, _PRODUCT, _UNARY), "%": (_PRODUCT, _PRODUCT, _UNARY),
    "**": (_POWER, _ATOM, _UNARY),
}

_trees = st.recursive(
    st.one_of(st.sampled_from(["x", "w", "b1"]).map(lambda n: ("name", n)), st.integers(0, 99).map(lambda v: ("num", v))),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(sorted(_SLOTS)), inner, inner).map(lambda t: ("bin", *t)),
        inner.map(lambda t: ("neg", t)),
        st.tuples(st.sampled_from(["var", "const"]), inner).map(lambda t: ("leaf", *t)),
        st.tuples(st.sampled_from(["f", "tanh"]), st.lists(inner, max_size=3)).map(lambda t: ("call", *t)),
    ),
    max_leaves=12,
)


def _print(tree) -> tuple[str, int]:
    """The text of a (small, generated) tree with the fewest parentheses, and its level."""
    kind = tree[0]
    if kind == "name":
        return tree[1], _ATOM
    if kind == "num":
        return str(tree[1]), _ATOM
    if kind == "call":
        return f"{tree[1]}({', '.join(_print(arg)[0] for arg in tree[2])})", _ATOM
    if kind == "leaf":
        return f"{tree[1]} {_print(tree[2])[0]}", _LEAF
    if kind == "neg":
        return f"-{_wrap(tree[1], _UNARY)}", _UNARY
    op, left, right = tree[1:]
    level, left_needs, right_needs = _SLOTS[op]
    return f"{_wrap(left, left_needs)} {op} {_wrap(right, right_needs)}", level


def _wrap(tree, needs: int) -> str:
    text, level = _print(tree)
    return text if level >= needs else f"({text})"


def _shape(tree) -> str:
    kind = tree[0]
    if kind in ("name", "num"):
        return str(tree[1])
    if kind == "call":
        return f"({tree[1]}{''.join(' ' + _shape(a) for a in tree[2])})"
    if kind == "leaf":
        return f"({tree[1]} {_shape(tree[2])})"
    if kind == "neg":
        return f"(neg {_shape(tree[1])})"
    return f"({tree[1]} {_shape(tree[2])} {_shape(tree[3])})"


@settings(max_examples=property_examples(200), deadline=None)
@given(_trees)
def test_printed_with_fewest_parentheses_parses_back(tree):
    text, _ = _print(tree)
    node = expr(text)
    assert sexp(node) == _shape(tree), text
    assert label(text, node) == text


@pytest.mark.parametrize(
    "text, message, notes",
    [
        ("for i in { }", "unexpected `{`, expected an expression", ()),
        ("descend by 0.1", "`descend` names the variables it steps, then `by` the rate", ("help: `descend w, b by 0.1`",)),
        ("fn f = 1", "unexpected `=`, expected `(`", ("help: a function's parameters are in parentheses, even none: `fn one() = 1`",)),
        ("}", "unexpected `}`: no block is open", ()),
        ("repeat 3 { print 1 }}", "unexpected `}`: no block is open", ()),
        ('repeat 3 { print "a }', 'unterminated string: it must end with `"` on the same line', ()),
        ('repeat 3 { print "a } b" }', "a single `}` in a string must be doubled: `}}`", ()),
    ],
)
def test_messages_of_the_new_forms(text, message, notes):
    diagnostic = error(text)
    assert (diagnostic.message, diagnostic.notes) == (message, notes)


# ---- property: programs of the new statements, laid out any way, parse to their shape ------

_NAMES = st.sampled_from(["a", "w", "x1", "data"])
_ROWS = st.integers(0, 3).flatmap(
    lambda width: st.lists(st.tuples(*[st.integers(-9, 9)] * width), max_size=3) if width else st.just([])
)


def _statements(depth: int):
    simple = st.one_of(
        st.tuples(st.just("let"), _NAMES, st.integers(0, 9)),
        st.tuples(st.just("table"), _NAMES, _ROWS),
        st.tuples(st.just("print"), _NAMES),
        st.tuples(st.just("descend"), st.lists(_NAMES, min_size=1, max_size=3, unique=True)),
        st.tuples(st.just("fn"), _NAMES, st.lists(st.sampled_from(["p", "q"]), max_size=2, unique=True)),
        st.tuples(st.just("quiet"), _NAMES),
    )
    if depth == 0:
        return simple
    block = st.lists(_statements(depth - 1), max_size=3)
    return st.one_of(
        simple,
        st.tuples(st.just("repeat"), block),
        st.tuples(st.just("range"), block),
        st.tuples(st.just("rows"), _ROWS, block),
        st.tuples(st.just("if"), block, st.lists(block, max_size=2), st.one_of(st.none(), block)),
    )


_LAYOUT = st.fixed_dictionaries(
    {
        "separator": st.sampled_from(["\n", "; ", "\n\n", "  # note\n"]),
        "one_line": st.booleans(),
        "else_on_next_line": st.booleans(),
        "rows_on_lines": st.booleans(),
    }
)


def _layout(statements, layout, indent="") -> str:
    separator = layout["separator"] if not layout["one_line"] else "; "
    return separator.join(indent + _statement_text(s, layout, indent) for s in statements)


def _block_text(statements, layout, indent) -> str:
    if layout["one_line"] or not statements:
        return "{ " + "; ".join(_statement_text(s, layout, indent) for s in statements) + " }"
    inner = indent + "  "
    return "{\n" + _layout(statements, layout, inner) + "\n" + indent + "}"


def _table_text(rows, layout) -> str:
    cells = [str(row[0]) if len(row) == 1 else "(" + ", ".join(map(str, row)) + ")" for row in rows]
    if layout["rows_on_lines"] and cells:
        return "[\n  " + ",\n  ".join(cells) + ",\n]"
    return "[" + ", ".join(cells) + "]"


def _statement_text(statement, layout, indent) -> str:
    kind = statement[0]
    if kind == "let":
        return f"let {statement[1]} = {statement[2]}"
    if kind == "table":
        return f"let {statement[1]} = {_table_text(statement[2], layout)}"
    if kind == "print":
        return f'print "v {{{statement[1]}}}", {statement[1]}'
    if kind == "descend":
        return f"descend {', '.join(statement[1])} by 0.1"
    if kind == "fn":
        return f"fn {statement[1]}({', '.join(statement[2])}) = {statement[1]} ** 2 % 3"
    if kind == "quiet":
        return f"quiet backward({statement[1]})"
    if kind == "repeat":
        return f"repeat 2 {_block_text(statement[1], layout, indent)}"
    if kind == "range":
        return f"for i in 0..3 {_block_text(statement[1], layout, indent)}"
    if kind == "rows":
        width = len(statement[1][0]) if statement[1] else 1
        names = ", ".join(f"c{k}" for k in range(max(width, 1)))
        return f"for {names} in {_table_text(statement[1], layout)} {_block_text(statement[2], layout, indent)}"
    then, elifs, otherwise = statement[1:]
    text = f"if a < 1 {_block_text(then, layout, indent)}"
    glue = "\n" + indent if layout["else_on_next_line"] and not layout["one_line"] else " "
    for block in elifs:
        text += f"{glue}else if a > 2 {_block_text(block, layout, indent)}"
    if otherwise is not None:
        text += f"{glue}else {_block_text(otherwise, layout, indent)}"
    return text


def _rows_shape(rows) -> str:
    """The sexp of a list of rows as `_table_text` writes it (a row of 1 is a bare number)."""
    return "[" + " ".join(sexp_number(row[0]) if len(row) == 1 else "[" + " ".join(map(sexp_number, row)) + "]" for row in rows) + "]"


def sexp_number(value: int) -> str:
    return f"(neg {-value})" if value < 0 else str(value)


def _expected_shape(statement):
    kind = statement[0]
    if kind in ("let", "print", "quiet"):
        return {"let": "Let", "print": "Print", "quiet": "Quiet"}[kind]
    if kind == "table":
        return ("List", _rows_shape(statement[2]))
    if kind == "descend":
        return ("Descend", tuple(statement[1]))
    if kind == "fn":
        return ("FunctionDef", statement[1], tuple(statement[2]))
    if kind == "repeat":
        return ("Repeat", tuple(map(_expected_shape, statement[1])))
    if kind == "range":
        return ("ForRange", tuple(map(_expected_shape, statement[1])))
    if kind == "rows":
        return ("ForEach", _rows_shape(statement[1]), tuple(map(_expected_shape, statement[2])))
    then, elifs, otherwise = statement[1:]
    tail = tuple(map(_expected_shape, otherwise)) if otherwise is not None else None
    for block in reversed(elifs):
        tail = (("If", tuple(map(_expected_shape, block)), tail),)
    return ("If", tuple(map(_expected_shape, then)), tail)


def _parsed(statement):
    name = type(statement).__name__
    if isinstance(statement, Let) and isinstance(statement.value, ListLiteral):
        return ("List", sexp(statement.value))
    if name in ("Let", "Print", "Quiet"):
        return name
    if isinstance(statement, Descend):
        return ("Descend", statement.names)
    if isinstance(statement, FunctionDef):
        return ("FunctionDef", statement.name, statement.params)
    if isinstance(statement, (Repeat, ForRange)):
        return (name, tuple(map(_parsed, statement.body.statements)))
    if isinstance(statement, ForEach):
        return ("ForEach", sexp(statement.source), tuple(map(_parsed, statement.body.statements)))
    otherwise = statement.otherwise
    tail = tuple(map(_parsed, otherwise.statements)) if otherwise is not None else None
    return ("If", tuple(map(_parsed, statement.then.statements)), tail)


@settings(max_examples=property_examples(150), deadline=None)
@given(st.lists(_statements(2), max_size=4), _LAYOUT)
def test_programs_of_the_new_statements_parse_to_their_shape_in_any_layout(statements, layout):
    text = _layout(statements, layout)
    program = parse(text)
    assert tuple(map(_parsed, program.statements)) == tuple(map(_expected_shape, statements)), text
    for node, statement in zip(program.statements, statements):
        assert label(text, node) == _statement_text(statement, layout, "")
