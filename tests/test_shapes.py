"""The parser's fast path (``scalarlang.language.shapes``): a statement of a shape parsed before gives
exactly what the full parse gives, nodes and errors, however it differs from the shape."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzzing import program_text, programs
from test_compact import fingerprint, plain_parse
from scalarlang.language import parser as syntax
from scalarlang.language.diagnostics import LanguageError
from scalarlang.language.source import Source


def outcome(parse, text: str):
    """The fingerprint of the statements, or the diagnostic of the error."""
    try:
        return fingerprint(parse(text))
    except LanguageError as error:
        return error.diagnostic


def fast_parse(text: str):
    return syntax.parse_program(Source("t.sad", text)).statements


def fresh_shapes(monkeypatch) -> object:
    shapes = syntax.Shapes()
    monkeypatch.setattr(syntax, "_shapes", lambda: shapes)
    return shapes


def teach(line: str) -> str:
    """Text that teaches the fast path `line`'s shape (seen twice) and then uses it."""
    return f"{line}\n{line}\n{line}\n"


def test_a_repeated_shape_is_taken_by_the_fast_path(monkeypatch):
    shapes = fresh_shapes(monkeypatch)
    text = "let a0 = var 1\n" + "".join(f"let a{i} = a{i - 1} * 1.0000001 + {i % 7}\n" for i in range(1, 50))
    assert outcome(fast_parse, text) == outcome(plain_parse, text)
    assert shapes.templates >= 1
    assert any(root.recent for root in shapes.roots.values())  # the whole-statement regex


@pytest.mark.parametrize(
    "taught, then",
    [
        ("let b = a * c", "let b = a * a"),  # equal names elsewhere: another shape
        ("let b = a * a", "let b = a * c"),
        ("let b = a * c", "let b = a ** c"),  # `**` is not two `*`
        ("let b = a * c", "let b = let * c"),  # a keyword where a name was
        ("let b = a * c", "let b = a * var"),
        ("let b = a * c", "let b = # a * c"),  # a comment inside the statement: to the line's end
        ("let b = a * c", "let b = a *# c"),
        ("let b = a * c", "#let b = a * c"),
        ("let b = a * c", "let b = a * c# c"),
        ("let b = a + 1e-4", "let b = a + 1e-400"),  # rounded to zero: a syntax error
        ("let b = a + 1e-4", "let b = a + 0.0"),
        ("let b = a + 2", "let b = a + 1e999"),
        ("let b = f(a, 2)", "let b = f(a,\n 2)"),  # a newline inside parentheses
        ("let b = f(a, 2)", "let b = f(a, 2"),
        ("let b = a * c", "let b = a * c # a comment"),
        ("let b = a * c", "let b = a *c;let d = b"),
        ("let b = a * c", "let   b=a*c\r"),
        ("let b = a * c", "let b = a * c d"),
        ("let b = a * c", "let b = a * 'c'"),
        ("let b = a * c", "let b = a * c }"),
        ("let b = a * c", "letb = a * c"),
        ("let b = a * c", "let b = a * c_"),
        ("print a, b", 'print a, "b"'),
        ("assert a == b within 1e-6", "assert a == b within"),
        ("gradcheck(a, b, step: 1e-6)", "gradcheck(a, b, step: 1e-6, step: 2)"),
        ("zero_grad(a)", "zero_grad(a) + 1"),
        ("let b = -a ** 2", "let b = -a ** -2"),
        ("let b = var (a + inf)", "let b = var (a + nan)"),
    ],
)
def test_a_statement_unlike_its_taught_shape_is_parsed_as_in_full(monkeypatch, taught, then):
    fresh_shapes(monkeypatch)
    for text in (teach(taught) + then + "\n", teach(taught) + then, teach(taught) + then + "\nlet z = 1\n" + then + "\n"):
        expected = outcome(plain_parse, text)
        assert outcome(fast_parse, text) == expected, text
        assert outcome(fast_parse, text) == expected, text  # with all of it learnt


def test_errors_after_fast_statements_point_at_their_lines_and_columns(monkeypatch):
    fresh_shapes(monkeypatch)
    body = "".join(f"let a{i} = a{i - 1} * 2 + {i}\r\n" for i in range(1, 40))
    for tail in ("let x = )\n", "let x = a1 +\n", "print a1,\n", "let x = (a1\n", "let x = let\n"):
        text = "let a0 = var 1\n" + body + tail
        expected = outcome(plain_parse, text)
        assert isinstance(expected, type(outcome(fast_parse, text)))
        assert outcome(fast_parse, text) == expected


