"""The nodes and the reverse pass of the tests' own evaluator of list programs (list_model.py),
written from docs/engine.md, never from the engine: each operation's value and local
derivatives (PyTorch's choices at kinks: relu and abs 0 at 0, max and min 0.5 each on a tie),
and one pass: the topology is the post-order of a depth-first walk from the output, operands
in slot order; the walk goes from the topology's last node to its first, each operand edge in
slot order, contribution = upstream × local (an untracked child's upstream 0), every check
of docs/engine.md in its order, then the commit. Its record is the `backward` event's."""

from __future__ import annotations

import math
from typing import Any

# The numbers of exp and tanh are the engine's own functions (docs/engine.md, "The same bits
# on every platform": elementary.py, not the C library's), which tests/test_elementary.py
# checks against mpmath: the model takes those two functions as their definition, and nothing
# else of the engine.
from scalarlang.engine.elementary import exp as _exp, tanh as _tanh


class ModelError(Exception):
    """A statement fails: ``kind`` as the language names it."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


class Node:
    __slots__ = ("value", "operation", "operands", "tracked", "grad")

    def __init__(self, value: float, operation: str, operands: tuple = (), tracked: bool = False):
        if not math.isfinite(value):
            raise ModelError("non-finite-result")
        for _, local in operands:
            if not math.isfinite(local):
                raise ModelError("non-finite-derivative")
        self.value = value
        self.operation = operation
        self.operands = operands  # (operand, local derivative) in slot order
        self.tracked = tracked or any(operand.tracked for operand, _ in operands)
        self.grad = 0.0 if self.tracked else None


def variable(value: float) -> Node:
    return Node(value, "variable", (), True)


def constant(value: float) -> Node:
    if not math.isfinite(value):
        raise ModelError("non-finite-leaf")
    return Node(value, "constant")


def unary(operation: str, a: Node) -> Node:
    x = a.value
    if operation == "neg":
        return Node(-x, "neg", ((a, -1.0),))
    if operation == "tanh":
        t = _tanh(x)
        return Node(t, "tanh", ((a, 1.0 - t * t),))
    if operation == "exp":
        e = _exp(x)  # inf past the largest double: the Node's check raises
        return Node(e, "exp", ((a, e),))
    if operation == "relu":
        return Node(x if x > 0.0 else 0.0, "relu", ((a, 1.0 if x > 0.0 else 0.0),))
    if operation == "sigmoid":  # without overflow for either sign
        s = 1.0 / (1.0 + _exp(-x)) if x >= 0.0 else _exp(x) / (1.0 + _exp(x))
        return Node(s, "sigmoid", ((a, s * (1.0 - s)),))
    if operation == "abs":
        return Node(math.fabs(x), "abs", ((a, 1.0 if x > 0.0 else -1.0 if x < 0.0 else 0.0),))
    if operation == "square":  # a ** 2: one edge, the exponent is not an operand
        return Node(x * x, "pow", ((a, 2.0 * x),))
    raise AssertionError(operation)


def binary(operation: str, a: Node, b: Node) -> Node:
    x, y = a.value, b.value
    if operation == "+":
        return Node(x + y, "add", ((a, 1.0), (b, 1.0)))
    if operation == "-":
        return Node(x - y, "sub", ((a, 1.0), (b, -1.0)))
    if operation == "*":
        return Node(x * y, "mul", ((a, y), (b, x)))
    if operation == "/":
        if y == 0.0:
            raise ModelError("non-finite-result")
        q = x / y
        return Node(q, "div", ((a, 1.0 / y), (b, -q / y)))  # -a/b², as -(a/b)/b
    if operation in ("max", "min"):
        first = x > y if operation == "max" else x < y
        if x == y:
            return Node(x, operation, ((a, 0.5), (b, 0.5)))
        return Node(x if first else y, operation, ((a, 1.0 if first else 0.0), (b, 0.0 if first else 1.0)))
    raise AssertionError(operation)


COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def topology(out: Node) -> list[Node]:
    """Post-order of a depth-first walk from ``out``, operands in slot order (iterative)."""
    order: list[Node] = []
    seen = {id(out)}
    stack = [(out, 0)]
    while stack:
        node, slot = stack.pop()
        if slot < len(node.operands):
            stack.append((node, slot + 1))
            operand = node.operands[slot][0]
            if id(operand) not in seen:
                seen.add(id(operand))
                stack.append((operand, 0))
        else:
            order.append(node)
    return order


def reverse_pass(out: Node, seed: float) -> dict[str, Any]:
    """The pass from ``out`` with ``seed``, committed: the `backward` event's record (without
    labels), or ModelError."""
    if not out.tracked:
        raise ModelError("untracked-output")
    if not math.isfinite(seed):
        raise ModelError("non-finite-seed")
    order = topology(out)
    index = {id(node): i for i, node in enumerate(order)}
    adjoint = [0.0 if node.tracked else None for node in order]
    adjoint[-1] = seed
    edges = []
    for child in range(len(order) - 1, -1, -1):
        node = order[child]
        upstream = adjoint[child] if node.tracked else 0.0
        for slot, (operand, local) in enumerate(node.operands):
            contribution = upstream * local
            if not math.isfinite(contribution):
                raise ModelError("non-finite-contribution")
            parent = index[id(operand)]
            before = adjoint[parent]
            if operand.tracked:
                after = before + contribution
                if not math.isfinite(after):
                    raise ModelError("non-finite-pass-adjoint")
                adjoint[parent] = after
            edges.append({
                "reverse_index": len(edges), "child": child, "parent": parent, "operand": slot,
                "local_derivative": local, "upstream": upstream, "contribution": contribution,
                "parent_tracked": operand.tracked, "parent_adjoint_before": before,
                "parent_adjoint_after": adjoint[parent] if operand.tracked else None,
            })
    accumulated = [None if a is None else node.grad + a for node, a in zip(order, adjoint)]
    if any(g is not None and not math.isfinite(g) for g in accumulated):
        raise ModelError("non-finite-accumulated-gradient")
    for node, gradient in zip(order, accumulated):
        if gradient is not None:
            node.grad = gradient
    nodes = [
        {"topology_index": i, "operation": node.operation, "value": node.value, "tracked": node.tracked,
         "pass_adjoint": adjoint[i], "accumulated_gradient": accumulated[i]}
        for i, node in enumerate(order)
    ]
    return {"event": "backward", "seed": seed, "nodes": nodes, "edges": edges}
