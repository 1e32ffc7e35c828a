"""`:help` and `--help` show the language by task, wrapped with a hanging indent at the
terminal's width (issue 35, item 2): through the REPL's core and the real command at 40, 80
and 120 columns, and the REPL in a pseudo-terminal in tests/test_repl_pty.py; what `--help`
says of the exit statuses and of `--quiet` (issue 12)."""

from __future__ import annotations

import io
import os
import re
import subprocess
from pathlib import Path

import pytest

from commands import COMMAND
from scalarlang.front import cli
from scalarlang.front.help_layout import Heading, Paragraph, Row, lay_out, plain, wrap_words
from scalarlang.front.repl_core import KEYS, META_COMMANDS, ReplCore
from scalarlang.interpreter.library import registry
from scalarlang.interpreter.failures import RUNTIME_KINDS
from scalarlang.interpreter.library.registry import STATEMENT_FUNCTIONS, VALUE_FUNCTIONS, arity
from scalarlang.language.lexicon import KEYWORDS
from scalarlang.language.overview import EXAMPLES, FORMS, PICTURES, TASKS
from scalarlang.render.text import Renderer, make_console

WIDTHS = [40, 80, 120]
ROOT_DIR = Path(__file__).resolve().parents[1]
AFTER_TASKS = ["commands", "error kinds", "keys", "more"]


def repl_help(width: int) -> str:
    stream = io.StringIO()
    ReplCore(Renderer(make_console(stream, width=width, color="never"))).handle(":help")
    return stream.getvalue()


def words(text: str) -> str:
    return " ".join(text.split())


def headings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(" ")]


def sections(text: str) -> dict[str, str]:
    """Each heading's lines, whitespace collapsed."""
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = line
            found[current] = []
        elif current is not None:
            found[current].append(line)
    return {heading: words("\n".join(lines)) for heading, lines in found.items()}


def every_entry():
    return [*STATEMENT_FUNCTIONS.values(), *VALUE_FUNCTIONS.values()]


# ---- :help ----------------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_the_repl_help_shows_the_language_by_task_within_the_width(width):
    text = repl_help(width)
    lines = text.splitlines()
    assert max(map(len, lines)) <= width
    assert headings(text) == [*TASKS, *AFTER_TASKS]
    by_task = sections(text)
    for task, form, what in FORMS:
        assert f"{words(form)} {words(what)}" in by_task[task], form
    for entry in every_entry():
        section = by_task[entry.category]
        assert words(" · ".join(entry.usage)) in section and words(entry.summary) in section, entry.name
        assert all(words(note) in section for note in entry.notes)
    # What the issue found missing: lists and training.
    for form in ["L[I]", "[EXPR for x in L]", "sum(L)"]:
        assert form in by_task["lists"]
    for form in ["fn NAME(P, …) = EXPR", "descend NAME, … by LR", "random_seed(N)", "for x, y in TABLE { … }"]:
        assert form in by_task["training"]
    for name, (parameter, about) in META_COMMANDS.items():
        assert words(f":{name} {parameter} {about}") in by_task["commands"]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_repl_help_wraps_with_a_hanging_indent_and_leaves_no_piece_alone(width):
    text = repl_help(width)
    lines = text.splitlines()
    forms = {words(form) for _, form, _ in FORMS} | {words(" · ".join(e.usage)) for e in every_entry()}
    forms |= {f":{name} {parameter}".strip() for name, (parameter, _) in META_COMMANDS.items()}
    forms |= {row.form for row in KEYS} | {row.text for row in KEYS}  # (`Up · Down`: `history`)
    for line in lines:
        if not line.startswith(" "):
            continue  # a heading
        # A row starts 2 in; anything wrapped (a form's rest, a text under or beside it) further.
        indent = len(line) - len(line.lstrip())
        assert indent >= 2, line
        if indent == 2:
            continue
        assert indent >= 4, line
        piece = line.strip()
        # No word broken off alone (`STATEMENT` on a line of its own), unless a whole form.
        if " " not in piece:
            # (an error kind longer than the line is broken after a hyphen)
            kind_parts = {kind[:at] for kind in RUNTIME_KINDS for at in range(len(kind)) if kind[at - 1:at] == "-"}
            kind_parts |= {kind[at:] for kind in RUNTIME_KINDS for at in range(len(kind)) if kind[at - 1:at] == "-"}
            assert piece in forms or piece in RUNTIME_KINDS or piece in kind_parts, line
    # The texts line up: beside their forms in one column where the width leaves room for it,
    # else each under its form, 6 in; wrapped, they go on in that column.
    column = lines[1].index("binds") if width >= 80 else 6
    assert lines[1 if width >= 80 else 2][column:].startswith("binds NAME")
    assert {len(line) - len(line.lstrip()) for line in lines if line.startswith(" " * 5)} == {column}