def test_blocks_and_other_statements_between_fast_ones(monkeypatch):
    fresh_shapes(monkeypatch)
    line = "let b = a * c + 1\n"
    text = line * 3 + "repeat 2 {\n" + line * 3 + "}\n" + line * 3 + "expect undefined-name: " + line + line * 2
    assert outcome(fast_parse, text) == outcome(plain_parse, text)
    assert outcome(fast_parse, text) == outcome(plain_parse, text)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_generated_programs_parse_the_same_with_shapes_learnt(monkeypatch, seed):
    """Each program twice over, so that its own shapes are learnt, then once more: the fast
    path's nodes and first error are the full parse's."""
    fresh_shapes(monkeypatch)
    for program in programs(seed, 3):
        text = program_text(program)
        expected = outcome(plain_parse, text)
        doubled = text + text
        assert outcome(fast_parse, doubled) == outcome(plain_parse, doubled)
        assert outcome(fast_parse, text) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    taught=st.lists(st.sampled_from(["let b = a * c", "let b = f(a, c: 2)", "print a, -b ** 2", "assert a <= b"]), min_size=1, max_size=3),
    noise=st.text(st.sampled_from("ab1.e-+*/%(),:=;\n #letvarinf"), max_size=30),
)
def test_near_misses_of_taught_shapes_parse_as_in_full(monkeypatch, taught, noise):
    fresh_shapes(monkeypatch)
    text = "".join(teach(line) for line in taught) + noise + "\n" + taught[0] + noise + "\n"
    assert outcome(fast_parse, text) == outcome(plain_parse, text)


@pytest.mark.parametrize(
    "separator, taken",
    # (A blank line, or a newline after `;`, is an empty statement of its own: no step is
    # steady then, the steps run as ever.)
    [("\n", True), ("; ", True), (" # note\n", True), ("\r\n", True), ("\n\n", False), (";\n", False)],
)
def test_statements_after_statements_take_the_steady_step_and_parse_the_same(separator, taken, monkeypatch):
    # Between two top-level statements the driver moves the one before into the program's
    # list itself (`syntax._steady_step`) when the parser's steps would end where they began;
    # a statement parsed in full, a block or another separator in between take the steps.
    fresh_shapes(monkeypatch)
    steady: dict = {}
    monkeypatch.setattr(syntax, "_steady", lambda: steady)
    batched = spy_on_batches(monkeypatch)
    lines = ["let a0 = var 1"] + [f"let a{i} = a{i - 1} * 1.0000001 + {i % 7}" for i in range(1, 40)]
    lines[10:10] = ['print "x {a3}"', "repeat 2 { let c = a1 }", "a5", ""]
    lines[25:25] = ["let d = a20 ** 2", "let e = -a20", "let f = a20 + a1 * 2"]
    text = separator.join(lines) + "\n"
    assert outcome(fast_parse, text) == outcome(plain_parse, text)
    assert any(callback is not None for callback in steady.values()) == taken
    # Where the step is steady the lexer hands over the statements after a fast one with it.
    assert bool(batched) == taken
    assert len(fast_parse(text)) == len(plain_parse(text))


