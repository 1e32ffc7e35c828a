"""The engine's typed errors: a kebab-case ``kind``, the error's fields, and its message.

Each error compares equal to another of the same class with the same fields, so tests and
callers can match on data rather than on text. Numbers in messages are Python ``repr``s.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ScalarAutodiffError(Exception):
    """Base of every error the engine raises; never raised itself."""

    kind: ClassVar[str] = ""
    field_names: ClassVar[tuple[str, ...]] = ()
    template: ClassVar[str] = ""

    def __init__(self, *args: Any, **kwargs: Any):
        values = dict(zip(self.field_names, args))
        if len(args) > len(self.field_names):
            raise TypeError(f"{type(self).__name__} takes {len(self.field_names)} fields")
        for name, value in kwargs.items():
            if name not in self.field_names or name in values:
                raise TypeError(f"{type(self).__name__} got an unexpected field {name!r}")
            values[name] = value
        missing = [name for name in self.field_names if name not in values]
        if missing:
            raise TypeError(f"{type(self).__name__} is missing fields {missing}")
        for name in self.field_names:
            setattr(self, name, values[name])
        super().__init__(*(values[name] for name in self.field_names))

    @property
    def fields(self) -> dict[str, Any]:
        """The error's own fields, in declaration order."""
        return {name: getattr(self, name) for name in self.field_names}

    def __str__(self) -> str:
        shown = {name: _show(value) for name, value in self.fields.items()}
        return self.template.format(**shown)

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in self.fields.items())
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return _same_fields(self.fields, other.fields)

    def __hash__(self) -> int:
        return hash((type(self), tuple(map(_hash_key, self.fields.values()))))

    def __reduce__(self):
        return (type(self), tuple(self.fields.values()))


def _show(value: Any) -> str:
    # Operations print as their names; numbers as repr (inf, nan, 1.5e+307).
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _hash_key(value: Any) -> Any:
    return "nan" if isinstance(value, float) and value != value else value


def _same_fields(left: dict[str, Any], right: dict[str, Any]) -> bool:
    # nan fields make equal errors: the same failure reported twice must compare equal.
    return all(_hash_key(left[name]) == _hash_key(right[name]) for name in left)


class NonFiniteLeaf(ScalarAutodiffError):
    kind = "non-finite-leaf"
    field_names = ("operation", "value")
    template = "{operation} scalar value {value} must be finite"


class NonFiniteResult(ScalarAutodiffError):
    kind = "non-finite-result"
    field_names = ("operation", "value")
    template = "{operation} produced non-finite scalar value {value}"


class NonFiniteDerivative(ScalarAutodiffError):
    kind = "non-finite-derivative"
    field_names = ("operation", "operand", "local_derivative")
    template = (
        "{operation} produced non-finite local derivative {local_derivative} "
        "for operand {operand}"
    )


class UntrackedOutput(ScalarAutodiffError):
    kind = "untracked-output"
    field_names = ("operation",)
    template = "cannot backpropagate from untracked {operation} output"


class NonFiniteSeed(ScalarAutodiffError):
    kind = "non-finite-seed"
    field_names = ("seed",)
    template = "backward seed {seed} must be finite"


class NonFiniteContribution(ScalarAutodiffError):
    kind = "non-finite-contribution"
    field_names = ("child", "parent", "operand", "upstream", "local_derivative")
    template = (
        "edge {operand} from topology node {child} to {parent} produced a non-finite "
        "contribution from upstream {upstream} and local derivative {local_derivative}"
    )


class NonFinitePassAdjoint(ScalarAutodiffError):
    kind = "non-finite-pass-adjoint"
    field_names = ("node", "previous", "contribution")
    template = (
        "topology node {node} cannot accumulate pass adjoint {previous} "
        "plus contribution {contribution}"
    )


class NonFiniteAccumulatedGradient(ScalarAutodiffError):
    kind = "non-finite-accumulated-gradient"
    field_names = ("node", "stored", "pass_adjoint")
    template = (
        "topology node {node} cannot accumulate stored gradient {stored} "
        "plus pass adjoint {pass_adjoint}"
    )


ENGINE_ERRORS: tuple[type[ScalarAutodiffError], ...] = (
    NonFiniteLeaf,
    NonFiniteResult,
    NonFiniteDerivative,
    UntrackedOutput,
    NonFiniteSeed,
    NonFiniteContribution,
    NonFinitePassAdjoint,
    NonFiniteAccumulatedGradient,
)
