"""Unit tests of the scalar engine against docs/engine.md and the seed chapter (issue #2)."""

from __future__ import annotations

import gc
import math
import re

import pytest

from shared import bits, reference_topology
from scalarlang import (
    BackwardEdge,
    BackwardNode,
    BackwardPass,
    ENGINE_ERRORS,
    NonFiniteAccumulatedGradient,
    NonFiniteContribution,
    NonFiniteDerivative,
    NonFiniteLeaf,
    NonFinitePassAdjoint,
    NonFiniteResult,
    NonFiniteSeed,
    ParentEdge,
    Scalar,
    ScalarAutodiffError,
    ScalarOperation,
    UntrackedOutput,
    format_number,
)

INF = math.inf
NAN = math.nan


# ---- helpers --------------------------------------------------------------------------------


def gradient_bits(nodes) -> list[bytes | None]:
    return [bits(node.gradient) for node in nodes]


def same_nodes(left, right) -> bool:
    return len(left) == len(right) and all(a is b for a, b in zip(left, right))


def rejected(call, error_type):
    """Run ``call``; it must raise exactly ``error_type`` (one of ours). Returns the error."""
    with pytest.raises(ScalarAutodiffError) as caught:
        call()
    assert type(caught.value) is error_type, repr(caught.value)
    return caught.value


def same_error(left: ScalarAutodiffError, right: ScalarAutodiffError) -> bool:
    """Same class and fields, floats compared by bits (nan fields included)."""
    def key(error):
        return (type(error), error.kind) + tuple(
            "nan" if isinstance(v, float) and v != v else bits(v) if isinstance(v, float) else v
            for v in (getattr(error, name) for name in FIELDS[type(error)])
        )
    return key(left) == key(right)


def failing_backward_keeps_bits(output: Scalar, seed, error_type, nodes=None):
    """backward_with_seed and reverse_pass raise the same error; no stored bit changes."""
    nodes = output.topology() if nodes is None else nodes
    before = gradient_bits(nodes)
    error = rejected(lambda: output.backward_with_seed(seed), error_type)
    assert gradient_bits(nodes) == before
    again = rejected(lambda: output.reverse_pass(seed), error_type)
    assert same_error(again, error)
    assert gradient_bits(nodes) == before
    unrecorded = rejected(lambda: output.committed_topology(seed), error_type)
    assert same_error(unrecorded, error)
    assert gradient_bits(nodes) == before
    if seed == 1.0:
        assert same_error(rejected(output.backward, error_type), error)
        assert gradient_bits(nodes) == before
    return error


# ---- leaves ---------------------------------------------------------------------------------


def test_variable_leaf():
    x = Scalar.variable(2.5)
    assert x.value == 2.5
    assert x.operation is ScalarOperation.VARIABLE
    assert str(x.operation) == "variable"
    assert x.tracks_gradient is True
    assert x.gradient == 0.0 and bits(x.gradient) == bits(0.0)
    assert x.parents == ()


def test_constant_leaf():
    c = Scalar.constant(-4)
    assert c.value == -4.0 and type(c.value) is float
    assert str(c.operation) == "constant"
    assert c.tracks_gradient is False
    assert c.gradient is None
    assert c.parents == ()


def test_int_leaf_becomes_float():
    x = Scalar.variable(3)
    assert type(x.value) is float and x.value == 3.0
    big = Scalar.variable(2**60)
    assert big.value == float(2**60)


def test_negative_zero_leaf_keeps_its_sign():
    assert bits(Scalar.variable(-0.0).value) == bits(-0.0)


@pytest.mark.parametrize("maker", [Scalar.variable, Scalar.constant])
@pytest.mark.parametrize("value", [True, False, "1.0", None, 1 + 2j, [1.0], b"1"])
def test_leaf_rejects_non_numbers(maker, value):
    with pytest.raises(TypeError):
        maker(value)


def test_scalar_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        Scalar()


# ---- operations -----------------------------------------------------------------------------

A, B = 1.5, -0.25  # dyadic: every value and local derivative below is exact


BINARY = [
    # name, method, operator, value, local derivatives
    ("add", Scalar.add, lambda a, b: a + b, A + B, (1.0, 1.0)),
    ("sub", Scalar.sub, lambda a, b: a - b, A - B, (1.0, -1.0)),
    ("mul", Scalar.mul, lambda a, b: a * b, A * B, (B, A)),
    ("div", Scalar.div, lambda a, b: a / b, -6.0, (-4.0, -24.0)),
]


@pytest.mark.parametrize("name, method, operator, value, locals_", BINARY, ids=[c[0] for c in BINARY])
@pytest.mark.parametrize("form", ["method", "operator"])
def test_binary_operation(name, method, operator, value, locals_, form):
    a, b = Scalar.variable(A), Scalar.variable(B)
    result = method(a, b) if form == "method" else operator(a, b)
    assert result.value == value
    assert str(result.operation) == name
    assert result.operation is ScalarOperation(name)
    assert isinstance(result.parents, tuple) and len(result.parents) == 2
    assert all(type(edge) is ParentEdge for edge in result.parents)
    assert result.parents[0].parent is a and result.parents[1].parent is b
    assert tuple(edge.local_derivative for edge in result.parents) == locals_
    assert result.tracks_gradient and result.gradient == 0.0
    # operands are not changed by being used
    assert a.gradient == 0.0 and a.parents == () and a.value == A


UNARY = [
    ("neg", lambda a: a.neg(), 0.5, -0.5, -1.0),
    ("neg", lambda a: -a, 0.5, -0.5, -1.0),
    ("exp", lambda a: a.exp(), 0.5, math.exp(0.5), math.exp(0.5)),
    ("tanh", lambda a: a.tanh(), 0.5, math.tanh(0.5), 1.0 - math.tanh(0.5) * math.tanh(0.5)),
    ("log", lambda a: a.log(), 0.5, math.log(0.5), 2.0),
    ("log", lambda a: a.log(), 4.0, math.log(4.0), 0.25),
]


