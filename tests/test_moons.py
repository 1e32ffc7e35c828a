"""examples/moons.sad (issue 24) against micrograd: the same network, data, starting weights
and order of operations give the same loss and accuracy at every step, bit for bit.

The reference is tests/micrograd_moons.py (micrograd 0.1.0's `Value`, its operations put in
the program's order; its docstring says how). The program is the example itself, changed only
where a test must change it:

- ``let steps = 100`` becomes ``let steps = N`` (the documented way to run fewer steps: the
  learning rate keeps its 100-step schedule, so N steps are the first N of the full run);
- the ``if step % 10 == 0 { print … }`` line prints every step;
- for the exact comparison the loop runs one step per ``Session.run`` (``for step in K..K+1``,
  the loop's own body), so that each step's ``loss`` and ``accuracy`` nodes are read from the
  session as floats, not as printed digits.

The default run compares `FEW` steps (about two seconds); the test marked slow all 100 (about
half a minute, micrograd taking most of it). The full example's output is its golden file,
examples/moons.out: its golden item checks it in the slow run, test_cli.py (the command, all
examples in one process) in the default one; here the first steps are checked against it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("micrograd")

import micrograd_moons as reference  # noqa: E402  (tests/ is on sys.path, as for shared.py)

import scalarlang  # noqa: E402
from sessions import script_output  # noqa: E402
from scalarlang.language.source import Source  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
EXAMPLE = EXAMPLES / "moons.sad"
GOLDEN = EXAMPLES / "moons.out"
TEXT = EXAMPLE.read_text(encoding="utf-8")
FEW = 3
FULL = 100

STEPS_LINE = "let steps = 100\n"
PRINT_LINE = '  if step % 10 == 0 { print "step {step} loss {loss} accuracy {accuracy}" }\n'
EVERY_STEP = '  print "step {step} loss {loss} accuracy {accuracy}"\n'
LOOP = re.compile(r"^for step in 0\.\.steps \{\n(?P<body>.*?)^\}\n", re.MULTILINE | re.DOTALL)


def micrograd(steps: int) -> tuple[tuple[float, float], ...]:
    return reference.trained(steps)


def variant(steps: int, every_step: bool = False) -> str:
    assert TEXT.count(STEPS_LINE) == 1 and TEXT.count(PRINT_LINE) == 1, "the example changed: update this test"
    text = TEXT.replace(STEPS_LINE, f"let steps = {steps}\n")
    return text.replace(PRINT_LINE, EVERY_STEP) if every_step else text


def run_program(text: str) -> tuple[str, int]:
    """What `scalarlang` prints for ``text`` saved as examples/moons.sad, and its status."""
    status, output = script_output(Source("examples/moons.sad", text, str(EXAMPLES)))
    return output, status


def sad_history(steps: int, monkeypatch) -> tuple[list[tuple[float, float]], list[str]]:
    """``(loss, accuracy)`` of each step as the session holds them, and each step's printed
    line: the example's setup, then its loop one step at a time."""
    text = variant(steps, every_step=True)
    loop = LOOP.search(text)
    assert loop is not None, "the example's loop changed: update this test"
    monkeypatch.chdir(EXAMPLES)  # read_table("moons.csv"): text from no file reads from here
    session = scalarlang.Session()
    setup = session.run(text[: loop.start()], name="moons.sad")
    assert setup.ok and setup.text == "", setup.text
    history, lines = [], []
    for step in range(steps):
        result = session.run(f"for step in {step}..{step + 1} {{\n{loop['body']}}}\n", name="moons.sad")
        assert result.ok, result.text
        history.append((session["loss"].value, session["accuracy"].value))
        lines.append(result.text)
    return history, lines


