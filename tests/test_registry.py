"""The registries of built-in callables (interpreter/library/registry.py): one entry per value function
and per statement-like call is all a new built-in needs. The highlighter, the REPL's completion
and `:help`, and the reserved names read them; an entry added here (and nowhere else) is
called, checked, reserved, completed and listed."""

from __future__ import annotations

import io
import re

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from pygments.token import Name

from sessions import failure, run
from scalarlang.engine.numbers import format_number
from scalarlang.front import highlight
from scalarlang.front.editing import SadCompleter
from scalarlang.front.highlight import SadLexer
from scalarlang.front.repl_core import ReplCore
from scalarlang.interpreter.library import node_functions, registry
from scalarlang.interpreter.outcomes import Failed, Printed
from scalarlang.interpreter.library.registry import STATEMENT_FUNCTIONS, TEXT, VALUE, VALUE_FUNCTIONS, arity
from scalarlang.render.text import Renderer, make_console


def completions(text: str) -> dict[str, str]:
    completer = SadCompleter(lambda: [])
    found = completer.get_completions(Document(text, len(text)), CompleteEvent(completion_requested=True))
    return {completion.text: completion.display_meta_text for completion in found}


def help_text() -> str:
    stream = io.StringIO()
    ReplCore(Renderer(make_console(stream, width=200, color="never"))).handle(":help")
    return stream.getvalue()


# ---- every reader of names reads the registries ------------------------------------------------


def test_the_highlighter_marks_exactly_the_registered_names_as_built_ins():
    names = [*VALUE_FUNCTIONS, *STATEMENT_FUNCTIONS]
    assert set(highlight.BUILTINS) == set(names) == set(registry.builtin_names())
    lexer = SadLexer()
    for name in names:
        assert [token for token, _ in lexer.get_tokens(f"{name}(x)")][0] is Name.Builtin, name
    assert [token for token, _ in lexer.get_tokens("expo(x)")][0] is Name


def test_completion_help_and_reserved_names_cover_every_entry():
    offered = completions("")
    text = help_text()
    for name, entry in [*VALUE_FUNCTIONS.items(), *STATEMENT_FUNCTIONS.items()]:
        assert offered[name] == ("function" if name in VALUE_FUNCTIONS else "statement")
        for form in entry.usage:
            assert form in text
        assert entry.summary in text
        assert failure(f"let {name} = 1").kind == "reserved-name"


@pytest.fixture
def new_builtins(monkeypatch):
    """`twice(X)`, a value function, and `note(X, title: "…", times: N)`, a statement-like call
    with named options: two entries, nothing else."""

    def compile_note(run, statement, call):
        value_of = run.compiler.number(call.args[0])
        options = {keyword.name: keyword.value for keyword in call.keywords}
        title_of = run.compiler.text(options["title"]) if "title" in options else (lambda args: "note")
        times_of = run.compiler.number(options["times"]) if "times" in options else (lambda args: 1.0)

        def note(show):
            run.emit(Printed(statement.span, f"{title_of(None)}: {value_of(None) * times_of(None)}"))

        return note

    twice = registry.ValueFunction(
        "twice", arity(1), node_functions.engine_unary(lambda node: node + node), "twice(X)", "X + X, one node",
        "functions", (registry.NODE,),  # (its argument a node: the registry checks it)
    )
    note = registry.StatementCall(
        "note", arity(1), compile_note, 'note(X[, title: "T"][, times: N])', "prints X times N under a title",
        "notes", options={"title": TEXT, "times": VALUE},
    )
    monkeypatch.setitem(VALUE_FUNCTIONS, "twice", twice)
    monkeypatch.setitem(STATEMENT_FUNCTIONS, "note", note)


def test_a_new_value_function_is_only_its_entry(new_builtins):
    outcomes = run("let x = var 3\nlet y = twice(x)\nbackward(y)\nprint y, grad(x)")
    assert outcomes[-1].text == f"{format_number(6.0)} {format_number(2.0)}"
    assert failure("twice(1, 2)").message == "`twice` takes 1 argument, got 2"
    assert failure('twice("a")').message == '`"a"` is a text of 1 character, not a node'
    assert failure("let twice = 1").kind == "reserved-name"
    assert completions("twi") == {"twice": "function"}
    assert "twice(X)" in help_text() and "X + X, one node" in help_text()


def test_a_new_statement_with_named_options_is_only_its_entry(new_builtins):
    outcomes = run('note(2, times: 3, title: "six")\nnote(1)')
    assert [outcome.text for outcome in outcomes] == ["six: 6.0", "note: 1.0"]
    unknown = failure("note(1, tim: 2)")
    assert unknown.message == "`note` has no argument named `tim`"
    assert unknown.notes == ("help: did you mean `times`?", "note: note's named arguments are `title:` and `times:`")
    assert failure("note(1, times: 2, times: 3)").message == "`times:` is given twice"
    assert failure("note(1, title: 2)").message == "`title:` of `note` is a text (in quotes, or a name holding one)"
    assert failure("let z = note(1)").kind == "unknown-function"  # a statement gives no value
    # who takes named arguments is read from the registry too
    message = failure("exp(1, base: 2)").message
    assert "only `gradcheck` (`step:`, `tolerance:`), " in message
    assert message.endswith(" and `note` (`title:`, `times:`) do")
    assert completions("not") == {"note": "statement"}
    text = help_text()
    assert 'note(X[, title: "T"][, times: N])' in text and "prints X times N under a title" in text


