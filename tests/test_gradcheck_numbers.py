"""The chapter 13 numerical check and the one number formatter (docs/engine.md)."""

from __future__ import annotations

import math
import sys

import pytest

from scalarlang.engine.gradcheck import GRADCHECK_MAX_ROUNDING_BOUND, GRADCHECK_ROUNDING_EPSILONS
from scalarlang import (
    GRADCHECK_STEP,
    GRADCHECK_TOLERANCE,
    GradientCheckError,
    InvalidGradcheckStep,
    InvalidGradcheckTolerance,
    NonFiniteGradcheckInput,
    NonFiniteGradcheckValue,
    Scalar,
    ScalarAutodiffError,
    ScalarGradientCheck,
    scalar_gradient_check,
)


def two_x_squared(v: float) -> float:
    return 2.0 * v * v


# ---- gradient check -------------------------------------------------------------------------


def test_defaults():
    assert GRADCHECK_STEP == 2.0**-20
    assert GRADCHECK_TOLERANCE == 1e-9


def test_seed_check_of_two_x_squared_is_exact():
    x = Scalar.variable(2.0)
    square = x * x
    (square + square).backward()
    check = scalar_gradient_check(2.0, x.gradient, GRADCHECK_STEP, GRADCHECK_TOLERANCE, two_x_squared)
    assert isinstance(check, ScalarGradientCheck)
    assert check == ScalarGradientCheck(2.0, 8.0, 8.0, 2.0**-20, 1e-9, 0.0, True)
    assert check.numerical == 8.0 and check.scaled_error == 0.0 and check.passed is True


def test_defaults_are_used_when_omitted():
    check = scalar_gradient_check(2.0, 8.0, function=two_x_squared)
    assert check.step == GRADCHECK_STEP and check.tolerance == GRADCHECK_TOLERANCE
    assert check.numerical == 8.0 and check.passed


def test_wrong_analytic_gradient_fails_with_the_scaled_error_formula():
    check = scalar_gradient_check(2.0, 9.0, GRADCHECK_STEP, GRADCHECK_TOLERANCE, two_x_squared)
    assert check.numerical == 8.0
    assert check.scaled_error == abs(9.0 - 8.0) / max(1.0, 9.0, 8.0)
    assert check.passed is False


def test_scaled_error_uses_one_as_the_floor():
    # f(v) = 0.25 v: numerical 0.25 exactly; analytic 0.5: error 0.25 / max(1, 0.5, 0.25) = 0.25
    check = scalar_gradient_check(1.0, 0.5, 0.5, 1e-9, lambda v: 0.25 * v)
    assert check.numerical == 0.25
    assert check.scaled_error == 0.25
    assert not check.passed


def test_numerical_is_the_central_difference():
    calls = []

    def f(v):
        calls.append(v)
        return v**3

    step = 2.0**-10
    check = scalar_gradient_check(1.5, 6.75, step, 1e-3, f)
    assert sorted(calls) == [1.5 - step, 1.5 + step]
    assert check.numerical == ((1.5 + step) ** 3 - (1.5 - step) ** 3) / (2 * step)
    assert check.passed  # error step**2 = 9.5e-7 relative to 6.75


def test_passes_at_the_tolerance_boundary():
    # numerical 1.0 exactly (linear function, dyadic step); analytic 1 + 2**-30
    analytic = 1.0 + 2.0**-30
    error = abs(analytic - 1.0) / analytic
    assert scalar_gradient_check(0.0, analytic, 0.5, error, lambda v: v).passed
    assert not scalar_gradient_check(0.0, analytic, 0.5, error / 2, lambda v: v).passed


@pytest.mark.parametrize("step", [0.0, -0.0, -1.0, math.inf, -math.inf, math.nan])
def test_invalid_step(step):
    with pytest.raises(GradientCheckError) as caught:
        scalar_gradient_check(2.0, 8.0, step, GRADCHECK_TOLERANCE, two_x_squared)
    error = caught.value
    assert type(error) is InvalidGradcheckStep
    assert isinstance(error, ScalarAutodiffError)
    assert error.kind == "invalid-gradcheck-step"
    assert error.step == step or (math.isnan(step) and math.isnan(error.step))
    assert repr(step) in str(error)


