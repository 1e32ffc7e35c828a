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
    """``left op right`` with op one of ``+ - * / // % **``. ``+ - * / // %`` chains are
    left-associative; ``**`` groups to the right and binds tighter than unary minus
    (``-x ** 2`` is ``Unary(-, Binary(**, x, 2))``, ``2 ** 3 ** 2`` is ``2 ** (3 ** 2)``)."""

    span: Span
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Keyword:
    """A named argument ``NAME: EXPR`` or ``NAME: "TEXT"`` of a call (``gradcheck(loss, x,
    tolerance: 1e-6)``)."""

    span: Span
    name: str
    name_span: Span
    value: Expr


@dataclass(frozen=True, slots=True)
class Call:
    """``function(arg, ..., name: arg, ...)``; which names are functions (built-ins or
    ``fn``s) is the interpreter's business. An argument may be a string literal
    (``draw(loss, "g.svg")``): a text, which functions of texts take as a value and those
    that take a file name need in quotes. Named arguments follow the positional ones."""

    span: Span
    function: str
    function_span: Span
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...] = ()


@dataclass(frozen=True, slots=True)
class Leaf:
    """``var EXPR`` (kind ``"var"``) or ``const EXPR`` (kind ``"const"``)."""

    span: Span
    kind: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class Compare:
    """``left op right`` with op one of ``== != < <= > >=`` inside an expression: the constant
    1 or 0, through which no gradient flows."""

    span: Span
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class ListLiteral:
    """``[a, b, ...]`` or a row ``(a, b, ...)``: a list of the items' values (a number item is
    a fresh constant, as everywhere)."""

    span: Span
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ForClause:
    """``for NAME, ... in SOURCE`` of a comprehension; with ``stop``, the source is the range
    ``SOURCE..STOP`` and there is one name."""

    span: Span
    names: tuple[str, ...]
    name_spans: tuple[Span, ...]
    source: Expr
    stop: Expr | None


@dataclass(frozen=True, slots=True)
class Comprehension:
    """``[ITEM for ... in ... for ... in ...]``: the first clause is the outermost loop; the
    clauses' names are bound only inside it."""

    span: Span
    item: Expr
    clauses: tuple[ForClause, ...]


@dataclass(frozen=True, slots=True)
class Index:
    """``target[index]``: counting from 0, a negative index from the end."""

    span: Span
    target: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class Text:
    """A literal piece of an interpolated string, escapes already resolved."""

    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class Formatted:
    """A hole with a format spec, ``{EXPR:SPEC}``: SPEC is Python's for floats (``.3f``)."""

    span: Span
    expr: Expr
    spec: str
    spec_span: Span


@dataclass(frozen=True, slots=True)
class StringLiteral:
    """A double-quoted string: literal pieces and ``{EXPR}`` holes, in order. As an expression
    its value is a text (its holes filled each time it is evaluated); a call's argument that
    the callable takes as a text in quotes (a file name) must be one."""

    span: Span
    parts: tuple[Text | Expr | Formatted, ...]


Expr = (
    Number | Name | Unary | Binary | Compare | Call | Leaf | ListLiteral | Comprehension | Index
    | StringLiteral
)


# ---- statements --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Let:
    """``let NAME = EXPR``."""

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
    items: tuple[Expr, ...]


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


@dataclass(frozen=True, slots=True)
class FunctionDef:
    """``fn NAME(P, ...) = EXPR``: a call evaluates ``body`` afresh with each parameter bound
    to its argument's node; other names are looked up when the call runs."""

    span: Span
    name: str
    name_span: Span
    params: tuple[str, ...]
    param_spans: tuple[Span, ...]
    body: Expr


@dataclass(frozen=True, slots=True)
class Block:
    """``{ statement ... }``; its span runs from ``{`` to ``}``. No scope of its own."""

    span: Span
    statements: tuple[Statement, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    """``repeat COUNT { ... }``; ``span`` covers the whole loop (its start names the loop)."""

    span: Span
    count: Expr
    body: Block


@dataclass(frozen=True, slots=True)
class ForRange:
    """``for NAME in START..STOP { ... }``: NAME is the count k, START <= k < STOP."""

    span: Span
    name: str
    name_span: Span
    start: Expr
    stop: Expr
    body: Block


@dataclass(frozen=True, slots=True)
class ForEach:
    """``for NAME, ... in SOURCE { ... }``: SOURCE is a list; one name takes each item, several
    names take the items of each row."""

    span: Span
    names: tuple[str, ...]
    name_spans: tuple[Span, ...]
    source: Expr
    body: Block


@dataclass(frozen=True, slots=True)
class If:
    """``if LEFT OP RIGHT { ... } [else { ... }]``; ``else if`` is an ``otherwise`` block
    holding one ``If``."""

    span: Span
    op: str
    left: Expr
    right: Expr
    then: Block
    otherwise: Block | None


@dataclass(frozen=True, slots=True)
class Descend:
    """``descend NAME, ... by RATE``."""

    span: Span
    names: tuple[str, ...]
    name_spans: tuple[Span, ...]
    rate: Expr


@dataclass(frozen=True, slots=True)
class While:
    """``while CONDITION { ... }``: the body runs while the condition's value is not 0."""

    span: Span
    condition: Expr
    body: Block


@dataclass(frozen=True, slots=True)
class Break:
    """``break``: leaves the innermost ``repeat``, ``for`` or ``while`` (the parser checks
    that there is one)."""

    span: Span


@dataclass(frozen=True, slots=True)
class Quiet:
    """``quiet STATEMENT``: the statement runs without its display."""

    span: Span
    statement: Statement


Statement = (
    Let | ExprStatement | Print | ZeroGrad | Assert | Expect
    | FunctionDef | Repeat | ForRange | ForEach | If | Descend | Quiet | While | Break
)


@dataclass(frozen=True, slots=True)
class Program:
    """A whole program: its top-level statements in order."""

    statements: tuple[Statement, ...]


def operands(expr: Expr) -> tuple[Expr, ...]:
    """The expressions directly inside ``expr`` (a string's: its holes), for walks over a tree
    that go by an explicit stack."""
    if isinstance(expr, (Binary, Compare)):
        return (expr.left, expr.right)
    if isinstance(expr, (Unary, Leaf)):
        return (expr.operand,)
    if isinstance(expr, Call):
        return (*expr.args, *(keyword.value for keyword in expr.keywords))
    if isinstance(expr, StringLiteral):
        return tuple(
            part.expr if isinstance(part, Formatted) else part for part in expr.parts if not isinstance(part, Text)
        )
    if isinstance(expr, Index):
        return (expr.target, expr.index)
    if isinstance(expr, ListLiteral):
        return expr.items
    if isinstance(expr, Comprehension):
        sources = [part for clause in expr.clauses for part in (clause.source, clause.stop) if part is not None]
        return (expr.item, *sources)
    return ()
