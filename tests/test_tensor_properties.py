"""Property tests over random shapes and random compositions of tensor operations.

Each composition is built twice: with tensor nodes, and element by element with scalar nodes
of the chapter's engine, summing with the same left folds (numpy's object arrays only hold the
scalar nodes and broadcast them; numpy computes nothing). The forward values must agree bit
for bit; the gradients are each tensor VJP against the sum of its scalar edges, which the
scalar pass adds in its own order (so within a few ulps, not bit for bit).
"""

from __future__ import annotations

import operator
import random
import struct
from functools import reduce

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from shared import property_examples
from scalarlang import Scalar, Tensor

settings.register_profile("tensor", max_examples=property_examples(60), deadline=None)


def fold(items):
    """The left fold a + b + c ... of scalar nodes, as the kernels fold floats."""
    return reduce(operator.add, list(items))


def bits(value):
    return struct.pack("<d", value)


class Pair:
    """A tensor node and the same values as an object array of scalar nodes."""

    def __init__(self, tensor, scalars):
        self.tensor, self.scalars = tensor, scalars
        assert tensor.shape == scalars.shape

    def agrees(self):
        expected = [node.value for node in self.scalars.reshape(-1)]
        return [bits(value) for value in self.tensor.values] == [bits(value) for value in expected]


def variable(shape, generator):
    values = np.array([generator.uniform(-1.5, 1.5) for _ in range(int(np.prod(shape)))]).reshape(shape)
    scalars = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        scalars[index] = Scalar.variable(float(values[index]))
    return Pair(Tensor.variable(values.tolist()), scalars)


_apply = {
    "add": np.frompyfunc(operator.add, 2, 1),
    "sub": np.frompyfunc(operator.sub, 2, 1),
    "mul": np.frompyfunc(operator.mul, 2, 1),
}
UNARY = {
    "tanh": (Tensor.tanh, lambda node: node.tanh()),
    "sigmoid": (Tensor.sigmoid, lambda node: node.sigmoid()),
    "relu": (Tensor.relu, lambda node: node.relu()),
    "abs": (Tensor.abs, lambda node: abs(node)),
    "neg": (Tensor.__neg__, lambda node: -node),
    "square": (lambda t: t ** 2, lambda node: node ** 2),
}


def along(scalars, axis, function):
    moved = np.moveaxis(scalars, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    results = np.empty(len(rows), dtype=object)
    for at, row in enumerate(rows):
        results[at] = function(list(row))
    return results.reshape(moved.shape[:-1])


def matmul_scalars(left, right):
    if left.ndim == 1:
        return matmul_scalars(left.reshape(1, -1), right).reshape(-1)
    if right.ndim == 1:
        return matmul_scalars(left, right.reshape(-1, 1)).reshape(-1)
    out = np.empty((left.shape[0], right.shape[1]), dtype=object)
    for i in range(left.shape[0]):
        for j in range(right.shape[1]):
            out[i, j] = fold(left[i, p] * right[p, j] for p in range(left.shape[1]))
    return out


def broadcast_shape_for(shape, generator):
    """A shape that broadcasts with ``shape``: some trailing dimensions, some of them 1."""
    keep = generator.randint(1, len(shape))
    return tuple(1 if generator.random() < 0.3 else length for length in shape[-keep:])


def step(pair, generator, variables):
    """One random operation on ``pair``; a new variable joins ``variables`` when one is made."""
    tensor, scalars = pair.tensor, pair.scalars
    kinds = ["unary", "binary", "binary_left", "scalar_node"]
    if len(tensor.shape) > 1:
        kinds += ["reduce", "transpose", "reshape"]
    if len(tensor.shape) <= 2:
        kinds.append("matmul")
    kind = generator.choice(kinds)
    if kind == "unary":
        name = generator.choice(sorted(UNARY))
        on_tensor, on_scalar = UNARY[name]
        return Pair(on_tensor(tensor), np.frompyfunc(on_scalar, 1, 1)(scalars).astype(object).reshape(scalars.shape))
    if kind in ("binary", "binary_left"):
        other = variable(broadcast_shape_for(tensor.shape, generator), generator)
        variables.append(other)
        name = generator.choice(sorted(_apply))
        function = getattr(operator, name)
        if kind == "binary":
            result = _apply[name](scalars, other.scalars)
            return Pair(function(tensor, other.tensor), np.asarray(result, dtype=object))
        result = _apply[name](other.scalars, scalars)
        return Pair(function(other.tensor, tensor), np.asarray(result, dtype=object))
    if kind == "scalar_node":
        node = Scalar.variable(generator.uniform(-1.0, 1.0))
        variables.append(Pair(Tensor.variable([node.value]), np.array([node], dtype=object)))
        variables[-1].node = node
        return Pair(tensor * node, np.frompyfunc(lambda item: item * node, 1, 1)(scalars).astype(object).reshape(scalars.shape))
    if kind == "reduce":
        axis = generator.randrange(-len(tensor.shape), len(tensor.shape))
        name = generator.choice(["sum", "mean", "max"])
        scalar_function = {"sum": fold, "mean": lambda row: fold(row) / len(row), "max": Scalar.max_of}[name]
        return Pair(getattr(tensor, name)(axis), along(scalars, axis, scalar_function))
    if kind == "transpose":
        first, second = generator.sample(range(len(tensor.shape)), 2)
        return Pair(tensor.transpose(first, second), np.swapaxes(scalars, first, second))
    if kind == "reshape":
        return Pair(tensor.reshape(-1), scalars.reshape(-1))
    other = variable((tensor.shape[-1], generator.randint(1, 3)) if generator.random() < 0.7 else (tensor.shape[-1],), generator)
    variables.append(other)
    result = tensor @ other.tensor
    if isinstance(result, Scalar):  # rank 1 @ rank 1: a dot, a scalar node
        return Pair(Tensor.constant([result]), np.array([fold(scalars[p] * other.scalars[p] for p in range(len(scalars)))], dtype=object))
    return Pair(result, matmul_scalars(scalars, other.scalars))


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


@settings(settings.get_profile("tensor"))
@given(shape=shapes, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 6))
def test_a_tensor_composition_equals_the_same_scalar_program(shape, seed, steps):
    generator = random.Random(seed)
    start = variable(shape, generator)
    variables = [start]
    pair = start
    for _ in range(steps):
        pair = step(pair, generator, variables)
        assert pair.agrees(), "forward values differ from the scalar program's"
    tensor_loss = pair.tensor.sum()
    scalar_loss = fold(pair.scalars.reshape(-1))
    assert bits(tensor_loss.value) == bits(scalar_loss.value)
    tensor_loss.backward()
    scalar_loss.backward()
    for item in variables:
        if hasattr(item, "node"):
            continue  # a scalar node used by the tensor graph itself: checked below
        expected = np.array([node.gradient for node in item.scalars.reshape(-1)], dtype=float)
        actual = np.array(item.tensor.gradient)
        np.testing.assert_allclose(actual, expected, rtol=1e-11, atol=1e-12 * max(1.0, np.abs(expected).max()))