def spy_on_batches(monkeypatch) -> list[int]:
    """The number of statements each fast statement brought with it (`Compacted.more`)."""
    from scalarlang.language.lexer import Lexer
    from scalarlang.language.shapes import Compacted

    batched: list[int] = []
    tokens = Lexer.tokens

    def spy(self, *args):
        for token in tokens(self, *args):
            if token.__class__ is Compacted and token.more:
                batched.append(len(token.more))
            yield token

    monkeypatch.setattr(Lexer, "tokens", spy)
    return batched


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(separators=st.lists(st.sampled_from(["\n", "; ", ";", " # c\n", "\r\n", "\n\n", ";\n", "\n  "]), min_size=1, max_size=60))
def test_runs_of_fast_statements_with_any_separators_parse_as_in_full(monkeypatch, separators):
    fresh_shapes(monkeypatch)
    batched = spy_on_batches(monkeypatch)
    lines = ["let a0 = var 1"] + [f"let a{i} = a{i - 1} * 2 + {i % 7}" for i in range(1, 80)]
    text = "".join(line + separators[i % len(separators)] for i, line in enumerate(lines)) + "let x = )\n"
    expected = outcome(plain_parse, text)  # the error at the end: its line and column
    assert outcome(fast_parse, text) == expected
    assert outcome(fast_parse, text[: -len("let x = )\n")]) == outcome(plain_parse, text[: -len("let x = )\n")])
    if len(set(separators)) == 1 and separators[0] in ("\n", "; ", ";", "\r\n"):
        assert batched


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=" \t#\n\r;ax1", max_size=40))
def test_the_short_skip_prefix_skips_what_the_repeated_alternation_does(text):
    import re

    from scalarlang.language.lexer import skip_prefix

    ignored = [syntax._lexer().terminals[name].pattern.to_regexp() for name in sorted(syntax._lexer().ignore)]
    short = re.compile(skip_prefix(ignored))
    general = re.compile("(?>(?:" + "|".join(ignored) + ")*)")
    assert short.pattern != general.pattern  # this grammar's blanks and comments: the short form
    for start in range(len(text) + 1):
        assert short.match(text, start).end() == general.match(text, start).end()
        # and after it, a token that fails makes the whole match fail, as in the general form
        assert (re.match(short.pattern + "x", text[start:]) is None) == (re.match(general.pattern + "x", text[start:]) is None)


def test_other_ignored_terminals_keep_the_repeated_alternation():
    from scalarlang.language.lexer import skip_prefix

    assert skip_prefix(["[ \t]+"]) == "(?>(?:[ \t]+)*)"
    assert skip_prefix(["[ \t\n]+", "#[^\n]*"]) == "(?>(?:[ \t\n]+|#[^\n]*)*)"  # blanks take newlines
    assert skip_prefix(["[ \t]+", "/\\*.*?\\*/"]) == "(?>(?:[ \t]+|/\\*.*?\\*/)*)"
    assert skip_prefix(["[ \t]+", "%[^\n]*"]) == "(?>(?:[ \t]+|%[^\n]*)*)"  # (`shapes` tests for a `#`)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    taught=st.lists(st.sampled_from(["let b = a * c", "let b = a*2 + 1e3", "print a, -b ** 2", "let x=f(a, c: 2)"]), min_size=1, max_size=3),
    noise=st.lists(st.text(st.sampled_from("ab1.e-+*/%(),:=;\t #letvarinf"), max_size=12), max_size=6),
)
def test_the_lean_regex_remakes_the_groups_of_every_statement_the_full_one_took(monkeypatch, taught, noise):
    # Where the guarded regex matched, the lean one (no lookaheads, `template_match`) takes
    # the same text in every group and the same separator.
    from scalarlang.language.shapes import _TEMPLATE_BITS, _TEMPLATE_MASK, _TEMPLATES

    fresh_shapes(monkeypatch)
    lines = [line + extra for line in taught for extra in [""] * 6 + noise]
    text = "\n".join(lines) + "\n"
    try:
        items = syntax.parse_program(Source("t.sad", text)).statements._items
    except LanguageError:
        return
    numbered = [item for item in items if item.__class__ is int]
    assert numbered or noise  # (in six, a shape is learnt at each boundary, then taken)
    for item in numbered:
        template, at = _TEMPLATES[item & _TEMPLATE_MASK], item >> _TEMPLATE_BITS
        full, lean = template.regex.match(text, at), template.lean.match(text, at)
        assert full is not None and lean is not None
        assert (lean.regs, lean.lastgroup) == (full.regs, full.lastgroup)


def test_only_tokens_that_cannot_start_at_a_line_end_skip_blanks_alone():
    from scalarlang.language.shapes import _starts_no_line_end

    for pattern in ("[A-Za-z_][A-Za-z0-9_]*", r"\*", r"let(?![A-Za-z0-9_])", r"(?:[0-9]+|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"):
        assert _starts_no_line_end(pattern), pattern
    for pattern in (r"\r?\n", "[^a]", "a*", r"\s+", "(?s).", r"\x0a", "x?", "$", "("):
        assert not _starts_no_line_end(pattern), pattern
