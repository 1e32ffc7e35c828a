"""`draw(...)` in the language, `--draw DIR` on the command line and `:draw` in the REPL."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from shared import SEED_PROGRAM, parse_dot, text_of
from sessions import run
from commands import command_in_process, run_program
from scalarlang.pictures import errors as drawing_errors
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.failures import DRAWING_KINDS, RUNTIME_KINDS, STATIC_KINDS
from scalarlang.interpreter.outcomes import Drawn, Expected, Failed
from scalarlang.render.text import Renderer, make_console
from scalarlang.front.repl_core import ReplCore

ROOT = Path(__file__).resolve().parent.parent
HAVE_DOT = shutil.which("dot") is not None
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def no_dot(monkeypatch, tmp_path):
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert shutil.which("dot") is None


def command(*arguments: str) -> subprocess.CompletedProcess:
    """What `scalarlang ARGUMENTS` prints (text), from the command's main in this process: the
    statements and --draw write their files the same from it."""
    done = command_in_process(*arguments, cwd=None)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


# ---- the statement ---------------------------------------------------------------------------


TREE = """graph of loss
loss  add · value 8 · grad 0
├─ slot 0, d 1: square  mul · value 4 · grad 0
│  ├─ slot 0, d 2: x  variable · value 2 · grad 0
│  └─ slot 1, d 2: x (above)
└─ slot 1, d 1: square (above)
3 unique nodes, 4 operand edges; draw(loss, "graph.svg") writes the picture
"""


def test_draw_without_a_file_prints_the_graph_as_a_text_tree():
    # Issue 45, item 3: a text picture, not 45 lines of DOT (DOT only goes to a `.dot` file).
    outcomes = run(SEED_PROGRAM + "draw(loss)")
    drawn = outcomes[-1]
    assert isinstance(drawn, Drawn) and drawn.path is None and drawn.label == "loss"
    assert text_of([drawn]) == TREE


def test_draw_through_a_pipe_prints_the_same_tree_and_no_dot():
    done = run_program(SEED_PROGRAM + "draw(loss)\n")
    assert done.returncode == 0 and done.stdout == TREE and "digraph" not in done.stdout


def test_a_text_tree_fits_the_width_and_stops_a_branch_too_deep():
    program = "let x = var 0.5\nlet y = x\nrepeat 60 { let y = tanh(y) }\ndraw(y)\ndraw(y * y)"
    done = run_program(program, width=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert sum(line.endswith("└─ … deeper: a .svg shows it") for line in lines) == 2  # (y*y: once, the 2nd y is above)
    assert lines[1].startswith("y  tanh · value ")


def test_the_picture_is_of_the_graph_as_it_was_when_drawn():
    outcomes = run(SEED_PROGRAM + "draw(loss)\nbackward(loss)\ndraw(loss)")
    before, after = (outcome for outcome in outcomes if isinstance(outcome, Drawn))
    assert before.picture.nodes[0].lines[-1] == "grad 0"
    assert after.picture.nodes[0].lines[-1] == "grad 8"


@pytest.mark.parametrize("extension", ["svg", "dot"] + (["png"] if HAVE_DOT else []))
def test_draw_to_a_file_writes_its_format_and_says_so(tmp_path, extension):
    target = tmp_path / f"loss.{extension}"
    outcomes = run(SEED_PROGRAM + f'draw(loss, "{target}")')
    assert " ".join(text_of(outcomes).split()) == f"drew loss to {target} (3 unique nodes, 4 operand edges)"
    data = target.read_bytes()
    if extension == "svg":
        texts = ["".join(t.itertext()) for t in ET.fromstring(data).iter(f"{SVG}text")]
        assert "square" in texts and "value 8" in texts
    elif extension == "dot":
        assert len(parse_dot(data.decode())[1]) == 4
    else:
        assert data.startswith(b"\x89PNG")


def test_draw_shows_inside_loop_bodies_and_file_names_interpolate(tmp_path):
    program = SEED_PROGRAM + f'for step in 0..3 {{\n  backward(loss)\n  draw(x, "{tmp_path}/x-{{step}}.dot")\n  draw(x)\n}}'
    outcomes = run(program)
    drawn = [outcome for outcome in outcomes if isinstance(outcome, Drawn)]
    assert len(drawn) == 6
    assert sorted(path.name for path in tmp_path.iterdir()) == ["x-0.dot", "x-1.dot", "x-2.dot"]
    assert [d.picture.nodes[0].lines[-1] for d in drawn if d.path is None] == [
        "grad 8", "grad 16", "grad 24",
    ]


@pytest.mark.parametrize(
    "statement", ["draw()", "draw(loss, 2)", 'draw("loss.svg")', 'draw(loss, "a.svg", "b.svg")']
)
def test_draw_with_wrong_arguments(statement):
    outcomes = run(SEED_PROGRAM + statement)
    assert isinstance(outcomes[-1], Failed) and outcomes[-1].diagnostic.kind == "wrong-arguments"
    assert 'draw(loss, "loss.svg")' in outcomes[-1].diagnostic.message


def test_draw_takes_its_file_name_from_a_name_holding_a_text(tmp_path):
    picture = tmp_path / "loss.svg"
    outcomes = run(SEED_PROGRAM + f'let path = "{picture}"\ndraw(loss, path)')
    assert not isinstance(outcomes[-1], Failed) and picture.read_text().lstrip().startswith("<")
    outcomes = run(SEED_PROGRAM + "draw(loss, loss)")
    assert isinstance(outcomes[-1], Failed) and outcomes[-1].diagnostic.kind == "not-a-text"
    assert outcomes[-1].diagnostic.message == "`loss` is a node, not a text: `draw` takes a text"


def test_drawing_kinds_are_runtime_kinds_expect_can_catch():
    assert set(DRAWING_KINDS) == set(drawing_errors.DRAWING_KINDS) - {"io-error"}
    assert set(DRAWING_KINDS) <= RUNTIME_KINDS
    outcomes = run(SEED_PROGRAM + 'expect unknown-picture-format: draw(loss, "loss.pdf")')
    assert outcomes[-1] == Expected(outcomes[-1].span, "unknown-picture-format", outcomes[-1].message)
    assert "use .svg, .png or .dot" in outcomes[-1].message
    # A picture that cannot be written is an io-error at run time (exit status 1); a program
    # that cannot be read is one too, before anything runs (exit status 2).
    assert "io-error" in RUNTIME_KINDS and "io-error" in STATIC_KINDS
    result = command("-c", SEED_PROGRAM + 'draw(loss, "/nonexistent-folder-of-scalarlang/loss.svg")')
    assert result.returncode == 1 and "error[io-error]" in result.stderr


def test_png_without_graphviz_is_missing_graphviz_and_expect_catches_it(no_dot, tmp_path):
    target = tmp_path / "loss.png"
    outcomes = run(SEED_PROGRAM + f'expect missing-graphviz: draw(loss, "{target}")\ndraw(loss, "{target}")')
    (expected,) = [outcome for outcome in outcomes if isinstance(outcome, Expected)]
    assert expected.kind == "missing-graphviz"
    diagnostic = outcomes[-1].diagnostic
    assert diagnostic.kind == "missing-graphviz" and "apt-get install graphviz" in diagnostic.message
    assert diagnostic.source.slice(diagnostic.span) == f'"{target}"'
    assert not target.exists()


def test_svg_without_graphviz_still_works(no_dot, tmp_path):
    target = tmp_path / "loss.svg"
    assert not any(isinstance(o, Failed) for o in run(SEED_PROGRAM + f'draw(loss, "{target}")'))
    assert "graphviz" not in target.read_text().lower()


def test_an_unwritable_file_is_io_error_and_the_statements_before_it_stand(tmp_path):
    target = tmp_path / "missing" / "loss.svg"
    session = Interpreter()
    outcomes = run(SEED_PROGRAM + f'backward(loss)\ndraw(loss, "{target}")', session)
    diagnostic = outcomes[-1].diagnostic
    assert diagnostic.kind == "io-error" and str(target) in diagnostic.message
    assert session.lookup("x").gradient == 8.0


def test_a_graph_too_large_is_refused_with_a_clear_message():
    outcomes = run("let y = var 1\nrepeat 600 { let y = y + 1 }\ndraw(y)")
    diagnostic = outcomes[-1].diagnostic
    assert diagnostic.kind == "graph-too-large" and "1201 nodes" in diagnostic.message
    assert diagnostic.source.slice(diagnostic.span) == "y"


def test_json_draw_events(tmp_path):
    target = tmp_path / "loss.dot"
    result = command("--json", "-c", SEED_PROGRAM + f'draw(loss, "{target}")\ndraw(x)')
    events = [json.loads(line) for line in result.stdout.splitlines()][1:]
    assert [event["event"] for event in events] == ["draw", "draw"]
    assert events[0]["path"] == str(target) and events[0]["format"] == "dot" and events[0]["dot"] is None
    assert (events[0]["node_count"], events[0]["edge_count"]) == (3, 4)
    assert events[1]["path"] is None and events[1]["dot"].startswith("digraph scalarlang {")


# ---- --draw DIR ------------------------------------------------------------------------------


def test_draw_dir_writes_one_svg_per_pass_numbered_across_files(tmp_path):
    pictures = tmp_path / "pictures"
    second = tmp_path / "second.sad"
    second.write_text("let w = var 3\nlet out = w * w\nrepeat 2 { backward(out) }\n")
    result = command("--draw", str(pictures), str(ROOT / "examples" / "reused_square.sad"), str(second))
    assert result.returncode == 0, result.stderr
    names = sorted(path.name for path in pictures.iterdir())
    assert names == [
        "pass-001-loss.svg", "pass-002-loss.svg", "pass-003-loss.svg", "pass-004-out.svg", "pass-005-out.svg",
    ]
    root = ET.fromstring((pictures / "pass-001-loss.svg").read_bytes())
    texts = ["".join(t.itertext()).strip() for t in root.iter(f"{SVG}text")]
    for expected in ("adjoint 8", "#3 slot 1", "+= 4"):
        assert expected in texts
    # the output is the same as without --draw
    assert result.stdout == command(str(ROOT / "examples" / "reused_square.sad"), str(second)).stdout


def test_draw_dir_that_cannot_be_made_fails_the_pass_before_it_commits(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    session = Interpreter()
    from scalarlang.pictures import PassDrawer

    session.pass_observer = PassDrawer(blocker / "pictures")
    outcomes = run(SEED_PROGRAM + "backward(loss)", session)
    assert outcomes[-1].diagnostic.kind == "io-error"
    assert session.lookup("x").gradient == 0.0
    result = command("--draw", str(blocker / "pictures"), "-c", SEED_PROGRAM + "backward(loss)")
    # At run time (the first pass): a runtime error, exit status 1.
    assert result.returncode == 1 and "error[io-error]: cannot make the directory" in result.stderr


# ---- the REPL --------------------------------------------------------------------------------


def test_repl_draw_prints_dot_or_writes_a_file(tmp_path):
    stream = io.StringIO()
    core = ReplCore(Renderer(make_console(stream, width=100, color="never"), echo_bindings=True))
    for line in SEED_PROGRAM.splitlines():
        core.handle(line)
    start = len(stream.getvalue())
    core.handle(":draw loss")
    assert stream.getvalue()[start:] == TREE
    target = tmp_path / "loss.svg"
    start = len(stream.getvalue())
    core.handle(f":draw loss {target}")
    assert " ".join(stream.getvalue()[start:].split()) == f"drew loss to {target} (3 unique nodes, 4 operand edges)"
    assert target.exists()
    start = len(stream.getvalue())
    core.handle(":draw los")
    core.handle(":draw loss out.pdf")
    core.handle(":draw")
    out = stream.getvalue()[start:]
    assert "error[undefined-name]: `los` is not defined" in out and "did you mean `loss`?" in out
    assert "error[unknown-picture-format]" in out and "1 | :draw loss out.pdf" in out
    assert "`:draw` needs a name" in out


def test_repl_session_with_a_pass_drawer_draws_each_pass(tmp_path):
    from scalarlang.pictures import PassDrawer

    session = Interpreter()
    session.pass_observer = PassDrawer(tmp_path / "passes")
    core = ReplCore(Renderer(make_console(io.StringIO(), width=100, color="never")), session=session)
    for line in SEED_PROGRAM.splitlines() + ["backward(loss)", "backward(square)", "expect non-finite-seed: backward(loss, inf)"]:
        core.handle(line)
    assert sorted(path.name for path in (tmp_path / "passes").iterdir()) == ["pass-001-loss.svg", "pass-002-square.svg"]


def test_repl_completes_draw_names_then_files(tmp_path):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from scalarlang.front.editing import SadCompleter

    (tmp_path / "pictures").mkdir()
    completer = SadCompleter(lambda: ["loss", "lr", "x"])

    def complete(text):
        document = Document(text, len(text))
        return [c.text for c in completer.get_completions(document, CompleteEvent(completion_requested=True))]

    assert complete(":dr") == ["draw"]
    assert complete(":draw l") == ["loss", "lr"]
    assert complete(f":draw loss {tmp_path}/pic") == ["tures"]