@settings(settings.get_profile("tensor"))
@given(left=shapes, seed=st.integers(0, 2**32 - 1))
def test_broadcasting_follows_numpy_for_every_pair_of_compatible_shapes(left, seed):
    generator = random.Random(seed)
    right = broadcast_shape_for(left, generator)
    if generator.random() < 0.5:
        left, right = right, left
    a = Tensor.variable(np.full(left, 2.0).tolist())
    b = Tensor.variable(np.full(right, 3.0).tolist())
    output = a * b
    assert output.shape == np.broadcast_shapes(left, right)
    output.sum().backward()
    count = int(np.prod(output.shape))
    assert sum(a.gradient) == 3.0 * count and sum(b.gradient) == 2.0 * count


@settings(settings.get_profile("tensor"))
@given(shape=shapes, seed=st.integers(0, 2**32 - 1))
def test_gather_scatters_every_repeated_row(shape, seed):
    generator = random.Random(seed)
    table = np.array([generator.uniform(-1, 1) for _ in range(int(np.prod(shape)))]).reshape(shape)
    indices = [generator.randrange(shape[0]) for _ in range(generator.randint(1, 6))]
    c = Tensor.variable(table.tolist())
    picked = c[indices]
    assert picked.tolist() == table[indices].tolist()
    picked.sum().backward()
    expected = np.zeros(shape)
    np.add.at(expected, indices, 1.0)
    assert list(c.gradient) == expected.reshape(-1).tolist()


def scalar_logsumexp(row):
    """logsumexp of scalar nodes as the tensor kernel computes it: the largest taken out, the
    exponentials folded left to right."""
    top = Scalar.max_of(row)
    return top + fold([(item - top).exp() for item in row]).log()


@settings(settings.get_profile("tensor"))
@given(rows=st.integers(1, 5), classes=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_softmax_logsumexp_and_cross_entropy_equal_their_scalar_programs(rows, classes, seed):
    generator = random.Random(seed)
    logits = [[generator.gauss(0, 2) for _ in range(classes)] for _ in range(rows)]
    targets = [generator.randrange(classes) for _ in range(rows)]
    z = Tensor.variable(logits)
    nodes = [[Scalar.variable(value) for value in row] for row in logits]
    losses = z.cross_entropy(targets)
    scalar_losses = [scalar_logsumexp(row) - row[target] for row, target in zip(nodes, targets)]
    assert [bits(value) for value in losses.values] == [bits(node.value) for node in scalar_losses]
    loss = losses.mean()
    scalar_loss = fold(scalar_losses) / rows
    assert bits(loss.value) == bits(scalar_loss.value)
    assert [bits(v) for v in z.logsumexp(1).values] == [bits(scalar_logsumexp(row).value) for row in nodes]
    probabilities = z.softmax(-1)
    expected = []
    for row in nodes:
        top = Scalar.max_of(row)
        exponentials = [(item - top).exp() for item in row]
        total = fold(exponentials)
        expected += [item / total for item in exponentials]
    assert [bits(v) for v in probabilities.values] == [bits(node.value) for node in expected]
    loss.backward()
    scalar_loss.backward()
    expected_gradient = np.array([node.gradient for row in nodes for node in row])
    np.testing.assert_allclose(np.array(z.gradient), expected_gradient, rtol=1e-11, atol=1e-13)


@settings(settings.get_profile("tensor"))
@given(shape=shapes, seed=st.integers(0, 2**32 - 1), at=st.integers(0, 63))
def test_a_pass_that_meets_a_non_finite_adjoint_changes_no_stored_gradient(shape, seed, at):
    generator = random.Random(seed)
    count = int(np.prod(shape))
    values = [generator.uniform(0.5, 1.5) for _ in range(count)]
    values[at % count] = 1e-300  # log's local derivative there is 1e300
    x = Tensor.variable(np.array(values).reshape(shape).tolist())
    s = Scalar.variable(generator.uniform(-1, 1))
    good = (x * s).sum() + s * s
    good.backward()
    before = [x.gradient, s.gradient, good.gradient]
    bad = (x.log() * 1e10).sum() + good
    try:
        bad.backward()
    except Exception as error:  # noqa: BLE001 (the kind is checked below)
        assert error.kind == "non-finite-tensor-adjoint"
        assert error.element == np.unravel_index(at % count, shape)
    else:
        raise AssertionError("the pass should have failed")
    assert [x.gradient, s.gradient, good.gradient] == before