@pytest.mark.parametrize("name, build, at, value, local", UNARY)
def test_unary_operation(name, build, at, value, local):
    a = Scalar.variable(at)
    result = build(a)
    assert result.value == value
    assert str(result.operation) == name
    assert len(result.parents) == 1
    assert result.parents[0].parent is a
    assert result.parents[0].local_derivative == pytest.approx(local, rel=1e-15, abs=0)
    assert result.tracks_gradient and result.gradient == 0.0


def test_tanh_local_derivative_is_one_minus_square_of_result():
    t = Scalar.variable(-1.25).tanh()
    assert t.parents[0].local_derivative == 1.0 - t.value * t.value
    # saturated tanh: derivative from the forward value is exactly 0, not negative
    saturated = Scalar.variable(40.0).tanh()
    assert saturated.value == 1.0 and saturated.parents[0].local_derivative == 0.0


def test_exp_local_derivative_is_the_result():
    e = Scalar.variable(-2.0).exp()
    assert e.parents[0].local_derivative == e.value == math.exp(-2.0)


def test_exp_underflow_is_a_finite_zero():
    e = Scalar.variable(-1000.0).exp()
    assert e.value == 0.0 and e.parents[0].local_derivative == 0.0


def test_div_local_derivatives_for_tiny_denominator_stay_finite():
    # -a/b**2 computed naively would underflow b*b to 0 and divide by zero
    q = Scalar.variable(1e-300).div(Scalar.variable(1e-160))
    assert q.value == pytest.approx(1e-140, rel=1e-15)
    assert q.parents[0].local_derivative == pytest.approx(1e160, rel=1e-15)
    assert q.parents[1].local_derivative == pytest.approx(-1e-300 / 1e-160 / 1e-160, rel=1e-15)


def test_repeated_operand_gives_two_edges():
    x = Scalar.variable(3.0)
    square = x * x
    assert len(square.parents) == 2
    assert square.parents[0].parent is x and square.parents[1].parent is x
    assert [e.local_derivative for e in square.parents] == [3.0, 3.0]
    double = square + square
    assert [e.parent for e in double.parents] == [square, square]


def test_detach():
    x = Scalar.variable(2.0)
    y = x * x
    d = y.detach()
    assert d.value == y.value == 4.0
    assert str(d.operation) == "detached"
    assert d.parents == ()
    assert d.tracks_gradient is False and d.gradient is None
    assert not d.is_same_node(y)
    assert str(Scalar.constant(1.0).detach().operation) == "detached"
    # the source is unchanged
    assert y.tracks_gradient and y.parents[0].parent is x


def test_detached_value_keeps_negative_zero():
    assert bits(Scalar.variable(-0.0).detach().value) == bits(-0.0)


# ---- tracking -------------------------------------------------------------------------------


def _leaf(kind: str, value: float) -> Scalar:
    if kind == "variable":
        return Scalar.variable(value)
    if kind == "constant":
        return Scalar.constant(value)
    return Scalar.variable(value).detach()


LEAF_KINDS = ["variable", "constant", "detached"]


