"""examples/names.sad written in Python on our engine (`scalarlang.engine`'s `Scalar` directly):
``python benchmarks/names_engine.py [--steps N]``.

The same character-level bigram model, data, starting weights and order of floating-point
operations as the `.sad` program, so it prints the same lines, bit for bit (benchmarks/names.py
checks it): the text with a newline in front, its sorted characters as the vocabulary, a V x V
table of weights drawn with Python's `random.Random(42).gauss(0, 1)` row by row, each step the
mean of `logsumexp(W[x]) - W[x][y]` over the text's pairs (a left fold of additions, then one
division by the count), a backward pass, `w - 50 * grad(w)` for every weight; then the likeliest
first letter and ten names, each drawn a character at a time with `random.choices` over `exp(W[c][i] - logsumexp(W[c]))`
until a newline.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from scalarlang.engine import Scalar
from scalarlang.engine.numbers import format_number

TEXT = Path(__file__).resolve().parent.parent / "examples" / "names.txt"
RATE = 50
SEED = 42


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    steps = parser.parse_args().steps

    text = "\n" + TEXT.read_text(encoding="utf-8")
    vocab = sorted(set(text))
    position = {char: index for index, char in enumerate(vocab)}
    ids = [position[char] for char in text]
    size = len(vocab)
    print(f"{text.count(chr(10)) - 1} names, {len(ids) - 1} pairs of characters, a vocabulary of {size}")
    generator = random.Random(SEED)
    weights = [[Scalar.variable(generator.gauss(0, 1)) for _ in range(size)] for _ in range(size)]
    for step in range(steps):
        terms = []
        for index in range(len(ids) - 1):
            row = weights[ids[index]]
            terms.append(Scalar.logsumexp(row) - row[ids[index + 1]])
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        loss = total / Scalar.constant(len(terms))
        loss.backward()
        weights = [[Scalar.variable(w.value - RATE * w.gradient) for w in row] for row in weights]
        if step % 10 == 0:
            print(f"step {step} loss {format_number(loss.value)}")
    print(f"step {steps - 1} loss {format_number(loss.value)}")
    newline = position["\n"]
    row = [weight.value for weight in weights[newline]]
    print(f"the likeliest first letter: {vocab[row.index(max(row))]}")
    for _ in range(10):
        word, char = "", _sample(generator, weights[newline])
        while char != newline:
            word += vocab[char]
            char = _sample(generator, weights[char])
        print(word)


def _sample(generator: random.Random, row: list[Scalar]) -> int:
    total = Scalar.logsumexp(row)
    probabilities = [(item - total).exp().value for item in row]
    return generator.choices(range(len(probabilities)), weights=probabilities)[0]


if __name__ == "__main__":
    main()
