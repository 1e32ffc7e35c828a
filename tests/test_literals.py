"""Number literals beyond what a float holds (issue 12): one too large is inf, and the error it
leads to says so; one so small that it would be 0 is a syntax error that says so."""

from __future__ import annotations

import pytest

from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Failed
from scalarlang.language.source import Source


def failure_of(text: str) -> Failed:
    outcomes = list(Interpreter().run(Source("literals.sad", text)))
    failed = [outcome for outcome in outcomes if isinstance(outcome, Failed)]
    assert len(failed) == 1, outcomes
    return failed[0]


@pytest.mark.parametrize(
    "text, kind, literal",
    [
        ("let x = var 1e400", "non-finite-leaf", "1e400"),
        ("let x = const -1e400", "non-finite-leaf", "1e400"),
        ("let y = 1e400 * 2", "non-finite-leaf", "1e400"),
        ("let x = var 2\nbackward(x, 1e309)", "non-finite-seed", "1e309"),
        ("let x = var 1" + "0" * 400, "non-finite-leaf", "1" + "0" * 28 + "…"),  # cut
    ],
)
def test_an_overflowing_literal_is_named_in_the_error(text, kind, literal):
    diagnostic = failure_of(text).diagnostic
    assert diagnostic.kind == kind
    assert diagnostic.notes == (f"note: `{literal}` is beyond the range of a float (about 1.8e308), so it is inf",)


@pytest.mark.parametrize("text", ["let x = var inf", "let x = var 2\nbackward(x, inf)", "let y = var 2 / 0"])
def test_inf_written_as_a_word_or_made_by_arithmetic_gets_no_such_note(text):
    assert failure_of(text).diagnostic.notes == ()


@pytest.mark.parametrize(
    "text, literal, column",
    [
        ("let x = var 1e-400", "1e-400", 13),
        ("let x = 2 * 1.5E-999", "1.5E-999", 13),
        ("let t = [(1e-500, 2)]", "1e-500", 11),
        ("for a in [0, -1e-400] { }", "1e-400", 15),
    ],
)
def test_an_underflowing_literal_is_a_syntax_error(text, literal, column):
    diagnostic = failure_of(text).diagnostic
    assert diagnostic.kind == "syntax-error"
    assert diagnostic.message == (
        f"the number `{literal}` is too small for a float: it would be 0 (the smallest positive float is about 4.9e-324)"
    )
    assert (diagnostic.span.line, diagnostic.span.column) == (1, column)


@pytest.mark.parametrize("text", ["let x = var 0", "let x = var 0.000", "let x = var 0e5", "let x = var .0e-999", "let x = var 5e-324"])
def test_zeros_and_the_smallest_subnormal_are_fine(text):
    assert not any(isinstance(outcome, Failed) for outcome in Interpreter().run(Source("ok.sad", text)))
