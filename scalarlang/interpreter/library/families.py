"""Where a built-in's compile function is: its family (a module of this folder) and its name
there, found on the first call of the built-in (`Later`). The registry's rows name them; a
run imports the families it calls, and start-up none (each family is as costly to import as
the command's own work for a short program: issue 41, item 6).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


class Later:
    """A compile function of a family of the library (a module of this folder): ``family``'s
    ``name``, or what ``name(*args, **options)`` makes, imported when a call of the built-in
    is first compiled."""

    __slots__ = ("family", "name", "args", "options", "function")

    def __init__(self, family: str, name: str, args: tuple = (), options: Mapping[str, Any] | None = None):
        self.family = family
        self.name = name
        self.args = args
        self.options = options or {}
        self.function: Callable | None = None

    def resolved(self) -> Callable:
        if self.function is None:
            found = getattr(import_module(f"{__package__}.{self.family}"), self.name)
            self.function = found(*self.args, **self.options) if self.args or self.options else found
        return self.function


class LaterTensorsToo:
    """A name tensors have too: `tensor_forms.tensors_too` of its two forms, each `Later`."""

    __slots__ = ("scalar", "tensor", "lists", "function")

    def __init__(self, scalar: Later, tensor: Later, lists: bool = False):
        self.scalar = scalar
        self.tensor = tensor
        self.lists = lists
        self.function: Any = None

    def resolved(self) -> Any:
        if self.function is None:
            from .tensor_forms import tensors_too as both

            self.function = both(self.scalar.resolved(), self.tensor.resolved(), self.lists)
        return self.function


def family(module: str) -> Callable[..., Later]:
    """``family("logits")("compile_max")``: a `Later` of that module's compile function;
    ``family("node_functions")("engine_unary", Scalar.exp)``: of what the factory makes."""

    def later(name: str, *args: Any, **options: Any) -> Later:
        return Later(module, name, args, options)

    return later


def tensors_too(scalar: Later, tensor: Later, lists: bool = False) -> LaterTensorsToo:
    """The compile function of a name nodes (or lists) and tensors both have, its two forms
    `Later`: `tensor_forms.tensors_too` of them, when first called."""
    return LaterTensorsToo(scalar, tensor, lists)
