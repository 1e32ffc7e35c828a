"""The numerical gradient check of tensor variables, element by element."""

from __future__ import annotations

import random

import pytest

from scalarlang import Tensor, tensor_gradient_check


def layer_loss(w, x, targets):
    return ((x @ w).tanh() @ Tensor.constant([[0.5, -1.0, 2.0], [1.0, 0.25, -0.5]])).cross_entropy(targets).mean()


def test_every_element_of_a_small_tensor_passes():
    generator = random.Random(3)
    w = Tensor.randn((4, 2), generator, variable=True)
    x = Tensor.randn((5, 4), generator)
    targets = [0, 2, 1, 1, 0]
    layer_loss(w, x, targets).backward()
    check = tensor_gradient_check(lambda moved: layer_loss(moved, x, targets), w, w.gradient, tolerance=1e-7)
    assert check.passed and not check.drawn
    assert check.elements == tuple((i, j) for i in range(4) for j in range(2))
    assert check.worst.scaled_error < 1e-7


def test_a_wrong_gradient_fails_at_its_element():
    w = Tensor.variable([[1.0, 2.0], [3.0, 4.0]])
    loss = (w * w).sum()
    loss.backward()
    wrong = list(w.gradient)
    wrong[3] += 0.01
    check = tensor_gradient_check(lambda moved: (moved * moved).sum(), w, wrong)
    assert not check.passed
    assert [result.passed for result in check.checks] == [True, True, True, False]
    assert check.elements[3] == (1, 1)


def test_a_large_tensor_is_checked_at_elements_drawn_with_the_generator():
    w = Tensor.rand((40, 30), random.Random(1), variable=True)
    (w * w).sum().backward()
    first = tensor_gradient_check(lambda moved: (moved * moved).sum(), w, w.gradient, random.Random(9))
    again = tensor_gradient_check(lambda moved: (moved * moved).sum(), w, w.gradient, random.Random(9))
    assert first.drawn and len(first.checks) == 100 and first.passed
    assert first.elements == again.elements and list(first.elements) == sorted(first.elements)
    with pytest.raises(ValueError):
        tensor_gradient_check(lambda moved: (moved * moved).sum(), w, w.gradient)


def test_the_graph_is_replayed_without_a_function_and_writes_nothing():
    from scalarlang.engine.tensor_gradcheck import graph_gradient_check
    from scalarlang import Scalar

    generator = random.Random(4)
    w = Tensor.randn((3, 4), generator, variable=True)
    b = Scalar.variable(0.3)
    x = Tensor.randn((5, 3), generator)
    c = Tensor.randn((6, 3), generator, variable=True)
    embedded = c[[0, 5, 5, 2, 0]]  # repeated rows
    hidden = ((x + embedded) @ w + b).tanh()
    stacked = Tensor.constant([b, b * b, 1.0, b])
    loss = ((hidden @ stacked).softmax(-1).logsumexp() + hidden.max(0).sum()
            + (hidden.transpose().reshape(-1) ** 2).mean() * b + hidden.cross_entropy([0, 1, 2, 3, 0]).mean())
    for tensor in (w, c):
        check = graph_gradient_check(loss, tensor, tolerance=1e-7)
        assert check.passed and not check.drawn and len(check.checks) == tensor.size
    assert w.gradient == (0.0,) * 12 and b.gradient == 0.0  # a reverse pass: nothing stored


def test_a_wrong_vjp_fails_the_replayed_check(monkeypatch):
    from scalarlang.engine import kernels
    from scalarlang.engine.tensor_gradcheck import graph_gradient_check

    w = Tensor.variable([[0.5, -1.0], [2.0, 0.25]])
    x = Tensor.constant([[1.0, 2.0], [3.0, -1.0]])
    real = kernels.matmul_transposed_left
    monkeypatch.setattr(kernels, "matmul_transposed_left", lambda *args: [v * 1.01 for v in real(*args)])
    from scalarlang.engine import tensor_linear

    monkeypatch.setattr(tensor_linear, "matmul_transposed_left", kernels.matmul_transposed_left)
    loss = (x @ w).tanh().sum()
    assert not graph_gradient_check(loss, w).passed
