"""Lists in the language: the limits and errors a learner meets, each from a case that once
went wrong (a fold blamed the wrong list; nested comprehensions had no bound; `:graph` of a
list said the name was not defined). A function nesting comprehensions, or calling itself
through a list: test_functions.py; a `draw` under `expect`: test_expect.py."""

from __future__ import annotations

import io

import pytest

import scalarlang
from scalarlang.engine import normal
from sessions import error_of
from scalarlang.front.repl_core import ReplCore
from scalarlang.render.text import Renderer, make_console


def test_a_fold_names_the_item_that_is_not_a_node():
    error = error_of("mean([1, [2]])")
    assert error.kind == "not-a-node"
    assert error.message == "`[1, [2]][1]` is a list of 1, not a node"
    error = error_of("dot([1, 2], [3, [4]])")
    assert error.message == "`[3, [4]][1]` is a list of 1, not a node"
    assert (error.span.column, error.span.end_column) == (13, 21)  # the second argument


@pytest.mark.parametrize(
    "program, item",
    [("let ws = [1, 2]\ntanh(ws)", "ws[0]"), ("let ws = [1, 2]\ntanh(ws + ws)", "(ws + ws)[0]"),
     ("tanh([1, 2])", "[1, 2][0]"), ("fn f(p) = [p]\ntanh(f(1))", "f(1)[0]")],
)
def test_the_help_of_a_list_for_a_node_indexes_the_whole_list(program, item):
    # `ws + ws[0]` would index the second ws: the help wrote its `{text}[0]` without parentheses.
    error = error_of(program)
    assert error.kind == "not-a-node"
    assert error.notes[-1].startswith(f"help: `tanh` takes a node: one item (`{item}`) or a fold of the list (`sum(")


@pytest.mark.slow  # a stress test: a million comprehension iterations, about five seconds
def test_nested_comprehensions_have_one_bound_for_the_statement():
    error = error_of("let a = [[0 for i in 0..1000000] for j in 0..1000000]")
    assert error.kind == "too-long" and error.fields["limit"] == 1_000_000
    ok = scalarlang.run("let a = [[0 for i in 0..1000] for j in 0..999]\nprint len(a)")
    assert ok.error is None and ok.text.strip() == "999"
    # the bound is per statement: a loop of smaller statements runs
    loop = scalarlang.run("for k in 0..2 { let a = [1 for i in 0..510000] }\nprint len(a)")
    assert loop.error is None and loop.text.strip() == "510000"


def test_the_repl_graph_of_a_list_says_it_is_a_list():
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    core.handle("let W = [[var 1, var 2], [var 3, var 4]]")
    core.handle(":graph W")
    said = stream.getvalue()
    assert "`W` is a list (2 × 2 variables)" in said and "graph(W[0])" in said


def test_python_habits_with_lists_get_the_sad_form():
    notes = error_of("let ws = [1]\nws[0] = 2").notes
    assert any("lists never change" in note for note in notes)
    notes = error_of("[1, 2].append(3)").notes
    assert any("L + [item]" in note for note in notes)
    notes = error_of("let d = np.dot(a, b)").notes
    assert notes == ("help: `.sad` has no modules: the built-in is `dot(a, b)`",)
    notes = error_of("random.shuffle(words)").notes
    assert notes == ("help: `.sad` has no modules: the built-in is `let L = shuffle(L)`: a new list, L's items in "
                     "random.shuffle's order (the session's generator)",)
    notes = error_of("let xs = [i for i in range(3)]").notes
    assert notes[0] == "help: count with a range: `0..3` (the end not included), as in `for i in 0..3`"


@pytest.mark.parametrize("seed", [0, 42, 1337])
def test_shuffle_puts_the_items_where_pythons_random_shuffle_does(seed):
    """makemore's split is `random.seed(42); random.shuffle(words)`: `random_seed(42)` and
    `shuffle(words)` give the same order; the draws are the session's (a gauss after it is
    Python's next gauss), the list shuffled is unchanged, and its nodes are the same nodes."""
    import random

    session = scalarlang.Session()
    program = (
        f"random_seed({seed})\nlet L = [i * 1 for i in 0..40]\nlet M = shuffle(L)\n"
        'let T = shuffle(["ann", "bo", [1, 2], "cy"])\nlet g = gauss(0, 1)\n'
        "let w = [var 1, var 2, var 3]\nlet s = shuffle(w)\nlet loss = s[0] * 10 + s[1] * 100 + s[2] * 1000\nbackward(loss)\n"
    )
    result = session.run(program)
    assert result.ok, result.text
    python = random.Random(seed)
    expected = list(range(40))
    python.shuffle(expected)
    assert [node.value for node in session["M"]] == expected
    assert [node.value for node in session["L"]] == list(range(40))
    texts = ["ann", "bo", [1.0, 2.0], "cy"]
    python.shuffle(texts)
    shown = [item if isinstance(item, str) else [node.value for node in item] for item in session["T"]]
    assert shown == texts and session["g"].value == normal.gauss(python, 0, 1)
    order = [0, 1, 2]
    python.shuffle(order)
    assert [node.gradient for node in session["w"]] == [[10.0, 100.0, 1000.0][order.index(at)] for at in range(3)]
