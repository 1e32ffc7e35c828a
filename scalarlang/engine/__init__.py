"""The reverse-mode engine: scalar nodes and their operations (node, scalar, arithmetic,
functions), passes and their records (passes, records), typed errors, the numerical gradient
check (gradcheck, replay), gradients saved for undo, the number formatter; tensor nodes in the
same graphs (tensor_node, tensor and the operations by job: tensor_elementwise, tensor_linear,
tensor_reductions; shapes, kernels, tensor_passes, tensor_errors, tensor_gradcheck), and the
check of each tensor VJP against its scalar edges (vjp_checking, scalar_rebuild).

It imports nothing else of scalarlang; what Jupyter shows of its objects is registered from
above (reprs). The public names below load on first use (PEP 562), as in the package
above, so that registering a display at start-up does not load the engine.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

# public name -> the module of this package that defines it
EXPORTS = {
    "ParentEdge": "node",
    "ScalarOperation": "node",
    "Scalar": "scalar",
    "BackwardEdge": "records",
    "BackwardNode": "records",
    "BackwardPass": "records",
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
    "jvp": "forward",
    "forward_trace": "forward",
    "jacobian": "forward",
    "ForwardTrace": "forward",
    "ForwardNode": "forward",
    "ForwardTerm": "forward",
    "Jacobian": "forward",
    "FORWARD_ERRORS": "forward_errors",
    "ForwardModeError": "forward_errors",
    "TensorInForwardMode": "forward_errors",
    "ForwardInputNotVariable": "forward_errors",
    "DirectionLengthMismatch": "forward_errors",
    "NonFiniteDirection": "forward_errors",
    "NonFiniteTangent": "forward_errors",
    "JacobianTooLarge": "forward_errors",
    "Tensor": "tensor",
    "TensorOperation": "tensor_operations",
    "TensorBackwardPass": "tensor_passes",
    "TensorGradientCheck": "tensor_gradcheck",
    "tensor_gradient_check": "tensor_gradcheck",
    "graph_gradient_check": "tensor_gradcheck",
    "vjp_check": "vjp_checking",
    "VJPCheck": "vjp_checking",
    "NodeVJPCheck": "vjp_checking",
    "OperandVJPCheck": "vjp_checking",
    "TENSOR_ERRORS": "tensor_errors",
    "TensorError": "tensor_errors",
    "ShapeMismatch": "tensor_errors",
    "BadShape": "tensor_errors",
    "InvalidShape": "tensor_errors",
    "ReshapeMismatch": "tensor_errors",
    "AxisOutOfRange": "tensor_errors",
    "IndexOutOfRange": "tensor_errors",
    "NonWholeIndex": "tensor_errors",
    "NonFiniteTensorLeaf": "tensor_errors",
    "NonFiniteTensorResult": "tensor_errors",
    "NonFiniteTensorDerivative": "tensor_errors",
    "NonFiniteTensorAdjoint": "tensor_errors",
    "NonFiniteAccumulatedTensorGradient": "tensor_errors",
}

__all__ = sorted(EXPORTS)


def __getattr__(name: str) -> _typing.Any:
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(EXPORTS))


if _typing.TYPE_CHECKING:  # what type checkers and IDEs see
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
    from .forward import ForwardNode, ForwardTerm, ForwardTrace, Jacobian, forward_trace, jacobian, jvp
    from .forward_errors import (
        FORWARD_ERRORS,
        DirectionLengthMismatch,
        ForwardInputNotVariable,
        ForwardModeError,
        JacobianTooLarge,
        NonFiniteDirection,
        NonFiniteTangent,
        TensorInForwardMode,
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
    from .node import ParentEdge, ScalarOperation
    from .numbers import format_exponent, format_number
    from .records import BackwardEdge, BackwardNode, BackwardPass
    from .scalar import Scalar
    from .tensor import Tensor
    from .tensor_errors import (
        TENSOR_ERRORS,
        AxisOutOfRange,
        BadShape,
        IndexOutOfRange,
        InvalidShape,
        NonFiniteAccumulatedTensorGradient,
        NonFiniteTensorAdjoint,
        NonFiniteTensorDerivative,
        NonFiniteTensorLeaf,
        NonFiniteTensorResult,
        NonWholeIndex,
        ReshapeMismatch,
        ShapeMismatch,
        TensorError,
    )
    from .tensor_gradcheck import TensorGradientCheck, graph_gradient_check, tensor_gradient_check
    from .tensor_operations import TensorOperation
    from .tensor_passes import TensorBackwardPass
    from .vjp_checking import NodeVJPCheck, OperandVJPCheck, VJPCheck, vjp_check
