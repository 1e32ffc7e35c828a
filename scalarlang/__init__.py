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

from ._version import __version__

__all__ = [
    "BackwardEdge", "BackwardNode", "BackwardPass", "ENGINE_ERRORS", "GRADCHECK_STEP",
    "GRADCHECK_TOLERANCE", "GradientCheckError", "InvalidGradcheckStep",
    "InvalidGradcheckTolerance", "NonFiniteAccumulatedGradient", "NonFiniteContribution",
    "NonFiniteDerivative", "NonFiniteGradcheckInput", "NonFiniteGradcheckValue", "NonFiniteLeaf",
    "NonFinitePassAdjoint", "NonFiniteResult", "NonFiniteSeed", "ParentEdge", "Scalar",
    "ScalarAutodiffError", "ScalarGradientCheck", "ScalarOperation", "UntrackedOutput",
    "format_exponent", "format_number", "scalar_gradient_check",
]
