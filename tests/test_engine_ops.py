"""The operations of docs/engine.md "More operations": pow, sqrt, relu, sigmoid, abs, max, min."""

from __future__ import annotations

import math
import struct

import pytest

from scalarlang import (
    NonFiniteDerivative,
    NonFiniteLeaf,
    NonFiniteResult,
    Scalar,
    ScalarAutodiffError,
    ScalarOperation,
    scalar_gradient_check,
)
from scalarlang.engine import functions as functions_module
from scalarlang.engine import node as node_module
from scalarlang.engine import scalar as scalar_module
from scalarlang.engine.replay import Replay

INF = math.inf
NAN = math.nan


def bits(value: float) -> bytes:
    return struct.pack("<d", value)


def local_derivatives(node: Scalar) -> list[float]:
    return [edge.local_derivative for edge in node.parents]


# Every node is allocated by a module's `_new` (object.__new__): leaves and `unary_node`,
# `binary_node`, `nary_node` in node.py, the inline operators in scalar.py, tanh in functions.py.
NODE_MAKERS = (node_module, scalar_module, functions_module)


def counting_nodes(made: list):
    """Make every module that allocates nodes append each node's class to ``made``."""
    originals = [module._new for module in NODE_MAKERS]
    for module, original in zip(NODE_MAKERS, originals):
        module._new = lambda cls, original=original: made.append(cls) or original(cls)
    return originals


def stop_counting(originals) -> None:
    for module, original in zip(NODE_MAKERS, originals):
        module._new = original


def fails_without_a_node(call, error_type, at: float):
    """``call(Scalar.variable(at))`` raises exactly ``error_type`` and allocates no node."""
    operand = Scalar.variable(at)
    made: list = []
    originals = counting_nodes(made)
    try:
        with pytest.raises(ScalarAutodiffError) as caught:
            call(operand)
    finally:
        stop_counting(originals)
    assert type(caught.value) is error_type, repr(caught.value)
    assert made == []
    assert operand.gradient == 0.0
    return caught.value


def test_the_node_counter_sees_nodes():
    made: list = []
    originals = counting_nodes(made)
    try:
        Scalar.variable(2.0) ** 2  # noqa: B018
    finally:
        stop_counting(originals)
    assert made == [Scalar, Scalar]


# ---- values and local derivatives at chosen points -------------------------------------------

SQRT3 = math.sqrt(3.0)
S2 = 1.0 / (1.0 + math.exp(-2.0))
S_2 = math.exp(-2.0) / (1.0 + math.exp(-2.0))

UNARY_CASES = [
    # (operation, build, value, local derivative)
    ("pow", lambda x: x ** 2, 9.0, 6.0),
    ("pow", lambda x: x.pow(2), 9.0, 6.0),
    ("pow", lambda x: x ** 2.0, 9.0, 6.0),
    ("pow", lambda x: x ** 3, 27.0, 27.0),
    ("pow", lambda x: x ** 1, 3.0, 1.0),
    ("pow", lambda x: x ** 0, 1.0, 0.0),
    ("pow", lambda x: x ** -1, 3.0**-1.0, -1.0 * 3.0**-2.0),
    ("pow", lambda x: x ** 0.5, SQRT3, 0.5 * 3.0**-0.5),
    ("pow", lambda x: x.pow(-2.5), 3.0**-2.5, -2.5 * 3.0**-3.5),
    ("sqrt", lambda x: x.sqrt(), SQRT3, 0.5 / SQRT3),
    ("relu", lambda x: x.relu(), 3.0, 1.0),
    ("relu", lambda x: (-x).relu(), 0.0, 0.0),
    ("sigmoid", lambda x: (x - 1).sigmoid(), S2, S2 * (1 - S2)),
    ("sigmoid", lambda x: (1 - x).sigmoid(), S_2, S_2 * (1 - S_2)),
    ("abs", lambda x: x.abs(), 3.0, 1.0),
    ("abs", lambda x: abs(-x), 3.0, -1.0),
]


