"""Training (issue 9), the interpreter's side of docs/language.md "Functions, loops, data and
training": the spec's program, `descend`, `quiet`, echo in loops and counts, limits and the
journal of an atomic loop. Loops and `if`: test_loops.py; functions: test_functions.py;
operators and the built-ins: test_arithmetic.py; `expect`: test_expect.py."""

from __future__ import annotations

import gc

import pytest

from sessions import failure, printed, run, run_ok, shown
from shared import text_of
from scalarlang import Scalar, ScalarOperation
from scalarlang.interpreter import control, statements
from scalarlang.render.events import event_of
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.values import Made, Named
from scalarlang.interpreter.outcomes import (
    BackwardShown,
    Bound,
    Failed,
    GradcheckShown,
    GraphShown,
    Printed,
    ValueShown,
)
from scalarlang.language.source import Source

SPEC_PROGRAM = """\
# fit y = 2x + 1 by gradient descent
let data = [(1, 3), (2, 5), (3, 7), (4, 9)]
let w = var 0.5
let b = var 0
fn predict(x) = w * x + b
fn squared(e) = e ** 2
for step in 0..300 {
  let loss = const 0
  for x, y in data {
    let loss = loss + squared(predict(x) - y)
  }
  let loss = loss / len(data)
  backward(loss)
  descend w, b by 0.1
  if step % 100 == 0 { print "step {step} loss {loss}" }
}
print "w {w} b {b}"
assert value(w) == 2 within 1e-3
"""


# ---- the spec's program -----------------------------------------------------------------------


def test_the_spec_program_runs_as_written():
    session, outcomes = run_ok(SPEC_PROGRAM)
    lines = printed(outcomes)
    assert [line.split(" loss ")[0] for line in lines[:3]] == ["step 0", "step 100", "step 200"]
    assert lines[0] == "step 0 loss 25.375"
    assert lines[3].startswith("w 2.0000") and " b 0.9999" in lines[3]
    assert len(lines) == 4
    # Nothing but the prints: no tables, no binding echo from the loop.
    assert not shown(outcomes, BackwardShown) and not shown(outcomes, ValueShown)


# ---- descend -------------------------------------------------------------------------------------


def test_descend_binds_fresh_variables_and_keeps_the_old_nodes():
    session, _ = run_ok("let w = var 1\nlet b = var 2\nlet loss = w * 3 + b\nbackward(loss)")
    old_w = session.lookup("w")
    session, outcomes = run_ok("descend w, b by 0.5", session)
    w, b = session.lookup("w"), session.lookup("b")
    assert (w.value, b.value) == (1 - 0.5 * 3, 2 - 0.5 * 1)
    assert w.gradient == 0.0 and w.operation is ScalarOperation.VARIABLE and w is not old_w
    assert old_w.gradient == 3.0 and old_w.value == 1.0  # graphs that used it still do
    # At top level descend shows like `let` (echoed by the REPL only).
    assert [outcome.name for outcome in shown(outcomes, Bound)] == ["w", "b"]
    assert text_of(outcomes) == ""


def test_descend_needs_tracked_variable_leaves():
    assert failure("let x = var 1\nlet y = x * 2\ndescend y by 1").kind == "not-a-variable"
    assert failure("let c = const 1\ndescend c by 1").kind == "not-a-variable"
    assert failure("descend nope by 1").kind == "undefined-name"
    assert failure("let x = var 1\ndescend x, x by 1").kind == "syntax-error"  # the parser's


def test_descend_computes_every_value_before_rebinding_any():
    session, _ = run_ok("let a = var 1\nlet b = var 1e300\nlet loss = a + b * 1e8\nbackward(loss)")
    before = session.bindings
    diagnostic = failure("descend a, b by 1e301", session)
    assert diagnostic.kind == "non-finite-leaf" and "`b`" in diagnostic.message
    assert session.bindings == before


# ---- quiet, echo in loops, counts -------------------------------------------------------------


def test_loop_bodies_echo_nothing_but_print_graph_gradcheck():
    session, outcomes = run_ok(
        "let x = var 2\nrepeat 2 { let y = x * x\n y\n backward(y)\n graph(y)\n gradcheck(y, x)\n descend x by 0.1\n print 1 }"
    )
    kinds = [type(outcome) for outcome in outcomes]
    assert kinds == [Bound, GraphShown, GradcheckShown, Printed, GraphShown, GradcheckShown, Printed]


def test_echo_statements_in_loops_build_no_labels(monkeypatch):
    session, _ = run_ok("let x = var 2")
    calls = []
    for tag in (Made, Named):  # a label's text is made by its tag's str()
        original = tag.__str__
        # Patched: labels not built change no output, only time; a spy on str() counts them.
        monkeypatch.setattr(tag, "__str__", lambda self, original=original: calls.append(self) or original(self))
    run_ok("repeat 300 { let y = x * x + x\n backward(y)\n y }", session)
    assert calls == []
    assert session.label_of(session.lookup("y")) == "y" and calls