@pytest.mark.parametrize("left", LEAF_KINDS)
@pytest.mark.parametrize("right", LEAF_KINDS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_tracking_rule(left, right, op):
    a, b = _leaf(left, 1.5), _leaf(right, 0.5)
    result = getattr(a, op)(b)
    tracked = "variable" in (left, right)
    assert result.tracks_gradient is tracked
    assert result.gradient == (0.0 if tracked else None)
    if tracked:
        assert bits(result.gradient) == bits(0.0)


@pytest.mark.parametrize("kind", LEAF_KINDS)
@pytest.mark.parametrize("op", ["neg", "exp", "tanh", "log"])
def test_unary_tracking_rule(kind, op):
    result = getattr(_leaf(kind, 0.75), op)()
    assert result.tracks_gradient is (kind == "variable")
    assert result.gradient == (0.0 if kind == "variable" else None)


def test_tracking_propagates_through_untracked_subgraphs():
    c = Scalar.constant(2.0) * Scalar.constant(3.0)
    assert not c.tracks_gradient
    assert (c + Scalar.variable(1.0)).tracks_gradient
    assert not (c.exp().tanh() - Scalar.variable(1.0).detach()).tracks_gradient


# ---- Python numbers on either side ----------------------------------------------------------

NUMBER_FORMS = [
    # expression, operation, slot of the number, value, local derivatives
    (lambda x: 3 * x, "mul", 0, 6.0, (2.0, 3.0)),
    (lambda x: x * 3, "mul", 1, 6.0, (3.0, 2.0)),
    (lambda x: 3 + x, "add", 0, 5.0, (1.0, 1.0)),
    (lambda x: x + 3, "add", 1, 5.0, (1.0, 1.0)),
    (lambda x: 3 - x, "sub", 0, 1.0, (1.0, -1.0)),
    (lambda x: x - 3, "sub", 1, -1.0, (1.0, -1.0)),
    (lambda x: 3 / x, "div", 0, 1.5, (0.5, -0.75)),
    (lambda x: x / 4, "div", 1, 0.5, (0.25, -0.125)),
    (lambda x: 0.5 * x, "mul", 0, 1.0, (2.0, 0.5)),
    (lambda x: x.add(3), "add", 1, 5.0, (1.0, 1.0)),
    (lambda x: x.mul(2.5), "mul", 1, 5.0, (2.5, 2.0)),
    (lambda x: x.sub(1), "sub", 1, 1.0, (1.0, -1.0)),
    (lambda x: x.div(8), "div", 1, 0.25, (0.125, -0.03125)),
]


@pytest.mark.parametrize("build, name, slot, value, locals_", NUMBER_FORMS)
def test_python_number_becomes_constant_in_its_slot(build, name, slot, value, locals_):
    x = Scalar.variable(2.0)
    result = build(x)
    assert str(result.operation) == name
    assert result.value == value
    number = result.parents[slot].parent
    other = result.parents[1 - slot].parent
    assert number.operation is ScalarOperation.CONSTANT
    assert number.gradient is None and not number.tracks_gradient
    assert other is x
    assert tuple(e.local_derivative for e in result.parents) == locals_
    assert result.tracks_gradient
    # the constant is part of the graph and receives no adjoint
    topology = result.topology()
    assert any(node is number for node in topology)
    result.backward()
    assert number.gradient is None
    assert x.gradient == locals_[1 - slot]


def test_each_python_number_is_a_fresh_constant():
    x = Scalar.variable(2.0)
    first, second = x * 3, x * 3
    assert not first.parents[1].parent.is_same_node(second.parents[1].parent)
    assert not first.is_same_node(second)


def test_numbers_only_make_an_untracked_result():
    c = Scalar.constant(2.0)
    assert not (3 * c).tracks_gradient and (3 * c).gradient is None


BAD_OPERANDS = [True, False, "2", None, [1], 1j]


@pytest.mark.parametrize("bad", BAD_OPERANDS, ids=repr)
@pytest.mark.parametrize(
    "use",
    [
        lambda x, v: x + v, lambda x, v: v + x, lambda x, v: x - v, lambda x, v: v - x,
        lambda x, v: x * v, lambda x, v: v * x, lambda x, v: x / v, lambda x, v: v / x,
        lambda x, v: x.add(v), lambda x, v: x.sub(v), lambda x, v: x.mul(v), lambda x, v: x.div(v),
    ],
)
def test_bool_and_non_numbers_are_type_errors(bad, use):
    x = Scalar.variable(2.0)
    with pytest.raises(TypeError):
        use(x, bad)


def test_unsupported_operators_are_type_errors():
    x = Scalar.variable(2.0)
    with pytest.raises(TypeError):
        x @ x  # noqa: B018
    with pytest.raises(TypeError):
        pow(x, 2, 5)
    with pytest.raises(TypeError):
        x % 2  # noqa: B018


@pytest.mark.parametrize("bad", [True, "1.0", None, [1.0]], ids=repr)
def test_seed_must_be_a_number(bad):
    x = Scalar.variable(1.0)
    before = bits(x.gradient)
    with pytest.raises(TypeError):
        x.backward_with_seed(bad)
    with pytest.raises(TypeError):
        x.reverse_pass(bad)
    assert bits(x.gradient) == before


# ---- identity and read-only state -----------------------------------------------------------


def test_is_same_node_is_identity_not_equality():
    x = Scalar.variable(2.0)
    twin = Scalar.variable(2.0)
    assert x.is_same_node(x)
    assert not x.is_same_node(twin)
    assert not x.is_same_node(x * 1)
    assert not x.is_same_node(x.detach())
    square = x * x
    assert square.parents[0].parent.is_same_node(x)
    assert square.parents[0].parent.is_same_node(square.parents[1].parent)


@pytest.mark.parametrize("name", ["value", "operation", "tracks_gradient", "gradient", "parents", "exponent"])
def test_properties_are_read_only(name):
    x = Scalar.variable(2.0)
    y = x * 3
    before = getattr(y, name)
    with pytest.raises(AttributeError):
        setattr(y, name, before)
    with pytest.raises(AttributeError):
        delattr(y, name)
    assert getattr(y, name) == before


def test_parent_edges_are_immutable():
    y = Scalar.variable(2.0) * 3
    edge = y.parents[0]
    with pytest.raises(AttributeError):
        edge.local_derivative = 0.0
    assert edge.local_derivative == 3.0
    assert ParentEdge(edge.parent, 3.0) == edge


def test_operation_names():
    """Every operation is a leaf or has a forward function, and docs/engine.md's tables have a row
    for each of the latter, named as `str` names it (read from the engine, not listed here)."""
    from pathlib import Path

    from scalarlang.engine.scalar import FORWARD, LEAVES

    doc = (Path(__file__).resolve().parent.parent / "docs" / "engine.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([a-z_]+)` \|", doc, flags=re.MULTILINE))
    assert set(ScalarOperation) == set(FORWARD) | LEAVES and not set(FORWARD) & LEAVES
    assert {str(op) for op in FORWARD} == rows
    assert {str(op) for op in LEAVES} == {"variable", "constant", "detached"}
    assert str(ScalarOperation.POW) == "pow" and ScalarOperation("sigmoid") is ScalarOperation.SIGMOID


# ---- errors: the table of docs/engine.md ---------------------------------------------------------

ERROR_TABLE = [
    (NonFiniteLeaf, (ScalarOperation.VARIABLE, INF), "non-finite-leaf",
     "variable scalar value inf must be finite"),
    (NonFiniteResult, (ScalarOperation.DIV, -INF), "non-finite-result",
     "div produced non-finite scalar value -inf"),
    (NonFiniteDerivative, (ScalarOperation.DIV, 1, -INF), "non-finite-derivative",
     "div produced non-finite local derivative -inf for operand 1"),
    (UntrackedOutput, (ScalarOperation.CONSTANT,), "untracked-output",
     "cannot backpropagate from untracked constant output"),
    (NonFiniteSeed, (INF,), "non-finite-seed", "backward seed inf must be finite"),
    (NonFiniteContribution, (2, 0, 1, 1.5e307, 20.0), "non-finite-contribution",
     "edge 1 from topology node 2 to 0 produced a non-finite contribution from upstream "
     "1.5e+307 and local derivative 20.0"),
    (NonFinitePassAdjoint, (3, 1e308, 1e308), "non-finite-pass-adjoint",
     "topology node 3 cannot accumulate pass adjoint 1e+308 plus contribution 1e+308"),
    (NonFiniteAccumulatedGradient, (0, -1e308, -1e308), "non-finite-accumulated-gradient",
     "topology node 0 cannot accumulate stored gradient -1e+308 plus pass adjoint -1e+308"),
]

