"""The REPL: its core with plain strings, its PromptSession with a pipe input and a dummy
output (prompt_toolkit's testing guide), completion, highlighting and the history file."""

from __future__ import annotations

import io
import signal
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent, Completer
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.lexers import Lexer
from prompt_toolkit.output import DummyOutput
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String

from scalarlang.front.highlight import SadLexer, highlight_source, prompt_toolkit_style_rules
from scalarlang.interpreter.core import KEYWORDS, STATEMENT_FUNCTIONS, VALUE_FUNCTIONS
from scalarlang.render.text import Renderer, make_console
from scalarlang.front.editing import GuardedCompleter, InputCheck, ReplLexer, SadCompleter
from scalarlang.front.history import history_path, open_history
from scalarlang.front.help_topics import topic_blocks, topic_words
from scalarlang.front.repl import build_prompt_session, repl_loop
from scalarlang.front.repl_core import META_COMMANDS, ReplCore

ROOT = Path(__file__).resolve().parents[1]
SEED = ["let x = var 2", "let square = x * x", "let loss = square + square"]


def make_core(**options) -> tuple[ReplCore, io.StringIO]:
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True), **options)
    return core, stream


def run_lines(core: ReplCore, stream: io.StringIO, *lines: str) -> str:
    """Handle each line; what they printed."""
    start = len(stream.getvalue())
    for line in lines:
        assert core.handle(line) is True
    return stream.getvalue()[start:]


def gradients(core: ReplCore) -> dict[str, float | None]:
    return {name: node.gradient for name, node in core.session.bindings.items()}


# ---- the core ---------------------------------------------------------------------------------


def test_let_is_echoed_and_an_expression_shows_its_value_line():
    core, stream = make_core()
    out = run_lines(core, stream, *SEED, "square / 2")
    assert out.splitlines() == [
        "x = 2 (variable, gradient 0)",
        "square = 4 (mul, gradient 0)",
        "loss = 8 (add, gradient 0)",
        "square / 2 = 2 (div, gradient 0)",
    ]


def test_backward_prints_the_same_tables_as_a_script():
    from scalarlang.front.runner import ScriptOutput
    from scalarlang.language.source import Source

    core, stream = make_core()
    run_lines(core, stream, *SEED)
    out = run_lines(core, stream, "backward(loss)")
    script = io.StringIO()
    ScriptOutput(script, script, width=100, color="never").run(Source("s.sad", "\n".join(SEED + ["backward(loss)"])))
    assert out == script.getvalue()
    assert "3  square       1  x            2         2             4            4 → 8" in out


def test_a_failed_line_is_a_diagnostic_and_changes_nothing():
    core, stream = make_core()
    run_lines(core, stream, *SEED, "backward(loss)")
    before_bindings, before_gradients = core.session.bindings, gradients(core)

    out = run_lines(core, stream, "backward(loss, inf)")
    assert out.splitlines()[:2] == ["error[non-finite-seed]: backward seed inf must be finite", " --> <repl:5>:1:16"]
    assert core.session.bindings == before_bindings
    assert gradients(core) == before_gradients
    assert run_lines(core, stream, "grad(x)") == "grad(x) = 8 (constant, untracked)\n"


def test_a_line_of_two_statements_whose_second_fails_is_undone_whole():
    core, stream = make_core()
    run_lines(core, stream, *SEED, "backward(loss)")
    before_bindings, before_gradients = core.session.bindings, gradients(core)

    out = run_lines(core, stream, "let x = var 5; backward(loss); let fresh = 1; let bad = lose + 1")
    assert "error[undefined-name]: `lose` is not defined" in out
    assert "help: did you mean `loss`?" in out
    assert "the statements before it in this input were undone" in out
    assert core.session.bindings == before_bindings  # `x` is the old node again, no `fresh`
    assert core.session.lookup("x") is before_bindings["x"]
    assert gradients(core) == before_gradients  # the second backward's gradients are gone
    assert core.session.lookup("x").gradient == 8.0


def test_sources_are_named_by_input_count():
    core, stream = make_core()
    out = run_lines(core, stream, "let a = var 1", "", "a +", "b")
    assert " --> <repl:2>:1:4" in out  # the empty line is not counted
    assert " --> <repl:3>:1:1" in out


