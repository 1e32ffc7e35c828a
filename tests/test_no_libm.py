"""No function of the C library's maths outside the engine's own: the same bits on every platform.

The C library's exp, log, pow, sin, ... are not correctly rounded everywhere (glibc, musl,
macOS and Emscripten round some arguments differently), so a number they make can print other
digits, or put a chart's point in another cell, on another platform. The engine computes exp,
log, tanh, pow, sin and cos itself from IEEE basic operations (engine/elementary.py,
circular.py); everything else calls those. IEEE operations (+ - * /, sqrt, fma), exact ones
(floor, frexp, ldexp, copysign, ulp, fmod) and `**` of whole numbers stay allowed.
ARCHITECTURE.md states the rule.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from scalarlang.pictures.chart_text import chart_text
from scalarlang.pictures.charts import boundary_chart, line_chart
from scalarlang.pictures.scales import linear_scale, log_scale

PACKAGE = Path(__file__).resolve().parent.parent / "scalarlang"

# The math module's functions whose results depend on the platform's C library (or, for fsum
# and sumprod, that are no left fold: see test_same_bits.py).
FORBIDDEN = {
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "erf", "erfc", "gamma", "lgamma", "hypot", "dist", "cbrt", "fsum", "sumprod",
}


def _float_constant(node: ast.expr) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _float_constant(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return node.value
    return None


def libm_calls(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a module's code reaches the C library's maths: `math.log10(...)`, `from math
    import exp`, `import cmath`, and `**` of a float base (`10.0 ** x`) or of a fractional
    float exponent (`x ** 0.5`)."""
    found = []
    math_names = {"math"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "cmath":
                    found.append((node.lineno, "import cmath"))
                if alias.name == "math" and alias.asname:
                    math_names.add(alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.module in ("math", "cmath"):
            for alias in node.names:
                if node.module == "cmath" or alias.name in FORBIDDEN:
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in math_names
            and node.attr in FORBIDDEN
        ):
            found.append((node.lineno, f"math.{node.attr}"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            base, exponent = _float_constant(node.left), _float_constant(node.right)
            if base is not None or (exponent is not None and not exponent.is_integer()):
                found.append((node.lineno, "float **"))
    return sorted(found)


def test_no_module_of_the_package_calls_the_c_librarys_maths():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        offenders += [f"{path.relative_to(PACKAGE)}:{line}: {what}" for line, what in libm_calls(tree)]
    assert offenders == []


@pytest.mark.parametrize(
    "code, expected",
    [
        ("import math\nmath.log10(x)", ["math.log10"]),
        ("import math as m\nm.exp(x)", ["math.exp"]),
        ("from math import tanh, floor", ["from math import tanh"]),
        ("import cmath", ["import cmath"]),
        ("y = 10.0 ** x", ["float **"]),
        ("y = x ** 0.5", ["float **"]),
        ("y = x ** -1.5", ["float **"]),
        ("y = 10 ** k + x ** 2 + x ** 2.0 + math.sqrt(x) + math.floor(x)", []),
    ],
)
def test_the_rule_finds_each_form(code, expected):
    assert [what for _, what in libm_calls(ast.parse(code))] == expected


def _charts() -> dict[str, str]:
    steps = [2.3 * 0.93**step + 0.05 * (step % 7) / 7 + 1e-4 for step in range(120)]
    charts = {
        "log": line_chart([steps, [value * 3.7 for value in steps]], labels=["a", "b"], log=True),
        "log_tiny": line_chart([[1e-300, 3e-200, 5e-320, 2e-310]], log=True),
        "linear": line_chart([steps], title="loss"),
        "boundary": boundary_chart([(0.1, 0.2, 1), (-0.7, 0.4, -1)], lambda x, y: x - y),
    }
    return {name: chart_text(chart, 60, 16) for name, chart in charts.items()}


def test_charts_draw_without_the_c_librarys_maths(monkeypatch):
    """Ticks, their labels and every point's place: the same text when the math module's
    logarithms and powers are ones no chart may use."""
    expected = _charts()
    scales = (log_scale(3e-7, 4.5e12), log_scale(5e-324, 1.7e308), linear_scale(-3.3e-5, 7.1e-4))
    ticks = [[(tick.value, tick.label) for tick in scale.ticks] for scale in scales]

    def refused(*_):
        raise AssertionError("a function of the C library's maths was called")

    # Patched: a platform whose libm differs cannot be had here; one that fails is the strict case.
    for name in FORBIDDEN & set(dir(math)):
        monkeypatch.setattr(math, name, refused)
    assert _charts() == expected
    scales = (log_scale(3e-7, 4.5e12), log_scale(5e-324, 1.7e308), linear_scale(-3.3e-5, 7.1e-4))
    assert [[(tick.value, tick.label) for tick in scale.ticks] for scale in scales] == ticks
