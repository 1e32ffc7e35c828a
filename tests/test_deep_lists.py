"""Deep and shared lists (issue 36, items 1 and 2).

1. A list nested as deep as the parser allows (1,000 brackets), or deeper still by a loop
   (`let L = [L]`), shows through every front end: `--json` printed only the `start` event and
   then a RecursionError, and Python's own walks (json's encoder, a tuple's repr) recurse.
2. Binding a list costs time linear in its distinct items: labelling walked every path through
   the list, so `let L = [L]` in a loop took 58 s at 4,000 steps and `let L = [L, L]` doubled
   its time each step. The sizes below took minutes to forever before; they now take a moment
   (each runs under a timeout, so a slow walk fails rather than hangs).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal

import pytest

import scalarlang
from commands import needs_command, run_program, run_program_in_process
from scalarlang.language.syntax_errors import MAX_NESTING


LIMIT = MAX_NESTING  # the deepest list literal the parser takes
AT_LIMIT = "let L = " + "[" * LIMIT + "1.5" + "]" * LIMIT + "\nL\nprint \"after\"\n"
SHOWN = "[" * LIMIT + "1.5" + "]" * LIMIT


def list_event(depth: int, line: int, leaf: str) -> str:
    """The `list` event's line of a list ``depth`` deep holding one number, written apart from
    the package's writer (json.dumps recurses)."""
    return (
        f'{{"event": "list", "file": "<stdin>", "line": {line}, "column": 1, "shape": [{", ".join(["1"] * depth)}], '
        f'"values": {"[" * depth}{leaf}{"]" * depth}}}'
    )


def unwrapped(text: str) -> str:
    """The text with its lines joined again: a line wider than the width goes on indented."""
    return "".join(line.lstrip(" ") for line in text.splitlines())


# ---- item 1: at the parser's limit, through every front end ---------------------------------


@needs_command
def test_a_list_at_the_nesting_limit_through_json_lines():
    ran = run_program(AT_LIMIT, "--json")
    assert (ran.returncode, ran.stderr) == (0, "")
    start, shown, after = ran.stdout.splitlines()
    assert json.loads(start)["event"] == "start"
    assert shown == list_event(LIMIT, 2, "1.5")
    assert json.loads(after)["text"] == "after"  # the rest of the program ran


@needs_command
def test_a_list_at_the_nesting_limit_through_text():
    ran = run_program(AT_LIMIT)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout.endswith("\nafter\n")
    assert unwrapped(ran.stdout[: -len("after\n")]) == SHOWN


def test_a_list_at_the_nesting_limit_through_the_repl_and_its_vars():
    from scalarlang.front.repl_core import ReplCore
    from scalarlang.render.text import Renderer, make_console

    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    for line in AT_LIMIT.splitlines():
        assert core.handle(line) is True
    assert core.handle(":vars") is True
    dims = " × ".join(["1"] * LIMIT)
    # The echo of `let`, the list, what `print` printed, then :vars (long lines wrapped).
    echo, rest = stream.getvalue().split("\n[", 1)
    shown, vars_ = ("[" + rest).split("\nafter\n")
    assert " ".join(echo.split()) == f"L = {dims} constants"
    assert unwrapped(shown) == SHOWN
    assert " ".join(vars_.split()) == f"L: {dims} constants"


def test_a_list_at_the_nesting_limit_through_the_python_api():
    session = scalarlang.Session(width=80)
    result = session.run(AT_LIMIT)
    assert result.ok and result.error is None
    assert unwrapped(result.text) == SHOWN + "after"
    assert SHOWN in "".join(re.sub(r"<[^>]*>", "", result.parts[0].html).split())
    value = session["L"]
    assert repr(value) == f"ListValue({SHOWN})".replace("1.5", repr(_innermost(value)))
    assert unwrapped(scalarlang.run(AT_LIMIT).text) == SHOWN + "after"


def _innermost(value):
    while isinstance(value, tuple):
        (value,) = value
    return value