def test_interrupt_while_showing_an_input_undoes_it():
    core, stream = make_core()
    run_lines(core, stream, *SEED)
    renderer = core.out
    original = renderer.outcome
    shown = []

    def interrupting(outcome):
        shown.append(outcome)
        if len(shown) == 2:
            raise KeyboardInterrupt
        original(outcome)

    renderer.outcome = interrupting
    out = run_lines(core, stream, "let a = var 1; backward(loss)")
    renderer.outcome = original
    assert "interrupted: nothing of this input was kept" in out
    assert core.session.lookup("a") is None
    assert core.session.lookup("x").gradient == 0.0


def test_a_rendering_bug_is_reported_and_the_session_goes_on():
    core, stream = make_core()

    def broken(outcome):
        raise ZeroDivisionError("boom")

    original = core.out.outcome
    core.out.outcome = broken
    out = run_lines(core, stream, "let a = var 1")
    core.out.outcome = original
    assert "error[internal-error]: while showing the result: ZeroDivisionError: boom" in out
    assert "Traceback" not in out
    assert run_lines(core, stream, "a") == "a = 1 (variable, gradient 0)\n"


def test_a_bug_in_the_session_is_reported_with_the_traceback_under_debug(monkeypatch):
    core, stream = make_core(debug=True)

    def broken(source, atomic=False):
        raise RuntimeError("session bug")

    # Patched: no input makes the session fail inside itself; a broken method stands in for a bug.
    monkeypatch.setattr(core.session, "run", broken)
    out = run_lines(core, stream, "1")
    assert "error[internal-error]: while running the input: RuntimeError: session bug" in out
    assert "Traceback (most recent call last)" in out


# ---- meta-commands ------------------------------------------------------------------------------


def test_help_lists_statements_functions_and_commands():
    core, stream = make_core()
    out = run_lines(core, stream, ":help")
    for word in ["let NAME = EXPR", "backward(EXPR, SEED)", "gradcheck", "assert", "expect KIND"]:
        assert word in out
    for name in VALUE_FUNCTIONS:
        assert name in out
    for name in META_COMMANDS:
        assert f":{name}" in out


def test_help_says_what_enter_does_on_a_broken_or_unfinished_input():
    core, stream = make_core()
    out = " ".join(run_lines(core, stream, ":help").split())
    assert "Enter prints it under the input" in out and "gives a fresh prompt" in out
    assert "the line is kept in history: Up brings it back to fix" in out
    assert "two empty lines run an unfinished input (the error says what is missing)" in out


def test_words_of_other_repls_point_at_the_commands_here():
    # Issue 45, item 5: `clear` suggested `chars`.
    core, stream = make_core()
    out = run_lines(core, stream, "clear")
    assert "error[undefined-name]: `clear` is not defined" in out
    assert "= help: `:reset` forgets every binding; Ctrl-L clears the screen" in out
    assert "chars" not in out
    assert "help: Ctrl-D or `:quit` leaves" in run_lines(core, stream, "exit")
    # Python's way, a call: `quit()` said only that there is no function `quit`.
    for call in ("quit()", "exit()"):
        out = run_lines(core, stream, call)
        assert "error[unknown-function]" in out and "= help: Ctrl-D or `:quit` leaves" in out, out
    assert "= help: `:help` shows the language by task" in run_lines(core, stream, "help()")
    assert "did you mean `chars`" not in run_lines(core, stream, "clear()")
    out = run_lines(core, stream, "let clear = 2", "clear", "clear + 1")
    assert "error" not in out  # a name bound by the user is that name


def test_vars_shows_every_binding_with_value_and_gradient():
    core, stream = make_core()
    assert run_lines(core, stream, ":vars") == "no names are bound yet\n"
    run_lines(core, stream, *SEED, "backward(loss)", "let c = const 3", "let same = x")
    assert run_lines(core, stream, ":vars").splitlines() == [
        "x = 2 (variable, gradient 8)",
        "square = 4 (mul, gradient 2)",
        "loss = 8 (add, gradient 1)",
        "c = 3 (constant, untracked)",
        "same = 2 (variable, gradient 8)",
    ]


def test_graph_of_a_name_is_the_graph_statement():
    core, stream = make_core()
    run_lines(core, stream, *SEED)
    assert run_lines(core, stream, ":graph loss") == run_lines(core, stream, "graph(loss)")


