"""examples/xor.sad written in Python on micrograd: the same network, data, starting weights,
steps and learning rate, operation for operation (``benchmarks/processes.py``, "training").

micrograd 0.1.0 has no tanh; the one added here is its author's, in micrograd's style (as in
``benchmarks/worker.py``). micrograd accumulates gradients, so each step zeroes them after
the update, where the `.sad` program's `descend` binds fresh variables instead.
"""

import math

from micrograd.engine import Value


def tanh(self):
    t = math.tanh(self.data)
    out = Value(t, (self,), "tanh")

    def _backward():
        self.grad += (1 - t**2) * out.grad

    out._backward = _backward
    return out


Value.tanh = tanh

data = [(0, 0, -1), (0, 1, 1), (1, 0, 1), (1, 1, -1)]
a1, a2, ab = Value(0.5), Value(-0.4), Value(0.1)
b1, b2, bb = Value(-0.3), Value(0.8), Value(-0.2)
c1, c2, cb = Value(0.7), Value(0.6), Value(-0.5)
v1, v2, v3, d = Value(0.9), Value(-0.6), Value(0.4), Value(0.0)
parameters = [a1, a2, ab, b1, b2, bb, c1, c2, cb, v1, v2, v3, d]


def neuron(x1, x2, w1, w2, bias):
    return (w1 * x1 + w2 * x2 + bias).tanh()


def net(x1, x2):
    return (
        v1 * neuron(x1, x2, a1, a2, ab) + v2 * neuron(x1, x2, b1, b2, bb) + v3 * neuron(x1, x2, c1, c2, cb) + d
    ).tanh()


for step in range(4000):
    loss = Value(0.0)
    for x1, x2, y in data:
        loss = loss + (net(Value(x1), Value(x2)) - Value(y)) ** 2
    loss.backward()
    for p in parameters:
        p.data -= 0.1 * p.grad
        p.grad = 0.0
    if step % 800 == 0:
        print(f"step {step} loss {loss.data:.12f}")
print(f"final loss {loss.data:.12f}")
for x1, x2, y in data:
    print(f"target {y}: net gives {net(Value(x1), Value(x2)).data:.12f}")
assert loss.data < 0.01
