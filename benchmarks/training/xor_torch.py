"""examples/xor.sad written in Python on PyTorch autograd, scalar by scalar (0-d float64
tensors), operation for operation as ``xor_micrograd.py`` (``benchmarks/processes.py``)."""

import torch

torch.set_grad_enabled(True)


def variable(value):
    return torch.tensor(float(value), dtype=torch.float64, requires_grad=True)


def constant(value):
    return torch.tensor(float(value), dtype=torch.float64)


data = [(0, 0, -1), (0, 1, 1), (1, 0, 1), (1, 1, -1)]
a1, a2, ab = variable(0.5), variable(-0.4), variable(0.1)
b1, b2, bb = variable(-0.3), variable(0.8), variable(-0.2)
c1, c2, cb = variable(0.7), variable(0.6), variable(-0.5)
v1, v2, v3, d = variable(0.9), variable(-0.6), variable(0.4), variable(0.0)
parameters = [a1, a2, ab, b1, b2, bb, c1, c2, cb, v1, v2, v3, d]


def neuron(x1, x2, w1, w2, bias):
    return (w1 * x1 + w2 * x2 + bias).tanh()


def net(x1, x2):
    return (
        v1 * neuron(x1, x2, a1, a2, ab) + v2 * neuron(x1, x2, b1, b2, bb) + v3 * neuron(x1, x2, c1, c2, cb) + d
    ).tanh()


for step in range(4000):
    loss = constant(0.0)
    for x1, x2, y in data:
        loss = loss + (net(constant(x1), constant(x2)) - constant(y)) ** 2
    loss.backward()
    with torch.no_grad():
        for p in parameters:
            p -= 0.1 * p.grad
            p.grad = None
    if step % 800 == 0:
        print(f"step {step} loss {loss.item():.12f}")
print(f"final loss {loss.item():.12f}")
for x1, x2, y in data:
    print(f"target {y}: net gives {net(constant(x1), constant(x2)).item():.12f}")
assert loss.item() < 0.01