FIELDS = {
    NonFiniteLeaf: ("operation", "value"),
    NonFiniteResult: ("operation", "value"),
    NonFiniteDerivative: ("operation", "operand", "local_derivative"),
    UntrackedOutput: ("operation",),
    NonFiniteSeed: ("seed",),
    NonFiniteContribution: ("child", "parent", "operand", "upstream", "local_derivative"),
    NonFinitePassAdjoint: ("node", "previous", "contribution"),
    NonFiniteAccumulatedGradient: ("node", "stored", "pass_adjoint"),
}


@pytest.mark.parametrize("cls, args, kind, message", ERROR_TABLE, ids=[r[2] for r in ERROR_TABLE])
def test_error_class_contract(cls, args, kind, message):
    error = cls(*args)
    assert isinstance(error, ScalarAutodiffError) and isinstance(error, Exception)
    assert cls.kind == kind and error.kind == kind
    for name, value in zip(FIELDS[cls], args):
        assert getattr(error, name) == value
    assert str(error) == message
    assert error == cls(*args)
    assert hash(error) == hash(cls(*args))
    assert error == cls(**dict(zip(FIELDS[cls], args)))
    # a different field makes a different error
    changed = list(args)
    changed[-1] = 7.0 if isinstance(changed[-1], float) else ScalarOperation.LOG
    assert error != cls(*changed)
    # same fields, other class: not equal
    for other in ENGINE_ERRORS:
        if other is not cls and FIELDS[other] == FIELDS[cls]:
            assert error != other(*args)
    with pytest.raises(cls):
        raise error


def test_engine_errors_lists_every_class():
    assert set(ENGINE_ERRORS) == set(FIELDS)
    assert all(issubclass(cls, ScalarAutodiffError) for cls in ENGINE_ERRORS)
    assert len({cls.kind for cls in ENGINE_ERRORS}) == len(ENGINE_ERRORS)


def test_error_messages_use_python_repr_numbers():
    assert str(NonFiniteResult(ScalarOperation.MUL, 1.5e307)) == (
        "mul produced non-finite scalar value 1.5e+307"
    )
    assert str(NonFiniteSeed(NAN)) == "backward seed nan must be finite"
    assert str(NonFiniteSeed(-INF)) == "backward seed -inf must be finite"


# ---- errors from real engine use ------------------------------------------------------------


@pytest.mark.parametrize(
    "build, operation, value, message",
    [
        (lambda: Scalar.variable(INF), "variable", INF, "variable scalar value inf must be finite"),
        (lambda: Scalar.variable(-INF), "variable", -INF, "variable scalar value -inf must be finite"),
        (lambda: Scalar.constant(NAN), "constant", NAN, "constant scalar value nan must be finite"),
        (lambda: Scalar.variable(10**400), "variable", INF, "variable scalar value inf must be finite"),
        (lambda: Scalar.constant(-(10**400)), "constant", -INF,
         "constant scalar value -inf must be finite"),
        (lambda: Scalar.variable(1.0) + 10**400, "constant", INF,
         "constant scalar value inf must be finite"),
        (lambda: 10**400 * Scalar.variable(1.0), "constant", INF,
         "constant scalar value inf must be finite"),
        (lambda: Scalar.variable(1.0).mul(NAN), "constant", NAN,
         "constant scalar value nan must be finite"),
    ],
)
def test_non_finite_leaf(build, operation, value, message):
    error = rejected(build, NonFiniteLeaf)
    assert str(error.operation) == operation
    assert bits(error.value) == bits(value) if value == value else math.isnan(error.value)
    assert str(error) == message


@pytest.mark.parametrize(
    "build, operation, value",
    [
        (lambda: Scalar.variable(1000.0).exp(), "exp", INF),
        (lambda: Scalar.variable(1.0) / 0, "div", INF),
        (lambda: Scalar.variable(-1.0) / 0, "div", -INF),
        (lambda: Scalar.variable(1.0) / -0.0, "div", -INF),
        (lambda: Scalar.variable(-2.0).div(Scalar.constant(-0.0)), "div", INF),
        (lambda: 1 / Scalar.variable(0.0), "div", INF),
        (lambda: Scalar.variable(0.0) / 0, "div", NAN),
        (lambda: Scalar.variable(-0.0) / Scalar.variable(0.0), "div", NAN),
        (lambda: Scalar.variable(1e300) / 1e-10, "div", INF),
        (lambda: Scalar.variable(0.0).log(), "log", -INF),
        (lambda: Scalar.variable(-0.0).log(), "log", -INF),
        (lambda: Scalar.variable(-1.0).log(), "log", NAN),
        (lambda: Scalar.variable(1e200) * Scalar.variable(1e200), "mul", INF),
        (lambda: Scalar.variable(1e200) * -1e200, "mul", -INF),
        (lambda: Scalar.variable(1e308) + Scalar.variable(1e308), "add", INF),
        (lambda: Scalar.variable(-1e308) - 1e308, "sub", -INF),
    ],
)
def test_non_finite_result(build, operation, value):
    error = rejected(build, NonFiniteResult)
    assert str(error.operation) == operation
    if value != value:
        assert math.isnan(error.value)
        assert str(error) == f"{operation} produced non-finite scalar value nan"
    else:
        assert error.value == value
        assert error == NonFiniteResult(ScalarOperation(operation), value)
        assert str(error) == f"{operation} produced non-finite scalar value {value!r}"


@pytest.mark.parametrize(
    "build, expected, message",
    [
        (lambda: Scalar.variable(1.0) / Scalar.constant(1e-200),
         NonFiniteDerivative(ScalarOperation.DIV, 1, -INF),
         "div produced non-finite local derivative -inf for operand 1"),
        (lambda: Scalar.variable(-1.0) / 1e-200,
         NonFiniteDerivative(ScalarOperation.DIV, 1, INF),
         "div produced non-finite local derivative inf for operand 1"),
        (lambda: Scalar.variable(0.0) / Scalar.variable(5e-324),
         NonFiniteDerivative(ScalarOperation.DIV, 0, INF),
         "div produced non-finite local derivative inf for operand 0"),
        (lambda: Scalar.variable(5e-324).log(),
         NonFiniteDerivative(ScalarOperation.LOG, 0, INF),
         "log produced non-finite local derivative inf for operand 0"),
    ],
)
def test_non_finite_derivative(build, expected, message):
    error = rejected(build, NonFiniteDerivative)
    assert error == expected
    assert str(error) == message