def test_quiet_statement_and_quiet_run():
    session, outcomes = run_ok("let x = var 2\nquiet backward(x * x)\nquiet x\nquiet print 1")
    assert [type(outcome) for outcome in outcomes] == [Bound, Printed]
    assert session.lookup("x").gradient == 4.0
    session, outcomes = run_ok("let x = var 2\nx\nbackward(x * x)\nprint 3", quiet=True)
    assert [type(outcome) for outcome in outcomes] == [Printed]


def test_counts_display_as_whole_numbers():
    session, outcomes = run_ok(
        "let t = [1, 2, 3]\nlet n = len(t)\nn\nnode_count(n + n)\nprint n, edge_count(n * n), \"{len(t)}\"\n"
        "for i in 99..100 { print \"step {i}\" }\nprint n + 1"
    )
    values = shown(outcomes, ValueShown)
    assert text_of(values).splitlines() == ["n = 3 (constant, untracked)", "node_count(n + n) = 2 (constant, untracked)"]
    assert printed(outcomes) == ["3 2 3", "step 99", "4"]
    assert event_of(values[0])["value"] == 3.0  # JSON stays a number


def test_counts_in_tables_and_pow_operation_display():
    session, outcomes = run_ok("let x = var 3\nlet t = [1, 2]\nlet y = x ** 2 * len(t)\nbackward(y)\ny\ngraph(y)")
    table = text_of(shown(outcomes, BackwardShown)).splitlines()
    assert any(line.split()[:4] == ["1", "x", "**", "2"] and "pow 2" in line for line in table)
    (count_row,) = [line.split() for line in table if line.split()[:2] == ["2", "len(t)"]]
    assert count_row[:4] == ["2", "len(t)", "constant", "2"]
    graph = text_of(shown(outcomes, GraphShown)).splitlines()
    (count_row,) = [line.split() for line in graph if line.split()[:2] == ["2", "len(t)"]]
    assert count_row[:4] == ["2", "len(t)", "constant", "2"]
    assert shown(outcomes, ValueShown)[0].node.operation == "mul"
    session, outcomes = run_ok("let x = var 3\nx ** 0.5\nx ** -1")
    assert [outcome.node.operation for outcome in shown(outcomes, ValueShown)] == ["pow 0.5", "pow -1"]
    graph = text_of(shown(run_ok("let x = var 3\ngraph(x ** 3)")[1], GraphShown))
    assert "pow 3" in graph


# ---- limits --------------------------------------------------------------------------------------


def test_too_many_iterations_fail_before_running():
    session = Interpreter()
    diagnostic = failure("let n = const 0\nrepeat 2000000 { let n = n + 1 }", session)
    assert diagnostic.kind == "too-long" and session.lookup("n").value == 0.0
    assert failure("for i in 0..1000001 { }").kind == "too-long"
    diagnostic = failure("repeat 1000000 { let a = 1\n let b = 2\n let c = 3\n let d = 4\n let e = 5\n"
                         " let f = 6\n let g = 7\n let h = 8\n let k = 9\n let l = 10\n let m = 11 }", session)
    assert diagnostic.kind == "too-long" and session.lookup("a") is None


def test_the_statement_budget_is_counted_while_running(monkeypatch):
    # Patched: the real budget takes millions of statements to reach; a small one is the same code.
    monkeypatch.setattr(control, "MAX_STATEMENTS", 1_000)
    diagnostic = failure("let n = const 0\nrepeat 40 { repeat 40 { let n = n + 1 } }")
    assert diagnostic.kind == "too-long"
    assert diagnostic.notes[0].startswith("in iteration ")


def test_an_interrupt_in_a_loop_undoes_the_whole_atomic_input(monkeypatch):
    session, _ = run_ok("let x = var 2\nlet n = const 0\nbackward(x * x)")
    before = session.bindings
    calls = {"count": 0}
    original = statements.new_leaf

    def interrupting(*leaf):
        calls["count"] += 1
        if calls["count"] == 500:
            raise KeyboardInterrupt
        return original(*leaf)

    # Patched: a Ctrl-C at `descend`'s 500th new variable exactly cannot be timed from outside.
    monkeypatch.setattr(statements, "new_leaf", interrupting)
    with pytest.raises(KeyboardInterrupt):
        run("repeat 1000 { let n = n + 1\n let loss = x * x\n backward(loss)\n descend x by 0.01 }", session, atomic=True)
    assert session.bindings == before and session.lookup("x").gradient == 4.0


def test_a_partly_consumed_run_leaves_the_collector_on():
    assert gc.isenabled()
    outcomes = Interpreter().run(Source("t.sad", "print 1\nprint 2\nprint 3"))
    assert next(outcomes).text == "1"
    assert gc.isenabled()
    outcomes.close()
    assert gc.isenabled()
    outcomes = Interpreter().run(Source("t.sad", "print 1\nrepeat 3 { print 2 }"))
    next(outcomes)
    del outcomes
    assert gc.isenabled()
    gc.disable()
    try:  # a caller that had it off keeps it off
        outcomes = Interpreter().run(Source("t.sad", "print 1\nprint 2"))
        next(outcomes)
        assert not gc.isenabled()
        list(outcomes)
        assert not gc.isenabled()
    finally:
        gc.enable()