def test_the_repl_help_follows_the_width_rather_than_100_columns():
    narrow, wide = repl_help(80).splitlines(), repl_help(120).splitlines()
    assert len(narrow) > len(wide)
    assert max(map(len, wide)) > 100  # the 120 columns are used, not cut at 100
    summary = STATEMENT_FUNCTIONS["backward"].summary
    assert any(line.endswith(summary) for line in wide)
    assert not any(summary in line for line in narrow) and summary in words("\n".join(narrow))


def test_every_keyword_of_the_grammar_is_in_the_help():
    # A new statement (`while`, `break`) needs its form in language/overview.py too.
    shown = set(re.findall(r"[a-z_]+", repl_help(120)))
    assert set(KEYWORDS) <= shown, set(KEYWORDS) - shown


@pytest.fixture
def later_builtins(monkeypatch):
    """Two entries as the built-ins being added meanwhile will be: one under an existing task
    (a chart: pictures) and one of a category that is no task yet (texts)."""
    chart = registry.StatementCall(
        "chart_of", arity(1), lambda run, statement, call: (lambda show: None), 'chart_of(Y[, title: "T"])',
        "a line chart of a list of values", PICTURES, options={"title": registry.TEXT},
    )
    upper = registry.ValueFunction(
        "upper_of", arity(1), lambda compiler, call: None, "upper_of(T)", "the text in capitals", "texts",
    )
    monkeypatch.setitem(STATEMENT_FUNCTIONS, "chart_of", chart)
    monkeypatch.setitem(VALUE_FUNCTIONS, "upper_of", upper)


@pytest.mark.parametrize("width", [40, 120])
def test_a_new_builtin_shows_under_its_task_as_its_entry_alone(later_builtins, width):
    text = repl_help(width)
    assert headings(text) == [*TASKS, "texts", *AFTER_TASKS]
    by_task = sections(text)
    assert 'chart_of(Y[, title: "T"]) a line chart of a list of values' in by_task["pictures"]
    assert by_task["texts"] == "upper_of(T) the text in capitals"
    assert max(map(len, text.splitlines())) <= width


# ---- the layout ------------------------------------------------------------------------------


def test_wrapping_breaks_at_spaces_and_moves_a_lone_last_word_down():
    assert wrap_words("runs it without its echoes and tables", 30) == ["runs it without its echoes", "and tables"]
    assert wrap_words("expect KIND: STATEMENT", 13) == ["expect KIND:", "STATEMENT"]  # two words: nothing to move
    assert wrap_words("a b c d e f g h", 7) == ["a b c d", "e f g h"]
    assert wrap_words("abcdefghij", 4) == ["abcd", "efgh", "ij"]  # a word longer than a line is cut
    lines = lay_out([Heading("h"), Row("f(A) · f(A, B) · f(A, B, C)", "what f does"), Paragraph("x " * 30)], 24)
    text = plain(lines)
    assert text.splitlines()[:4] == ["h", "  f(A) · f(A, B) ·", "    f(A, B, C)", "      what f does"]
    assert max(map(len, text.splitlines())) <= 24 and words(text).count("x") == 30


