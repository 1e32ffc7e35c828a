"""The abstract syntax of `.sad` programs: frozen dataclasses, each with its source span.

The parser (``syntax``) builds these from lark's parse; the interpreter walks them and never
sees a lark tree. Expression trees can be deep (long chains, nested parentheses), so code that
walks them uses an explicit stack, never recursion.
"""

from __future__ import annotations

from dataclasses import dataclass

from .source import Span


# ---- expressions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Number:
    """A numeric literal (``2``, ``.5``, ``1e-3``, ``inf``, ``nan``): a fresh constant each time."""

    span: Span
    value: float


@dataclass(frozen=True, slots=True)
class Name:
    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class Unary:
    """``-operand``."""

    span: Span
    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary:
    """``left op right`` with op one of ``+ - * /``; chains are left-associative."""

    span: Span
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Call:
    """``function(arg, ...)``; which names are functions is the interpreter's business."""

    span: Span
    function: str
    function_span: Span
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Leaf:
    """``var EXPR`` (kind ``"var"``) or ``const EXPR`` (kind ``"const"``)."""

    span: Span
    kind: str
    operand: Expr


Expr = Number | Name | Unary | Binary | Call | Leaf


@dataclass(frozen=True, slots=True)
class Text:
    """A literal piece of an interpolated string, escapes already resolved."""

    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class StringLiteral:
    """A double-quoted string: literal pieces and ``{EXPR}`` holes, in order."""

    span: Span
    parts: tuple[Text | Expr, ...]


# ---- statements --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Let:
    span: Span
    name: str
    name_span: Span
    value: Expr


@dataclass(frozen=True, slots=True)
class ExprStatement:
    """A bare expression. ``backward(...)``, ``graph(...)`` and ``gradcheck(...)`` are calls
    in statement position; the interpreter gives them their statement meaning."""

    span: Span
    expr: Expr


@dataclass(frozen=True, slots=True)
class Print:
    span: Span
    items: tuple[StringLiteral | Expr, ...]


@dataclass(frozen=True, slots=True)
class ZeroGrad:
    """``zero_grad`` (target None: every bound name) or ``zero_grad(EXPR)``."""

    span: Span
    target: Expr | None


@dataclass(frozen=True, slots=True)
class Assert:
    """``assert left OP right [within tolerance]``; ``within`` only with ``==``."""

    span: Span
    op: str
    left: Expr
    right: Expr
    tolerance: Expr | None


@dataclass(frozen=True, slots=True)
class Expect:
    """``expect KIND: STATEMENT``."""

    span: Span
    kind: str
    kind_span: Span
    statement: Statement


Statement = Let | ExprStatement | Print | ZeroGrad | Assert | Expect


@dataclass(frozen=True, slots=True)
class Program:
    statements: tuple[Statement, ...]