@pytest.mark.parametrize(
    "build, operation",
    [
        (lambda: Scalar.constant(1.0), "constant"),
        (lambda: Scalar.variable(1.0).detach(), "detached"),
        (lambda: Scalar.constant(1.0) + Scalar.constant(2.0), "add"),
        (lambda: 3 * Scalar.constant(2.0), "mul"),
        (lambda: Scalar.constant(2.0).exp(), "exp"),
        (lambda: (Scalar.variable(2.0) * 3).detach().tanh(), "tanh"),
    ],
)
def test_untracked_output(build, operation):
    output = build()
    message = f"cannot backpropagate from untracked {operation} output"
    for call in (output.backward, lambda: output.backward_with_seed(2.0), output.reverse_pass):
        error = rejected(call, UntrackedOutput)
        assert error == UntrackedOutput(ScalarOperation(operation))
        assert str(error) == message
    # the untracked check comes before the seed check
    assert rejected(lambda: output.backward_with_seed(INF), UntrackedOutput).operation == operation


@pytest.mark.parametrize(
    "seed, shown", [(INF, "inf"), (-INF, "-inf"), (NAN, "nan"), (10**400, "inf"), (-(10**400), "-inf")]
)
def test_non_finite_seed(seed, shown):
    x = Scalar.variable(2.0)
    loss = x * x
    loss.backward()
    error = failing_backward_keeps_bits(loss, seed, NonFiniteSeed)
    assert str(error) == f"backward seed {shown} must be finite"
    assert repr(error.seed) == shown


def test_non_finite_contribution_tracked_parent():
    x = Scalar.variable(1.0)
    y = x * 1e300  # topology: x(0), constant(1), y(2)
    error = failing_backward_keeps_bits(y, 1e10, NonFiniteContribution)
    assert error == NonFiniteContribution(2, 0, 0, 1e10, 1e300)
    assert (error.child, error.parent, error.operand) == (2, 0, 0)
    assert str(error) == (
        "edge 0 from topology node 2 to 0 produced a non-finite contribution from upstream "
        "10000000000.0 and local derivative 1e+300"
    )


def test_non_finite_contribution_is_checked_for_untracked_parents():
    x = Scalar.variable(1e300)
    y = Scalar.constant(0.5) * x  # topology: constant(0), x(1), y(2); edge 0 goes to the constant
    error = failing_backward_keeps_bits(y, -1e9, NonFiniteContribution)
    assert error == NonFiniteContribution(2, 0, 0, -1e9, 1e300)
    assert str(error) == (
        "edge 0 from topology node 2 to 0 produced a non-finite contribution from upstream "
        "-1000000000.0 and local derivative 1e+300"
    )


def test_non_finite_contribution_after_a_shared_node_accumulates():
    # y = x*1e308, z = y + y, seed 1.5: y's pass adjoint is 3.0, then 3.0 * 1e308 overflows
    x = Scalar.variable(1e-10)
    y = x * 1e308
    z = y + y
    z.backward_with_seed(0.5)
    assert x.gradient == 1e308
    error = failing_backward_keeps_bits(z, 1.5, NonFiniteContribution)
    assert error == NonFiniteContribution(2, 0, 0, 3.0, 1e308)


def test_non_finite_contribution_deep_in_the_pass():
    # the overflow happens on the last edges visited, after other adjoints were accumulated
    x = Scalar.variable(1.0)
    w = Scalar.variable(3.0)
    amplified = (x * 1e-300) * 1e300  # edge to x*1e-300 has local derivative 1e300
    out = (amplified * w) + w * w
    out.backward()
    error = failing_backward_keeps_bits(out, 1e8, NonFiniteContribution)
    topology = out.topology()
    index = {id(node): i for i, node in enumerate(topology)}
    assert error.child == index[id(amplified)]
    assert error.parent == index[id(amplified.parents[0].parent)]
    assert error.operand == 0 and error.local_derivative == 1e300
    assert error.upstream == 3e8


def test_non_finite_pass_adjoint():
    x = Scalar.variable(1.0)
    z = x + x
    error = failing_backward_keeps_bits(z, 1e308, NonFinitePassAdjoint)
    assert error == NonFinitePassAdjoint(0, 1e308, 1e308)
    assert str(error) == (
        "topology node 0 cannot accumulate pass adjoint 1e+308 plus contribution 1e+308"
    )


def test_non_finite_pass_adjoint_at_a_shared_intermediate():
    x = Scalar.variable(1e-300)
    y = x * 1e308  # value 1e8, topology: x(0), constant(1), y(2), z(3)
    z = y + y
    z.backward_with_seed(0.5)
    assert x.gradient == 1e308
    error = failing_backward_keeps_bits(z, 1e308, NonFinitePassAdjoint)
    assert error == NonFinitePassAdjoint(2, 1e308, 1e308)


def test_non_finite_pass_adjoint_from_two_consumers():
    x = Scalar.variable(1e-10)
    a = x * 1e308
    b = x * 1e308
    z = a + b  # two finite contributions of 1e308 each reach x
    error = failing_backward_keeps_bits(z, 1.0, NonFinitePassAdjoint)
    assert error == NonFinitePassAdjoint(0, 1e308, 1e308)


def test_non_finite_accumulated_gradient():
    x = Scalar.variable(1.0)
    loss = x * 1e308
    first = loss.backward()
    assert x.gradient == 1e308 and loss.gradient == 1.0
    assert first.nodes[0].accumulated_gradient == 1e308
    error = failing_backward_keeps_bits(loss, 1.0, NonFiniteAccumulatedGradient)
    assert error == NonFiniteAccumulatedGradient(0, 1e308, 1e308)
    assert str(error) == (
        "topology node 0 cannot accumulate stored gradient 1e+308 plus pass adjoint 1e+308"
    )
    assert x.gradient == 1e308 and loss.gradient == 1.0


