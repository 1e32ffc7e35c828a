"""`expect KIND: …`: how it parses, which kinds it accepts and what it says of a kind it does
not know (issue 26: the synonyms a new user wrote), what it catches and that a caught failure
changes nothing, and every runtime kind caught once. A feature's own errors under `expect` are
tested with the feature (test_descend.py, test_drawing_language.py, test_logits_errors.py, …)."""

from __future__ import annotations

import pytest

import scalarlang
from sessions import failure, only, printed, run_ok, shown, state
from shared import SEED_PROGRAM, caret_text, error, expr, parse, sexp
from scalarlang.interpreter.failures import KIND_SYNONYMS
from scalarlang.interpreter.failures import RUNTIME_KINDS
from scalarlang.interpreter.library.registry import VALUE_FUNCTIONS
from scalarlang.interpreter.outcomes import Expected
from scalarlang.language.parser import MAX_NESTING
from scalarlang.language.tree import Expect, Let

# ---- parsing ----------------------------------------------------------------------------------


def test_expect_nests_any_statement():
    text = "expect expectation-failed: expect no-gradient: let g = grad(c)"
    (outer,) = parse(text).statements
    assert isinstance(outer, Expect) and outer.kind == "expectation-failed"
    assert text[outer.kind_span.start : outer.kind_span.end] == "expectation-failed"
    inner = outer.statement
    assert isinstance(inner, Expect) and inner.kind == "no-gradient"
    assert isinstance(inner.statement, Let) and inner.statement.name == "g"


def test_expect_kind_is_only_kebab_case_after_expect():
    (statement,) = parse("expect non-finite-seed: backward(loss, inf)").statements
    assert statement.kind == "non-finite-seed"
    # elsewhere `a-b` is a subtraction
    assert sexp(expr("non-finite")) == "(- non finite)"


def test_expect_nesting_is_limited():
    parse("expect a: " * MAX_NESTING + "x")
    assert error("expect a: " * (MAX_NESTING + 1) + "x").kind == "too-deep"


def test_expect_with_a_colon_still_parses_around_named_arguments():
    (statement,) = parse("expect wrong-arguments: f(x: 1)").statements
    assert isinstance(statement, Expect)
    assert statement.statement.expr.keywords[0].name == "x"


# ---- kinds: synonyms and misspellings -----------------------------------------------------------


@pytest.mark.parametrize(("written", "meant"), [("division-by-zero", "non-finite-result"), ("index-error", "index-out-of-range")])
def test_expect_of_a_common_synonym_suggests_the_kind(written, meant):
    error = scalarlang.run(f"expect {written}: 1 / 0").error
    assert error.kind == "expectation-failed"
    assert error.notes == (f"help: did you mean `{meant}`? (`{written}` is not a kind of `.sad`)",)


def test_expect_of_a_misspelt_kind_suggests_the_closest():
    assert scalarlang.run("expect no-gradeint: grad(const 1)").error.notes == ("help: did you mean `no-gradient`?",)


def test_every_synonym_names_a_real_kind():
    assert set(KIND_SYNONYMS.values()) <= RUNTIME_KINDS
    assert not set(KIND_SYNONYMS) & RUNTIME_KINDS


# ---- running: what expect catches, what it leaves ----------------------------------------------


def test_expect_sees_its_error_and_the_program_goes_on():
    session, outcomes = run_ok("let x = var 2\nexpect no-gradient: grad(const 1)\nlet y = x")
    expected = only(outcomes, Expected)
    assert expected.kind == "no-gradient"
    assert expected.message == "`const 1` is untracked (constant) and has no gradient"
    assert session.lookup("y") is not None


@pytest.mark.parametrize(
    "statement",
    [
        "let x = x / 0",
        "let y = x / 0",
        "backward(loss, inf)",
        "print \"{x / 0}\"",
        "x / 0",
        "assert x / 0 == 1",
        "zero_grad(x / 0)",
        "graph(x / 0)",
    ],
)
def test_expect_of_a_failing_statement_leaves_state_as_before(statement):
    kind = "non-finite-seed" if "inf" in statement else "non-finite-result"
    session, _ = run_ok(SEED_PROGRAM + "backward(loss)")
    before = state(session)
    _, outcomes = run_ok(f"expect {kind}: {statement}", session)
    assert only(outcomes, Expected).kind == kind
    assert state(session) == before


@pytest.mark.parametrize(
    "statement", ["let x = var 9", "let fresh = x", "backward(loss)", "zero_grad", "zero_grad(loss)", "loss", "graph(loss)"]
)
def test_expect_of_a_succeeding_statement_fails_and_applies_nothing(statement):
    session, _ = run_ok(SEED_PROGRAM + "backward(loss)")
    before = state(session)
    diagnostic = failure(f"expect no-gradient: {statement}", session)
    assert diagnostic.kind == "expectation-failed"
    assert diagnostic.message == "expected no-gradient, but the statement succeeded"
    assert diagnostic.fields == {"expected": "no-gradient", "actual": None}
    assert caret_text(diagnostic) == statement
    assert state(session) == before