@pytest.mark.parametrize("operation, build, value, local", UNARY_CASES)
def test_one_operand_operations(operation, build, value, local):
    x = Scalar.variable(3.0)
    node = build(x)
    assert node.operation is ScalarOperation(operation) and str(node.operation) == operation
    assert node.value == pytest.approx(value, rel=1e-15)
    assert len(node.parents) == 1
    assert local_derivatives(node) == [pytest.approx(local, rel=1e-15)]
    assert node.tracks_gradient and node.gradient == 0.0


def test_pow_exponent_is_a_parameter_not_an_operand():
    x = Scalar.variable(3.0)
    square = x ** 2
    assert square.exponent == 2.0 and type(square.exponent) is float
    assert len(square.parents) == 1 and square.parents[0].parent is x
    assert [node for node in square.topology()] == [x, square]
    for other in (x, x + 1, x * x, x.tanh(), x.sqrt(), x.max(1), Scalar.constant(2.0), x.detach()):
        assert other.exponent is None
    assert (x ** -0.5).exponent == -0.5


def test_pow_exponent_zero_gives_an_exact_zero_derivative_everywhere():
    for base in (3.0, 0.0, -0.0, -2.5, 1e-300, 1e300):
        node = Scalar.variable(base) ** 0
        assert node.value == 1.0
        assert bits(local_derivatives(node)[0]) == bits(0.0)


def test_pow_of_a_negative_base_with_an_integral_exponent():
    base = Scalar.variable(-2.0)
    cube, square = base ** 3, base ** 2
    assert cube.value == -8.0 and local_derivatives(cube) == [12.0]
    assert square.value == 4.0 and local_derivatives(square) == [-4.0]
    assert (base ** -1).value == -0.5 and local_derivatives(base ** -1) == [-0.25]
    assert (base ** 3.0).value == -8.0


def test_square_inline_path_matches_the_general_power():
    from scalarlang.engine.arithmetic import power_and_derivative

    for base in (0.1, -3.7, 1e-160, 1.3e154, 12345.678):
        node = Scalar.variable(base) ** 2
        assert bits(node.value) == bits(base * base)
        assert bits(local_derivatives(node)[0]) == bits(2.0 * base)
        # the general path with the same exponent gives the same bits
        value, derivative = power_and_derivative(base, 2.0)
        assert (bits(value), bits(derivative)) == (bits(node.value), bits(local_derivatives(node)[0]))


def test_pow_tiny_base_and_exponent_keeps_a_finite_derivative():
    # base^(c-1) overflows, but c * base^(c-1) = c * base^c / base is finite
    node = Scalar.variable(5e-324) ** 1e-300
    assert node.value == pytest.approx(1.0)
    assert math.isfinite(local_derivatives(node)[0])
    assert local_derivatives(node)[0] == pytest.approx(1e-300 / 5e-324, rel=1e-6)


def test_pow_backward_and_reuse():
    x = Scalar.variable(3.0)
    loss = x ** 2 + x ** 3
    loss.backward()
    assert x.gradient == 6.0 + 27.0


def test_pow_of_an_untracked_base_is_untracked():
    assert not (Scalar.constant(3.0) ** 2).tracks_gradient
    assert (Scalar.constant(3.0) ** 2).gradient is None


def test_sqrt_of_a_subnormal_is_finite():
    node = Scalar.variable(5e-324).sqrt()
    assert node.value > 0.0 and math.isfinite(local_derivatives(node)[0])


def test_sigmoid_does_not_overflow_either_side():
    for at, value in ((800.0, 1.0), (-800.0, 0.0), (1e308, 1.0), (-1e308, 0.0), (0.0, 0.5)):
        node = Scalar.variable(at).sigmoid()
        assert node.value == value
        assert local_derivatives(node) == [value * (1.0 - value)]
    assert Scalar.variable(-40.0).sigmoid().value == pytest.approx(math.exp(-40.0), rel=1e-15)
    assert Scalar.variable(40.0).sigmoid().value == 1.0 / (1.0 + math.exp(-40.0))