def test_non_finite_accumulated_gradient_negative():
    x = Scalar.variable(1.0)
    loss = x * 1e308
    loss.backward_with_seed(-1.0)
    error = failing_backward_keeps_bits(loss, -1.0, NonFiniteAccumulatedGradient)
    assert error == NonFiniteAccumulatedGradient(0, -1e308, -1e308)


def test_non_finite_accumulated_gradient_late_in_topology_commits_nothing():
    w = Scalar.variable(1.0)
    x = Scalar.variable(1.0)
    loss = w * 2.0 + x * 1e308  # w(0), c(1), w*2(2), x(3), c(4), x*c(5), loss(6)
    loss.backward()
    nodes = loss.topology()
    assert [n.gradient for n in nodes] == [2.0, None, 1.0, 1e308, None, 1.0, 1.0]
    error = failing_backward_keeps_bits(loss, 1.0, NonFiniteAccumulatedGradient, nodes)
    assert error == NonFiniteAccumulatedGradient(3, 1e308, 1e308)
    # the nodes before x, whose prospective sums were finite, kept their bits too
    assert [n.gradient for n in nodes] == [2.0, None, 1.0, 1e308, None, 1.0, 1.0]


def test_stage_order_contribution_before_accumulated():
    # both a contribution overflow and a stored overflow are possible: stage 3 reports first
    x = Scalar.variable(1.0)
    loss = x * 1e308
    loss.backward()
    error = rejected(lambda: loss.backward_with_seed(10.0), NonFiniteContribution)
    assert error == NonFiniteContribution(2, 0, 0, 10.0, 1e308)


def test_failed_backward_then_successful_backward():
    x = Scalar.variable(1.0)
    loss = x * 1e300
    rejected(lambda: loss.backward_with_seed(1e10), NonFiniteContribution)
    assert x.gradient == 0.0 and loss.gradient == 0.0
    loss.backward()
    assert x.gradient == 1e300 and loss.gradient == 1.0


# ---- the seed's scenarios -------------------------------------------------------------------


def _seed_graph():
    x = Scalar.variable(2.0)
    square = x.mul(x)
    loss = square.add(square)
    return x, square, loss


def test_seed_forward_values():
    x, square, loss = _seed_graph()
    assert (x.value, square.value, loss.value) == (2.0, 4.0, 8.0)
    assert same_nodes(loss.topology(), [x, square, loss])


def test_seed_accumulation_sequence():
    x, square, loss = _seed_graph()

    def grads():
        return (x.gradient, square.gradient, loss.gradient)

    loss.backward()
    assert grads() == (8.0, 2.0, 1.0)
    loss.backward()
    assert grads() == (16.0, 4.0, 2.0)
    loss.zero_grad()
    assert grads() == (0.0, 0.0, 0.0)
    assert [bits(g) for g in grads()] == [bits(0.0)] * 3
    loss.backward()
    assert grads() == (8.0, 2.0, 1.0)


def test_seed_first_pass_records():
    x, square, loss = _seed_graph()
    backward_pass = loss.backward()
    assert isinstance(backward_pass, BackwardPass)
    assert backward_pass.seed == 1.0
    assert list(backward_pass.nodes) == [
        BackwardNode(0, ScalarOperation.VARIABLE, 2.0, True, 8.0, 8.0),
        BackwardNode(1, ScalarOperation.MUL, 4.0, True, 2.0, 2.0),
        BackwardNode(2, ScalarOperation.ADD, 8.0, True, 1.0, 1.0),
    ]
    assert [str(n.operation) for n in backward_pass.nodes] == ["variable", "mul", "add"]
    # the seed's table: reverse order, operand slot, local derivative, upstream, contribution
    assert list(backward_pass.edges) == [
        BackwardEdge(0, 2, 1, 0, 1.0, 1.0, 1.0, True, 0.0, 1.0),
        BackwardEdge(1, 2, 1, 1, 1.0, 1.0, 1.0, True, 1.0, 2.0),
        BackwardEdge(2, 1, 0, 0, 2.0, 2.0, 4.0, True, 0.0, 4.0),
        BackwardEdge(3, 1, 0, 1, 2.0, 2.0, 4.0, True, 4.0, 8.0),
    ]
    assert len(backward_pass.nodes) == 3 and len(backward_pass.edges) == 4
    assert backward_pass.edges[-1] == backward_pass.edges[3]
    assert backward_pass.edges[1:3] == [backward_pass.edges[1], backward_pass.edges[2]]
    with pytest.raises(IndexError):
        backward_pass.edges[4]


def test_pass_edges_are_indexed_only_as_far_as_asked_and_right_after_later_walks():
    # A table of a pass's first edges indexes only the nodes those edges come from; parents
    # are found by the index their walk left on them, or, once a later walk has marked them
    # again, by a table of the whole topology: the same records either way.
    x = Scalar.variable(1.0)
    y = x
    for index in range(2_000):
        y = y * 1.5 + index if index % 2 else y * x - 0.5
    early = y.reverse_pass()
    assert early.edges[0].child == len(early.topology) - 1
    assert len(early._edges) <= 2 * 3  # one node's edges, not 4,000
    assert early._positions is None
    expected = list(early.edges)  # indexed before any other walk
    late = y.reverse_pass()
    (y * 2).reverse_pass()  # marks every node of y's graph again
    assert late._positions is None
    assert list(late.edges) == expected
    assert late._positions is not None  # found through the table
    for edge in expected:
        node = late.topology[edge.child]
        assert late.topology[edge.parent] is node.parents[edge.operand].parent


def test_seed_second_pass_is_fresh():
    x, square, loss = _seed_graph()
    first = loss.backward()
    second = loss.backward()
    # same pass adjoints and edges (stale stored gradients are never read) ...
    assert list(second.edges) == list(first.edges)
    assert [n.pass_adjoint for n in second.nodes] == [8.0, 2.0, 1.0]
    # ... but the accumulated gradient is the committed sum
    assert [n.accumulated_gradient for n in second.nodes] == [16.0, 4.0, 2.0]
    # the first pass's records do not change afterwards
    assert [n.accumulated_gradient for n in first.nodes] == [8.0, 2.0, 1.0]