def test_a_list_at_the_nesting_limit_through_the_notebook():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    try:
        shell.display_formatter.active_types = ["text/plain", "text/html"]
        shell.run_line_magic("load_ext", "scalarlang")
        with capture_output() as captured:
            shell.run_cell_magic("sad", "", AT_LIMIT)
        (output,) = [output.data for output in captured.outputs]
        assert unwrapped(output["text/plain"]) == SHOWN + "after"
        assert SHOWN in "".join(re.sub(r"<[^>]*>", "", output["text/html"]).split())
        shell.run_line_magic("unload_ext", "scalarlang")
    finally:
        InteractiveShell.clear_instance()


# ---- deeper than the parser allows: built by a loop -------------------------------------------

DEPTH = 100_000
LOOP = f"let L = [2]\nfor i in 0..{DEPTH} {{\n  let L = [L]\n}}\nL\nprint len(L)\n"


@needs_command
def test_a_list_a_loop_nests_100000_deep_through_json_lines_and_text():
    ran = run_program(LOOP, "--json")
    assert (ran.returncode, ran.stderr) == (0, "")
    _, shown, printed = ran.stdout.splitlines()
    assert shown == list_event(DEPTH + 1, 5, "2.0")
    assert json.loads(printed)["text"] == "1"
    ran = run_program(LOOP)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert unwrapped(ran.stdout) == "[" * (DEPTH + 1) + "2" + "]" * (DEPTH + 1) + "1"


def test_a_list_a_loop_nests_100000_deep_through_the_python_api():
    session = scalarlang.Session()
    assert session.run(LOOP).ok
    deep = session["L"]
    assert repr(deep) == "ListValue(" + "[" * (DEPTH + 1) + repr(_innermost(deep)) + "]" * (DEPTH + 1) + ")"
    assert session.run("let M = [L, L]\nlet N = M[1][0]\nprint len(N)").text == "1\n"


# ---- item 2: binding a list costs its distinct items ------------------------------------------


@contextlib.contextmanager
def within(seconds: float):
    """Fail, rather than hang, when the block takes longer than ``seconds`` (it took minutes to
    forever before the fix)."""
    def late(signum, frame):
        raise TimeoutError(f"took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@needs_command
@pytest.mark.parametrize("steps", [4_000, 100_000])
def test_a_list_nested_in_itself_step_by_step_binds_in_a_moment(steps):
    # 58 s at 4,000 steps before (every `let` walked the whole depth, making a path per level).
    program = f"let L = [1]\nfor i in 0..{steps} {{\n  let L = [L]\n}}\nprint len(L)\n"
    ran = run_program(program, timeout=30)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "1\n", "")


SHARED_STEPS = 60
# The variable at L[1][1]…[1][0]: every path through the shared lists leads to w.
LAST = "L" + "[1]" * SHARED_STEPS + "[0]"
SHARED = f"""let w = var 0.5
let L = [w]
for i in 0..{SHARED_STEPS} {{
  let L = [L, L]
}}
let loss = {LAST} * {LAST}
quiet backward(loss)
zero_grad
quiet backward(loss)
descend L by 0.1
print "{{{LAST}}} {{{LAST.replace("[1]", "[0]")}}}"
"""


@needs_command
def test_a_list_shared_2_to_the_60_times_binds_steps_and_zeroes_in_a_moment():
    # `let L = [L, L]` doubled its time each step: 10 s at 20 steps (a million paths).
    ran = run_program(SHARED, timeout=30)
    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout == "0.4 0.4\n"  # w - 0.1 * 2w, one variable wherever it is held


def test_descend_keeps_a_shared_list_shared_and_a_variable_held_twice_one_variable():
    session = scalarlang.Session()
    with within(30):
        assert session.run(SHARED).ok
    stepped = session["L"]
    assert stepped[0] is stepped[1]  # one new list for the list held twice
    inner = stepped
    for _ in range(SHARED_STEPS):
        inner = inner[1]
    (fresh,) = inner
    assert fresh.operation == "variable" and fresh.value == 0.4 and fresh is not session["w"]
    # Labelled by its first path, depth first, cut as every label longer than 60 characters is.
    assert session.label_of(fresh) == ("L" + "[0]" * (SHARED_STEPS + 1))[:59] + "…"


