"""scalarlang: reverse-mode automatic differentiation on scalars, the `.sad` language and a REPL.

The engine (this namespace: ``scalarlang.engine``) knows nothing of parsing or terminals; the
language lives in ``scalarlang.language`` and ``scalarlang.interpreter``, and the front ends
(the command, the REPL, the notebook extension, the Python API ``run`` and ``Session``) in
``scalarlang.front``; ARCHITECTURE.md has the whole map.

The names below are loaded on first use (PEP 562): the command imports this package before
anything else, and must be able to install its signal handling and answer ``--help`` without
paying for the engine.
"""

# First thing, when this process is the `scalarlang` command (not a program importing the
# library): Ctrl-C while the modules import ends it with one line and status 130. Written here,
# with only modules Python has loaded already, because reading any file is a moment in which
# Ctrl-C would give a traceback. `cli.main` takes over from there (see `interrupts`).
# (typeshed has no stub for `_signal`, the built-in half of `signal`: hence the ignore.)
import _signal  # type: ignore[import-not-found]  # noqa: E402
import os as _os  # noqa: E402
import sys as _sys  # noqa: E402


def _interrupted_while_starting(signum, frame):
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    try:
        _os.write(2, b"scalarlang: interrupted\n")
    finally:
        _os._exit(130)


def _started_as_command() -> bool:
    """The console script, or `python -m scalarlang` (while the package imports, argv[0] is -m)."""
    script = _os.path.basename(getattr(_sys.modules.get("__main__"), "__file__", None) or "").lower()
    if script in ("scalarlang", "scalarlang.exe", "scalarlang-script.py"):
        return True
    argv = list(getattr(_sys, "orig_argv", ()))
    return _sys.argv[:1] == ["-m"] and any(a == "-m" and b == "scalarlang" for a, b in zip(argv, argv[1:]))


_interrupted_while_starting.scalarlang_startup = True  # type: ignore[attr-defined]
# Installed before we know whether this is the command, so that no Ctrl-C falls in between;
# a library import gets its handler back at once. (Outside the main thread signals cannot be
# set: that is a library import.)
try:
    _previous_handler = _signal.signal(_signal.SIGINT, _interrupted_while_starting)
except ValueError:
    pass
else:
    if not _started_as_command():
        _signal.signal(_signal.SIGINT, _previous_handler)
    del _previous_handler

import importlib as _importlib  # noqa: E402
import typing as _typing  # noqa: E402

from ._version import __version__

from .engine import EXPORTS as _ENGINE_EXPORTS
from .engine import reprs as _reprs

# name -> the module (relative to this package) that defines it
_EXPORTS = {name: f"engine.{module}" for name, module in _ENGINE_EXPORTS.items()} | {
    # The Python API and the Jupyter extension (they load the interpreter, rich, drawing).
    "Result": "front.api",
    "Session": "front.api",
    "run": "front.api",
    "load_ipython_extension": "front.notebook",
    "SadCellError": "front.notebook",
    "unload_ipython_extension": "front.notebook",
    "kernel_session": "front.notebook",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> _typing.Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scalarlang' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


# What Jupyter shows of engine objects: the engine imports nothing above it, so the drawing
# and the pass tables are registered from here, and load on the first display.
def _scalar_svg(node: "Scalar") -> "str | None":
    from .pictures.reprs import scalar_svg

    return scalar_svg(node)


def _backward_pass_html(backward_pass: "BackwardPass") -> str:
    from .front.api import backward_pass_html

    return backward_pass_html(backward_pass)


_reprs.register(_reprs.SCALAR_SVG, _scalar_svg)
_reprs.register(_reprs.BACKWARD_PASS_HTML, _backward_pass_html)


if _typing.TYPE_CHECKING:  # what type checkers and IDEs see
    from .engine.node import ParentEdge, ScalarOperation
    from .engine.scalar import Scalar
    from .engine.errors import (
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
    from .engine.forward import ForwardNode, ForwardTerm, ForwardTrace, Jacobian, forward_trace, jacobian, jvp
    from .engine.forward_errors import (
        FORWARD_ERRORS,
        DirectionLengthMismatch,
        ForwardInputNotVariable,
        ForwardModeError,
        JacobianTooLarge,
        NonFiniteDirection,
        NonFiniteTangent,
        TensorInForwardMode,
    )
    from .engine.gradcheck import (
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
    from .engine.numbers import format_exponent, format_number
    from .engine.records import BackwardEdge, BackwardNode, BackwardPass
    from .engine.tensor import Tensor
    from .engine.tensor_errors import (
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
    from .engine.tensor_gradcheck import TensorGradientCheck, graph_gradient_check, tensor_gradient_check
    from .engine.tensor_operations import TensorOperation
    from .engine.tensor_passes import TensorBackwardPass
    from .engine.vjp_checking import NodeVJPCheck, OperandVJPCheck, VJPCheck, vjp_check
    from .front.api import Result, Session, run
    from .front.notebook import kernel_session, load_ipython_extension, unload_ipython_extension