def test_reserved_names_are_exactly_the_registered_names():
    for name in ["exp", "backward", "read_table", "random_seed"]:
        assert registry.is_reserved(name)
        assert failure(f"fn f({name}) = 1").kind == "reserved-name"
    assert not registry.is_reserved("loss")
    assert not any(isinstance(outcome, Failed) for outcome in run("let loss = 1\nfn f(x) = x"))


def test_a_text_argument_and_a_wrong_count_say_what_the_entry_takes():
    assert failure("read_table(1)").message == '`read_table` takes a file name, a text: read_table("data.csv") or read_table(path)'
    assert failure('draw("x")').message.startswith("`draw` takes an expression and, optionally, a file name")
    assert failure("let x = var 1\ndraw(x, x)").kind == "not-a-text"  # (a name may hold a text)
    assert failure("let x = var 1\ndraw(x, -x)").kind == "not-a-text"  # (computed: known when it runs)
    assert failure("let x = var 1\ndraw(x, -2)").kind == "wrong-arguments"  # (a number written there)
    assert failure("gradcheck(1)").message == "`gradcheck` takes 2 or more arguments, got 1"
    assert failure("backward()").message == "`backward` takes 1 or 2 arguments, got 0"


def test_a_wrong_count_of_arguments_shows_how_the_built_in_is_called():
    # (The message says how many; the note, from the entry as `:help` shows it, how.)
    assert failure("let x = var 1\ngradcheck(x * x)").notes == (
        "help: `gradcheck(OUT, X, Y, …[, step: S][, tolerance: T])` or `gradcheck(OUT, X, STEP, TOLERANCE)`:"
        " each variable's pass adjoint against a central difference",
    )
    assert failure("exp(1, 2)").notes == ("help: `exp(X)`: e to the power X",)
    for entry in [*STATEMENT_FUNCTIONS.values(), *VALUE_FUNCTIONS.values()]:
        if not entry.arity.accepts(9):
            notes = failure(f"{entry.name}({', '.join(['1'] * 9)})").notes
            assert notes == (f"help: {' or '.join(f'`{form}`' for form in entry.usage)}: {entry.summary}",), entry.name


def test_the_hints_call_only_built_ins():
    """The `.sad` forms the hints suggest (language/hints.py, which cannot read the registry:
    it is below it) call built-ins that exist; a renamed built-in fails here, not silently."""
    from pathlib import Path

    from scalarlang.language.lexicon import KEYWORDS

    source = (Path(registry.__file__).resolve().parents[2] / "language" / "hints.py").read_text(encoding="utf-8")
    called = set(re.findall(r"`([a-z_]+)\(", source))
    python_names = {"f", "ord", "range", "str", "derivative", "diff"}  # (what a hint is about, or defines)
    assert called - python_names - set(KEYWORDS) <= set(registry.builtin_names())
    assert called & set(registry.builtin_names())


def test_a_session_is_handed_its_library():
    """The interpreter's core reads built-ins only from the library it was handed: a session
    given one more entry has it, another session does not, and the shared tables are untouched."""
    from scalarlang.interpreter import Interpreter
    from scalarlang.language.source import Source

    twice = registry.ValueFunction(
        "twice", arity(1), node_functions.engine_unary(lambda node: node + node), "twice(X)", "X + X, one node",
        "functions", (registry.NODE,),
    )
    library = registry.Library({**VALUE_FUNCTIONS, "twice": twice}, STATEMENT_FUNCTIONS)
    handed = list(Interpreter(library).run(Source("<test>", "print twice(3)\nlet twice = 1")))
    assert [type(outcome).__name__ for outcome in handed] == ["Printed", "Failed"]
    assert handed[0].text == format_number(6.0) and handed[1].diagnostic.kind == "reserved-name"
    plain = list(Interpreter().run(Source("<test>", "print twice(3)")))
    assert plain[-1].diagnostic.kind == "unknown-function" and "twice" not in VALUE_FUNCTIONS


@pytest.mark.parametrize("call", ["sum(L)", "mean(L)", "dot(L, L)", "softmax(L)", "argmax(L)", "decode(L, \"ab\")"])
def test_a_list_of_nodes_is_checked_with_one_wording_whatever_the_family(call):
    """The registry's check of a list of nodes (library/arguments.py) says the same of the same
    mistake in every family: an item that is a list, then (where one is needed) an empty list."""
    name = call.split("(")[0]
    error = failure(f"let L = [1, [2, 3]]\nlet q = {call}")
    assert (error.kind, error.message) == ("not-a-node", "`L[1]` is a list of 2, not a node")
    assert error.notes == (
        f"help: `{name}` takes a list of values: of one row, `{name}(L[0])`; of every row, `[{name}(row) for row in L]`",
    )
    if name in ("sum", "mean", "softmax"):
        empty = failure(f"let L = []\nlet q = {call}")
        assert (empty.kind, empty.message) == ("wrong-arguments", f"`{name}` of an empty list: it has no terms")