def test_graph_of_an_unknown_name_suggests_a_close_one():
    core, stream = make_core()
    run_lines(core, stream, *SEED)
    out = run_lines(core, stream, ":graph los")
    assert out.splitlines() == [
        "error[undefined-name]: `los` is not defined",
        " --> <repl:4>:1:8",
        "  |",
        "1 | :graph los",
        "  |        ^^^",
        "  = help: did you mean `loss`?",
    ]
    assert "takes the name of a binding" in run_lines(core, stream, ":graph x + 1")
    assert "needs a name" in run_lines(core, stream, ":graph")


def test_load_runs_a_file_into_the_session(tmp_path):
    core, stream = make_core()
    program = tmp_path / "prog.sad"
    program.write_text("let a = var 3\nlet b = a * a\nbackward(b)\nprint \"db/da = {grad(a)}\"\n", encoding="utf-8")
    out = run_lines(core, stream, f":load {program}")
    assert "backward from b with seed 1" in out
    assert "db/da = 6" in out
    assert "a = 3 (variable" not in out  # a file's `let`s are not echoed
    assert out.endswith(f"loaded {program}; bound a, b\n")
    assert run_lines(core, stream, "grad(a)") == "grad(a) = 6 (constant, untracked)\n"


def test_load_of_a_failing_file_keeps_nothing(tmp_path):
    core, stream = make_core()
    run_lines(core, stream, "let a = var 1")
    program = tmp_path / "bad.sad"
    program.write_text("let a = var 5\nlet b = a\nbackward(b)\nassert grad(a) == 2\n", encoding="utf-8")
    out = run_lines(core, stream, f":load '{program}'")
    assert "error[assertion-failed]" in out
    assert f" --> {program}:4:1" in out
    assert out.endswith(f"nothing of {program} was kept\n")
    assert "were undone" not in out  # one message says it: nothing of the file, not two
    assert list(core.session.bindings) == ["a"]
    assert core.session.lookup("a").value == 1.0


def test_load_of_a_missing_file_is_an_io_error(tmp_path):
    core, stream = make_core()
    missing = tmp_path / "missing.sad"
    out = run_lines(core, stream, f":load {missing}")
    # The message wraps at the console's 100 columns; the temporary path is long.
    assert " ".join(out.split()) == f"error[io-error]: cannot read {missing}: No such file or directory"
    assert "needs a file" in run_lines(core, stream, ":load")


def test_reset_forgets_every_binding():
    core, stream = make_core()
    run_lines(core, stream, *SEED)
    assert "reset" in run_lines(core, stream, ":reset")
    assert core.session.bindings == {}
    assert "`x` is not defined" in run_lines(core, stream, "x")


def test_quit_and_unique_prefixes():
    core, stream = make_core()
    assert core.handle(":quit") is False
    assert core.handle("  :q  ") is False
    assert "takes no argument" in run_lines(core, stream, ":quit now")
    assert run_lines(core, stream, ":v") == "no names are bound yet\n"


def test_an_unknown_meta_command_lists_the_known_ones():
    core, stream = make_core()
    out = run_lines(core, stream, ":grpah loss")
    assert out.splitlines() == [
        "error: unknown command `:grpah`",
        "  = the commands are :help [TOPIC], :vars, :graph NAME, :draw NAME [FILE], :load FILE, :digits [N],",
        "    :reset, :quit",  # (a wrapped note goes on under it)
        "  = did you mean `:graph`?",
    ]


# ---- the prompt session, through a pipe ------------------------------------------------------


def run_session(keys: str, *, core=None, stream=None, history=None, **options):
    """Type ``keys`` into a PromptSession over ``core``; (status, printed text, history)."""
    if core is None:
        core, stream = make_core()
    history = history if history is not None else InMemoryHistory()
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        session = build_prompt_session(core, history, input=pipe, output=DummyOutput(), **options)
        status = repl_loop(core, session)
    return status, stream.getvalue(), history


def test_a_ctrl_c_typed_right_after_enter_interrupts_the_input():
    # Issue 36: Enter, then Ctrl-C before the terminal makes Ctrl-C a signal again; the key
    # was kept for the next prompt, the input ran to its end, and the Ctrl-C dropped nothing.
    keys = 'quiet let t = const 7\rrepeat 3 { let t = t + 1 }\r\x03print "{t:.1f}"\r:quit\r'
    status, out, _ = run_session(keys)
    assert status == 0
    assert out.splitlines() == [
        "interrupted: nothing of this input was kept",
        "7.0",  # the line undone; the keys after the Ctrl-C still typed
    ]
    # Keys typed between the Enter and the Ctrl-C are dropped with the input, as a terminal
    # drops its input on Ctrl-C; a Ctrl-C after an empty line or a command interrupts it too.
    # A Ctrl-C after a further Enter is the next input's.
    keys = 'print "ran"\rlet\x03print "yes"\r\r\x03:vars\r\x03:quit\r'
    status, out, _ = run_session(keys)
    assert status == 0
    assert out.splitlines() == [
        "interrupted: nothing of this input was kept",
        "yes",
        "interrupted: nothing of this input was kept",  # (the empty line's says nothing)
    ]
    # (the SIGINT the Enter held back is let through again)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