@pytest.mark.parametrize("statement", ["backward(loss)", "zero_grad(loss)", "let T = var tensor([1, 2])"])
def test_expect_puts_back_the_gradients_and_names_of_tensors(statement):
    # `state` compares a tensor's gradient element by element, bit for bit (it once packed the
    # tuple as one number: struct.error), and a name bound to a tensor by identity.
    session, _ = run_ok("let T = var tensor([1, -2])\nlet loss = sum(T * T)\nbackward(loss)\n")
    before = state(session)
    run_ok(f"expect assertion-failed: repeat 1 {{\n  {statement}\n  assert 1 == 2\n}}", session)
    assert state(session) == before
    run_ok(f"{statement}\n", session)
    assert state(session) != before


def test_expect_of_the_wrong_kind_reports_the_actual_one():
    diagnostic = failure("expect no-gradient: lose + 1")
    assert diagnostic.kind == "expectation-failed"
    assert diagnostic.fields == {"expected": "no-gradient", "actual": "undefined-name"}
    assert "failed with undefined-name: `lose` is not defined" in diagnostic.message
    assert caret_text(diagnostic) == "lose"


def test_expect_of_an_unknown_kind_suggests_a_close_one():
    diagnostic = failure("let x = var 2\nexpect non-finte-seed: x")
    assert diagnostic.kind == "expectation-failed"
    assert caret_text(diagnostic) == "non-finte-seed"
    assert diagnostic.notes == ("help: did you mean `non-finite-seed`?",)


@pytest.mark.parametrize("kind", ["syntax-error", "too-deep", "internal-error"])
def test_expect_cannot_catch_program_kinds(kind):
    assert kind not in RUNTIME_KINDS
    diagnostic = failure(f"expect {kind}: 1")
    assert diagnostic.kind == "expectation-failed"


def test_expect_catches_a_file_a_running_program_cannot_read(tmp_path):
    # A program that cannot be read never runs; a file `read_table` cannot read is a runtime
    # io-error like any other.
    assert "io-error" in RUNTIME_KINDS
    missing = tmp_path / "missing.csv"
    _, outcomes = run_ok(f'expect io-error: let t = read_table("{missing}")')
    assert only(outcomes, Expected).kind == "io-error"
    diagnostic = failure("expect io-error: 1")
    assert diagnostic.kind == "expectation-failed"


def test_nested_expect():
    _, outcomes = run_ok("expect expectation-failed: expect no-gradient: 1")
    assert only(outcomes, Expected).kind == "expectation-failed"
    diagnostic = failure("expect undefined-name: expect undefined-name: q")
    assert diagnostic.message == "expected undefined-name, but the statement succeeded"


def test_expect_inside_a_loop_shows_nothing_but_checks():
    session, outcomes = run_ok("repeat 3 { expect undefined-name: nope }\nexpect undefined-name: nope")
    assert [type(outcome) for outcome in outcomes] == [Expected]
    assert failure("repeat 3 { expect undefined-name: 1 }").kind == "expectation-failed"


def test_expect_of_a_loop_undoes_it_all():
    session, outcomes = run_ok(
        "let x = var 1\nexpect assertion-failed: repeat 5 { let x = x + 1\n backward(x)\n assert x < 4 }\nprint x, grad(x)"
    )
    assert printed(outcomes) == ["1 0"]


def test_expect_catches_a_draw_that_cannot_write(tmp_path):
    target = tmp_path / "missing" / "g.svg"
    result = scalarlang.run(f'let x = var 2\nexpect io-error: draw(x * x, "{target}")\nprint "after"')
    assert result.error is None, result.text
    assert "expected io-error" in result.text and result.text.rstrip().endswith("after")


# ---- every runtime kind ---------------------------------------------------------------------------


