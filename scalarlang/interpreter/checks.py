"""Statements that check: ``assert`` and ``expect``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..engine.numbers import format_number
from ..language import tree
from ..language.diagnostics import Diagnostic, LanguageError
from . import texts
from .failures import RUNTIME_KINDS
from .operations import COMPARISONS, compared, number_of
from .outcomes import Expected
from .values import LABEL_LIMIT, cut, shorten, suggestion, text_summary

if TYPE_CHECKING:
    from .context import Running

# An inner error's message quoted by `expectation-failed` is cut to this many characters.
MESSAGE_LIMIT = 300


def compile_assert(run: Running, statement: tree.Assert):
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


def compile_expect(run: Running, statement: tree.Expect):
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