def test_the_repl_echoes_and_lists_a_shared_list_in_a_moment():
    from scalarlang.front.repl_core import ReplCore
    from scalarlang.render.text import Renderer, make_console

    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=400, color="never"), echo_bindings=True))
    with within(30):
        for line in ["let w = var 0.5", "let L = [w]", *["let L = [L, L]"] * SHARED_STEPS, ":vars"]:
            assert core.handle(line) is True
    lines = stream.getvalue().splitlines()
    dims = " × ".join(["2"] * SHARED_STEPS + ["1"])
    assert lines[-3:] == [f"L = {dims} variables", "w = 0.5 (variable, gradient 0)", f"L: {dims} variables"]


def test_a_list_held_twice_is_labelled_by_its_first_path():
    session = scalarlang.Session()
    # `pair` returns one unnamed list twice: its node's first path, depth first, is L[0][0].
    assert session.run("let x = var 3\nfn pair(a) = [a, a]\nlet L = pair([x * 2])").ok
    first, second = session["L"]
    assert first is second
    assert session.label_of(second[0]) == "L[0][0]"


@pytest.mark.parametrize(("statement", "items"), [
    # (items and lists: 3 * 2^60 - 2 in L, 2 more lists and twice that in [L, L])
    ("L", 3 * 2 ** SHARED_STEPS - 2), ("print L", 3 * 2 ** SHARED_STEPS - 2), ('print "{L}"', 3 * 2 ** SHARED_STEPS - 2),
    ("let F = flatten(L)", 3 * 2 ** SHARED_STEPS - 1), ("print len(flatten(L, L))", 6 * 2 ** SHARED_STEPS - 2),
])
def test_a_list_shared_2_to_the_60_times_is_too_long_to_write_whole_and_the_program_stops_at_once(statement, items):
    # Writing it whole (a value line, print, a text's hole, flatten) walked 2^60 items: it
    # never ended, its memory growing by gigabytes.
    program = f"let w = var 0.5\nlet L = [w]\nrepeat {SHARED_STEPS} {{ let L = [L, L] }}\n{statement}\nprint \"after\"\n"
    with within(30):  # (the command's main in this process: what it writes is the same)
        ran = run_program_in_process(program)
    assert ran.returncode == 1 and ran.stdout == ""
    said = " ".join(ran.stderr.split())
    assert said.startswith(f"error[too-long]: this list holds {items:,} items (lists included), a shared list counted each"
                     " time it is held; a list shown, printed or flattened may hold at most 10,000,000 --> <stdin>:4:")


def test_a_list_shared_many_times_within_the_limit_is_written_whole():
    session = scalarlang.Session()
    result = session.run("let L = [1]\nrepeat 3 { let L = [L, L] }\nlet F = flatten(L)\nprint len(F)\nL")
    assert result.ok and result.text == "8\n[[[[1], [1]], [[1], [1]]], [[[1], [1]], [[1], [1]]]]\n"


def test_a_list_of_empty_lists_shared_2_to_the_60_times_is_too_long_too():
    session = scalarlang.Session()
    with within(30):
        result = session.run(f"let L = [[]]\nrepeat {SHARED_STEPS} {{ let L = [L, L] }}\nprint L")
    assert not result.ok and "error[too-long]" in result.text


def test_a_failure_in_a_loop_over_a_list_shared_2_to_the_60_times_names_it_cut():
    session = scalarlang.Session()
    with within(30):
        result = session.run(f"let L = [1]\nrepeat {SHARED_STEPS} {{ let L = [L, L] }}\nfor x in [L] {{ let y = 1 / 0 }}")
    assert not result.ok
    assert result.text.splitlines()[-1].endswith("where x = " + "[" * 39 + "…")  # 40 characters
