"""scalarlang: reverse-mode automatic differentiation on scalars, the `.sad` language and a REPL.

The engine (this namespace) knows nothing of parsing or terminals; the language lives in
``scalarlang.interpreter`` and the front ends in ``scalarlang.cli`` and ``scalarlang.repl``.
"""

from .engine import ParentEdge, Scalar, ScalarOperation
from .errors import (
    ENGINE_ERRORS,
    NonFiniteAccumulatedGradient,
    NonFiniteContribution,
    NonFiniteDerivative,
    NonFiniteLeaf,
    NonFinitePassAdjoint,
    NonFiniteResult,
    NonFiniteSeed,
    ScalarAutodiffError,
    UntrackedOutput,
)
from .gradcheck import (
    GRADCHECK_STEP,
    GRADCHECK_TOLERANCE,
    GradientCheckError,
    InvalidGradcheckStep,
    InvalidGradcheckTolerance,
    NonFiniteGradcheckInput,
    NonFiniteGradcheckValue,
    ScalarGradientCheck,
    scalar_gradient_check,
)
from .numbers import format_exponent, format_number
from .records import BackwardEdge, BackwardNode, BackwardPass

__version__ = "0.1.0"

__all__ = [
    "BackwardEdge", "BackwardNode", "BackwardPass", "ENGINE_ERRORS", "GRADCHECK_STEP",
    "GRADCHECK_TOLERANCE", "GradientCheckError", "InvalidGradcheckStep",
    "InvalidGradcheckTolerance", "NonFiniteAccumulatedGradient", "NonFiniteContribution",
    "NonFiniteDerivative", "NonFiniteGradcheckInput", "NonFiniteGradcheckValue", "NonFiniteLeaf",
    "NonFinitePassAdjoint", "NonFiniteResult", "NonFiniteSeed", "ParentEdge", "Scalar",
    "ScalarAutodiffError", "ScalarGradientCheck", "ScalarOperation", "UntrackedOutput",
    "format_exponent", "format_number", "scalar_gradient_check",
]

# The Python API and the Jupyter extension load the interpreter, rich and the drawing code:
# imported on first use (PEP 562), so `import scalarlang` stays cheap.
_LAZY_EXPORTS = {
    "Session": ("api", "Session"),
    "Result": ("api", "Result"),
    "run": ("api", "run"),
    "load_ipython_extension": ("notebook", "load_ipython_extension"),
    "unload_ipython_extension": ("notebook", "unload_ipython_extension"),
}


def __getattr__(name: str):
    if name in _LAZY_EXPORTS:
        from importlib import import_module

        module, attribute = _LAZY_EXPORTS[name]
        return getattr(import_module(f"{__name__}.{module}"), attribute)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
