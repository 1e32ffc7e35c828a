"""scalarlang: reverse-mode automatic differentiation on scalars, the `.sad` language and a REPL.

The engine (this namespace) knows nothing of parsing or terminals; the language lives in
``scalarlang.interpreter`` and the front ends in ``scalarlang.cli`` and ``scalarlang.repl``.

The names below are loaded on first use (PEP 562): the command imports this package before
anything else, and must be able to install its signal handling and answer ``--help`` without
paying for the engine.
"""

from __future__ import annotations

from . import interrupts as _interrupts

if _interrupts.started_as_command():  # first thing: Ctrl-C is clean from here on
    _interrupts.install_startup_handler()

import importlib  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

__version__ = "0.1.0"

# name -> the module (relative to this package) that defines it
_EXPORTS = {
    "ParentEdge": "engine",
    "Scalar": "engine",
    "ScalarOperation": "engine",
    "ENGINE_ERRORS": "errors",
    "NonFiniteAccumulatedGradient": "errors",
    "NonFiniteContribution": "errors",
    "NonFiniteDerivative": "errors",
    "NonFiniteLeaf": "errors",
    "NonFinitePassAdjoint": "errors",
    "NonFiniteResult": "errors",
    "NonFiniteSeed": "errors",
    "ScalarAutodiffError": "errors",
    "UntrackedOutput": "errors",
    "GRADCHECK_STEP": "gradcheck",
    "GRADCHECK_TOLERANCE": "gradcheck",
    "GradientCheckError": "gradcheck",
    "InvalidGradcheckStep": "gradcheck",
    "InvalidGradcheckTolerance": "gradcheck",
    "NonFiniteGradcheckInput": "gradcheck",
    "NonFiniteGradcheckValue": "gradcheck",
    "ScalarGradientCheck": "gradcheck",
    "scalar_gradient_check": "gradcheck",
    "format_exponent": "numbers",
    "format_number": "numbers",
    "BackwardEdge": "records",
    "BackwardNode": "records",
    "BackwardPass": "records",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scalarlang' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # what type checkers and IDEs see
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