def test_expect_every_runtime_kind_of_the_errors_example(tmp_path):
    # One statement per kind the language can fail with at run time.
    bad_table = tmp_path / "bad.csv"
    bad_table.write_text("x,y\n1,2\n3\n", encoding="utf-8")
    programs = {
        "non-finite-leaf": "var inf",
        "non-finite-result": "exp(var 1000)",
        "non-finite-derivative": "(var 1) / 1e-200",
        "untracked-output": "backward(const 3)",
        "non-finite-seed": "backward(x, nan)",
        "non-finite-contribution": "backward(x * 1e10, 1e300)",
        "non-finite-pass-adjoint": "backward(x + x, 1e308)",
        "non-finite-accumulated-gradient": "backward(big)",
        "invalid-gradcheck-step": "gradcheck(x, x, 0, 1)",
        "invalid-gradcheck-tolerance": "gradcheck(x, x, 1, 0)",
        "non-finite-gradcheck-value": "gradcheck(x * x, x, 1e200, 1)",
        "undefined-name": "nope",
        "unknown-function": "sqr(x)",
        "wrong-arguments": "exp()",
        "no-gradient": "grad(3)",
        "not-a-variable": "gradcheck(x, 3)",
        "assertion-failed": "assert 1 == 2",
        "expectation-failed": "expect no-gradient: 1",
        "gradcheck-failed": "gradcheck(exp(x * 3), x, 0.5, 1e-9)",
    }
    programs.update({
        "reserved-name": "let exp = 1",
        "not-a-count": "repeat 0.5 { }",
        "too-long": "repeat 2000000 { }",
        "tracked-exponent": "x ** x",
        "table-width": "for a, b in [1] { }",
        "not-a-node": "tanh(a_list)",
        "not-a-list": "for a in x { }",
        "not-an-index": "a_list[0.5]",
        "index-out-of-range": "a_list[1]",
        "bad-table": f'let t = read_table("{bad_table}")',
        "io-error": f'let t = read_table("{tmp_path / "missing.csv"}")',
        "bad-probabilities": "sample([0.5, 0.6])",
    })
    programs["not-a-value"] = "let y = x + f"  # a function used as a value
    programs["unknown-picture-format"] = 'draw(x, "x.pdf")'
    programs["graph-too-large"] = "draw(long)"
    programs["too-many-paths"] = "paths(doubled, x)"  # 2^10 = 1,024 paths
    bad_text = tmp_path / "bad.txt"
    bad_text.write_bytes(b"caf\xe9\n")  # Latin-1, not UTF-8
    programs["not-a-text"] = 'join(["a", 1])'
    programs["bad-text"] = f'let t = read_text("{bad_text}")'
    programs["not-in-vocabulary"] = 'encode("abc", "ab")'
    programs.update({
        "empty-series": "plot([])",
        "length-mismatch": "plot([1, 2], [1, 2, 3])",
        "label-count": 'plot([[1], [2]], labels: ["one"])',
        "log-non-positive": "plot([1, 0], log: 1)",
        "range-too-wide": "plot([-1e308, 1e308])",
        "grid-out-of-range": "boundary(g, [[0, 0, 1]], grid: 1000)",
        "no-points": "boundary(g, [])",
        "point-shape": "boundary(g, [[0, 0]])",
    })
    programs.update({  # tensors
        "shape-mismatch": "C @ tensor([1, 2, 3])",
        "bad-shape": "tensor([[1, 2], [3]])",
        "invalid-shape": "zeros(0)",
        "reshape-mismatch": "reshape(C, 3)",
        "axis-out-of-range": "sum(C, axis: 2)",
        "non-whole-index": "C[tensor([0.5])]",
        "non-finite-tensor-leaf": "descend T by -4e308",
        "non-finite-tensor-result": "exp(tensor([1000]))",
        "non-finite-tensor-derivative": "sqrt(var tensor([0]))",
        "non-finite-tensor-adjoint": "backward(sum(Tb * 1e300), 1e300)",
        "non-finite-accumulated-tensor-gradient": "backward(big_tensor)",
        "not-a-tensor": "shape(x)",
        "tensor-graph": "paths(big_tensor, Tb)",
        "no-tensor-vjp": "vjp_check(x * x)",
        # (softmax's two sides differ in the last bits: a tolerance of the smallest float)
        "vjp-check-failed": "vjp_check(sum(softmax(S) * tensor([1.5, -0.3, 2.2, 0.7])), tolerance: 5e-324)",
    })
    programs.update({  # forward mode
        "direction-length-mismatch": "jvp(x * x, [x, a], [1])",
        "non-finite-tangent": "jvp(x * 1e300, x, 1e300)",
    })
    if "tensor" in VALUE_FUNCTIONS:  # (tensors in the language: a tensor in a forward pass's graph)
        programs["tensor-in-forward-mode"] = "jvp(sum(tensor([1, 2])) * x, x)"
    # (a chart too wide for the text: tests/test_plots.py, at a narrow width)
    # Whether Graphviz is there, and works, depends on the machine (tests/test_drawing_language.py).
    graphviz = {"missing-graphviz", "graphviz-failed"}
    # (running out of memory needs a process under a memory limit: tests/test_resource_limits.py;
    # here, test_expect_catches_running_out_of_memory_and_undoes_the_statement)
    missing = RUNTIME_KINDS - set(programs) - {"non-finite-gradcheck-input", "chart-too-small", "out-of-memory"} - graphviz
    if "tensor" not in VALUE_FUNCTIONS:
        missing -= {"tensor-in-forward-mode"}
    assert not missing
    lines = ["let x = var 1", "let a = var 1", "let big = a * 1e308", "backward(big)", "let a_list = [1]", "fn f(p) = p", "fn g(p, q) = p - q"]
    lines += ["let long = x", "repeat 600 { let long = long + 1 }"]
    lines += ["let doubled = x", "repeat 10 { let doubled = doubled + doubled }"]
    lines += ["let C = tensor([[1, 2], [3, 4]])", "let T = var tensor([1e308])", "backward(sum(T * 0.5))"]
    lines += ["let Tb = var tensor([1])", "let big_tensor = sum(Tb * 1e308)", "backward(big_tensor)"]
    lines += ["let S = var tensor([[1.4, 1.0, -0.3, -1.0], [0.0, -0.4, 1.1, -0.8]])"]
    lines += [f"expect {kind}: {statement}" for kind, statement in programs.items()]
    _, outcomes = run_ok("\n".join(lines))
    assert [outcome.kind for outcome in shown(outcomes, Expected)] == list(programs)