# ---- max and min ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, a, b, value, locals_",
    [
        ("max", 3.0, 2.0, 3.0, [1.0, 0.0]),
        ("max", 2.0, 3.0, 3.0, [0.0, 1.0]),
        ("max", 2.0, 2.0, 2.0, [0.5, 0.5]),
        ("min", 3.0, 2.0, 2.0, [0.0, 1.0]),
        ("min", 2.0, 3.0, 2.0, [1.0, 0.0]),
        ("min", 2.0, 2.0, 2.0, [0.5, 0.5]),
        ("max", -0.0, 0.0, -0.0, [0.5, 0.5]),  # equal floats tie; the value is the left one
        ("min", 0.0, -0.0, 0.0, [0.5, 0.5]),
    ],
)
def test_max_and_min(name, a, b, value, locals_):
    x, y = Scalar.variable(a), Scalar.variable(b)
    node = getattr(x, name)(y)
    assert str(node.operation) == name
    assert bits(node.value) == bits(value)
    assert local_derivatives(node) == locals_
    assert node.parents[0].parent is x and node.parents[1].parent is y


def test_max_of_a_node_with_itself_gives_two_half_edges():
    x = Scalar.variable(1.5)
    both = x.max(x)
    both.backward()
    assert local_derivatives(both) == [0.5, 0.5]
    assert x.gradient == 1.0


def test_max_and_min_take_numbers_as_constants_in_their_slot():
    x = Scalar.variable(1.5)
    for name in ("max", "min"):
        node = getattr(x, name)(2)
        constant = node.parents[1].parent
        assert constant.operation is ScalarOperation.CONSTANT and constant.value == 2.0
        assert node.parents[0].parent is x
    assert x.max(0).value == 1.5 and x.min(0).value == 0.0
    assert not Scalar.constant(1.0).max(2.0).tracks_gradient


@pytest.mark.parametrize("bad", [True, "1", None, 1j, [1.0]], ids=repr)
def test_max_and_min_reject_non_numbers(bad):
    x = Scalar.variable(1.0)
    with pytest.raises(TypeError):
        x.max(bad)
    with pytest.raises(TypeError):
        x.min(bad)


# ---- PyTorch's conventions at the undefined points -------------------------------------------


@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_relu_and_abs_at_zero_have_derivative_zero(zero):
    x = Scalar.variable(zero)
    relu, absolute = x.relu(), x.abs()
    assert bits(relu.value) == bits(0.0) and local_derivatives(relu) == [0.0]
    assert bits(absolute.value) == bits(0.0) and local_derivatives(absolute) == [0.0]


def test_relu_and_abs_on_either_side():
    assert local_derivatives(Scalar.variable(-1e-300).relu()) == [0.0]
    assert local_derivatives(Scalar.variable(5e-324).relu()) == [1.0]
    assert local_derivatives(Scalar.variable(-5e-324).abs()) == [-1.0]
    assert Scalar.variable(-2.5).abs().value == 2.5


# ---- typed errors with their IEEE values; no node on failure ----------------------------------


