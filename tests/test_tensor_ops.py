"""Every tensor operation's values and gradients against numpy, written separately here.

Each gradient is of ``sum(R * op(...))`` for a random R (the adjoint that reaches the
operation), so the reference is the operation's VJP of R by hand in numpy: broadcasting in
every direction, repeated operands, repeated embedding rows. Agreement to 1e-12 relative.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from numpy_reference import unbroadcast
from scalarlang import Scalar, Tensor
from scalarlang.engine import normal

RNG = np.random.default_rng(20261206)


def tensor(array, variable=True):
    data = np.asarray(array, dtype=float).tolist()
    return Tensor.variable(data) if variable else Tensor.constant(data)


def values(node):
    if isinstance(node, Scalar):
        return np.array(node.value)
    return np.array(node.values).reshape(node.shape)


def gradient(node):
    if isinstance(node, Scalar):
        return np.array(node.gradient)
    return np.array(node.gradient).reshape(node.shape)


def close(actual, expected):
    expected = np.asarray(expected, dtype=float)
    scale = max(1.0, float(np.abs(expected).max()) if expected.size else 1.0)
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12 * scale)


def backward_weighted(output, weights):
    """backward of sum(weights * output): ``weights`` is the adjoint that reaches ``output``."""
    if isinstance(output, Scalar):
        loss = output * float(weights)
    else:
        loss = (output * Tensor.constant(np.asarray(weights).tolist())).sum()
    loss.backward()
    return loss


# ---- element-wise binary operations with broadcasting -----------------------------------------

BROADCASTS = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1), (1, 3)),
    ((1, 3), (2, 1)),
    ((2, 3), (2, 1)),
    ((2, 1), (2, 3)),
    ((4, 1, 3), (2, 3)),
    ((2, 3), (4, 1, 1)),
    ((1,), (3, 2)),
]

BINARY = {
    "add": (lambda a, b: a + b, lambda a, b, r: (r, r)),
    "sub": (lambda a, b: a - b, lambda a, b, r: (r, -r)),
    "mul": (lambda a, b: a * b, lambda a, b, r: (r * b, r * a)),
    "div": (lambda a, b: a / b, lambda a, b, r: (r / b, -r * a / (b * b))),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
def test_binary_operations_broadcast_as_numpy(name, shapes):
    forward, vjps = BINARY[name]
    left = RNG.uniform(0.5, 2.0, shapes[0])
    right = RNG.uniform(0.5, 2.0, shapes[1])
    a, b = tensor(left), tensor(right)
    output = forward(a, b)
    expected = forward(left, right)
    close(values(output), expected)
    weights = RNG.normal(size=expected.shape)
    backward_weighted(output, weights)
    da, db = vjps(np.broadcast_to(left, expected.shape), np.broadcast_to(right, expected.shape), weights)
    close(gradient(a), unbroadcast(da, left.shape))
    close(gradient(b), unbroadcast(db, right.shape))


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("tensor_first", [True, False])
def test_a_scalar_node_on_either_side_broadcasts_and_gets_the_fold_of_its_contributions(name, tensor_first):
    forward, vjps = BINARY[name]
    array = RNG.uniform(0.5, 2.0, (3, 4))
    number = 1.7
    t, s = tensor(array), Scalar.variable(number)
    output = forward(t, s) if tensor_first else forward(s, t)
    expected = forward(array, number) if tensor_first else forward(number, array)
    close(values(output), expected)
    weights = RNG.normal(size=expected.shape)
    backward_weighted(output, weights)
    if tensor_first:
        dt, ds = vjps(array, np.full_like(array, number), weights)
    else:
        ds, dt = vjps(np.full_like(array, number), array, weights)
    close(gradient(t), dt)
    assert isinstance(s.gradient, float)
    close(s.gradient, ds.sum())


@pytest.mark.parametrize("name", sorted(BINARY))
def test_a_number_on_either_side_is_folded_into_the_values(name):
    forward, vjps = BINARY[name]
    array = RNG.uniform(0.5, 2.0, (2, 2))
    t = tensor(array)
    for output, expected, side in ((forward(t, 3), forward(array, 3.0), 0), (forward(3, t), forward(3.0, array), 1)):
        close(values(output), expected)
        t.zero_grad()
        weights = RNG.normal(size=(2, 2))
        backward_weighted(output, weights)
        pair = vjps(array, np.full_like(array, 3.0), weights) if side == 0 else vjps(np.full_like(array, 3.0), array, weights)
        close(gradient(t), pair[side])
        assert len(output.edges) == 1  # the number has no node, so no edge


def test_repeated_operands_add_their_contributions():
    array = RNG.normal(size=(3, 3))
    x = tensor(array)
    backward_weighted(x * x, np.ones((3, 3)))
    close(gradient(x), 2 * array)
    a = tensor(array)
    weights = RNG.normal(size=(3, 3))
    backward_weighted(a @ a, weights)
    close(gradient(a), weights @ array.T + array.T @ weights)
    shared = tensor(array)
    h = shared.tanh()
    loss = (h * 2.0).sum() + (h * h).sum()  # a tensor with two consumers
    loss.backward()
    t = np.tanh(array)
    close(gradient(shared), (2.0 + 2 * t) * (1 - t * t))


# ---- element-wise functions -------------------------------------------------------------------

UNARY = {
    "exp": (np.exp, lambda a, r: r * np.exp(a), (-2, 2)),
    "log": (np.log, lambda a, r: r / a, (0.1, 3)),
    "tanh": (np.tanh, lambda a, r: r * (1 - np.tanh(a) ** 2), (-2, 2)),
    "sqrt": (np.sqrt, lambda a, r: r / (2 * np.sqrt(a)), (0.1, 3)),
    "relu": (lambda a: np.maximum(a, 0), lambda a, r: r * (a > 0), (-2, 2)),
    "sigmoid": (lambda a: 1 / (1 + np.exp(-a)), lambda a, r: r * np.exp(-a) / (1 + np.exp(-a)) ** 2, (-3, 3)),
    "abs": (np.abs, lambda a, r: r * np.sign(a), (-2, 2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_element_wise_functions(name):
    forward, vjp, (low, high) = UNARY[name]
    array = RNG.uniform(low, high, (2, 3, 2))
    t = tensor(array)
    output = getattr(t, name)()
    close(values(output), forward(array))
    weights = RNG.normal(size=array.shape)
    backward_weighted(output, weights)
    close(gradient(t), vjp(array, weights))


def test_negation_and_powers():
    array = RNG.uniform(0.5, 2.0, (3, 2))
    for exponent in (2, 3, 0.5, -1.5, 0):
        t = tensor(array)
        output = t ** exponent
        close(values(output), array ** exponent)
        weights = RNG.normal(size=array.shape)
        backward_weighted(output, weights)
        close(gradient(t), weights * exponent * array ** (exponent - 1) if exponent else 0 * array)
    t = tensor(array)
    backward_weighted(-t, np.ones_like(array))
    close(gradient(t), -np.ones_like(array))


def test_comparisons_are_constant_zero_one_tensors():
    left = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    right = np.array([2.0, 2.0, 2.0])
    a, b = tensor(left), tensor(right)
    for output, expected in ((a < b, left < right), (a <= b, left <= right), (a > b, left > right),
                             (a >= b, left >= right), (a.eq(b), left == right), (a.ne(b), left != right),
                             (a > 1.5, left > 1.5)):
        close(values(output), expected.astype(float))
        assert not output.tracks_gradient and str(output.operation) == "constant"


# ---- matrix products ---------------------------------------------------------------------------


@pytest.mark.parametrize("shapes", [((4, 3), (3, 5)), ((4, 3), (3,)), ((3,), (3, 5)), ((1, 1), (1, 1))], ids=str)
def test_matrix_products(shapes):
    left, right = RNG.normal(size=shapes[0]), RNG.normal(size=shapes[1])
    a, b = tensor(left), tensor(right)
    output = a @ b
    expected = left @ right
    close(values(output), expected)
    weights = RNG.normal(size=expected.shape)
    backward_weighted(output, weights)
    if left.ndim == 2 and right.ndim == 2:
        da, db = weights @ right.T, left.T @ weights
    elif right.ndim == 1:
        da, db = np.outer(weights, right), left.T @ weights
    else:
        da, db = right @ weights, np.outer(left, weights)
    close(gradient(a), da)
    close(gradient(b), db)


def test_a_dot_of_two_rank_one_tensors_is_a_scalar_node():
    left, right = RNG.normal(size=5), RNG.normal(size=5)
    a, b = tensor(left), tensor(right)
    output = a @ b
    assert isinstance(output, Scalar) and str(output.operation) == "dot"
    close(output.value, left @ right)
    output.backward()
    close(gradient(a), right)
    close(gradient(b), left)


# ---- reductions --------------------------------------------------------------------------------


def _reference_reduction(name, array, axis):
    if name == "logsumexp":
        top = array.max(axis=axis, keepdims=True)
        return (top + np.log(np.exp(array - top).sum(axis=axis, keepdims=True))).squeeze(axis=axis) if axis is not None \
            else float(top.max() + np.log(np.exp(array - array.max()).sum()))
    return getattr(np, name)(array, axis=axis)


def _reference_reduction_vjp(name, array, axis, weights):
    expanded = weights if axis is None else np.expand_dims(weights, axis)
    count = array.size if axis is None else array.shape[axis]
    if name == "sum":
        return np.broadcast_to(expanded, array.shape)
    if name == "mean":
        return np.broadcast_to(expanded, array.shape) / count
    if name == "logsumexp":
        top = array.max(axis=axis, keepdims=True)
        exponentials = np.exp(array - top)
        return expanded * exponentials / exponentials.sum(axis=axis, keepdims=True)
    extreme = array.max(axis=axis, keepdims=True) if name == "max" else array.min(axis=axis, keepdims=True)
    return expanded * (array == extreme)  # the values are distinct: one chosen element each


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "logsumexp"])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1, -3])
def test_reductions_over_everything_and_along_an_axis(name, axis):
    array = RNG.normal(size=(2, 3, 4))
    t = tensor(array)
    output = getattr(t, name)(axis)
    expected = _reference_reduction(name, array, axis)
    if axis is None:
        assert isinstance(output, Scalar)
    else:
        assert output.shape == np.shape(expected)
    close(values(output), expected)
    weights = RNG.normal(size=np.shape(expected))
    backward_weighted(output, weights)
    close(gradient(t), _reference_reduction_vjp(name, array, axis, weights))


def test_a_reduction_of_a_rank_one_tensor_along_its_axis_is_a_scalar_node():
    t = tensor([1.0, 2.0, 4.0])
    assert isinstance(t.sum(0), Scalar) and t.sum(-1).value == 7.0
    assert isinstance(t.mean(), Scalar)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_along_an_axis(axis):
    array = RNG.normal(size=(3, 4))
    t = tensor(array)
    output = t.softmax(axis)
    exponentials = np.exp(array - array.max(axis=axis, keepdims=True))
    probabilities = exponentials / exponentials.sum(axis=axis, keepdims=True)
    close(values(output), probabilities)
    weights = RNG.normal(size=array.shape)
    backward_weighted(output, weights)
    close(gradient(t), probabilities * (weights - (weights * probabilities).sum(axis=axis, keepdims=True)))


def test_argmax_gives_constant_indices_the_first_of_ties():
    t = tensor([[1.0, 3.0, 3.0], [5.0, 0.0, 1.0]])
    close(values(t.argmax()), [1.0, 0.0])
    close(values(t.argmax(0)), [1.0, 0.0, 0.0])
    close(values(t.argmin(-1)), [0.0, 1.0])
    assert not t.argmax().tracks_gradient
    assert t[0].argmax().value == 1.0 and isinstance(t[0].argmax(), Scalar)


def test_cross_entropy_gives_row_losses():
    logits = RNG.normal(size=(5, 4))
    targets = [0, 3, 3, 1, 2]
    z = tensor(logits)
    output = z.cross_entropy(targets)
    top = logits.max(axis=1, keepdims=True)
    lse = (top + np.log(np.exp(logits - top).sum(axis=1, keepdims=True)))[:, 0]
    close(values(output), lse - logits[np.arange(5), targets])
    weights = RNG.normal(size=5)
    backward_weighted(output, weights)
    probabilities = np.exp(logits - lse[:, None])
    expected = weights[:, None] * (probabilities - np.eye(4)[targets])
    close(gradient(z), expected)
    z2 = tensor(logits)
    loss = z2.cross_entropy(Tensor.constant([float(t) for t in targets])).mean()
    loss.backward()
    close(gradient(z2), (probabilities - np.eye(4)[targets]) / 5)


def test_one_hot():
    close(values(Tensor.one_hot([2, 0, 2], 3)), np.eye(3)[[2, 0, 2]])
    close(values(Tensor.one_hot(Tensor.constant([1.0]), 2)), [[0.0, 1.0]])


# ---- indexing, reshape, transpose --------------------------------------------------------------


def test_an_index_gives_a_sub_tensor_and_an_element_a_scalar_node():
    array = RNG.normal(size=(3, 4))
    t = tensor(array)
    row = t[1]
    close(values(row), array[1])
    element = t[2][3]
    assert isinstance(element, Scalar) and element.value == array[2, 3]
    assert t[-1, 0].value == array[-1, 0]
    loss = (row * 2.0).sum() + element * 3.0
    loss.backward()
    expected = np.zeros_like(array)
    expected[1] = 2.0
    expected[2, 3] += 3.0
    close(gradient(t), expected)


def test_gather_is_an_embedding_lookup_whose_vjp_adds_repeated_rows():
    table = RNG.normal(size=(5, 2))
    c = tensor(table)
    indices = [[1, 3, 1], [4, 1, 0]]
    embedded = c[indices]
    assert embedded.shape == (2, 3, 2)
    close(values(embedded), table[np.array(indices)])
    weights = RNG.normal(size=(2, 3, 2))
    backward_weighted(embedded, weights)
    expected = np.zeros_like(table)
    np.add.at(expected, np.array(indices), weights)
    close(gradient(c), expected)
    by_tensor = c[Tensor.constant([4.0, 4.0])]
    close(values(by_tensor), table[[4, 4]])


def test_reshape_with_one_unknown_dimension():
    array = RNG.normal(size=(2, 6))
    t = tensor(array)
    output = t.reshape(3, -1)
    assert output.shape == (3, 4)
    close(values(output), array.reshape(3, 4))
    weights = RNG.normal(size=(3, 4))
    backward_weighted(output, weights)
    close(gradient(t), weights.reshape(2, 6))


@pytest.mark.parametrize("axes", [(), (0, 2), (-1, 1), (0, 1)])
def test_transpose(axes):
    array = RNG.normal(size=(2, 3) if not axes else (2, 3, 4))
    t = tensor(array)
    output = t.transpose(*axes)
    expected = array.T if not axes else np.swapaxes(array, *axes)
    close(values(output), expected)
    weights = RNG.normal(size=expected.shape)
    backward_weighted(output, weights)
    close(gradient(t), weights.T if not axes else np.swapaxes(weights, *axes))


# ---- making tensors ----------------------------------------------------------------------------


def test_a_tensor_of_scalar_nodes_is_one_stacking_node_with_an_edge_to_each():
    x, y = Scalar.variable(2.0), Scalar.variable(-1.0)
    t = Tensor.constant([[x, 3.0], [y, x]])
    assert str(t.operation) == "tensor" and len(t.edges) == 3 and t.tracks_gradient
    close(values(t), [[2.0, 3.0], [-1.0, 2.0]])
    backward_weighted(t, np.array([[1.0, 5.0], [7.0, 11.0]]))
    assert x.gradient == 12.0 and y.gradient == 7.0


def test_zeros_ones_and_draws_in_row_major_order():
    import random

    close(values(Tensor.zeros((2, 3))), np.zeros((2, 3)))
    close(values(Tensor.ones([4])), np.ones(4))
    generator, again = random.Random(7), random.Random(7)
    drawn = Tensor.randn((2, 3), generator)
    assert list(drawn.values) == [normal.gauss(again, 0, 1) for _ in range(6)]
    drawn = Tensor.rand((3,), generator, variable=True)
    assert list(drawn.values) == [again.uniform(0, 1) for _ in range(3)]
    assert drawn.gradient == (0.0, 0.0, 0.0)


def test_tolist_nests_the_values_by_the_shape():
    t = Tensor.constant([[[1, 2], [3, 4], [5, 6]]])
    assert t.shape == (1, 3, 2) and t.tolist() == [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]
    assert len(t) == 1 and t.size == 6 and t.rank == 3


def test_detach_is_a_constant_without_edges():
    t = tensor([1.0, 2.0])
    d = (t * 2.0).detach()
    assert not d.tracks_gradient and d.edges == () and str(d.operation) == "detached"
    assert d.values == (2.0, 4.0)


def test_exp_of_a_large_element_is_a_typed_error_naming_it():
    from scalarlang import NonFiniteTensorResult

    with pytest.raises(NonFiniteTensorResult) as caught:
        tensor([[0.0, 1.0], [800.0, 2.0]]).exp()
    assert caught.value.element == (1, 0) and caught.value.value == math.inf


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_element_wise_maximum_and_minimum_share_a_tie(name):
    left = np.array([[1.0, 5.0, 2.0], [0.0, -1.0, 3.0]])
    right = np.array([2.0, 5.0, 1.0])
    a, b = tensor(left), tensor(right)
    output = getattr(a, name)(b)
    close(values(output), getattr(np, name)(left, right))
    weights = RNG.normal(size=(2, 3))
    backward_weighted(output, weights)
    wins = left > right if name == "maximum" else left < right
    share = np.where(left == right, 0.5, wins.astype(float))
    close(gradient(a), weights * share)
    close(gradient(b), (weights * (1 - share)).sum(axis=0))