def compare_with_micrograd(steps: int, monkeypatch) -> None:
    ours, lines = sad_history(steps, monkeypatch)
    theirs = micrograd(steps)
    assert len(ours) == len(theirs) == steps
    for step, ((loss, accuracy), (mg_loss, mg_accuracy)) in enumerate(zip(ours, theirs)):
        # repr: the same float, bit for bit (== would also pass 0.0 against -0.0)
        assert (repr(loss), repr(accuracy)) == (repr(mg_loss), repr(mg_accuracy)), f"step {step}"
        assert lines[step] == reference.format_line(step, mg_loss, mg_accuracy) + "\n"


def test_the_first_steps_are_micrograds_bit_for_bit(monkeypatch):
    compare_with_micrograd(FEW, monkeypatch)


@pytest.mark.slow
def test_all_100_steps_are_micrograds_bit_for_bit(monkeypatch):
    compare_with_micrograd(FULL, monkeypatch)


def test_the_whole_program_printing_every_step_prints_micrograds_lines():
    """The loop as written (not one step per run), every step printed: micrograd's lines."""
    text, status = run_program(variant(FEW, every_step=True))
    assert status == 0
    expected = [reference.format_line(step, *figures) for step, figures in enumerate(micrograd(FEW))]
    assert text.splitlines()[:FEW] == expected
    assert text.splitlines()[FEW].strip() == "loss"  # then the pictures: the loss, the boundary


def test_a_short_run_prints_the_first_lines_of_the_golden_output():
    """With ``let steps = 11`` the example prints steps 0 and 10, as the full run does, and
    its pictures."""
    text, status = run_program(variant(11))
    golden = GOLDEN.read_text(encoding="utf-8").splitlines()
    assert status == 0 and golden[-1] == "[exit status 0]"
    assert text.splitlines()[:2] == golden[:2]
    # Then the two pictures, of the 11 steps' losses and network: as tall as the full run's.
    lines = text.splitlines()[2:]
    assert lines[0].strip() == "loss" and len(lines) == len(golden) - 1 - 10
    assert lines[-1] == golden[-2] == "+ score > 0   - score < 0   o label -1   x label 1"
    assert all(len(line) <= 100 and line == line.rstrip() for line in text.splitlines())


def test_the_golden_output_shows_the_loss_falling_and_the_accuracy_rising():
    rows = [
        (int(step), float(loss), float(accuracy))
        for step, loss, accuracy in re.findall(r"^step (\d+) loss (\S+) accuracy (\S+)$", GOLDEN.read_text(), re.MULTILINE)
    ]
    assert [step for step, _, _ in rows] == list(range(0, FULL, 10))
    losses = [loss for _, loss, _ in rows]
    accuracies = [accuracy for _, _, accuracy in rows]
    assert losses[0] > 0.9 and losses[-1] < 0.02 and losses[-1] == min(losses)
    assert all(later < earlier for earlier, later in zip(losses, losses[1:])), losses
    assert accuracies[0] == 0.5 and accuracies[-1] == 1.0 and max(accuracies[:5]) < 1.0
    assert all(accuracy >= 0.99 for accuracy in accuracies[5:])


def test_the_readme_shows_the_program_and_its_output():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```[a-z]*\n(.*?)```", readme, flags=re.DOTALL)
    program = next(block for block in blocks if "read_table(\"moons.csv\")" in block)
    assert program in TEXT
    shown = blocks[blocks.index(program) + 1]
    assert shown in GOLDEN.read_text(encoding="utf-8")
    assert len(shown.splitlines()) >= 3


def test_the_readme_shows_the_pictures_the_example_ends_with():
    """The README's pictures of the loss and the boundary are the golden output's last lines
    (which the golden item checks against the program in the slow run; the short run above,
    the same pictures of fewer steps, in the default one)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Seeing training: `plot` and `boundary`", 1)[1]
    pictures = re.findall(r"```[a-z]*\n(.*?)```", section, flags=re.DOTALL)[0]
    golden = GOLDEN.read_text(encoding="utf-8")
    assert golden.endswith(pictures + "[exit status 0]\n")
    assert pictures.splitlines()[0].strip() == "loss" and pictures.count("└") == 2