@pytest.mark.parametrize("tolerance", [0.0, -1.0, math.inf, math.nan])
def test_invalid_tolerance(tolerance):
    with pytest.raises(GradientCheckError) as caught:
        scalar_gradient_check(2.0, 8.0, GRADCHECK_STEP, tolerance, two_x_squared)
    error = caught.value
    assert type(error) is InvalidGradcheckTolerance
    assert error.kind == "invalid-gradcheck-tolerance"
    assert repr(tolerance) in str(error)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_non_finite_function_value(value):
    with pytest.raises(GradientCheckError) as caught:
        scalar_gradient_check(2.0, 8.0, GRADCHECK_STEP, GRADCHECK_TOLERANCE, lambda v: value)
    error = caught.value
    assert type(error) is NonFiniteGradcheckValue
    assert error.kind == "non-finite-gradcheck-value"
    assert math.isfinite(error.at)


def test_non_finite_value_on_one_side_only():
    def f(v):
        return math.inf if v > 2.0 else v

    with pytest.raises(NonFiniteGradcheckValue) as caught:
        scalar_gradient_check(2.0, 1.0, GRADCHECK_STEP, GRADCHECK_TOLERANCE, f)
    assert caught.value.at == 2.0 + GRADCHECK_STEP and caught.value.value == math.inf


def test_overflowing_difference_is_rejected():
    # both values finite, but their difference overflows
    with pytest.raises(GradientCheckError) as caught:
        scalar_gradient_check(0.0, 1.0, 1.0, 1e-9, lambda v: math.copysign(1.5e308, v))
    assert caught.value.kind
    assert isinstance(caught.value, ScalarAutodiffError)


@pytest.mark.parametrize("args", [(math.inf, 8.0), (2.0, math.nan), (math.nan, math.inf)])
def test_non_finite_input_or_analytic(args):
    with pytest.raises(GradientCheckError) as caught:
        scalar_gradient_check(*args, GRADCHECK_STEP, GRADCHECK_TOLERANCE, two_x_squared)
    assert type(caught.value) is NonFiniteGradcheckInput
    assert caught.value.kind == "non-finite-gradcheck-input"


def test_gradcheck_error_kinds_are_distinct():
    kinds = {cls.kind for cls in (InvalidGradcheckStep, InvalidGradcheckTolerance,
                                  NonFiniteGradcheckInput, NonFiniteGradcheckValue)}
    assert len(kinds) == 4 and all(kinds)
    assert all(issubclass(cls, GradientCheckError) for cls in (InvalidGradcheckStep, NonFiniteGradcheckValue))


def test_gradient_check_agrees_with_the_engine_on_a_nonlinear_function():
    x = Scalar.variable(0.5)
    x.tanh().exp().backward()
    check = scalar_gradient_check(0.5, x.gradient, GRADCHECK_STEP, 1e-8,
                                  lambda v: math.exp(math.tanh(v)))
    assert check.passed, check


# ---- rounding noise of the central difference -------------------------------------------------


def _log_shifted(v: float) -> float:
    return math.log(v + 1000000.0) * 1000.0


def _engine_gradient_of_log_shifted(at: float) -> float:
    x = Scalar.variable(at)
    ((x + 1000000).log() * 1000).backward()
    return x.gradient


def test_seed_check_is_unchanged_by_the_rounding_bound():
    check = scalar_gradient_check(2.0, 8.0, GRADCHECK_STEP, GRADCHECK_TOLERANCE, two_x_squared)
    # every field as before the bound existed; the noise (about 9.3e-10) is within the tolerance
    assert tuple(check) == (2.0, 8.0, 8.0, 2.0**-20, 1e-9, 0.0, True, 0.0)
    assert check == ScalarGradientCheck(2.0, 8.0, 8.0, 2.0**-20, 1e-9, 0.0, True)
    assert ScalarGradientCheck._fields[-1] == "rounding_bound"