def test_typed_lines_are_run_and_echoed():
    status, out, history = run_session("let x = var 2\rlet y = x * 3\ry + 1\r:quit\r")
    assert status == 0
    assert out.splitlines() == [
        "x = 2 (variable, gradient 0)",
        "y = 6 (mul, gradient 0)",
        "y + 1 = 7 (add, gradient 0)",
    ]
    assert history.get_strings() == ["let x = var 2", "let y = x * 3", "y + 1", ":quit"]


def test_enter_on_a_syntax_error_runs_it_and_keeps_it_in_history():
    # Issue 45, item 1: no held line; the diagnostic is printed at once, the next line is a
    # new input, and the broken one is in history for Up.
    status, out, history = run_session("let y = 2 ^ 2\rlet z = 5\r:quit\r")
    assert status == 0
    assert "error[syntax-error]: unexpected character `^`" in out
    assert "help: a power is written with `**`" in out
    assert out.rstrip().endswith("z = 5 (constant, untracked)")
    assert history.get_strings() == ["let y = 2 ^ 2", "let z = 5", ":quit"]


def test_enter_continues_while_parentheses_are_open():
    status, out, history = run_session("let z = exp(\r(var 1) +\r1)\rz\r\x04")
    assert status == 0
    assert out.splitlines() == [
        "z = 7.38905609893 (exp, gradient 0)",
        "z = 7.38905609893 (exp, gradient 0)",
    ]
    assert history.get_strings()[0] == "let z = exp(\n(var 1) +\n1)"


def test_two_empty_continuation_lines_run_the_unfinished_input():
    status, out, _ = run_session("let w = (1 +\r\r\r:quit\r")
    assert "error[syntax-error]: unexpected end of input, expected an expression" in out


def test_each_enter_on_a_syntax_error_prints_it_and_nothing_is_held():
    core, stream = make_core()
    # The first Enter runs `let a = 1 +` (an error: no bracket is open), so ` 2` is an input
    # of its own, not the end of the held line it once was.
    status, out, history = run_session("let a = 1 +\r 2\rprint \"{a\r:quit\r", core=core, stream=stream)
    assert status == 0
    assert out.splitlines()[0] == "error[syntax-error]: unexpected end of input, expected an expression"
    assert "2 = 2 (constant, untracked)" in out
    assert "error[syntax-error]: unclosed `{` in a string" in out
    assert history.get_strings() == ["let a = 1 +", " 2", 'print "{a', ":quit"]
    assert "a" not in core.session.values


def test_ctrl_c_drops_the_line_and_ctrl_d_leaves():
    # (At the first prompt: keys typed after an Enter, before its input ran, are typed while
    # it runs, and a Ctrl-C among them interrupts it; see the test above.)
    status, out, history = run_session("let b = \x03let a = var 1\ra\r\x04")
    assert status == 0
    assert out.splitlines() == [
        "a = 1 (variable, gradient 0)",
        "a = 1 (variable, gradient 0)",
    ]
    assert history.get_strings() == ["let a = var 1", "a"]


def test_ctrl_d_inside_a_line_deletes_instead_of_leaving():
    status, out, _ = run_session("let a = var 12\x1b[D\x04\r:quit\r")  # Left, then Ctrl-D deletes `2`
    assert out.splitlines() == ["a = 1 (variable, gradient 0)"]


class Faulty(Completer):
    def __init__(self):
        self.called = threading.Event()

    def get_completions(self, document, complete_event):
        self.called.set()
        yield from ()
        raise RuntimeError("completer bug")


class FaultyLexer(Lexer):
    calls = 0

    def lex_document(self, document):
        FaultyLexer.calls += 1
        raise ValueError("lexer bug")