def test_seed_detach_example():
    x = Scalar.variable(2.0)
    detached = x.detach()
    three = Scalar.constant(3.0)
    stopped = detached * three
    loss = x * x + stopped
    assert loss.value == 10.0
    backward_pass = loss.backward()
    assert x.gradient == 4.0
    assert detached.gradient is None and stopped.gradient is None and three.gradient is None
    topology = loss.topology()
    assert same_nodes(topology, [x, topology[1], detached, three, stopped, loss])
    assert str(topology[1].operation) == "mul"
    records = {(e.child, e.operand): e for e in backward_pass.edges}
    # loss -> stopped: computed and checked, never added
    to_stopped = records[(5, 1)]
    assert to_stopped.parent == 4 and to_stopped.contribution == 1.0
    assert to_stopped.parent_tracked is False
    assert to_stopped.parent_adjoint_before is None and to_stopped.parent_adjoint_after is None
    # the untracked child has no pass adjoint: its edges carry upstream 0 (as the seed's Vec)
    assert records[(4, 0)].upstream == 0.0 and records[(4, 0)].contribution == 0.0
    assert backward_pass.nodes[4] == BackwardNode(4, ScalarOperation.MUL, 6.0, False, None, None)
    assert backward_pass.nodes[2] == BackwardNode(2, ScalarOperation.DETACHED, 2.0, False, None, None)
    assert len(backward_pass.edges) == 6


def test_seed_nonlinear_example():
    x = Scalar.variable(0.5)
    output = x.tanh().exp()
    output.backward()
    assert format_number(output.value) == "1.58743127143"
    assert format_number(x.gradient) == "1.24843172466"
    t = math.tanh(0.5)
    assert output.value == math.exp(t)
    assert x.gradient == pytest.approx(math.exp(t) * (1 - t * t), rel=1e-15)


def test_reverse_pass_writes_nothing():
    x, square, loss = _seed_graph()
    nodes = [x, square, loss]
    fresh = loss.reverse_pass()
    assert [g for g in (x.gradient, square.gradient, loss.gradient)] == [0.0, 0.0, 0.0]
    assert fresh.seed == 1.0
    assert [n.pass_adjoint for n in fresh.nodes] == [8.0, 2.0, 1.0]
    loss.backward()
    before = gradient_bits(nodes)
    prospective = loss.reverse_pass(3.0)
    assert gradient_bits(nodes) == before
    assert [n.pass_adjoint for n in prospective.nodes] == [24.0, 6.0, 3.0]
    assert [n.accumulated_gradient for n in prospective.nodes] == [32.0, 8.0, 4.0]
    # a committed pass with the same seed gives the same records
    assert loss.backward_with_seed(3.0) == prospective
    assert (x.gradient, square.gradient, loss.gradient) == (32.0, 8.0, 4.0)


@pytest.mark.parametrize(
    "seed, expected",
    [(1.0, (8.0, 2.0, 1.0)), (2.5, (20.0, 5.0, 2.5)), (-3, (-24.0, -6.0, -3.0)), (0.0, (0.0, 0.0, 0.0))],
)
def test_backward_with_seed_scales(seed, expected):
    x, square, loss = _seed_graph()
    backward_pass = loss.backward_with_seed(seed)
    assert backward_pass.seed == seed and type(backward_pass.seed) is float
    assert (x.gradient, square.gradient, loss.gradient) == expected
    assert backward_pass.edges[0].upstream == seed


@pytest.mark.parametrize("seed", [1.0, 2.5, -3, 0.0])
def test_committed_topology_commits_what_backward_with_seed_commits(seed):
    """The pass without its records: the same stored gradients, and the pass's topology."""
    x, square, loss = _seed_graph()
    recorded = loss.backward_with_seed(seed)
    after_recorded = gradient_bits([x, square, loss])
    x, square, loss = _seed_graph()
    topology = loss.committed_topology(seed)
    assert gradient_bits([x, square, loss]) == after_recorded
    assert [node._value for node in topology] == [node._value for node in recorded.topology]
    assert topology == loss.topology()


def test_negative_zero_seed_is_a_pass_adjoint_not_a_stored_bit():
    x = Scalar.variable(2.0)
    fresh = x.reverse_pass(-0.0)
    assert bits(fresh.nodes[0].pass_adjoint) == bits(-0.0)
    # 0.0 + -0.0 is +0.0 in IEEE arithmetic
    assert bits(fresh.nodes[0].accumulated_gradient) == bits(0.0)
    x.backward_with_seed(-0.0)
    assert bits(x.gradient) == bits(0.0)


def test_backward_from_a_variable_leaf():
    x = Scalar.variable(5.0)
    backward_pass = x.backward()
    assert x.gradient == 1.0
    assert list(backward_pass.nodes) == [BackwardNode(0, ScalarOperation.VARIABLE, 5.0, True, 1.0, 1.0)]
    assert list(backward_pass.edges) == []


def test_zero_grad_touches_only_reachable_tracked_nodes():
    x = Scalar.variable(2.0)
    other = x * 2  # not reachable from loss
    loss = x * x + Scalar.constant(1.0)
    other.backward()
    loss.backward()
    assert x.gradient == 2.0 + 4.0
    loss.zero_grad()
    assert x.gradient == 0.0 and loss.gradient == 0.0
    assert other.gradient == 1.0
    assert loss.parents[1].parent.gradient is None
    assert loss.value == 5.0 and x.value == 2.0