@pytest.mark.parametrize(
    "build, at, operation, value",
    [
        (lambda x: x ** 0.5, -8.0, "pow", NAN),
        (lambda x: x.pow(1 / 3), -8.0, "pow", NAN),
        (lambda x: x.sqrt(), -1.0, "sqrt", NAN),
        (lambda x: x.sqrt(), -1e-300, "sqrt", NAN),
        (lambda x: x ** -1, 0.0, "pow", INF),
        (lambda x: x ** -0.5, 0.0, "pow", INF),
        (lambda x: x ** -1, -0.0, "pow", -INF),
        (lambda x: x ** -2, -0.0, "pow", INF),
        (lambda x: x ** 400, 10.0, "pow", INF),
        (lambda x: x ** 401, -10.0, "pow", -INF),
        (lambda x: x ** 400, -10.0, "pow", INF),
        (lambda x: x ** 2, 1e200, "pow", INF),
        (lambda x: x ** -2, 1e-200, "pow", INF),
        (lambda x: x ** 1e10, 2.0, "pow", INF),
    ],
)
def test_non_finite_results_carry_the_ieee_value(build, at, operation, value):
    error = fails_without_a_node(build, NonFiniteResult, at)
    assert str(error.operation) == operation
    assert bits(error.value) == bits(value) if value == value else math.isnan(error.value)


@pytest.mark.parametrize(
    "build, at, operation, derivative",
    [
        (lambda x: x.sqrt(), 0.0, "sqrt", INF),
        (lambda x: x.sqrt(), -0.0, "sqrt", -INF),  # IEEE: 1 / (2 * -0.0)
        (lambda x: x ** 0.5, 0.0, "pow", INF),
        (lambda x: x.pow(0.25), 0.0, "pow", INF),
        (lambda x: x ** 1e-5, 1e-300, "pow", None),  # finite: must not fail
    ],
)
def test_non_finite_derivatives(build, at, operation, derivative):
    if derivative is None:
        assert math.isfinite(local_derivatives(build(Scalar.variable(at)))[0])
        return
    error = fails_without_a_node(build, NonFiniteDerivative, at)
    assert str(error.operation) == operation and error.operand == 0
    assert bits(error.local_derivative) == bits(derivative)
    assert str(error) == f"{operation} produced non-finite local derivative {derivative!r} for operand 0"


def test_pow_derivative_overflow_is_a_typed_error():
    # a finite value (about 0.47) whose derivative 0.001 * base^-0.999 is about 1e320
    error = fails_without_a_node(lambda x: x ** 0.001, NonFiniteDerivative, 5e-324)
    assert error.local_derivative == INF and error.operand == 0


@pytest.mark.parametrize("exponent", [INF, -INF, NAN, 10**400, -(10**400)], ids=repr)
def test_non_finite_exponent_is_rejected_like_a_constant(exponent):
    error = fails_without_a_node(lambda x: x ** exponent, NonFiniteLeaf, 2.0)
    assert error.operation is ScalarOperation.CONSTANT
    fails_without_a_node(lambda x: x.pow(exponent), NonFiniteLeaf, 2.0)


def test_python_exceptions_never_escape_pow():
    for base in (-8.0, -0.0, 0.0, 1e-308, -1e308, 1e308, 5e-324, -5e-324):
        for exponent in (0.5, -0.5, 1 / 3, -1, -2, 3, 400, -400, 1e300, -1e300, 2.5, 1e-300):
            try:
                node = Scalar.variable(base) ** exponent
            except (NonFiniteResult, NonFiniteDerivative):
                continue
            assert type(node.value) is float and math.isfinite(node.value)
            assert math.isfinite(local_derivatives(node)[0])


# ---- a Scalar exponent, or a number raised to a Scalar ---------------------------------------


def test_scalar_exponent_is_a_type_error_pointing_to_exp_log():
    a, b = Scalar.variable(2.0), Scalar.variable(3.0)
    for call in (lambda: a ** b, lambda: 2 ** b, lambda: 2.0 ** b, lambda: a.pow(b), lambda: pow(a, b)):
        with pytest.raises(TypeError, match=r"exp\(b \* log\(a\)\)"):
            call()


@pytest.mark.parametrize("bad", [True, False, "2", None, [1], 1j], ids=repr)
def test_pow_rejects_non_number_exponents(bad):
    x = Scalar.variable(2.0)
    with pytest.raises(TypeError):
        x ** bad  # noqa: B018
    with pytest.raises(TypeError):
        x.pow(bad)


