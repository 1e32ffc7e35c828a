"""The seed chapter's scenarios, computed by the engine, and the demo's ten lines."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import cast

from .engine.scalar import Scalar
from .engine.errors import ScalarAutodiffError
from .engine.gradcheck import GRADCHECK_STEP, GRADCHECK_TOLERANCE, ScalarGradientCheck, scalar_gradient_check
from .engine.numbers import DECIMALS, digits, format_exponent, format_number
from .engine.records import BackwardPass

REUSED_INPUT = 2.0
NONLINEAR_INPUT = 0.5
# A gradient this large overflows when a second pass adds the same amount again.
OVERFLOW_SCALE = 1e308


@dataclass(frozen=True)
class GradientSnapshot:
    x: float
    square: float
    loss: float


@dataclass(frozen=True)
class ReusedSquareExample:
    x_value: float
    square_value: float
    loss_value: float
    first_pass: BackwardPass
    first: GradientSnapshot
    repeated: GradientSnapshot
    zeroed: GradientSnapshot
    after_zero: GradientSnapshot


@dataclass(frozen=True)
class DetachExample:
    input: float
    value: float
    x_gradient: float
    detached_gradient: float | None


@dataclass(frozen=True)
class NonlinearExample:
    input: float
    value: float
    gradient: float


@dataclass(frozen=True)
class TypedErrorExample:
    errors: tuple[ScalarAutodiffError, ...]
    gradients_unchanged: bool


def _gradient(node: Scalar) -> float:
    """The stored gradient of a node built from variables: tracked, so never None."""
    return cast(float, node.gradient)


def _snapshot(x: Scalar, square: Scalar, loss: Scalar) -> GradientSnapshot:
    return GradientSnapshot(_gradient(x), _gradient(square), _gradient(loss))


def reused_square_example() -> ReusedSquareExample:
    """One shared graph: two passes, zero_grad, one fresh pass."""
    x = Scalar.variable(REUSED_INPUT)
    square = x.mul(x)
    loss = square.add(square)
    first_pass = loss.backward()
    first = _snapshot(x, square, loss)
    loss.backward()
    repeated = _snapshot(x, square, loss)
    loss.zero_grad()
    zeroed = _snapshot(x, square, loss)
    loss.backward()
    after_zero = _snapshot(x, square, loss)
    return ReusedSquareExample(
        x.value, square.value, loss.value, first_pass, first, repeated, zeroed, after_zero
    )


def detach_example() -> DetachExample:
    """``x*x + detach(x)*3``: the detached branch does not reach x."""
    x = Scalar.variable(REUSED_INPUT)
    square = x.mul(x)
    detached = x.detach()
    stopped = detached.mul(Scalar.constant(3.0))
    loss = square.add(stopped)
    loss.backward()
    return DetachExample(x.value, loss.value, _gradient(x), detached.gradient)


def nonlinear_example() -> NonlinearExample:
    """``exp(tanh(x))`` at 0.5."""
    x = Scalar.variable(NONLINEAR_INPUT)
    output = x.tanh().exp()
    output.backward()
    return NonlinearExample(x.value, output.value, _gradient(x))


def gradcheck_example() -> ScalarGradientCheck:
    """The reverse derivative of ``2x^2`` against the chapter 13 central difference."""
    x = Scalar.variable(REUSED_INPUT)
    square = x.mul(x)
    loss = square.add(square)
    loss.backward()
    return scalar_gradient_check(
        REUSED_INPUT, _gradient(x), GRADCHECK_STEP, GRADCHECK_TOLERANCE, lambda v: 2.0 * v * v
    )


def _bits(values: list[float]) -> bytes:
    return b"".join(struct.pack("<d", v) for v in values)


def typed_error_example() -> TypedErrorExample:
    """Three rejected requests, and whether every stored gradient kept its bits."""
    errors: list[ScalarAutodiffError] = []

    def rejected(request) -> None:
        try:
            request()
        except ScalarAutodiffError as error:
            errors.append(error)
        else:
            raise AssertionError("the request was expected to fail")

    rejected(lambda: Scalar.constant(1.0).backward())

    x = Scalar.variable(1.0)
    loss = x.mul(Scalar.constant(OVERFLOW_SCALE))
    loss.backward()  # x's gradient is now 1e308; adding another 1e308 overflows
    before = _bits([_gradient(x), _gradient(loss)])
    rejected(lambda: loss.backward_with_seed(float("inf")))
    rejected(loss.backward)
    unchanged = _bits([_gradient(x), _gradient(loss)]) == before
    return TypedErrorExample(tuple(errors), unchanged)


def _error_label(error: ScalarAutodiffError) -> str:
    # The chapter names a rejected constant output after what was refused.
    operation = getattr(error, "operation", None)
    if error.kind == "untracked-output" and operation is not None:
        return f"{operation}-output"
    return error.kind


def _gradients(snapshot: GradientSnapshot) -> str:
    return (
        f"x_grad={format_number(snapshot.x)} square_grad={format_number(snapshot.square)} "
        f"loss_grad={format_number(snapshot.loss)}"
    )


def demo_lines() -> list[str]:
    """The ten lines of the seed's demo output, numbers in the chapter's 12 decimals."""
    with digits(DECIMALS):
        return _demo_lines()


def _demo_lines() -> list[str]:
    reused = reused_square_example()
    detached = detach_example()
    nonlinear = nonlinear_example()
    check = gradcheck_example()
    typed = typed_error_example()
    detached_gradient = (
        "none" if detached.detached_gradient is None else format_number(detached.detached_gradient)
    )
    return [
        f"reused square: x={format_number(reused.x_value)} "
        f"square={format_number(reused.square_value)} loss={format_number(reused.loss_value)}",
        f"one backward: {_gradients(reused.first)}",
        f"repeated backward: {_gradients(reused.repeated)}",
        f"zero_grad: {_gradients(reused.zeroed)}",
        f"after zero: {_gradients(reused.after_zero)}",
        f"detach: expression=x*x+detach(x)*3 value={format_number(detached.value)} "
        f"x_grad={format_number(detached.x_gradient)} detached_grad={detached_gradient}",
        f"nonlinear: expression=exp(tanh(x)) input={format_number(nonlinear.input)} "
        f"value={format_number(nonlinear.value)} gradient={format_number(nonlinear.gradient)}",
        f"gradcheck: expression=2*x*x analytic={format_number(check.analytic)} "
        f"numerical={format_number(check.numerical)} "
        f"scaled_error={format_exponent(check.scaled_error)} pass={str(check.passed).lower()}",
        f"typed errors: {' | '.join(_error_label(e) for e in typed.errors)}; "
        f"gradients unchanged={str(typed.gradients_unchanged).lower()}",
        "chapter 15 handoff: replace scalar edges with tensor vector-Jacobian products",
    ]