def test_untracked_subgraph_inside_a_tracked_graph():
    c = Scalar.constant(2.0).exp()  # untracked non-leaf
    x = Scalar.variable(1.5)
    out = x * c
    backward_pass = out.backward()
    assert x.gradient == c.value
    assert c.gradient is None
    # topology: x(0), constant 2(1), exp(2), out(3); the untracked child's edges are visited
    # with upstream 0 (the seed's fresh adjoint vector holds 0 there)
    assert [str(n.operation) for n in backward_pass.nodes] == ["variable", "constant", "exp", "mul"]
    exp_edges = [e for e in backward_pass.edges if e.child == 2]
    assert exp_edges == [BackwardEdge(2, 2, 1, 0, c.value, 0.0, 0.0, False, None, None)]


# ---- topology -------------------------------------------------------------------------------


def _small_graphs():
    x, square, loss = _seed_graph()
    yield loss
    a, b = Scalar.variable(1.5), Scalar.variable(-0.5)
    c = a * b
    d = c + a
    e = d * c - b
    yield e
    yield (e.exp() / (d.tanh() + 3)) * e.detach() + 2 * a
    k = Scalar.constant(2.0)
    yield (k * a + k * b) * (a - k)
    yield Scalar.constant(3.0) + Scalar.constant(4.0)
    yield a
    yield Scalar.constant(1.0)
    s = a + b
    t = s * s
    u = t + s
    yield (u * t - s.neg()).log()  # log(3)


@pytest.mark.parametrize("index", range(8))
def test_topology_matches_recursive_reference(index):
    output = list(_small_graphs())[index]
    topology = output.topology()
    assert same_nodes(topology, reference_topology(output))
    assert topology[-1] is output
    assert len({id(n) for n in topology}) == len(topology)
    position = {id(n): i for i, n in enumerate(topology)}
    for i, node in enumerate(topology):
        for edge in node.parents:
            assert position[id(edge.parent)] < i
    # walking again, or walking a subgraph first, gives the same order
    for edge in output.parents:
        edge.parent.topology()
    assert same_nodes(output.topology(), topology)


def test_topology_includes_constants_and_detached_nodes():
    x = Scalar.variable(2.0)
    d = x.detach()
    k = Scalar.constant(5.0)
    out = (x * k) + d
    topology = out.topology()
    assert same_nodes(topology, [x, k, topology[2], d, out])
    assert [str(n.operation) for n in topology] == ["variable", "constant", "mul", "detached", "add"]
    assert [n.pass_adjoint for n in out.reverse_pass().nodes] == [5.0, None, 1.0, None, 1.0]


def test_topology_visits_operands_in_slot_order():
    a, b = Scalar.variable(1.0), Scalar.variable(2.0)
    assert same_nodes((a + b).topology()[:2], [a, b])
    assert same_nodes((b + a).topology()[:2], [b, a])
    m = 3 - a
    assert same_nodes(m.topology(), [m.parents[0].parent, a, m])
    left = a * b
    right = b * a
    out = right + left
    assert same_nodes(out.topology(), [b, a, right, left, out])


def test_topology_of_overlapping_graphs_walked_in_turn():
    # the engine may cache walk state on nodes; walks of overlapping graphs must not interfere
    x = Scalar.variable(1.0)
    y = Scalar.variable(2.0)
    shared = x * y
    g1 = shared + x
    g2 = y * shared
    g3 = g2 - g1
    for graph in (g1, g2, g3, shared, g1, x, g3, g2):
        assert same_nodes(graph.topology(), reference_topology(graph))
    # a pass over one graph is not confused by a walk of another in between
    p = g3.reverse_pass()
    g1.topology()
    assert [n.value for n in p.nodes] == [n.value for n in reference_topology(g3)]
    assert [(e.child, e.parent) for e in p.edges] == [(e.child, e.parent) for e in g3.reverse_pass().edges]


@pytest.mark.slow
def test_deep_chain_without_recursion():
    depth = 10**6
    x = Scalar.variable(0.75)
    node = x
    collecting = gc.isenabled()
    gc.disable()  # a million live objects: the cyclic collector would only slow the build
    try:
        for _ in range(depth):
            node = node.neg()
    finally:
        if collecting:
            gc.enable()
    assert node.value == 0.75
    topology = node.topology()
    assert len(topology) == depth + 1
    assert topology[0] is x and topology[-1] is node
    backward_pass = node.backward()
    assert x.gradient == 1.0  # an even number of negations
    assert len(backward_pass.nodes) == depth + 1 and len(backward_pass.edges) == depth
    assert backward_pass.nodes[0].pass_adjoint == 1.0
    assert backward_pass.nodes[depth].accumulated_gradient == 1.0


def test_concurrent_passes_over_shared_nodes_from_two_threads():
    """Two threads computing passes over graphs that share nodes get the single-thread
    records. (Each pass must keep its own node indices: the Rust reference uses a map per
    pass; state cached on shared nodes is overwritten by the other thread's walk.)"""
    import sys
    import threading

    x, y = Scalar.variable(0.5), Scalar.variable(1.5)
    shared = x
    for _ in range(500):
        shared = shared * 0.999 + y * 0.001
    # the shared subgraph sits at different topology indices in the two graphs
    graphs = [Scalar.variable(2.0) * shared, shared + Scalar.constant(1.0) * y * y]
    expected = [[n.pass_adjoint for n in g.reverse_pass().nodes] for g in graphs]
    problems: list[str] = []

    def work(k: int) -> None:
        try:
            for _ in range(40):
                if problems:
                    return
                got = [n.pass_adjoint for n in graphs[k].reverse_pass().nodes]
                if got != expected[k]:
                    problems.append(f"graph {k}: wrong pass adjoints")
        except Exception as error:  # noqa: BLE001 - any escape is a failure here
            problems.append(f"graph {k}: {type(error).__name__}: {error}")

    walk = graphs[0].topology()

    def walks() -> None:
        try:
            for _ in range(40):
                if problems:
                    return
                if not same_nodes(graphs[0].topology(), walk):
                    problems.append("topology: wrong order")
        except Exception as error:  # noqa: BLE001
            problems.append(f"topology: {type(error).__name__}: {error}")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
        threads.append(threading.Thread(target=walks))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert problems == []
