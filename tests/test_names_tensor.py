"""examples/names_tensor.sad (issue 43 item 3) against the numpy reference of makemore's MLP
(tests/makemore_numpy.py), step by step.

The program is run through the Python API with ``let steps = 1000`` set to N and its print line
changed to print every step's loss to 17 significant digits; the reference is given what the
program drew: its split (`random_seed(42)` then `shuffle`, as `random.Random(42).shuffle`),
its starting weights (`randn` draws `gauss(0, 1)` row major after `random_seed(2147483647)`,
scaled as the program scales them) and its minibatches (`floor(uniform(0, N))`, 32 a step,
after the weights). Each step's loss, the dev loss and the trained weights agree within 1e-9
(numpy sums in its own order). The default run trains `FEW` steps and leaves out the loss over
the whole training split (seconds of forward pass); the slow run is the example as it is.
"""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import numpy as np
import pytest

import scalarlang
from makemore_numpy import BATCH, BLOCK, EMBEDDING, HIDDEN, NAMES, Parameters, build_dataset, loss_on, rate_at
from makemore_numpy import split, train, vocabulary

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TEXT = (EXAMPLES / "names_tensor.sad").read_text(encoding="utf-8")
WORDS = (EXAMPLES / "names_census.txt").read_text(encoding="utf-8").splitlines()
FEW = 4
FULL = 1000
TOLERANCE = 1e-9
STEPS_LINE = f"let steps = {FULL}\n"
PRINT_LINE = '  if step % 100 == 0 { print "step {step} loss {loss}" }\n'
EVERY_STEP = '  print "step {step} loss {loss:.17g}"\n'
TRAIN_LOSS = 'print "train loss {loss_on(Xtr, Ytr)}"\n'
DEV_LOSS = 'print "dev loss {loss_on(Xdev, Ydev)}"\n'
SAMPLING = "# Ten new names"
STEP = re.compile(r"^step (\d+) loss (\S+)$")


def program(steps: int, whole_train_split: bool) -> str:
    """The example with `steps` steps, every step's loss printed, up to the sampling."""
    for line in (STEPS_LINE, PRINT_LINE, TRAIN_LOSS, DEV_LOSS, SAMPLING):
        assert TEXT.count(line) == 1, line
    text = TEXT.replace(STEPS_LINE, f"let steps = {steps}\n").replace(PRINT_LINE, EVERY_STEP)
    text = text.replace(TRAIN_LOSS, TRAIN_LOSS.replace("}", ":.17g}") if whole_train_split else "")
    text = text.replace(DEV_LOSS, DEV_LOSS.replace("}", ":.17g}"))
    return text[: text.index(SAMPLING)]


def run_example(steps: int, whole_train_split: bool, monkeypatch) -> tuple[scalarlang.Session, list[str]]:
    monkeypatch.chdir(EXAMPLES)  # read_text("names_census.txt")
    session = scalarlang.Session()
    result = session.run(program(steps, whole_train_split))
    assert result.ok, result.text
    return session, result.text.splitlines()


def reference(steps: int):
    """What the program draws, drawn in Python, and the reference trained on it."""
    vocab = vocabulary(WORDS)
    train_words, dev_words, _ = split(WORDS, seed=42)
    (Xtr, Ytr), (Xdev, Ydev) = build_dataset(train_words, vocab), build_dataset(dev_words, vocab)
    generator = random.Random(2147483647)

    def randn(*shape: int) -> np.ndarray:
        return np.array([generator.gauss(0, 1) for _ in range(math.prod(shape))]).reshape(shape)

    V, D, H = len(vocab), EMBEDDING, HIDDEN
    C = randn(V, D)
    W1 = randn(BLOCK * D, H) * (5 / 3) / math.sqrt(BLOCK * D)
    b1 = randn(H) * 0.01
    W2 = randn(H, V) * 0.01
    start = Parameters(C, W1, b1, W2, np.zeros(V))
    batches = [np.array([math.floor(generator.uniform(0, len(Xtr))) for _ in range(BATCH)]) for _ in range(steps)]
    losses, trained = train(start, Xtr, Ytr, batches, [rate_at(at, steps) for at in range(steps)])
    return (Xtr, Ytr), (Xdev, Ydev), losses, trained


def check_against_reference(steps: int, whole_train_split: bool, monkeypatch) -> float:
    """Runs both; every number within 1e-9 relative. Returns the largest loss difference."""
    session, lines = run_example(steps, whole_train_split, monkeypatch)
    (Xtr, Ytr), (Xdev, Ydev), losses, trained = reference(steps)
    assert lines[0] == f"{len(Xtr)} training examples, {len(Xdev)} dev examples"
    names = session.names
    assert names["Xtr"].tolist() == Xtr.tolist() and names["Ydev"].tolist() == Ydev.tolist()
    rows = [STEP.match(line) for line in lines[1:1 + steps]]
    assert all(rows), lines
    assert [int(row[1]) for row in rows if row] == list(range(steps))
    largest = 0.0
    for row, expected in zip(rows, losses):
        assert row is not None and float(row[2]) == pytest.approx(expected, rel=TOLERANCE), (row[0], expected)
        largest = max(largest, abs(float(row[2]) - expected) / expected)
    for name, expected in zip(NAMES, trained.arrays()):
        np.testing.assert_allclose(np.array(names[name].tolist()), expected, rtol=TOLERANCE, atol=1e-12, err_msg=name)
    ends = lines[1 + steps:]
    if whole_train_split:
        assert ends[0].startswith("train loss ")
        assert float(ends.pop(0).split()[-1]) == pytest.approx(loss_on(trained, Xtr, Ytr), rel=TOLERANCE)
    assert ends[0].startswith("dev loss ") and len(ends) == 1
    assert float(ends[0].split()[-1]) == pytest.approx(loss_on(trained, Xdev, Ydev), rel=TOLERANCE)
    return largest


def test_the_first_steps_match_the_numpy_reference(monkeypatch):
    """The split, the examples, each step's loss (the rate 0.1, then 0.01 from step 2 of 4),
    the trained weights and the dev loss."""
    check_against_reference(FEW, False, monkeypatch)


@pytest.mark.slow
def test_the_whole_run_matches_the_numpy_reference(monkeypatch, capsys):
    largest = check_against_reference(FULL, True, monkeypatch)
    with capsys.disabled():
        print(f"\nnames_tensor against numpy over {FULL} steps: largest relative loss difference {largest:.3g}")


def test_the_readme_shows_the_examples_lines_and_its_losses():
    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```[a-z]*\n(.*?)```", readme, flags=re.DOTALL)
    block = next(block for block in blocks if block.startswith("fn logits(X)"))
    lines = [line for line in block.splitlines() if line]
    assert all(line in TEXT.splitlines() for line in lines), [line for line in lines if line not in TEXT.splitlines()]
    golden = (EXAMPLES / "names_tensor.out").read_text(encoding="utf-8").splitlines()
    for line in golden:
        if line.startswith(("train loss", "dev loss")):
            assert f"`{line}`" in readme.replace("\n", " "), line