# ---- the gradient check's replay re-evaluates every new operation -----------------------------


def _replay_matches(build, at: float) -> None:
    x = Scalar.variable(at)
    output = build(x)
    topology = output.topology()
    replay = Replay(topology, topology.index(x))
    assert bits(replay(at)) == bits(output.value)
    moved = at + 0.125
    assert bits(replay(moved)) == bits(build(Scalar.variable(moved)).value)


@pytest.mark.parametrize(
    "build",
    [
        lambda x: x ** 2, lambda x: x ** 3, lambda x: x ** -1.5, lambda x: x ** 0,
        lambda x: x.sqrt(), lambda x: x.relu(), lambda x: (-x).relu(), lambda x: x.sigmoid(),
        lambda x: (-x * 100).sigmoid(), lambda x: x.abs(), lambda x: (-x).abs(),
        lambda x: x.max(1.0), lambda x: x.min(1.0), lambda x: x.max(x), lambda x: x.min(-x),
        lambda x: (x ** 2).max(x.sqrt()).min(x.sigmoid() * 3).relu() ** 1.5,
    ],
)
def test_replay_gives_the_engine_values(build):
    _replay_matches(build, 0.75)


def test_replay_turns_failures_into_ieee_values():
    x = Scalar.variable(1.0)
    sqrt_node = x.sqrt()
    replay = Replay(sqrt_node.topology(), 0)
    assert math.isnan(replay(-1.0))
    power = x ** -1
    assert Replay(power.topology(), 0)(0.0) == INF
    fractional = x ** 0.5
    assert math.isnan(Replay(fractional.topology(), 0)(-8.0))
    big = x ** 400
    assert Replay(big.topology(), 0)(10.0) == INF
    assert Replay((x ** 2).topology(), 0)(NAN) != Replay((x ** 2).topology(), 0)(NAN)


@pytest.mark.parametrize(
    "build, at",
    [
        (lambda x: x ** 3, 1.3), (lambda x: x.sqrt(), 2.0), (lambda x: x.relu() * x, 0.7),
        (lambda x: x.sigmoid(), -0.4), (lambda x: (x - 2).abs(), 0.5), (lambda x: x.max(x * x), 1.5),
        (lambda x: x.min(x.tanh()), 0.3), (lambda x: (x ** 2 + 1) ** -0.5, 0.9),
    ],
)
def test_gradient_check_of_the_new_operations_passes(build, at):
    x = Scalar.variable(at)
    output = build(x)
    output.backward()
    topology = output.topology()
    check = scalar_gradient_check(at, x.gradient, function=Replay(topology, topology.index(x)),
                                  tolerance=1e-6)
    assert check.passed, check


# ---- every operation: a forward function for the replay, and a gradient check ----------------

from scalarlang.engine.node import NARY_OPERATIONS  # noqa: E402
from scalarlang.engine.scalar import FORWARD, LEAVES  # noqa: E402

# One graph per operation, built from three variables at smooth points (no tie, no kink):
# gradcheck of each variable through the replay must pass, and the replay must give the
# engine's bits at the point itself.
EVERY_OPERATION = {
    ScalarOperation.ADD: lambda a, b, c: a + b,
    ScalarOperation.SUB: lambda a, b, c: a - b,
    ScalarOperation.MUL: lambda a, b, c: a * b,
    ScalarOperation.DIV: lambda a, b, c: a / b,
    ScalarOperation.NEG: lambda a, b, c: -a,
    ScalarOperation.EXP: lambda a, b, c: a.exp(),
    ScalarOperation.LOG: lambda a, b, c: a.log(),
    ScalarOperation.TANH: lambda a, b, c: a.tanh(),
    ScalarOperation.POW: lambda a, b, c: a ** 1.5,
    ScalarOperation.SQRT: lambda a, b, c: a.sqrt(),
    ScalarOperation.RELU: lambda a, b, c: a.relu(),
    ScalarOperation.SIGMOID: lambda a, b, c: a.sigmoid(),
    ScalarOperation.ABS: lambda a, b, c: (-a).abs(),
    ScalarOperation.MAX: lambda a, b, c: a.max(b),
    ScalarOperation.MIN: lambda a, b, c: a.min(b),
    ScalarOperation.LOGSUMEXP: lambda a, b, c: Scalar.logsumexp([a, b * b, c]),
    ScalarOperation.MAX_OF: lambda a, b, c: Scalar.max_of([a, b * b, c]),
    ScalarOperation.MIN_OF: lambda a, b, c: Scalar.min_of([a, b * b, c]),
}
POINTS = (0.7, 1.3, -0.4)