def test_a_completer_bug_does_not_end_the_session():
    core, stream = make_core()
    completer = Faulty()
    with create_pipe_input() as pipe:
        pipe.send_text("let x = var 2\rx\t")

        def rest():
            completer.called.wait(10)
            pipe.send_text("\r:quit\r")

        typist = threading.Thread(target=rest)
        typist.start()
        session = build_prompt_session(core, InMemoryHistory(), input=pipe, output=DummyOutput(), completer=completer)
        status = repl_loop(core, session)
        typist.join()
    out = stream.getvalue()
    assert completer.called.is_set() and status == 0
    assert "error[internal-error]: while completing: RuntimeError: completer bug" in out
    assert out.count("x = 2 (variable, gradient 0)") == 2


def test_a_lexer_bug_does_not_end_the_session():
    FaultyLexer.calls = 0
    status, out, _ = run_session("let x = var 2\rx\r:quit\r", lexer=FaultyLexer())
    assert FaultyLexer.calls > 0 and status == 0
    assert out.count("error[internal-error]: while highlighting: ValueError: lexer bug") == 1  # said once
    assert out.count("x = 2") == 2


# ---- parsing while editing -------------------------------------------------------------------


def test_input_check_uses_the_parsers_incomplete_flag():
    check = InputCheck()
    assert check("let x = var 2")[0] == InputCheck.COMPLETE
    assert check("backward(loss,")[0] == InputCheck.INCOMPLETE
    assert check("exp(\n2")[0] == InputCheck.INCOMPLETE
    assert check("let x =")[0] == InputCheck.ERROR  # no parenthesis open: a real error
    assert check('print "abc (')[0] == InputCheck.ERROR  # a string never continues
    assert check(":graph (")[0] == InputCheck.COMPLETE
    assert check("   ")[0] == InputCheck.COMPLETE


def test_input_check_does_not_parse_huge_input():
    check = InputCheck(limit=100)
    long = "let a = 1\n" * 50
    assert check(long + "(a +")[0] == InputCheck.INCOMPLETE
    assert check(long + '"(" # (')[0] == InputCheck.COMPLETE
    assert check(long + "+ +")[0] == InputCheck.COMPLETE  # not parsed: the run reports it


# ---- completion --------------------------------------------------------------------------------


def complete(text: str, names=("loss", "lr")) -> list[str]:
    completer = SadCompleter(lambda: list(names))
    return [c.text for c in completer.get_completions(Document(text, len(text)), CompleteEvent(completion_requested=True))]


def test_completion_of_keywords_builtins_and_bound_names():
    assert complete("") == sorted(set(KEYWORDS) | set(VALUE_FUNCTIONS) | set(STATEMENT_FUNCTIONS) | {"loss", "lr"})
    every = set(KEYWORDS) | set(VALUE_FUNCTIONS) | set(STATEMENT_FUNCTIONS) | {"loss", "lr"}
    assert complete("let y = l") == sorted(word for word in every if word.startswith("l"))
    assert {"let", "log", "loss", "lr"} <= set(complete("let y = l"))
    assert complete("backward(lo") == ["log", "logsumexp", "loss"]
    assert complete("ba") == ["backward"]
    assert complete("ze") == ["zero_grad", "zeros"]
    assert complete("x + gradc") == ["gradcheck"]
    assert complete("1e") == []  # inside a number


def test_completion_reads_the_bindings_when_asked():
    core, stream = make_core()
    completer = SadCompleter(lambda: core.session.bindings)
    document = Document("squ", 3)
    assert list(completer.get_completions(document, CompleteEvent())) == []
    run_lines(core, stream, *SEED)
    assert [c.text for c in completer.get_completions(document, CompleteEvent())] == ["square"]


def test_completion_inside_strings_only_in_holes():
    assert complete('print "lo') == []
    assert complete('print "{lo') == ["log", "logsumexp", "loss"]
    assert complete('print "{loss} and lo') == []
    assert complete("x # lo") == []


def test_completion_of_help_topics_from_the_help_page():
    core, _ = make_core()
    completer = SadCompleter(lambda: ["loss"], lambda: topic_words(core.help_blocks()))

    def topics(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text, len(text)), CompleteEvent(completion_requested=True))]

    assert topics(":help te") == ["tensor", "tensors", "texts"]
    assert topics(":help tr") == ["training", "transpose"]  # a section's word, then a built-in
    assert topics(":help  gradc") == ["gradcheck"]
    assert "loss" not in topics(":help ")  # a bound name is no topic
    for word in topics(":help "):  # each offered word is a topic `:help` shows
        assert topic_blocks(word, core.help_blocks()), word


