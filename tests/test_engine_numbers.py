"""Every real number type in every entry point alike (issue 11, item 8).

``numbers.Real`` (Fraction, numpy scalars, a registered class of one's own) is accepted
wherever an int or a float is; bool, complex, strings and Decimal are TypeErrors; a
``__float__`` that raises surfaces as a TypeError chained to its own exception.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from fractions import Fraction

import pytest

from scalarlang import (
    NonFiniteLeaf,
    NonFiniteSeed,
    Scalar,
    ScalarOperation,
    scalar_gradient_check,
)


class Meters:
    """A real number type of one's own, registered with numbers.Real (no numpy needed)."""

    def __init__(self, amount: float):
        self.amount = amount

    def __float__(self) -> float:
        return float(self.amount)

    def __gt__(self, other):
        return self.amount > other


numbers.Real.register(Meters)


class Broken:
    """Claims to be real, but converting it fails."""

    def __float__(self) -> float:
        raise RuntimeError("no value today")


numbers.Real.register(Broken)


# Each entry point with a number ``v``: what it must give when ``v`` is worth 2.
ENTRY_POINTS = {
    "variable": (lambda v: Scalar.variable(v).value, 2.0),
    "constant": (lambda v: Scalar.constant(v).value, 2.0),
    "x + v": (lambda v: (Scalar.variable(3.0) + v).value, 5.0),
    "v + x": (lambda v: (v + Scalar.variable(3.0)).value, 5.0),
    "x - v": (lambda v: (Scalar.variable(3.0) - v).value, 1.0),
    "v - x": (lambda v: (v - Scalar.variable(3.0)).value, -1.0),
    "x * v": (lambda v: (Scalar.variable(3.0) * v).value, 6.0),
    "v * x": (lambda v: (v * Scalar.variable(3.0)).value, 6.0),
    "x / v": (lambda v: (Scalar.variable(3.0) / v).value, 1.5),
    "v / x": (lambda v: (v / Scalar.variable(4.0)).value, 0.5),
    "x.add(v)": (lambda v: Scalar.variable(3.0).add(v).value, 5.0),
    "x.sub(v)": (lambda v: Scalar.variable(3.0).sub(v).value, 1.0),
    "x.mul(v)": (lambda v: Scalar.variable(3.0).mul(v).value, 6.0),
    "x.div(v)": (lambda v: Scalar.variable(3.0).div(v).value, 1.5),
    "x.max(v)": (lambda v: Scalar.variable(1.0).max(v).value, 2.0),
    "x.min(v)": (lambda v: Scalar.variable(3.0).min(v).value, 2.0),
    "x ** v": (lambda v: (Scalar.variable(3.0) ** v).value, 9.0),
    "x.pow(v)": (lambda v: Scalar.variable(3.0).pow(v).value, 9.0),
    "pow exponent": (lambda v: (Scalar.variable(3.0) ** v).exponent, 2.0),
    "backward_with_seed": (lambda v: _seeded_gradient(v), 12.0),  # d(x*x)/dx at 3, seed 2
    "gradcheck input": (lambda v: scalar_gradient_check(v, 4.0, function=lambda t: t * t).input, 2.0),
    "gradcheck analytic": (lambda v: scalar_gradient_check(1.0, v, function=lambda t: t * t).analytic, 2.0),
    "gradcheck step": (lambda v: scalar_gradient_check(1.0, 2.0, v, function=lambda t: t).step, 2.0),
    "gradcheck tolerance": (lambda v: scalar_gradient_check(1.0, 2.0, tolerance=v, function=lambda t: t).tolerance, 2.0),
    "gradcheck function value": (lambda v: scalar_gradient_check(1.0, 0.0, function=lambda t: v).numerical, 0.0),
}


def _seeded_gradient(seed) -> float:
    x = Scalar.variable(3.0)
    (x * x).backward_with_seed(seed)
    return x.gradient


def _twos():
    yield "int", 2
    yield "float", 2.0
    yield "Fraction", Fraction(2)
    yield "Meters", Meters(2)
    yield "int subclass", type("Count", (int,), {})(2)


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
@pytest.mark.parametrize("kind, two", list(_twos()), ids=[kind for kind, _ in _twos()])
def test_every_real_type_in_every_entry_point(name, kind, two):
    use, expected = ENTRY_POINTS[name]
    result = use(two)
    assert type(result) is float and result == expected


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
@pytest.mark.parametrize("numpy_type", ["float32", "float64", "int64", "uint8", "float16"])
def test_numpy_scalars_in_every_entry_point(name, numpy_type):
    numpy = pytest.importorskip("numpy")
    use, expected = ENTRY_POINTS[name]
    result = use(getattr(numpy, numpy_type)(2))
    assert type(result) is float and result == expected


def test_numpy_scalars_on_the_left_of_an_operator_make_a_constant_in_its_slot():
    numpy = pytest.importorskip("numpy")
    x = Scalar.variable(3.0)
    for number in (numpy.float32(2), numpy.float64(2), numpy.int64(2)):
        product = number * x
        assert type(product) is Scalar
        assert product.parents[0].parent.operation is ScalarOperation.CONSTANT
        assert product.parents[0].parent.value == 2.0 and product.parents[1].parent is x


def test_fractions_convert_by_rounding_once():
    third = Scalar.variable(Fraction(1, 3))
    assert third.value == 1 / 3
    assert (Scalar.variable(1.0) + Fraction(1, 3)).parents[1].parent.value == 1 / 3


def test_numpy_float32_keeps_its_own_value():
    numpy = pytest.importorskip("numpy")
    assert Scalar.variable(numpy.float32(0.1)).value == float(numpy.float32(0.1)) != 0.1


def test_non_finite_real_numbers_are_the_typed_errors():
    with pytest.raises(NonFiniteLeaf) as caught:
        Scalar.variable(Fraction(10**400))
    assert caught.value.value == math.inf
    with pytest.raises(NonFiniteLeaf) as caught:
        Scalar.constant(Fraction(-(10**400)))
    assert caught.value.value == -math.inf
    with pytest.raises(NonFiniteLeaf):
        Scalar.variable(Meters(math.inf))
    with pytest.raises(NonFiniteSeed):
        _seeded_gradient(Fraction(10**400))


def test_non_finite_numpy_scalars_are_the_typed_errors():
    numpy = pytest.importorskip("numpy")
    with pytest.raises(NonFiniteLeaf):
        Scalar.variable(numpy.float32("inf"))
    with pytest.raises(NonFiniteLeaf):
        Scalar.variable(1.0) * numpy.float64("nan")  # noqa: B018
    with pytest.raises(NonFiniteSeed):
        _seeded_gradient(numpy.float32("-inf"))


NOT_REAL = [True, False, 1j, complex(2, 0), "2", b"2", Decimal(2), None, [2.0]]


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
@pytest.mark.parametrize("bad", NOT_REAL, ids=repr)
def test_bool_complex_strings_and_decimal_are_type_errors(name, bad):
    use, _ = ENTRY_POINTS[name]
    with pytest.raises(TypeError):
        use(bad)


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_numpy_bool_and_complex_are_type_errors(name):
    numpy = pytest.importorskip("numpy")
    use, _ = ENTRY_POINTS[name]
    for bad in (numpy.bool_(True), numpy.complex128(2)):
        with pytest.raises(TypeError):
            use(bad)


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_a_float_conversion_that_raises_is_a_chained_type_error(name):
    use, _ = ENTRY_POINTS[name]
    with pytest.raises(TypeError) as caught:
        use(Broken())
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert "Broken" in str(caught.value)
