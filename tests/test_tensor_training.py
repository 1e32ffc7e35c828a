"""A small tensor model trained beside the same model of scalar nodes: the first loss equal bit
for bit, every later loss within 1e-9 relative (the gradients differ in their last bits, the
scalar pass adding contributions in its own order)."""

from __future__ import annotations

import random
from functools import reduce
from operator import add

from scalarlang import Scalar, Tensor

INPUTS, HIDDEN, CLASSES, BATCH, STEPS, RATE = 3, 8, 4, 10, 6, 0.5


def fold(items):
    return reduce(add, list(items))


def test_a_tensor_mlp_trains_as_the_same_scalar_mlp():
    generator = random.Random(11)
    x = [[generator.uniform(-1, 1) for _ in range(INPUTS)] for _ in range(BATCH)]
    y = [generator.randrange(CLASSES) for _ in range(BATCH)]
    w1 = [[generator.gauss(0, 1) for _ in range(HIDDEN)] for _ in range(INPUTS)]
    b1 = [generator.gauss(0, 0.1) for _ in range(HIDDEN)]
    w2 = [[generator.gauss(0, 1) for _ in range(CLASSES)] for _ in range(HIDDEN)]

    tensors = [Tensor.variable(w1), Tensor.variable(b1), Tensor.variable(w2)]
    scalars = [[[Scalar.variable(v) for v in row] for row in w1], [Scalar.variable(v) for v in b1],
               [[Scalar.variable(v) for v in row] for row in w2]]
    data = Tensor.constant(x)
    tensor_losses, scalar_losses = [], []
    for _ in range(STEPS):
        t1, tb, t2 = tensors
        loss = ((data @ t1 + tb).tanh() @ t2).cross_entropy(y).mean()
        loss.backward()
        tensor_losses.append(loss.value)
        tensors = [t.descended(RATE) for t in tensors]

        s1, sb, s2 = scalars
        rows = []
        for i in range(BATCH):
            hidden = [(fold(x[i][p] * s1[p][j] for p in range(INPUTS)) + sb[j]).tanh() for j in range(HIDDEN)]
            logits = [fold(hidden[p] * s2[p][k] for p in range(HIDDEN)) for k in range(CLASSES)]
            top = Scalar.max_of(logits)
            rows.append(top + fold((z - top).exp() for z in logits).log() - logits[y[i]])
        scalar_loss = fold(rows) / BATCH
        scalar_loss.backward()
        scalar_losses.append(scalar_loss.value)
        scalars = [
            [[Scalar.variable(n.value - RATE * n.gradient) for n in row] for row in s1],
            [Scalar.variable(n.value - RATE * n.gradient) for n in sb],
            [[Scalar.variable(n.value - RATE * n.gradient) for n in row] for row in s2],
        ]
    assert tensor_losses[0] == scalar_losses[0]
    for ours, theirs in zip(tensor_losses, scalar_losses):
        assert abs(ours - theirs) <= 1e-9 * abs(theirs)
    assert tensor_losses[-1] < tensor_losses[0]