# ---- :help TOPIC (issue 45, item 6) -----------------------------------------------------------


def repl_help_topic(topic: str, width: int = 100) -> str:
    stream = io.StringIO()
    ReplCore(Renderer(make_console(stream, width=width, color="never"))).handle(f":help {topic}")
    return stream.getvalue()


def test_help_lists_is_the_lists_task_alone():
    text = repl_help_topic("lists")
    assert headings(text) == ["lists"]
    assert "L[I] · L[I][J]" in text and "dot(A, B)" in text
    assert repl_help_topic("list") == text  # (one or many)


@pytest.mark.parametrize("topic, heading", [("training", "training"), ("plot", "pictures"), ("chain", "seeing the chain rule"), ("keys", "keys"), ("errors", "error kinds")])
def test_a_topic_is_a_task_or_the_rows_of_a_form(topic, heading):
    text = repl_help_topic(topic)
    assert heading in headings(text), text
    assert "error:" not in text


def test_every_task_and_every_built_in_is_a_topic():
    # The topics come from the page's own structure: each task by a word of its heading, each
    # built-in (statement or value) by its name, each hand-written form by its first word.
    for task in TASKS:
        word = next(word for word in task.split() if word not in ("and", "the", "of", "seeing"))
        assert task in headings(repl_help_topic(word)), task
    for name, entry in {**STATEMENT_FUNCTIONS, **VALUE_FUNCTIONS}.items():
        text = words(repl_help_topic(name, width=200))
        assert words(" · ".join(entry.usage)) in text, name
    for task, form, _ in FORMS:
        first = re.match(r"[a-z_]+", form)
        if first is not None:
            assert task in headings(repl_help_topic(first.group(0))), form


def test_help_tensors_says_the_forms_shapes_broadcasting_matmul_and_where_to_read_on():
    # Issue 43, item 4: `:help tensors` is a page of its own: the tensor forms and built-ins,
    # then what they do not say alone (shapes, broadcasting, @, the built-ins of other tasks
    # that take tensors) and the pages that say more.
    text = repl_help_topic("tensors", width=80)
    assert headings(text) == ["tensors"] and repl_help_topic("tensor", width=80) == text
    assert max(map(len, text.splitlines())) <= 80
    flat = words(text)
    for form in ("A @ B", "var tensor(L)", "tensor(L)", "zeros(S, …)", "randn(S, …)", "shape(T)",
                 "reshape(T, S, …)", "transpose(T) · transpose(T, A, B)", "C[X]"):
        assert form in flat, form
    for said in ("shapes: a tensor is a shape", "shape-mismatch", "broadcasting, numpy's rules",
                 "[100, 16] + [16] adds the [16] to each row", "[B, N] @ [N, M] is [B, M]",
                 "dA = dC @ Bᵀ", "vjp_check(LOSS[, tolerance: T])", "vjp_check(loss), the bridge",
                 "compared, element by element, with what its VJP gave", "vjp-check-failed",
                 "docs/tensors.md", "docs/language.md#tensors"):
        assert said in flat, said
    assert "vjp-check-failed" in RUNTIME_KINDS
    assert (ROOT_DIR / "docs" / "tensors.md").exists() and "\n## Tensors\n" in (ROOT_DIR / "docs" / "language.md").read_text(encoding="utf-8")