def test_every_operation_has_a_forward_function_or_is_a_leaf():
    for operation in ScalarOperation:
        assert (operation in FORWARD) != (operation in LEAVES), operation
    assert {operation for operation, forward in FORWARD.items() if forward.operands is None} == NARY_OPERATIONS
    assert set(EVERY_OPERATION) == set(FORWARD)


@pytest.mark.parametrize("operation", sorted(EVERY_OPERATION), ids=str)
def test_every_operation_passes_the_gradient_check_through_the_replay(operation):
    variables = [Scalar.variable(at) for at in POINTS]
    output = EVERY_OPERATION[operation](*variables)
    assert output.operation is operation
    output.backward()
    topology = output.topology()
    for variable, at in zip(variables, POINTS):
        if not any(node is variable for node in topology):
            continue
        replay = Replay(topology, topology.index(variable))
        assert bits(replay(at)) == bits(output.value)
        check = scalar_gradient_check(at, variable.gradient, function=replay, tolerance=1e-6)
        assert check.passed, (operation, check)


# ---- logsumexp: an operation of any number of operands ------------------------------------


def _logsumexp(values):
    return math.log(math.fsum(math.exp(value) for value in values))


def test_logsumexp_value_and_softmax_edges():
    values = [0.5, -1.25, 2.0, 0.5]
    operands = [Scalar.variable(value) for value in values]
    node = Scalar.logsumexp(operands)
    assert node.operation is ScalarOperation.LOGSUMEXP
    assert node.value == pytest.approx(_logsumexp(values), rel=1e-15)
    assert [edge.parent for edge in node.parents] == operands  # one edge each, in order
    softmax = [math.exp(value) / math.fsum(math.exp(v) for v in values) for value in values]
    assert local_derivatives(node) == pytest.approx(softmax, rel=1e-14)
    node.backward()
    assert [operand.gradient for operand in operands] == local_derivatives(node)


def test_logsumexp_of_large_values_does_not_overflow():
    node = Scalar.logsumexp([Scalar.variable(1000.0), Scalar.constant(1000.0)])
    assert node.value == pytest.approx(1000.0 + math.log(2.0))
    assert local_derivatives(node) == [0.5, 0.5]
    assert Scalar.logsumexp([Scalar.variable(-1000.0)]).value == -1000.0


def test_logsumexp_takes_numbers_as_constants_and_needs_an_operand():
    x = Scalar.variable(1.0)
    node = Scalar.logsumexp([x, 2, 3.5])
    assert [edge.parent.operation for edge in node.parents] == ["variable", "constant", "constant"]
    assert node.tracks_gradient and not Scalar.logsumexp([1.0, 2.0]).tracks_gradient
    with pytest.raises(ValueError):
        Scalar.logsumexp([])
    with pytest.raises(TypeError):
        Scalar.logsumexp([x, "2"])


