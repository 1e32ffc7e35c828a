"""`:load` and every atomic input do no work on graphs they do not touch (issue 35, item 4), and
the undo journal that made them do it still puts back every gradient an input changed.

A REPL session holding a graph of a million nodes took 3.9 s to `:load` a small training file
that took 0.24 s after `:reset`: the journal, pruning the gradients it had saved, walked every
graph the session's names held. The work is counted here as the Python calls the load makes
(`sys.setprofile`), which the size of a graph nothing walks cannot change; the times are
benchmarks/load.py's.
"""

from __future__ import annotations

import io
import sys

from scalarlang.front.repl_core import ReplCore
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Failed
from scalarlang.language.source import Source
from scalarlang.render.text import Renderer, make_console

# A bigram model of six characters: 30 steps of a pass over about 300 nodes, so the journal
# saves more gradients than it keeps unlooked-at (1,024) and prunes them several times.
BIGRAM = """\
random_seed(1)
let pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 2), (2, 4), (4, 0), (1, 3), (3, 5), (5, 1)]
let W = [[var gauss(0, 1) for j in 0..6] for i in 0..6]
fn nll(row, target) = log(sum([exp(z) for z in row])) - row[target]
for step in 0..30 {
  let loss = mean([nll(W[p[0]], p[1]) for p in pairs])
  backward(loss)
  descend W by 1
}
print "loss {loss:.6f}"
"""


def calls_of_a_load(tmp_path, deep: int) -> tuple[int, str]:
    """The Python calls (and calls of C functions) `:load` of BIGRAM makes in a REPL holding a
    tracked graph ``deep`` nodes deep that the file never names, and what it printed."""
    program = tmp_path / "bigram.sad"
    program.write_text(BIGRAM, encoding="utf-8")
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never")))
    core.handle(f":load {program}")  # once before: the parser's first use compiles its lexer
    core.handle("let big = var 0.5")
    core.handle(f"for i in 0..{deep} {{ let big = tanh(big) + 1 }}")
    core.handle("backward(big)")  # its gradients are not 0: they are the journal's to keep
    start = len(stream.getvalue())
    count = 0

    def counted(frame, event, argument):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(counted)
    try:
        core.handle(f":load {program}")
    finally:
        sys.setprofile(None)
    return count, stream.getvalue()[start:]


def test_a_load_does_the_same_work_whatever_the_size_of_a_graph_it_does_not_touch(tmp_path):
    small, shown_small = calls_of_a_load(tmp_path, 500)
    large, shown_large = calls_of_a_load(tmp_path, 20_000)
    assert shown_small == shown_large and "loaded" in shown_large and "loss 0." in shown_large
    # Before, the larger graph cost the load about 200,000 more calls than the smaller one (a
    # walk of its 40,000 nodes when the journal first pruned); now not one.
    assert abs(large - small) <= small // 100, (small, large)


def _gradients(session: Interpreter, *names: str) -> list[float | None]:
    """The stored gradient of every node in the graphs of ``names`` (interior ones too)."""
    return [node.gradient for name in names for node in session.lookup(name).topology()]


def test_a_failed_input_puts_back_every_gradient_it_changed_in_old_graphs():
    # Old graphs an input reaches only through names: interior nodes no name holds (`tanh(a)`),
    # the items of a bound list, a graph first touched after the journal has pruned, and one
    # touched again after that; then the input fails and everything must be as it was.
    session = Interpreter()
    setup = (
        "let a = var 2\nlet h = tanh(a) * 3\nlet b = var 5\nlet g = exp(b * 0.1) + h\n"
        "let W = [var 1, var 2, var 3]\nlet s = sum(W) * a\nbackward(g)\nbackward(s)"
    )
    assert not any(isinstance(outcome, Failed) for outcome in session.run(Source("setup.sad", setup)))
    names = ("h", "g", "s")
    before = _gradients(session, *names)
    bindings = dict(session.bindings)
    program = (
        "repeat 600 { backward(h * 2) }\n"  # prunes: only h's graph is old so far
        "repeat 300 { backward(g + h) }\n"  # g's graph, first touched after the prunes
        "repeat 300 { let t = W[1] * 2\n backward(t + s) }\n"  # a list's item, and s over it
        "zero_grad(h)\nlet a = const 0\nrepeat 300 { backward(h + 1) }\n"  # a zeroed graph, `a` rebound
        "let broken = nope"
    )
    outcomes = list(session.run(Source("input.sad", program), atomic=True))
    assert isinstance(outcomes[-1], Failed) and outcomes[-1].diagnostic.kind == "undefined-name"
    assert session.bindings == bindings
    assert _gradients(session, *names) == before
    assert any(gradient for gradient in before)  # (the passes before the input wrote some)


def test_an_expect_inside_an_input_undoes_its_statement_on_old_graphs():
    # `expect`'s own journal starts from the bindings of that moment, made by the input too.
    session = Interpreter()
    list(session.run(Source("setup.sad", "let a = var 2\nlet h = tanh(a) * 3\nbackward(h)")))
    before = _gradients(session, "h")
    program = (
        "let k = h * 2\nbackward(k)\n"
        "expect undefined-name: for i in 0..600 { backward(k + h)\n if i == 599 { let x = nope } }"
    )
    outcomes = list(session.run(Source("input.sad", program), atomic=True))
    assert not any(isinstance(outcome, Failed) for outcome in outcomes)
    # `k` is `h * 2`: its pass added twice h's own to every node of h's graph (a factor 2 is
    # exact); the 600 passes inside `expect` left nothing.
    assert _gradients(session, "h") == [None if gradient is None else gradient + 2 * gradient for gradient in before]
