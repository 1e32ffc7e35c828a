"""The playground's Python side (playground/sad_playground.py), natively: what the page shows
is what `scalarlang FILE.sad` prints, a batch at a time, and an error carries its kind and
span in the units the page's editor counts (UTF-16). The page itself, in Pyodide in a real
browser, is tests/test_playground.py (slow)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import SLOW_EXAMPLES, TRAINING_EXAMPLES
from sessions import script_output

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.sad"))
sys.path.insert(0, str(ROOT / "playground"))

import sad_playground  # noqa: E402


def run(text: str, name: str = "playground.sad") -> tuple[list[dict], dict]:
    messages: list[dict] = []
    done = sad_playground.run(text, name, lambda message: messages.append(json.loads(message)))
    assert messages[-1] == json.loads(json.dumps(done))
    return messages[:-1], done


def text_of(messages: list[dict]) -> str:
    return "".join(part["text"] for message in messages for part in message["parts"])


# The long examples (conftest's SLOW_EXAMPLES) run through this same module in Pyodide, in the
# browser test (tests/test_playground.py); natively they would add 30 s of the same training.
# Those that train for about a second (TRAINING_EXAMPLES) are in the slow run: the other examples
# show the runner's parts in the default one.
@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=[pytest.mark.slow] if p.stem in TRAINING_EXAMPLES else [])
        for p in EXAMPLES
        if p.stem not in SLOW_EXAMPLES
    ],
    ids=lambda path: path.stem,
)
def test_every_example_shows_its_golden_text(path: Path, monkeypatch):
    # The page runs with the examples' folder as its working folder (read_table's CSV files).
    monkeypatch.chdir(ROOT / "examples")
    messages, done = run(path.read_text(encoding="utf-8"), f"examples/{path.name}")
    assert {message["type"] for message in messages} == {"parts"}
    assert text_of(messages) + f"[exit status {done['status']}]\n" == path.with_suffix(".out").read_text(encoding="utf-8")
    assert done["error"] is None and done["left_out"] == 0


def test_parts_carry_html_tables_and_svg_pictures():
    messages, done = run('let x = var 2\nlet square = x * x\nlet loss = square + square\nbackward(loss)\n'
                         'print "x grad {grad(x)}"\ndraw(loss)\nwalk(loss)\n')
    parts = [part for message in messages for part in message["parts"]]
    kinds = [part["kind"] for part in parts]
    assert "picture" in kinds and "walk" in kinds and done["status"] == 0
    picture = next(part for part in parts if part["kind"] == "picture")
    assert picture["svg"].startswith("<svg") and picture["text"].startswith("digraph")
    assert any("<table" in part.get("html", "") or "<pre" in part.get("html", "") for part in parts if part["kind"] == "text")
    assert "x grad 8" in text_of(messages)
    walk = next(part for part in parts if part["kind"] == "walk")
    assert 'class="scalarlang-walk"' in walk["html"] and "<script" in walk["html"]


def test_a_walk_over_tensors_is_a_walk_part_stepping_a_node_at_a_time():
    """Issue 43, item 2: the page shows a tensor graph's walk as the command prints it, with the player."""
    program = ("let X = tensor([[1, 2], [3, 4]])\nlet W = var tensor([[0.5, -1], [2, 0.25]])\n"
               "let loss = sum(tanh(X @ W))\nwalk(loss)\n")
    messages, done = run(program)
    (walk,) = [part for message in messages for part in message["parts"] if part["kind"] == "walk"]
    assert done["status"] == 0 and 'data-steps="3"' in walk["html"] and "<svg" in walk["html"]
    assert "node 3 of 3: X @ W: matmul [2, 2]" in walk["text"] and "dB = Aᵀ @ dC (8 multiply edges)" in walk["text"]
    assert walk["text"] == scalarlang_text(program)


def scalarlang_text(program: str) -> str:
    import scalarlang

    return scalarlang.run(program, width=sad_playground.WIDTH).text


def test_a_chart_part_carries_its_axis_titles_in_svg_and_text():
    """Issue 45, item 4: the page's chart (its SVG) and its text show `xlabel:` and `ylabel:`."""
    messages, done = run('plot([4, 2, 1], xlabel: "step", ylabel: "loss")\n')
    (chart,) = [part for message in messages for part in message["parts"] if part["kind"] == "chart"]
    assert done["status"] == 0 and chart["svg"].startswith("<svg")
    assert 'class="axis-title" data-axis="x"' in chart["svg"] and ">step</text>" in chart["svg"]
    assert 'class="axis-title" data-axis="y"' in chart["svg"] and ">loss</text>" in chart["svg"]
    assert chart["text"].splitlines()[0] == "loss" and "step" in chart["text"].splitlines()[-1]