def test_the_built_ins_help_tensors_names_take_tensors():
    # What the page says of the other tasks' built-ins holds: each named element-wise built-in
    # gives a tensor of its operand's shape, each named reduction a scalar node of every element
    # and a tensor along an axis; and every built-in with `axis: K` is named.
    import scalarlang

    note = words(repl_help_topic("tensors", width=200)).split("of tensors too", 1)[1]
    named = set(re.findall(r"[a-z_]+", note))
    session = scalarlang.Session()
    assert session.run("let T = tensor([[0.5, 1, 2], [1.5, 0.25, 3]])").ok
    element_wise = note.split(", element-wise;", 1)[0].replace("(under their tasks above):", "").split()
    assert element_wise[:7] == ["exp", "log", "tanh", "sqrt", "relu", "sigmoid", "abs"]
    for name in element_wise[:7]:
        assert session.run(f"print shape({name}(T))").text == "[2, 3]\n", name
    for call in ("max(T, T * 2)", "min(T, 1)"):
        assert session.run(f"print shape({call})").text == "[2, 3]\n", call
    for name in ("sum", "mean", "max", "min", "logsumexp"):
        assert name in named
        assert session.run(f"print {name}(T) + 0, shape({name}(T, axis: 1))").text.endswith(" [2]\n"), name
    for name in ("softmax", "argmax", "argmin"):
        assert session.run(f"print shape({name}(T, axis: 0))").text in ("[2, 3]\n", "[3]\n"), name
    for name in ("cross_entropy(Z, Y)", "one_hot(I, N)", "gradcheck(LOSS, T)", "descend", "len", "value", "grad", "detach"):
        assert name in note, name
    with_axis = [entry.name for entry in every_entry() if any("axis:" in usage for usage in entry.usage)]
    assert with_axis and [name for name in with_axis if name not in named] == []


def test_an_unknown_topic_lists_the_topics_and_the_closest():
    text = words(repl_help_topic("pictrues"))
    assert text.startswith("error: no help topic `pictrues`")
    assert "the topics: values, graph, training, lists" in text
    assert "did you mean `:help pictures`?" in text


# ---- --help ----------------------------------------------------------------------------------


def command_help(width: int) -> str:
    env = {key: value for key, value in os.environ.items() if key not in ("LINES", "TERM")}
    env["COLUMNS"] = str(width)
    result = subprocess.run([str(COMMAND), "--help"], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.skipif(not COMMAND.exists(), reason=f"{COMMAND} is not installed")
@pytest.mark.parametrize("width", WIDTHS)
def test_the_command_help_shows_the_language_briefly_by_task_within_the_width(width):
    text = command_help(width)
    lines = text.splitlines()
    assert max(map(len, lines)) <= width
    language = text.split("the language, by task:\n", 1)[1].split("\n\n", 1)[0]
    shown = [line.strip() for line in language.splitlines() if re.match(r"  \S", line)]
    assert shown == list(TASKS)
    flat = words(language)
    for _, example, what in EXAMPLES:
        assert f"{words(example)} {words(what)}" in flat
    assert ":help" in text and "docs/language.md" in text and "docs/json.md" in text
    # Wrapped lines hang under their first: nothing of the language section starts at column 0.
    assert all(line.startswith("  ") for line in language.splitlines())


def test_help_says_what_quiet_shows():
    shown = subprocess.run([str(COMMAND), "--help"], capture_output=True, text=True, check=True).stdout
    quiet = " ".join(shown.split("\n  --quiet", 1)[1].split("\n  -")[0].split())
    for word in ("print", "graph", "gradcheck", "draw", "explain", "paths", "walk", "errors"):
        assert word in quiet, quiet


def test_help_tells_the_language_the_statuses_the_repl_and_where_to_read_more(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    for needle in ("let x = var 2", "backward(loss)", "gradcheck(loss, x)", "expect KIND", ":help", "README",
                   "docs/json.md", "NO_COLOR", "SCALARLANG_HISTORY", "--print-completion"):
        assert needle in text, needle
    statuses = text.split("exit status:\n", 1)[1]
    for status, meaning in cli.EXIT_STATUSES:
        assert f"  {status:<4} {meaning}" in statuses
    assert [status for status, _ in cli.EXIT_STATUSES] == [0, 1, 2, 74, 130, 141]


def test_help_fits_80_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["--help"]) == 0
    assert max(map(len, capsys.readouterr().out.splitlines())) <= 80