def test_completion_of_meta_commands_and_their_arguments(tmp_path):
    assert complete(":") == list(META_COMMANDS)
    assert complete(":g") == ["graph"]
    assert complete(":graph l") == ["loss", "lr"]
    (tmp_path / "model.sad").write_text("", encoding="utf-8")
    assert complete(f":load {tmp_path}/mo") == ["del.sad"]


def test_a_failing_completer_yields_nothing_and_is_reported():
    faults = []
    guarded = GuardedCompleter(Faulty(), lambda where, error: faults.append((where, error)))
    assert list(guarded.get_completions(Document("x"), CompleteEvent())) == []
    assert faults[0][0] == "completing" and isinstance(faults[0][1], RuntimeError)


# ---- highlighting ------------------------------------------------------------------------------


def tokens(text: str) -> list[tuple]:
    return [(token, value) for _, token, value in SadLexer().get_tokens_unprocessed(text) if value.strip()]


def test_sad_lexer_tokens():
    assert tokens("let loss = exp(x) * 2.5e-3 # c") == [
        (Keyword.Declaration, "let"),
        (Name.Variable, "loss"),
        (Operator, "="),
        (Name.Builtin, "exp"),
        (tokens("(")[0][0], "("),
        (Name, "x"),
        (tokens(")")[0][0], ")"),
        (Operator, "*"),
        (Number.Float, "2.5e-3"),
        (Comment.Single, "# c"),
    ]
    assert [t for t, v in tokens('print "a {x} {{ \\n"')] == [
        Keyword, String.Double, String.Double, String.Interpol, Name, String.Interpol,
        String.Escape, String.Escape, String.Double,
    ]
    assert tokens("expect no-gradient: backward(var inf)")[:4] == [
        (Keyword, "expect"), (Name.Exception, "no-gradient"), (tokens(":")[0][0], ":"), (Name.Builtin, "backward"),
    ]
    assert (Keyword.Constant, "inf") in tokens("var inf")
    assert (Name, "letter") in tokens("letter")
    assert (Error, "$") in tokens("$")


def test_sad_lexer_is_registered_by_alias_and_filename():
    assert SadLexer.aliases[0] == "sad" and "*.sad" in SadLexer.filenames


def test_every_example_lexes_without_errors():
    for path in sorted((ROOT / "examples").glob("*.sad")):
        assert all(token is not Error for token, _ in tokens(path.read_text(encoding="utf-8"))), path.name


def test_highlight_source_keeps_the_text_and_colours_it():
    source = 'let x = var 2\n  print "{x}"\t# done'
    text = highlight_source(source)
    assert text.plain == source
    styles = {source[span.start : span.end]: str(span.style) for span in text.spans}
    assert styles["let"] == "bold magenta"
    assert styles["2"] == "cyan"
    assert styles["# done"] == "italic bright_black"
    assert "pygments.keyword" in prompt_toolkit_style_rules()


def test_a_failing_lexer_shows_plain_lines():
    faults = []
    lexer = ReplLexer(lambda where, error: faults.append(where), FaultyLexer())
    get_line = lexer.lex_document(Document("let x = 1\nx"))
    assert get_line(1) == [("", "x")] and get_line(5) == []
    assert faults == ["highlighting"]


def test_meta_command_lines_are_not_lexed_as_sad():
    lexer = ReplLexer(lambda where, error: None)
    assert lexer.lex_document(Document(":graph loss"))(0) == [("class:meta-command", ":graph loss")]


# ---- history -----------------------------------------------------------------------------------


def test_history_file_is_created_and_survives_restarts(tmp_path):
    path = tmp_path / "state" / "scalarlang" / "history"
    warnings = []
    history = open_history(path, warnings.append)
    assert isinstance(history, FileHistory) and path.exists() and not warnings
    run_session("let a = var 1\r:quit\r", history=history)
    again = open_history(path, warnings.append)
    status, out, _ = run_session("\x1b[A\x1b[A\r:quit\r", history=again)  # Up past `:quit`, Enter
    assert out.splitlines() == ["a = 1 (variable, gradient 0)"]
    assert not warnings


