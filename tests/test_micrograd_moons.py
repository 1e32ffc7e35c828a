"""The micrograd reference of issue 24 (tests/micrograd_moons.py) and its benchmark script.

The reference must train exactly as LANGUAGE.md's moons program will: here it is compared, bit
for bit, with the same training written on our engine's `Scalar` with the operations the
program's statements stand for (so the order-of-operations claims in its docstring are checked
before the interpreter has lists), and the benchmark script must print the reference's lines.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("micrograd")

import micrograd_moons as reference  # noqa: E402  (tests/ is on sys.path, as for shared.py)

from scalarlang import Scalar, format_number  # noqa: E402
from shared import property_examples  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def engine_train(sizes, steps, seed, rows):
    """The moons program on the engine: lists as Python lists, each statement's operations as
    the language defines them (``sum``/``dot`` folds from L[0], ``descend`` makes fresh
    variables ``value - lr*gradient``)."""
    rng = Random(seed)
    layers = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        W = [[Scalar.variable(rng.uniform(-1, 1)) for _j in range(fan_in)] for _i in range(fan_out)]
        layers.append((W, [Scalar.variable(0) for _i in range(fan_out)]))

    def fold(items):
        total = items[0]
        for item in items[1:]:
            total = total + item
        return total

    def dot(a, b):
        return fold([x * y for x, y in zip(a, b)])

    def score(inputs):
        xs = [Scalar.constant(x) for x in inputs]
        for W, b in layers[:-1]:
            xs = [(dot(W[i], xs) + b[i]).relu() for i in range(len(W))]
        W, b = layers[-1]
        return dot(W[0], xs) + b[0]

    history = []
    for step in range(steps):
        scores = [score(row[: sizes[0]]) for row in rows]
        losses = [(Scalar.constant(1) - Scalar.constant(row[-1]) * s).relu() for row, s in zip(rows, scores)]
        parameters = [p for W, b in layers for p in [*(w for r in W for w in r), *b]]
        reg = Scalar.constant(1e-4) * fold([p * p for p in parameters])
        loss = fold(losses) * (Scalar.constant(1) / Scalar.constant(len(rows))) + reg
        hits = [Scalar.constant(1.0 if (row[-1] > 0) == (s.value > 0) else 0.0) for row, s in zip(rows, scores)]
        accuracy = fold(hits) / Scalar.constant(len(hits))
        loss.backward()
        rate = (Scalar.constant(1) - Scalar.constant(0.9) * Scalar.constant(step) / Scalar.constant(100)).value
        layers = [
            (
                [[Scalar.variable(w.value - rate * w.gradient) for w in r] for r in W],
                [Scalar.variable(p.value - rate * p.gradient) for p in b],
            )
            for W, b in layers
        ]
        history.append((loss.value, accuracy.value))
    return history


def bits(history):
    return [(repr(loss), repr(accuracy)) for loss, accuracy in history]


@pytest.fixture(scope="module")
def eleven_steps():
    return reference.train(steps=11)


# Eleven steps of micrograd take about three seconds: slow, with the benchmark's check below.
@pytest.mark.slow
def test_the_reference_learns_the_moons(eleven_steps):
    losses = [loss for loss, _ in eleven_steps]
    assert losses[10] < losses[0] / 2
    assert eleven_steps[0][1] == 0.5 and eleven_steps[10][1] >= 0.85


def test_the_reference_is_the_engine_bit_for_bit_on_the_moons():
    three_steps = reference.trained(3)
    assert bits(engine_train(reference.SIZES, 3, reference.SEED, reference.load_moons())) == bits(three_steps)


# A quarter of the profile's examples, each training micrograd (collecting after every step):
# 12 in the slow run, 3 in the default run (0.25 s each; the moons test above is its own case).
@settings(max_examples=property_examples(12, default_run=3))
@given(
    st.lists(st.integers(1, 5), min_size=1, max_size=2),
    st.integers(0, 2**32),
    st.lists(
        st.tuples(st.floats(-2, 2).map(lambda x: round(x, 6)), st.floats(-2, 2).map(lambda x: round(x, 6)),
                  st.sampled_from([-1.0, 1.0])),
        min_size=1, max_size=8,
    ),
    st.integers(1, 4),
)
def test_the_reference_is_the_engine_bit_for_bit_on_small_networks(hidden, seed, rows, steps):
    sizes = (2, *hidden, 1)
    assert bits(reference.train(sizes, steps, seed, rows)) == bits(engine_train(sizes, steps, seed, rows))


def test_the_first_draws_are_micrograds_own_initialisation():
    """`.sad`'s comprehension order (W1 row by row, ...) is micrograd's MLP order, neuron by
    neuron, since biases draw nothing."""
    import random

    from micrograd.nn import MLP

    random.seed(reference.SEED)
    mlp = MLP(2, [16, 16, 1])
    model = reference.Model()
    ours = [w.data for W, _ in model.layers for row in W for w in row]
    theirs = [w.data for layer in mlp.layers for neuron in layer.neurons for w in neuron.w]
    assert ours == theirs


def test_the_program_lines_use_the_one_number_formatter():
    assert reference.format_line(10, 0.5, 0.87) == "step 10 loss 0.5 accuracy 0.87"
    assert reference.format_line(0, 2.5e-7, 1.0) == f"step 0 loss {format_number(2.5e-7)} accuracy 1"


@pytest.mark.slow
def test_the_benchmark_prints_the_references_lines(eleven_steps):
    completed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "moons_micrograd.py"), "--steps", "11", "--collect-each-step"],
        capture_output=True, text=True, timeout=600, check=True,
    )
    expected = [reference.format_line(step, *eleven_steps[step]) for step in (0, 10)]
    assert completed.stdout.splitlines() == expected
    assert completed.stderr == ""