def test_large_valued_function_with_a_correct_gradient_passes_within_its_rounding_bound():
    analytic = _engine_gradient_of_log_shifted(0.1)
    check = scalar_gradient_check(0.1, analytic, function=_log_shifted)
    assert check.passed, check
    # it passes because of the bound: the error exceeds the tolerance, not the bound
    assert GRADCHECK_TOLERANCE < check.scaled_error <= check.rounding_bound
    # the bound is k eps max|f| / step, scaled (the points 0.1 +- 2**-20 are exact here)
    magnitude = max(abs(_log_shifted(0.1 + GRADCHECK_STEP)), abs(_log_shifted(0.1 - GRADCHECK_STEP)))
    expected = GRADCHECK_ROUNDING_EPSILONS * sys.float_info.epsilon * magnitude / GRADCHECK_STEP
    spacing = abs(((0.1 + GRADCHECK_STEP) - (0.1 - GRADCHECK_STEP)) - 2 * GRADCHECK_STEP)
    expected += abs(check.numerical) * spacing / (2 * GRADCHECK_STEP)
    assert check.rounding_bound == pytest.approx(expected, rel=1e-12)
    assert 1e-5 < check.rounding_bound < 2e-5


@pytest.mark.parametrize("at", [0.1, 0.3, -0.7, 5.0, 123.4])
def test_large_valued_function_passes_at_several_points(at):
    check = scalar_gradient_check(at, _engine_gradient_of_log_shifted(at), function=_log_shifted)
    assert check.passed and check.rounding_bound > 0.0, check


@pytest.mark.parametrize("factor", [2.0, 1.1, 0.0, -1.0])
def test_wrong_gradient_of_a_large_valued_function_still_fails(factor):
    wrong = factor * _engine_gradient_of_log_shifted(0.1)
    check = scalar_gradient_check(0.1, wrong, function=_log_shifted)
    assert not check.passed, check
    assert check.scaled_error > check.rounding_bound > GRADCHECK_TOLERANCE


def test_wrong_gradient_of_a_large_constant_offset_fails():
    # f = 1e9 + x: the noise bound is large (f is huge) but capped, so slope 1.01 fails
    check = scalar_gradient_check(0.5, 1.01, function=lambda v: 1e9 + v)
    assert check.rounding_bound > GRADCHECK_MAX_ROUNDING_BOUND
    assert not check.passed


def test_a_bound_beyond_the_cap_widens_the_check_only_to_the_cap():
    # f = 1e12 + x with step 2**-10: the points and values are exact (numerical exactly 1),
    # but the bound, about 9e-4, is above the cap: an error of 5e-4 fails, 5e-5 passes
    step = 2.0**-10
    function = lambda v: 1e12 + v  # noqa: E731
    exact = scalar_gradient_check(0.25, 1.0, step, function=function)
    assert exact.numerical == 1.0 and exact.passed
    assert exact.rounding_bound > 5e-4 > GRADCHECK_MAX_ROUNDING_BOUND
    assert not scalar_gradient_check(0.25, 1.0 + 5e-4, step, function=function).passed
    assert scalar_gradient_check(0.25, 1.0 + 5e-5, step, function=function).passed


def test_inexact_points_add_their_spacing_to_the_bound():
    # 3 +- 0.1 is not exact in binary: the quotient divides by 0.2 a difference taken over
    # 0.20000000000000018, which the bound counts
    check = scalar_gradient_check(3.0, 1.0, 0.1, 1e-20, function=lambda v: v)
    spacing = abs((3.1 - 2.9) - 0.2) / 0.2
    assert spacing > 0.0
    evaluations = GRADCHECK_ROUNDING_EPSILONS * sys.float_info.epsilon * 3.1 / 0.1
    assert check.rounding_bound == pytest.approx(evaluations + abs(check.numerical) * spacing, rel=1e-12)
    assert check.passed  # the quotient's error is the spacing's, which the bound covers


def test_existing_constructor_calls_keep_working():
    check = ScalarGradientCheck(1.0, 2.0, 2.0, 0.5, 1e-9, 0.0, True)
    assert check.rounding_bound == 0.0


def test_a_step_that_moves_the_input_past_the_float_range_is_rejected():
    from scalarlang.engine.gradcheck import NonFiniteGradcheckInput

    calls = []
    with pytest.raises(NonFiniteGradcheckInput) as caught:
        scalar_gradient_check(1.7e308, 0.0, 1e308, 1e-9, lambda v: calls.append(v) or 0.0)
    assert caught.value.input == math.inf and caught.value.kind == "non-finite-gradcheck-input"
    assert calls == []  # the function is never evaluated at a non-finite point