def test_new_kinds_are_runtime_kinds_expect_can_catch(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1,2\n3,oops\n", encoding="utf-8")
    programs = {
        "reserved-name": "let exp = 1",
        "not-a-count": "repeat -1 { }",
        "too-long": "repeat 2000000 { }",
        "tracked-exponent": "x ** x",
        "not-a-value": "let y = f",
        "not-a-list": "for a in x { }",
        "table-width": "for a, b in [1] { }",
        "not-a-node": "tanh([x])",
        "not-an-index": "[1, 2][0.5]",
        "index-out-of-range": "[1, 2][2]",
        "bad-table": f'let t = read_table("{bad}")',
        "io-error": f'let t = read_table("{tmp_path / "missing.csv"}")',
    }
    assert set(programs) <= RUNTIME_KINDS
    lines = ["let x = var 2", "fn f(a) = a"] + [f"expect {kind}: {statement}" for kind, statement in programs.items()]
    session, outcomes = run_ok("\n".join(lines))
    assert [outcome.kind for outcome in shown(outcomes, Expected)] == list(programs)
    assert session.lookup("t") is None and "a" not in session.values


# ---- running out of memory --------------------------------------------------------------------


def _memory_runs_out_at_the_third_pass(monkeypatch):
    """Patched: a real shortage needs a process under a memory limit (test_resource_limits.py
    has it); here the third pass a statement commits raises MemoryError, after two that
    changed gradients."""
    from scalarlang.interpreter.state import SessionState

    real = SessionState.commit
    calls = []

    def commit(self, backward_pass, output):
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError
        return real(self, backward_pass, output)

    monkeypatch.setattr(SessionState, "commit", commit)
    return calls


def test_expect_catches_running_out_of_memory_and_undoes_the_statement(monkeypatch):
    from scalarlang.interpreter import failures

    session, _ = run_ok("let x = var 2\nlet w = var 3\nbackward(x * w)\nlet L = [x]")
    before = state(session)
    calls = _memory_runs_out_at_the_third_pass(monkeypatch)
    _, outcomes = run_ok("expect out-of-memory: repeat 5 { backward(x * w)\nlet w = w * 2\nlet L = L + [w] }\n"
                         "print \"{grad(x)} {w} {len(L)}\"", session)
    (caught,) = shown(outcomes, Expected)
    assert caught.kind == "out-of-memory" and caught.message == "the memory ran out while this statement ran"
    assert len(calls) == 3 and printed(outcomes) == ["3 3 1"]
    assert state(session) == before  # names, and every stored gradient's bits
    assert failures._reserve and len(failures._reserve[0]) == failures.RESERVE_BYTES  # taken again
    # another kind expected: the statement's failure was out-of-memory
    calls.clear()
    assert failure("expect too-long: repeat 5 { backward(x * w) }", session).message.startswith(
        "expected too-long, but the statement failed with out-of-memory: the memory ran out")
    assert state(session) == before


def test_memory_still_short_after_the_undo_is_not_caught(monkeypatch):
    # Patched: the reserve cannot be taken again (the memory is short beyond the statement):
    # the run stops with out-of-memory, as without `expect`.
    from scalarlang.interpreter import control

    session, _ = run_ok("let x = var 2\nlet w = var 3")
    before = state(session)
    _memory_runs_out_at_the_third_pass(monkeypatch)
    monkeypatch.setattr(control, "keep_reserve", lambda: False)
    diagnostic = failure("expect out-of-memory: repeat 5 { backward(x * w) }", session)
    assert diagnostic.kind == "out-of-memory" and state(session) == before