def test_a_long_run_is_shown_in_batches_as_it_goes(monkeypatch):
    # Patched: a batch is sent every FLUSH_SECONDS; at 0 every print is one, without a slow program.
    monkeypatch.setattr(sad_playground, "FLUSH_SECONDS", 0.0)
    program = 'let x = var 1\nfor i in 0..5 {\n  print "step {i}"\n}\n'
    messages, done = run(program)
    assert len(messages) >= 5
    assert text_of(messages) == "".join(f"step {i}\n" for i in range(5))


def test_a_syntax_error_has_its_kind_and_span_in_utf16_units():
    # 𝜋 is one code point but two UTF-16 units (JavaScript's string offsets, the editor's).
    program = 'print "𝜋 é"\nlet y = 3 $ 4\n'
    messages, done = run(program)
    error = done["error"]
    assert done["status"] == 2 and error["kind"] == "syntax-error"
    assert (error["line"], error["column"], error["end_line"], error["end_column"]) == (2, 11, 2, 12)
    assert (error["start"], error["end"]) == (program.index("$") + 1, program.index("$") + 2)
    units = program.encode("utf-16-le")
    assert units[error["start"] * 2 : error["end"] * 2].decode("utf-16-le") == "$"
    assert "error[syntax-error]: unexpected character `$`" in text_of(messages)


def test_a_runtime_error_marks_the_expression_that_failed():
    program = "# 𝜋\nlet x = var 2\nlet y = log(x - 2)\n"
    messages, done = run(program)
    error = done["error"]
    assert done["status"] == 1 and error["kind"] == "non-finite-result"
    units = program.encode("utf-16-le")
    assert units[error["start"] * 2 : error["end"] * 2].decode("utf-16-le") == "log(x - 2)"
    assert (error["line"], error["column"]) == (3, 9)
    assert "error[non-finite-result]: log produced non-finite scalar value -inf" in text_of(messages)


def test_an_error_in_another_source_has_no_span_in_the_editor():
    error = sad_playground.diagnostic_json(_failure_of('let x = 1 +\n', "other.sad"), "let y = 2\n", "playground.sad")
    assert error["kind"] == "syntax-error" and "start" not in error and "line" not in error


def _failure_of(text: str, name: str):
    import scalarlang
    from scalarlang.interpreter.outcomes import Failed
    from scalarlang.language.source import Source

    session = scalarlang.Session()
    for outcome in session.interpreter.run(Source(name, text)):
        if isinstance(outcome, Failed):
            return outcome
    raise AssertionError("no failure")


def test_output_past_the_limit_is_counted_not_sent(monkeypatch):
    # Patched: a small limit reached by a short program; the real one is the same code.
    monkeypatch.setattr(sad_playground, "OUTPUT_LIMIT", 2_000)
    monkeypatch.setattr(sad_playground, "FLUSH_SECONDS", 0.0)
    messages, done = run('for i in 0..500 {\n  print "line {i} of a long loop"\n}\n')
    sent = sum(len(part["text"]) + len(part.get("html", "")) for message in messages for part in message["parts"])
    assert sent <= 2_000 and done["left_out"] > 0 and done["status"] == 0
    assert text_of(messages).startswith("line 0 of a long loop\n")


def test_each_run_is_a_fresh_session():
    run("let x = var 2\n")
    messages, done = run('print "{x}"\n')
    assert done["status"] != 0 and done["error"]["kind"] == "undefined-name"


VJP_CHECK_PROGRAM = (ROOT / "tests" / "fixtures" / "vjp_check_program.sad").read_text(encoding="utf-8")


def test_vjp_check_shows_its_table_as_the_command_prints_it_and_a_failed_one_marks_the_call():
    # (the second check fails: softmax's two sides differ in their last bits; the tolerance is the
    # smallest float)
    messages, done = run(VJP_CHECK_PROGRAM)
    text = text_of(messages)
    assert text == script_output(VJP_CHECK_PROGRAM, "playground.sad")[1]
    assert "vjp_check loss: 3 tensor nodes" in text and "FAIL at S[1, 2]" in text and "pass=false" in text
    html = "".join(part.get("html", "") for message in messages for part in message["parts"])
    assert "X @ W" in html and "FAIL at S[1, 2]" in html
    error = done["error"]
    assert done["status"] == 1 and error["kind"] == "vjp-check-failed"
    failing = VJP_CHECK_PROGRAM.splitlines()[error["line"] - 1]
    assert failing.startswith("vjp_check(sum(softmax(S)") and failing[error["column"] - 1:].startswith("vjp_check(")