def test_an_unwritable_history_falls_back_to_memory_and_says_so_once(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    warnings = []
    history = open_history(blocker / "history", warnings.append)  # its directory is a file
    assert isinstance(history, InMemoryHistory)
    assert len(warnings) == 1 and "history is kept for this session only" in warnings[0]
    assert warnings[0].endswith(f"cannot write {blocker / 'history'}: {blocker} is not a directory")


def test_no_home_directory_means_history_in_memory():
    warnings = []
    assert isinstance(open_history(None, warnings.append), InMemoryHistory)
    assert warnings == ["history is kept for this session only: no home directory (set SCALARLANG_HISTORY)"]


def test_a_history_file_that_fails_later_warns_once(tmp_path):
    path = tmp_path / "history"
    warnings = []
    history = open_history(path, warnings.append)
    path.unlink()
    path.mkdir()  # now writing it fails
    history.append_string("one")
    history.append_string("two")
    assert len(warnings) == 1 and "cannot write" in warnings[0]
    assert history.get_strings() == ["one", "two"]  # still kept for this session


# ---- without a terminal ---------------------------------------------------------------------------


def test_importing_the_cli_does_not_import_prompt_toolkit():
    code = "import sys, scalarlang.front.cli; sys.exit('prompt_toolkit' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_piped_standard_input_runs_as_a_script_without_prompt_toolkit():
    code = (
        "import sys; from scalarlang.front.cli import main; status = main([]); "
        "sys.stdout.write('PT=%s\\n' % ('prompt_toolkit' in sys.modules)); sys.exit(status)"
    )
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "FORCE_COLOR")}
    result = subprocess.run(
        [sys.executable, "-c", code], input="let x = var 2\nx * x\n", capture_output=True, text=True, env=env
    )
    assert result.returncode == 0
    assert result.stdout == "x * x = 4 (mul, gradient 0)\nPT=False\n"


# ---- the training forms: blocks, tables, new keywords (issue 9) and completion of kinds (12) ---


class RecordingCore(ReplCore):
    """A core that keeps each input it is handed instead of running it."""

    def __init__(self):
        super().__init__(Renderer(make_console(io.StringIO(), width=100, color="never")))
        self.inputs: list[str] = []

    def handle(self, text: str) -> bool:
        if text.strip() == ":quit":
            return False
        self.inputs.append(text)
        return True


def test_enter_continues_while_a_brace_or_bracket_is_open_and_indents_blocks():
    core = RecordingCore()
    keys = "repeat 3 {\rlet t = tanh(x)\rif t > 0 {\rprint t\r}\r}\rlet d = [\r(1, 2),\r(3, 4)]\r:quit\r"
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        session = build_prompt_session(core, InMemoryHistory(), input=pipe, output=DummyOutput())
        assert repl_loop(core, session) == 0
    assert core.inputs == [
        "repeat 3 {\n  let t = tanh(x)\n  if t > 0 {\n    print t\n  }\n}",  # `}` first on a line dedents
        "let d = [\n(1, 2),\n(3, 4)]",  # only blocks indent
    ]


def test_a_one_line_block_runs_at_once_and_else_continues_it():
    core = RecordingCore()
    with create_pipe_input() as pipe:
        pipe.send_text("if a > b { print 1 }\rif a > b {\rprint 1\r} else {\rprint 2\r}\r:quit\r")
        session = build_prompt_session(core, InMemoryHistory(), input=pipe, output=DummyOutput())
        repl_loop(core, session)
    assert core.inputs == ["if a > b { print 1 }", "if a > b {\n  print 1\n} else {\n  print 2\n}"]


def test_input_check_of_blocks_and_tables():
    check = InputCheck()
    assert check("repeat 3 {")[0] == InputCheck.INCOMPLETE
    assert check("for i in 0..3 {\n  print i\n")[0] == InputCheck.INCOMPLETE
    assert check("let d = [(1, 2),")[0] == InputCheck.INCOMPLETE
    assert check("repeat 3 { print 1 }")[0] == InputCheck.COMPLETE
    assert check("repeat 3")[0] == InputCheck.ERROR  # `{` belongs on the header's line
    assert check("repeat 3 { print 1 ]")[0] == InputCheck.ERROR


def test_input_check_of_huge_input_counts_braces_and_brackets():
    check = InputCheck(limit=100)
    long = "let a = 1\n" * 50
    assert check(long + "repeat 3 {")[0] == InputCheck.INCOMPLETE
    assert check(long + "let t = [1,")[0] == InputCheck.INCOMPLETE
    assert check(long + "repeat 3 { print 1 }")[0] == InputCheck.COMPLETE
    assert check(long + 'print "{a}" # {')[0] == InputCheck.COMPLETE


