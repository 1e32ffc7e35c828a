"""The numpy reference of makemore's MLP (tests/makemore_numpy.py) against the engine's tensor
nodes through the Python API: the same starting weights and batches, a few steps, each step's
loss, gradients and new parameters within 1e-9; then the dev loss. It is the reference
tests/test_names_tensor.py compares `examples/names_tensor.sad` with."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from makemore_numpy import BATCH, BLOCK, EMBEDDING, HIDDEN, NAMES, Parameters, build_dataset, forward
from makemore_numpy import loss_on, rate_at, split, step, train, vocabulary
from scalarlang.engine import Tensor

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WORDS = (EXAMPLES / "names_census.txt").read_text(encoding="utf-8").splitlines()
STEPS = 4


def data():
    vocab = vocabulary(WORDS)
    train_words, dev_words, _ = split(WORDS)
    return vocab, build_dataset(train_words, vocab), build_dataset(dev_words, vocab)


def starting(generator: random.Random, size: int) -> Parameters:
    """makemore's first initialisation (every parameter gauss(0, 1)), drawn in NAMES' order."""
    shapes = [(size, EMBEDDING), (BLOCK * EMBEDDING, HIDDEN), (HIDDEN,), (HIDDEN, size), (size,)]
    return Parameters(*(np.array([generator.gauss(0, 1) for _ in range(int(np.prod(shape)))]).reshape(shape)
                        for shape in shapes))


def engine_loss(tensors, X, Y):
    C, W1, b1, W2, b2 = tensors
    hidden = (C[X.tolist()].reshape(len(X), BLOCK * EMBEDDING) @ W1 + b1).tanh()
    return (hidden @ W2 + b2).cross_entropy(Y.tolist()).mean()


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual).reshape(expected.shape), expected, rtol=1e-9, atol=1e-12)


def test_the_dataset_is_makemores():
    vocab, (Xtr, Ytr), (Xdev, Ydev) = data()
    assert vocab[0] == "\n" and len(vocab) == 27
    train_words, dev_words, test_words = split(WORDS)
    assert (len(train_words), len(dev_words), len(test_words)) == (4130, 516, 517)
    assert len(Xtr) == sum(len(word) + 1 for word in train_words)
    assert Xtr[0].tolist() == [0, 0, 0] and Ytr[0] == vocab.index(train_words[0][0])
    end = len(train_words[0])  # the first word's last example: its end is the target
    assert Ytr[end] == 0 and Xtr[end + 1].tolist() == [0, 0, 0]  # the next word starts afresh


def test_a_few_steps_match_the_engines_tensor_nodes():
    vocab, (Xtr, Ytr), (Xdev, Ydev) = data()
    generator = random.Random(2147483647)
    parameters = starting(generator, len(vocab))
    tensors = [Tensor.variable(array.tolist()) for array in parameters.arrays()]
    batches = [np.array([generator.randrange(len(Xtr)) for _ in range(BATCH)]) for _ in range(STEPS)]
    rates = [rate_at(at, STEPS) for at in range(STEPS)]
    reference = parameters
    for batch, rate in zip(batches, rates):
        X, Y = Xtr[batch], Ytr[batch]
        loss = engine_loss(tensors, X, Y)
        expected_loss, gradient, reference = step(reference, X, Y, rate)
        assert loss.value == pytest.approx(expected_loss, rel=1e-9)
        loss.backward()
        for name, tensor, expected in zip(NAMES, tensors, gradient.arrays()):
            close(tensor.gradient, expected)
        tensors = [tensor.descended(rate) for tensor in tensors]
        for tensor, expected in zip(tensors, reference.arrays()):
            close(tensor.values, expected)
    losses, trained = train(parameters, Xtr, Ytr, batches, rates)  # the same, in one call
    for tensor, expected in zip(tensors, trained.arrays()):
        close(tensor.values, expected)
    assert losses[0] == pytest.approx(forward(parameters, Xtr[batches[0]], Ytr[batches[0]])[0], rel=0, abs=0)
    dev = slice(0, 500)  # (the engine's forward of the whole dev split takes seconds)
    assert engine_loss(tensors, Xdev[dev], Ydev[dev]).value == pytest.approx(loss_on(trained, Xdev[dev], Ydev[dev]), rel=1e-9)
