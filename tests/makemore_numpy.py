"""makemore's MLP (Karpathy's makemore, part 2; Bengio et al. 2003) trained in numpy, a step
at a time, as the reference for tensor programs at its real size (issue 43 item 3:
tests/test_names_tensor.py compares `examples/names_tensor.sad` with it step by step).

The model: a context of `BLOCK` characters, each an `EMBEDDING`-number row of C [27, 10]; the
rows side by side, [B, 30] @ W1 [30, 200] + b1, tanh; @ W2 [200, 27] + b2; the mean over the
batch of the cross-entropy of the logits against the next character. The data: makemore's
`build_dataset` (each name from a context of three `.`, here the newline, its characters and
then the newline as targets), its split (the names shuffled by `random.Random(seed)`, as
`random.seed(42); random.shuffle(words)`, then 80% train, 10% dev, 10% test).

Everything random is an argument: the starting weights (`Parameters`) and each step's batch
(indices into the training examples) come from the caller, so a program that draws them its
own way can be followed exactly. The backward pass is written out by hand, as in makemore's
"backprop ninja" lecture: softmax minus one-hot over the batch, tanh's 1 - h², the embedding
rows' gradients added up with `np.add.at`. numpy sums in its own order (pairwise, BLAS), so
it agrees with a left-fold engine to about 1e-15 relatively a step, not bit for bit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

BLOCK, EMBEDDING, HIDDEN, BATCH = 3, 10, 200, 32
NAMES = ("C", "W1", "b1", "W2", "b2")


@dataclass
class Parameters:
    C: np.ndarray  # [V, EMBEDDING]
    W1: np.ndarray  # [BLOCK * EMBEDDING, HIDDEN]
    b1: np.ndarray  # [HIDDEN]
    W2: np.ndarray  # [HIDDEN, V]
    b2: np.ndarray  # [V]

    def arrays(self) -> list[np.ndarray]:
        return [getattr(self, name) for name in NAMES]

    def copy(self) -> Parameters:
        return Parameters(*(array.copy() for array in self.arrays()))


def vocabulary(words: list[str]) -> list[str]:
    """The newline (makemore's `.`: start and end) and the letters, sorted: index 0 is newline."""
    return sorted(set("".join(words)) | {"\n"})


def build_dataset(words: list[str], vocab: list[str], block: int = BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """X [N, block] of character indices and Y [N] of the next one, each word from a context of
    newlines of its own, its end a newline target (makemore's build_dataset)."""
    end = vocab.index("\n")
    contexts, targets = [], []
    for word in words:
        context = [end] * block
        for char in word + "\n":
            at = vocab.index(char)
            contexts.append(list(context))
            targets.append(at)
            context = context[1:] + [at]
    return np.array(contexts, dtype=np.int64), np.array(targets, dtype=np.int64)


def split(words: list[str], seed: int = 42) -> tuple[list[str], list[str], list[str]]:
    """makemore's split: shuffled by `random.Random(seed)`, then 80% / 10% / 10%."""
    shuffled = list(words)
    random.Random(seed).shuffle(shuffled)
    first, second = int(0.8 * len(shuffled)), int(0.9 * len(shuffled))
    return shuffled[:first], shuffled[first:second], shuffled[second:]


def forward(parameters: Parameters, X: np.ndarray, Y: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
    """The mean cross-entropy of the batch, and what the backward pass needs."""
    embedded = parameters.C[X].reshape(len(X), -1)  # [B, 30]
    hidden = np.tanh(embedded @ parameters.W1 + parameters.b1)  # [B, 200]
    logits = hidden @ parameters.W2 + parameters.b2  # [B, 27]
    top = logits.max(axis=1, keepdims=True)
    exponentials = np.exp(logits - top)
    totals = exponentials.sum(axis=1, keepdims=True)
    losses = top[:, 0] + np.log(totals[:, 0]) - logits[np.arange(len(Y)), Y]
    saved = {"embedded": embedded, "hidden": hidden, "probabilities": exponentials / totals}
    return float(losses.mean()), saved


def backward(parameters: Parameters, X: np.ndarray, Y: np.ndarray, saved: dict[str, np.ndarray]) -> Parameters:
    """The gradient of the mean cross-entropy, by hand."""
    count = len(Y)
    d_logits = saved["probabilities"].copy()
    d_logits[np.arange(count), Y] -= 1.0
    d_logits /= count
    hidden, embedded = saved["hidden"], saved["embedded"]
    d_W2, d_b2 = hidden.T @ d_logits, d_logits.sum(axis=0)
    d_pre = (d_logits @ parameters.W2.T) * (1.0 - hidden * hidden)
    d_W1, d_b1 = embedded.T @ d_pre, d_pre.sum(axis=0)
    d_embedded = (d_pre @ parameters.W1.T).reshape(count, X.shape[1], -1)
    d_C = np.zeros_like(parameters.C)
    np.add.at(d_C, X, d_embedded)
    return Parameters(d_C, d_W1, d_b1, d_W2, d_b2)


def step(parameters: Parameters, X: np.ndarray, Y: np.ndarray, rate: float) -> tuple[float, Parameters, Parameters]:
    """One step of gradient descent on the batch: (its loss, its gradient, the new parameters)."""
    loss, saved = forward(parameters, X, Y)
    gradient = backward(parameters, X, Y, saved)
    moved = Parameters(*(value - rate * change for value, change in zip(parameters.arrays(), gradient.arrays())))
    return loss, gradient, moved


def rate_at(step_index: int, steps: int) -> float:
    """makemore's schedule: 0.1, then 0.01 for the second half of the steps."""
    return 0.1 if step_index < steps // 2 else 0.01


def train(parameters: Parameters, Xtr: np.ndarray, Ytr: np.ndarray, batches: list[np.ndarray],
          rates: list[float]) -> tuple[list[float], Parameters]:
    """Each batch (indices into the training examples) a step at its rate: every step's loss
    and the last parameters."""
    losses = []
    for batch, rate in zip(batches, rates):
        loss, _, parameters = step(parameters, Xtr[batch], Ytr[batch], rate)
        losses.append(loss)
    return losses, parameters


def loss_on(parameters: Parameters, X: np.ndarray, Y: np.ndarray) -> float:
    """The loss over a whole split (makemore's dev loss)."""
    return forward(parameters, X, Y)[0]