def test_completion_of_the_new_keywords_and_of_error_kinds_after_expect():
    from scalarlang.language import lexicon
    from scalarlang.interpreter.failures import RUNTIME_KINDS

    assert {"fn", "repeat", "for", "in", "if", "else", "descend", "by", "quiet"} <= set(complete(""))
    assert set(complete("")) >= set(lexicon.KEYWORDS)
    assert complete("rep") == ["repeat"]
    assert complete("repeat 3 { desc") == ["descend"]
    assert complete("qu") == ["quiet"]
    assert complete("expect ") == sorted(RUNTIME_KINDS)
    assert complete("expect no-g") == ["no-gradient"]
    assert complete("let a = 1; expect assert") == ["assertion-failed"]
    assert complete("quiet expect undefined-n") == ["undefined-name"]
    assert complete("expect no-gradient: gr") == ["grad", "gradcheck", "graph"]
    assert complete("expected ") != sorted(RUNTIME_KINDS)


def test_help_shows_the_training_statements_and_the_error_kinds():
    from scalarlang.interpreter.failures import RUNTIME_KINDS

    core, stream = make_core()
    out = " ".join(run_lines(core, stream, ":help").split())
    for words in ["fn NAME(P, …) = EXPR", "repeat N { … }", "for i in A..B { … }", "for x, y in TABLE { … }",
                  "if A OP B { … } else { … }", "descend NAME, … by LR", "quiet STATEMENT", "A % B", "+ - * / **"]:
        assert words in out
    for kind in RUNTIME_KINDS:
        assert kind in out


def test_the_grey_suggestion_from_history_is_taken_with_right():
    from prompt_toolkit.auto_suggest import AutoSuggestFromHistory

    core, stream = make_core()
    history = InMemoryHistory()
    history.append_string("let alpha = var 3")
    with create_pipe_input() as pipe:
        session = build_prompt_session(core, history, input=pipe, output=DummyOutput())
        assert isinstance(session.auto_suggest, AutoSuggestFromHistory)

        def typist():  # the suggestion is computed in the background: Right once it is there
            pipe.send_text("let al")
            for _ in range(500):
                if session.default_buffer.suggestion is not None:
                    break
                threading.Event().wait(0.01)
            pipe.send_text("\x1b[C\r:quit\r")

        thread = threading.Thread(target=typist)
        thread.start()
        status = repl_loop(core, session)
        thread.join()
    assert status == 0
    assert stream.getvalue().splitlines() == ["alpha = 3 (variable, gradient 0)"]


def test_sad_lexer_tokens_of_the_training_forms():
    assert tokens("for i in 0..300 { let y = x ** -2 % 3 }") == [
        (Keyword, "for"), (Name, "i"), (Keyword, "in"), (Number.Float, "0"), (Operator, ".."),
        (Number.Float, "300"), (tokens("{")[0][0], "{"), (Keyword.Declaration, "let"), (Name.Variable, "y"),
        (Operator, "="), (Name, "x"), (Operator, "**"), (Operator, "-"), (Number.Float, "2"),
        (Operator, "%"), (Number.Float, "3"), (tokens("}")[0][0], "}"),
    ]
    assert tokens("fn predict(x) = w * x")[:2] == [(Keyword.Declaration, "fn"), (Name.Function, "predict")]
    punctuation = tokens("(")[0][0]
    assert [t for t, v in tokens("let d = [(1, -2), (inf, 3)]") if v in "[]"] == [punctuation, punctuation]
    assert all(t is not Error for t, _ in tokens('if a >= b { print "{a}" } else { quiet descend w, b by 0.1 }'))
    assert [t for t, _ in tokens("repeat 3 { }")][0] is Keyword


def test_importing_the_highlighter_is_cheap():
    # (the package itself imports the engine: that is not the highlighter's to change)
    code = "import sys, scalarlang.front.highlight; print(sorted(m for m in sys.modules if m.startswith(('rich', 'lark', 'scalarlang.interpreter.core', 'prompt_toolkit'))))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.strip() == "[]"


def test_a_closing_brace_inside_a_line_or_a_string_is_typed_as_it_is():
    core = RecordingCore()
    with create_pipe_input() as pipe:
        pipe.send_text('repeat 2 {\rprint "{x}" }\r:quit\r')
        session = build_prompt_session(core, InMemoryHistory(), input=pipe, output=DummyOutput())
        repl_loop(core, session)
    assert core.inputs == ['repeat 2 {\n  print "{x}" }']
