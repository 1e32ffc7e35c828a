# The training loop of examples/xor.sad on micrograd 0.1.0 (with the tanh of benchmarks/worker.py),
# for timing the whole process against `scalarlang examples/xor.sad`: python xor_micrograd.py [STEPS].
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
names = "a1 a2 ab b1 b2 bb c1 c2 cb v1 v2 v3 d".split()
start = [0.5, -0.4, 0.1, -0.3, 0.8, -0.2, 0.7, 0.6, -0.5, 0.9, -0.6, 0.4, 0.0]
p = dict(zip(names, (Value(v) for v in start)))

def neuron(x1, x2, w1, w2, bias):
    return (w1 * x1 + w2 * x2 + bias).tanh()

def net(x1, x2):
    return (p["v1"] * neuron(x1, x2, p["a1"], p["a2"], p["ab"]) + p["v2"] * neuron(x1, x2, p["b1"], p["b2"], p["bb"])
            + p["v3"] * neuron(x1, x2, p["c1"], p["c2"], p["cb"]) + p["d"]).tanh()

import sys
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
for step in range(STEPS):
    loss = Value(0.0)
    for x1, x2, y in data:
        loss = loss + (net(Value(x1), Value(x2)) - Value(y)) ** 2
    for q in p.values():
        q.grad = 0.0
    loss.backward()
    for q in p.values():
        q.data -= 0.1 * q.grad
    if step % 800 == 0:
        print(f"step {step} loss {loss.data:.12f}")
print(f"final loss {loss.data:.12f}")
assert loss.data < 0.01
