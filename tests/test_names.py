"""examples/names.sad (issue 32) against the same training written in numpy.

The reference below is written apart from the engine: the text with a newline in front, its
sorted characters as the vocabulary, the V x V weights drawn with Python's
`random.Random(42).gauss(0, 1)` in the program's order (row by row), each step the mean over
the text's pairs of `logsumexp(W[x]) - W[x][y]` (the largest logit taken out first), its
gradient `(softmax(W[x]) - one_hot(y)) / n` added up with `np.add.at`, and `W - 50 * gradient`;
then ten names drawn with `random.choices` over `softmax(W[c])`, going on from the generator's
state after the weights' draws. The program is the example itself, changed only where a test
must: ``let steps = 100`` becomes ``let steps = N`` and the loop prints every step's loss with
17 significant digits (every bit of it).

The default run compares `FEW` steps and the names drawn after them (and the shape of the
golden file); the test marked slow all 100 steps and the example's own ten names. The full
output is the golden file, examples/names.out, whose golden item is in the slow run
(tests/conftest.py's `SLOW_EXAMPLES`).
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import numpy as np
import pytest

from sessions import script_output
from scalarlang.language.source import Source

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE = EXAMPLES / "names.sad"
TEXT = EXAMPLE.read_text(encoding="utf-8")
FEW = 4
FULL = 100
RATE = 50.0

STEPS_LINE = "let steps = 100\n"
PRINT_LINE = '  if step % 10 == 0 { print "step {step} loss {loss}" }\n'
EVERY_STEP = '  print "loss {loss:.17g}"\n'


def variant(steps: int) -> str:
    assert TEXT.count(STEPS_LINE) == 1 and TEXT.count(PRINT_LINE) == 1, "the example changed: update this test"
    return TEXT.replace(STEPS_LINE, f"let steps = {steps}\n").replace(PRINT_LINE, EVERY_STEP)


def run_example(steps: int) -> list[str]:
    status, output = script_output(Source(str(EXAMPLE), variant(steps), folder=str(EXAMPLES)))
    assert status == 0, output
    return output.splitlines()


@functools.lru_cache(maxsize=None)
def reference(steps: int) -> tuple[list[float], list[str]]:
    """The losses of ``steps`` steps and the ten names drawn after them, in numpy."""
    text = "\n" + (EXAMPLES / "names.txt").read_text(encoding="utf-8")
    vocab = sorted(set(text))
    ids = np.array([vocab.index(char) for char in text])
    size = len(vocab)
    generator = random.Random(42)
    weights = np.array([[generator.gauss(0.0, 1.0) for _ in range(size)] for _ in range(size)])
    inputs, targets = ids[:-1], ids[1:]
    count, rows = len(inputs), np.arange(len(inputs))
    losses = []
    for _ in range(steps):
        logits = weights[inputs]
        top = logits.max(axis=1, keepdims=True)
        exponentials = np.exp(logits - top)
        totals = exponentials.sum(axis=1, keepdims=True)
        logsumexp = top[:, 0] + np.log(totals[:, 0])
        losses.append(float(np.sum(logsumexp - logits[rows, targets]) / count))
        gradient_rows = exponentials / totals
        gradient_rows[rows, targets] -= 1.0
        gradient = np.zeros_like(weights)
        np.add.at(gradient, inputs, gradient_rows / count)
        weights = weights - RATE * gradient
    newline = vocab.index("\n")
    names = []
    for _ in range(10):
        word, char = "", _draw(generator, weights[newline])
        while char != newline:
            word += vocab[char]
            char = _draw(generator, weights[char])
        names.append(word)
    return losses, names


def _draw(generator: random.Random, logits: np.ndarray) -> int:
    exponentials = np.exp(logits - logits.max())
    probabilities = exponentials / exponentials.sum()
    return generator.choices(range(len(logits)), weights=probabilities.tolist())[0]


def check(steps: int) -> list[str]:
    lines = run_example(steps)
    losses = [float(line.split()[1]) for line in lines if line.startswith("loss ")]
    expected, names = reference(steps)
    assert len(losses) == steps
    for step, (loss, wanted) in enumerate(zip(losses, expected)):
        assert abs(loss - wanted) <= 1e-12 * abs(wanted), (step, loss, wanted)
    assert lines[-10:] == names
    return lines


def test_the_first_steps_and_the_names_after_them_match_numpy():
    lines = check(FEW)
    assert lines[0] == "600 names, 3933 pairs of characters, a vocabulary of 27"
    losses = [float(line.split()[1]) for line in lines if line.startswith("loss ")]
    assert losses == sorted(losses, reverse=True)  # it falls


def test_the_golden_file_is_the_full_run_of_the_program():
    golden = (EXAMPLES / "names.out").read_text(encoding="utf-8").splitlines()
    assert golden[0] == "600 names, 3933 pairs of characters, a vocabulary of 27"
    shown = [line for line in golden if line.startswith("step ")]
    assert [line.split()[1] for line in shown] == [*map(str, range(0, FULL, 10)), str(FULL - 1)]
    values = [float(line.split()[3]) for line in shown]
    assert values[0] > 3.6 and values[-1] < 2.35 and values == sorted(values, reverse=True)


@pytest.mark.slow  # 100 steps: about 10 s
def test_every_step_of_the_full_run_and_its_names_match_numpy():
    lines = check(FULL)
    golden = (EXAMPLES / "names.out").read_text(encoding="utf-8").splitlines()
    assert golden[-1] == "[exit status 0]" and lines[-10:] == golden[-11:-1]
