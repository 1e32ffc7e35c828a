"""examples/names_mlp.sad (issue 32) against the same model and training written in numpy.

The reference: makemore's examples, each name's contexts starting from three newlines of its
own (`\n\n\n` + name + `\n`, an example per character after the padding: its three
characters before and it), in the names' order; the embedding table C (27 x 2), W1 (16 x 6),
W2 (27 x 16) drawn with Python's `random.Random(42).gauss` in the program's order (b1, b2
zero); each step a minibatch of 32 examples `floor(uniform(0, n))` drawn from the same
generator, the forward pass as matrices (`tanh(W1 x + b1)`, `W2 h + b2`, the mean of
`logsumexp - logit of the target`), the backward pass written out by hand (softmax minus
one-hot, tanh's `1 - h^2`, the embedding rows' gradients added up with `np.add.at`), and
every parameter less `(2 - 1.8 step / steps)` times its gradient; then the loss on the 300
fixed examples (every 13th) and ten names drawn with `random.choices` over the softmax.

The program is the example, with ``let steps = 300`` set to N and each step's minibatch loss
printed with 17 significant digits. The default run compares `FEW` steps (and what follows
them); the slow test all 300.
"""

from __future__ import annotations

import functools
import math
import random
from pathlib import Path

import numpy as np
import pytest

from sessions import script_output
from scalarlang.language.source import Source

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE = EXAMPLES / "names_mlp.sad"
TEXT = EXAMPLE.read_text(encoding="utf-8")
FEW = 3
FULL = 300
BATCH, EMBEDDING, HIDDEN = 32, 2, 16

STEPS_LINE = "let steps = 300\n"
RECENT_LINE = "  let recent = recent + [value(loss)]\n"


def variant(steps: int) -> str:
    assert TEXT.count(STEPS_LINE) == 1 and TEXT.count(RECENT_LINE) == 1, "the example changed: update this test"
    text = TEXT.replace(STEPS_LINE, f"let steps = {steps}\n")
    return text.replace(RECENT_LINE, '  print "batch loss {loss:.17g}"\n' + RECENT_LINE)


def run_example(steps: int) -> list[str]:
    status, output = script_output(Source(str(EXAMPLE), variant(steps), folder=str(EXAMPLES)))
    assert status == 0, output
    return output.splitlines()


class Model:
    def __init__(self, generator: random.Random, size: int):
        self.C = np.array([[generator.gauss(0, 1) for _ in range(EMBEDDING)] for _ in range(size)])
        self.W1 = np.array([[generator.gauss(0, 0.5) for _ in range(3 * EMBEDDING)] for _ in range(HIDDEN)])
        self.b1 = np.zeros(HIDDEN)
        self.W2 = np.array([[generator.gauss(0, 0.1) for _ in range(HIDDEN)] for _ in range(size)])
        self.b2 = np.zeros(size)

    def logits(self, contexts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(inputs, hidden, logits) of a batch of contexts (rows of three indices)."""
        inputs = self.C[contexts].reshape(len(contexts), 3 * EMBEDDING)
        hidden = np.tanh(inputs @ self.W1.T + self.b1)
        return inputs, hidden, hidden @ self.W2.T + self.b2

    def losses(self, contexts: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, tuple]:
        inputs, hidden, logits = self.logits(contexts)
        top = logits.max(axis=1, keepdims=True)
        exponentials = np.exp(logits - top)
        totals = exponentials.sum(axis=1, keepdims=True)
        losses = top[:, 0] + np.log(totals[:, 0]) - logits[np.arange(len(targets)), targets]
        return losses, (inputs, hidden, exponentials / totals)

    def step(self, contexts: np.ndarray, targets: np.ndarray, rate: float) -> float:
        losses, (inputs, hidden, probabilities) = self.losses(contexts, targets)
        count = len(targets)
        d_logits = probabilities.copy()
        d_logits[np.arange(count), targets] -= 1.0
        d_logits /= count
        d_W2, d_b2 = d_logits.T @ hidden, d_logits.sum(axis=0)
        d_pre = (d_logits @ self.W2) * (1.0 - hidden * hidden)
        d_W1, d_b1 = d_pre.T @ inputs, d_pre.sum(axis=0)
        d_inputs = (d_pre @ self.W1).reshape(count, 3, EMBEDDING)
        d_C = np.zeros_like(self.C)
        np.add.at(d_C, contexts, d_inputs)
        self.C -= rate * d_C
        self.W1 -= rate * d_W1
        self.b1 -= rate * d_b1
        self.W2 -= rate * d_W2
        self.b2 -= rate * d_b2
        return float(losses.sum() / count)


@functools.lru_cache(maxsize=None)
def reference(steps: int) -> tuple[list[float], float, list[str]]:
    text = (EXAMPLES / "names.txt").read_text(encoding="utf-8")
    vocab = sorted(set(text))
    examples = []  # makemore's build_dataset: each name from a context of three newlines
    for name in text.splitlines():
        context = [vocab.index("\n")] * 3
        for char in name + "\n":
            examples.append([*context, vocab.index(char)])
            context = [*context[1:], vocab.index(char)]
    table = np.array(examples)
    generator = random.Random(42)
    model = Model(generator, len(vocab))
    losses = []
    for step in range(steps):
        batch = table[[math.floor(generator.uniform(0, len(table))) for _ in range(BATCH)]]
        losses.append(model.step(batch[:, :3], batch[:, 3], 2 - 1.8 * step / steps))
    fixed = table[[13 * k for k in range(300)]]
    fixed_losses, _ = model.losses(fixed[:, :3], fixed[:, 3])
    newline = vocab.index("\n")
    names = []
    for _ in range(10):
        word, context = "", [newline] * 3
        char = _draw(generator, model, context)
        while char != newline:
            word += vocab[char]
            context = [context[1], context[2], char]
            char = _draw(generator, model, context)
        names.append(word)
    return losses, float(fixed_losses.mean()), names


def _draw(generator: random.Random, model: Model, context: list[int]) -> int:
    logits = model.logits(np.array([context]))[2][0]
    exponentials = np.exp(logits - logits.max())
    return generator.choices(range(len(logits)), weights=(exponentials / exponentials.sum()).tolist())[0]


def check(steps: int, tolerance: float = 1e-12) -> list[str]:
    lines = run_example(steps)
    losses = [float(line.split()[2]) for line in lines if line.startswith("batch loss ")]
    expected, fixed, names = reference(steps)
    assert len(losses) == steps
    for step, (loss, wanted) in enumerate(zip(losses, expected)):
        assert abs(loss - wanted) <= tolerance * abs(wanted), (step, loss, wanted)
    (shown,) = [line for line in lines if line.startswith("loss on 300 fixed examples ")]
    assert abs(float(shown.split()[-1]) - fixed) <= 1e-11 * fixed  # (printed with 12 significant digits)
    assert lines[-10:] == names
    return lines


def test_the_first_steps_and_the_names_after_them_match_numpy():
    check(FEW)


@pytest.mark.slow  # 300 steps: about 12 s, numpy's few
def test_every_step_of_the_full_run_matches_numpy():
    lines = check(FULL)  # (7e-16 apart at most, seen)
    golden = (EXAMPLES / "names_mlp.out").read_text(encoding="utf-8").splitlines()
    assert golden[-1] == "[exit status 0]" and lines[-10:] == golden[-11:-1]