def test_a_pass_through_a_logsumexp_node_records_every_edge():
    a, b = Scalar.variable(0.25), Scalar.variable(-0.5)
    shared = a * b  # reached twice: through the logsumexp and beside it
    deep = (a + 1.0).tanh()  # an operand with operands of its own, after the first slot
    out = Scalar.logsumexp([a, shared, deep, 0.75]) + shared
    backward_pass = out.backward()
    topology = out.topology()
    lse = next(node for node in topology if node.operation is ScalarOperation.LOGSUMEXP)
    # every operand precedes the node, every node appears once
    assert len({id(node) for node in topology}) == len(topology)
    for node in topology:
        for edge in node.parents:
            assert topology.index(edge.parent) < topology.index(node)
    edges = [edge for edge in backward_pass.edges if edge.child == topology.index(lse)]
    assert [edge.operand for edge in edges] == [0, 1, 2, 3]
    assert [topology[edge.parent] for edge in edges] == [edge.parent for edge in lse.parents]
    assert [edge.local_derivative for edge in edges] == local_derivatives(lse)
    assert len(backward_pass.edges) == sum(len(node.parents) for node in topology)
    # the gradients against the chain rule written out by hand
    s0, s1, s2, _ = local_derivatives(lse)
    dtanh = 1.0 - deep.value ** 2
    assert a.gradient == pytest.approx(s0 + (s1 + 1.0) * b.value + s2 * dtanh, rel=1e-14)
    assert b.gradient == pytest.approx((s1 + 1.0) * a.value, rel=1e-14)


def test_an_overflowing_pass_through_a_logsumexp_node_names_its_edge():
    from scalarlang import NonFiniteContribution

    a = Scalar.variable(0.0)
    scaled = a * 4
    out = Scalar.logsumexp([a, a, scaled])  # the checked walk passes its three edges first
    with pytest.raises(NonFiniteContribution) as caught:
        out.backward_with_seed(1.5e308)
    topology = out.topology()
    assert (caught.value.fields["child"], caught.value.fields["parent"]) == (topology.index(scaled), topology.index(a))
    assert a.gradient == 0.0  # nothing committed


# ---- max_of, min_of: the largest or smallest of any number of operands ---------------------


@pytest.mark.parametrize("method, pick", [(Scalar.max_of, max), (Scalar.min_of, min)])
def test_max_of_and_min_of_send_the_gradient_to_the_first_chosen_operand(method, pick):
    values = [0.5, 2.0, -1.0, 2.0, -1.0, 0.25]  # ties both ways: the first one is chosen
    operands = [Scalar.variable(value) for value in values]
    node = method(operands)
    assert node.operation is (ScalarOperation.MAX_OF if method == Scalar.max_of else ScalarOperation.MIN_OF)
    chosen = values.index(pick(values))
    assert node.value == values[chosen]
    assert [edge.parent for edge in node.parents] == operands
    assert local_derivatives(node) == [1.0 if index == chosen else 0.0 for index in range(len(values))]
    (node * 3).backward()
    assert [operand.gradient for operand in operands] == [3.0 if index == chosen else 0.0 for index in range(len(values))]


def test_max_of_one_operand_and_numbers_as_constants():
    x = Scalar.variable(-2.0)
    alone = Scalar.max_of([x])
    assert alone.value == -2.0 and local_derivatives(alone) == [1.0]
    node = Scalar.min_of([x, -3, 4.5])
    assert node.value == -3.0 and not node.parents[1].parent.tracks_gradient and node.tracks_gradient
    assert local_derivatives(node) == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError):
        Scalar.max_of([])
    with pytest.raises(TypeError):
        Scalar.min_of([x, "2"])


def test_max_of_keeps_signed_zeros_and_extremes_of_the_float_range():
    first, second = Scalar.variable(-0.0), Scalar.variable(0.0)
    assert local_derivatives(Scalar.max_of([first, second])) == [1.0, 0.0]  # -0.0 == 0.0: a tie
    big = [Scalar.variable(1.7e308), Scalar.variable(-1.7e308), Scalar.variable(5e-324)]
    assert Scalar.max_of(big).value == 1.7e308 and Scalar.min_of(big).value == -1.7e308