def _atomic_loop_peak(iterations: int) -> int:
    """Peak memory of a REPL-style (atomic) run of a loop rebinding names and backpropagating."""
    import tracemalloc

    session, _ = run_ok("let w = var 1\nlet n = const 0")
    program = f"repeat {iterations} {{ let n = const 1\n let loss = w * w + n\n backward(loss) }}"
    tracemalloc.start()
    try:
        outcomes = run(program, session, atomic=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not shown(outcomes, Failed)
    assert session.lookup("w").gradient == 2.0 * iterations
    return peak


def test_the_journal_keeps_first_values_only_so_memory_stays_flat():
    # Each iteration makes 4 nodes and a pass; kept (one journal entry per iteration, every
    # label), 5,000 iterations would take several MB and grow with the count.
    small, large = _atomic_loop_peak(1_000), _atomic_loop_peak(5_000)
    assert large < 1_000_000 and large < 1.5 * small + 100_000, (small, large)


@pytest.mark.slow
def test_an_atomic_loop_of_100000_iterations_stays_small():
    assert _atomic_loop_peak(100_000) < 1_000_000


def test_the_journal_keeps_only_the_gradients_the_starting_bindings_reach():
    # An input whose loop saves more gradients than the journal keeps unlooked-at (1,024: it
    # then keeps only those the starting bindings reach, letting each iteration's graph go),
    # and then fails: every gradient and binding it started with is back.
    session, _ = run_ok("let w = var 3\nlet loss = w * w\nbackward(loss)")
    w, loss = session.lookup("w"), session.lookup("loss")
    diagnostic = failure(
        "let loss = loss * 1.0\nrepeat 1500 { let node = loss * 2.0\n backward(node) }\nlet w = nope",
        session, atomic=True,
    )
    assert diagnostic.kind == "undefined-name"
    assert (w.gradient, loss.gradient, session.lookup("loss"), session.lookup("w")) == (6.0, 1.0, loss, w)
    assert session.lookup("node") is None


def test_an_undo_interrupted_half_way_is_finished_before_the_interrupt_goes_on(monkeypatch):
    from scalarlang.interpreter import state as journal_module

    session, _ = run_ok("let w = var 3\nlet loss = w * w\nbackward(loss)")
    before = {name: (node, node.gradient) for name, node in session.bindings.items()}
    restore, calls = journal_module.restore_gradients, []

    def interrupted_once(saved):
        calls.append(len(saved))
        if len(calls) == 1:
            restore(saved[:1])  # half of it, then Ctrl-C
            raise KeyboardInterrupt
        restore(saved)

    # Patched: a Ctrl-C in the middle of the undo itself cannot be timed from outside.
    monkeypatch.setattr(journal_module, "restore_gradients", interrupted_once)
    with pytest.raises(KeyboardInterrupt):
        run("let v = var 1\nlet loss = loss * w\nbackward(loss)\nbackward(loss)\nlet w = nope", session, atomic=True)
    assert calls[:2] == [3, 3] and not any(calls[2:])  # (then the emptied journal again)
    assert {name: (node, node.gradient) for name, node in session.bindings.items()} == before


def test_untracked_output_says_how_to_make_a_variable():
    diagnostic = failure("let x = 2\nbackward(x * x)")
    assert diagnostic.kind == "untracked-output"
    assert diagnostic.notes == (
        "help: `x * x` depends on no variable: `x` is a constant; make it a variable with `let x = var 2`",
    )


def test_deep_expressions_and_function_chains_do_not_hit_the_recursion_limit():
    chain = " + ".join(["x"] * 5000)
    session, outcomes = run_ok(f"let x = var 1\nlet y = {chain}\nbackward(y)")
    assert session.lookup("x").gradient == 5000.0
    lines = ["fn f0(a) = a + 1"] + [f"fn f{i}(a) = f{i - 1}(a) + 1" for i in range(1, 120)]
    session, outcomes = run_ok("\n".join(lines) + "\nprint f119(0)")
    assert printed(outcomes) == ["120"]
    lines = ["fn f0(a) = a + 1"] + [f"fn f{i}(a) = f{i - 1}(a) + 1" for i in range(1, 600)]
    assert failure("\n".join(lines)).kind == "too-deep"


def test_pass_errors_name_their_nodes_and_numbers_read_as_everywhere_else():
    # Issue 12: indices alone make a reader count rows; name them, and where they were made.
    diagnostic = failure("let x = var 2\nlet s = x * 1e10\nlet loss = s + s\nbackward(loss, 1e300)")
    assert diagnostic.kind == "non-finite-contribution"
    assert diagnostic.notes == ("node 2 is `s`, made at 2:9 by `x * 1e10`", "node 0 is `x`, made at 1:9 by `var 2`")
    assert "upstream 2e+300" in diagnostic.message and "1e+300" not in diagnostic.message
    diagnostic = failure("let x = var 1\ngradcheck(x * x, x, 0, 1)")
    assert diagnostic.message == "gradient check step 0 must be finite and positive"
