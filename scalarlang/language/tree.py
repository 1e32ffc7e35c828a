"""The abstract syntax of `.sad` programs: plain records (``PlainData``), each with its source span.

The parser (``syntax``) builds these from lark's parse; the interpreter walks them and never
sees a lark tree. Expression trees can be deep (long chains, nested parentheses), so code that
walks them uses an explicit stack, never recursion.
"""

from __future__ import annotations

from .plain_data import PlainData
from .source import Span


# ---- expressions -------------------------------------------------------------------------


class Number(PlainData):
    """A numeric literal (``2``, ``.5``, ``1e-3``, ``inf``, ``nan``): a fresh constant each time."""

    __slots__ = __match_args__ = ("span", "value")

    def __init__(self, span: Span, value: float) -> None:
        self.span = span
        self.value = value


class Name(PlainData):
    __slots__ = __match_args__ = ("span", "name")

    def __init__(self, span: Span, name: str) -> None:
        self.span = span
        self.name = name


class Unary(PlainData):
    """``-operand``."""

    __slots__ = __match_args__ = ("span", "op", "operand")

    def __init__(self, span: Span, op: str, operand: Expr) -> None:
        self.span = span
        self.op = op
        self.operand = operand


class Binary(PlainData):
    """``left op right`` with op one of ``+ - * / // % **``. ``+ - * / // %`` chains are
    left-associative; ``**`` groups to the right and binds tighter than unary minus
    (``-x ** 2`` is ``Unary(-, Binary(**, x, 2))``, ``2 ** 3 ** 2`` is ``2 ** (3 ** 2)``)."""

    __slots__ = __match_args__ = ("span", "op", "left", "right")

    def __init__(self, span: Span, op: str, left: Expr, right: Expr) -> None:
        self.span = span
        self.op = op
        self.left = left
        self.right = right


class Keyword(PlainData):
    """A named argument ``NAME: EXPR`` or ``NAME: "TEXT"`` of a call (``gradcheck(loss, x,
    tolerance: 1e-6)``)."""

    __slots__ = __match_args__ = ("span", "name", "name_span", "value")

    def __init__(self, span: Span, name: str, name_span: Span, value: Expr) -> None:
        self.span = span
        self.name = name
        self.name_span = name_span
        self.value = value


class Call(PlainData):
    """``function(arg, ..., name: arg, ...)``; which names are functions (built-ins or
    ``fn``s) is the interpreter's business. An argument may be a string literal
    (``draw(loss, "g.svg")``): a text, which functions of texts take as a value and those
    that take a file name need in quotes. Named arguments follow the positional ones."""

    __slots__ = __match_args__ = ("span", "function", "function_span", "args", "keywords")

    def __init__(
        self, span: Span, function: str, function_span: Span, args: tuple[Expr, ...], keywords: tuple[Keyword, ...] = ()
    ) -> None:
        self.span = span
        self.function = function
        self.function_span = function_span
        self.args = args
        self.keywords = keywords


class Leaf(PlainData):
    """``var EXPR`` (kind ``"var"``) or ``const EXPR`` (kind ``"const"``)."""

    __slots__ = __match_args__ = ("span", "kind", "operand")

    def __init__(self, span: Span, kind: str, operand: Expr) -> None:
        self.span = span
        self.kind = kind
        self.operand = operand


class Compare(PlainData):
    """``left op right`` with op one of ``== != < <= > >=`` inside an expression: the constant
    1 or 0, through which no gradient flows."""

    __slots__ = __match_args__ = ("span", "op", "left", "right")

    def __init__(self, span: Span, op: str, left: Expr, right: Expr) -> None:
        self.span = span
        self.op = op
        self.left = left
        self.right = right


class ListLiteral(PlainData):
    """``[a, b, ...]`` or a row ``(a, b, ...)``: a list of the items' values (a number item is
    a fresh constant, as everywhere)."""

    __slots__ = __match_args__ = ("span", "items")

    def __init__(self, span: Span, items: tuple[Expr, ...]) -> None:
        self.span = span
        self.items = items


class ForClause(PlainData):
    """``for NAME, ... in SOURCE`` of a comprehension; with ``stop``, the source is the range
    ``SOURCE..STOP`` and there is one name."""

    __slots__ = __match_args__ = ("span", "names", "name_spans", "source", "stop")

    def __init__(
        self, span: Span, names: tuple[str, ...], name_spans: tuple[Span, ...], source: Expr, stop: Expr | None
    ) -> None:
        self.span = span
        self.names = names
        self.name_spans = name_spans
        self.source = source
        self.stop = stop


class Comprehension(PlainData):
    """``[ITEM for ... in ... for ... in ...]``: the first clause is the outermost loop; the
    clauses' names are bound only inside it."""

    __slots__ = __match_args__ = ("span", "item", "clauses")

    def __init__(self, span: Span, item: Expr, clauses: tuple[ForClause, ...]) -> None:
        self.span = span
        self.item = item
        self.clauses = clauses


class Index(PlainData):
    """``target[index]``: counting from 0, a negative index from the end."""

    __slots__ = __match_args__ = ("span", "target", "index")

    def __init__(self, span: Span, target: Expr, index: Expr) -> None:
        self.span = span
        self.target = target
        self.index = index


class Text(PlainData):
    """A literal piece of an interpolated string, escapes already resolved."""

    __slots__ = __match_args__ = ("span", "text")

    def __init__(self, span: Span, text: str) -> None:
        self.span = span
        self.text = text


class Formatted(PlainData):
    """A hole with a format spec, ``{EXPR:SPEC}``: SPEC is Python's for floats (``.3f``)."""

    __slots__ = __match_args__ = ("span", "expr", "spec", "spec_span")

    def __init__(self, span: Span, expr: Expr, spec: str, spec_span: Span) -> None:
        self.span = span
        self.expr = expr
        self.spec = spec
        self.spec_span = spec_span


class StringLiteral(PlainData):
    """A double-quoted string: literal pieces and ``{EXPR}`` holes, in order. As an expression
    its value is a text (its holes filled each time it is evaluated); a call's argument that
    the callable takes as a text in quotes (a file name) must be one."""

    __slots__ = __match_args__ = ("span", "parts")

    def __init__(self, span: Span, parts: tuple[Text | Expr | Formatted, ...]) -> None:
        self.span = span
        self.parts = parts


Expr = (
    Number | Name | Unary | Binary | Compare | Call | Leaf | ListLiteral | Comprehension | Index
    | StringLiteral
)


# ---- statements --------------------------------------------------------------------------


class Let(PlainData):
    """``let NAME = EXPR``."""

    __slots__ = __match_args__ = ("span", "name", "name_span", "value")

    def __init__(self, span: Span, name: str, name_span: Span, value: Expr) -> None:
        self.span = span
        self.name = name
        self.name_span = name_span
        self.value = value


class ExprStatement(PlainData):
    """A bare expression. ``backward(...)``, ``graph(...)`` and ``gradcheck(...)`` are calls
    in statement position; the interpreter gives them their statement meaning."""

    __slots__ = __match_args__ = ("span", "expr")

    def __init__(self, span: Span, expr: Expr) -> None:
        self.span = span
        self.expr = expr


class Print(PlainData):
    __slots__ = __match_args__ = ("span", "items")

    def __init__(self, span: Span, items: tuple[Expr, ...]) -> None:
        self.span = span
        self.items = items


class ZeroGrad(PlainData):
    """``zero_grad`` (target None: every bound name) or ``zero_grad(EXPR)``."""

    __slots__ = __match_args__ = ("span", "target")

    def __init__(self, span: Span, target: Expr | None) -> None:
        self.span = span
        self.target = target


class Assert(PlainData):
    """``assert left OP right [within tolerance]``; ``within`` only with ``==``."""

    __slots__ = __match_args__ = ("span", "op", "left", "right", "tolerance")

    def __init__(self, span: Span, op: str, left: Expr, right: Expr, tolerance: Expr | None) -> None:
        self.span = span
        self.op = op
        self.left = left
        self.right = right
        self.tolerance = tolerance


class Expect(PlainData):
    """``expect KIND: STATEMENT``."""

    __slots__ = __match_args__ = ("span", "kind", "kind_span", "statement")

    def __init__(self, span: Span, kind: str, kind_span: Span, statement: Statement) -> None:
        self.span = span
        self.kind = kind
        self.kind_span = kind_span
        self.statement = statement


class FunctionDef(PlainData):
    """``fn NAME(P, ...) = EXPR``: a call evaluates ``body`` afresh with each parameter bound
    to its argument's node; other names are looked up when the call runs."""

    __slots__ = __match_args__ = ("span", "name", "name_span", "params", "param_spans", "body")

    def __init__(
        self, span: Span, name: str, name_span: Span, params: tuple[str, ...], param_spans: tuple[Span, ...], body: Expr
    ) -> None:
        self.span = span
        self.name = name
        self.name_span = name_span
        self.params = params
        self.param_spans = param_spans
        self.body = body


class Block(PlainData):
    """``{ statement ... }``; its span runs from ``{`` to ``}``. No scope of its own."""

    __slots__ = __match_args__ = ("span", "statements")

    def __init__(self, span: Span, statements: tuple[Statement, ...]) -> None:
        self.span = span
        self.statements = statements


class Repeat(PlainData):
    """``repeat COUNT { ... }``; ``span`` covers the whole loop (its start names the loop)."""

    __slots__ = __match_args__ = ("span", "count", "body")

    def __init__(self, span: Span, count: Expr, body: Block) -> None:
        self.span = span
        self.count = count
        self.body = body


class ForRange(PlainData):
    """``for NAME in START..STOP { ... }``: NAME is the count k, START <= k < STOP."""

    __slots__ = __match_args__ = ("span", "name", "name_span", "start", "stop", "body")

    def __init__(self, span: Span, name: str, name_span: Span, start: Expr, stop: Expr, body: Block) -> None:
        self.span = span
        self.name = name
        self.name_span = name_span
        self.start = start
        self.stop = stop
        self.body = body


class ForEach(PlainData):
    """``for NAME, ... in SOURCE { ... }``: SOURCE is a list; one name takes each item, several
    names take the items of each row."""

    __slots__ = __match_args__ = ("span", "names", "name_spans", "source", "body")

    def __init__(
        self, span: Span, names: tuple[str, ...], name_spans: tuple[Span, ...], source: Expr, body: Block
    ) -> None:
        self.span = span
        self.names = names
        self.name_spans = name_spans
        self.source = source
        self.body = body


class If(PlainData):
    """``if LEFT OP RIGHT { ... } [else { ... }]``; ``else if`` is an ``otherwise`` block
    holding one ``If``."""

    __slots__ = __match_args__ = ("span", "op", "left", "right", "then", "otherwise")

    def __init__(self, span: Span, op: str, left: Expr, right: Expr, then: Block, otherwise: Block | None) -> None:
        self.span = span
        self.op = op
        self.left = left
        self.right = right
        self.then = then
        self.otherwise = otherwise


class Descend(PlainData):
    """``descend NAME, ... by RATE``."""

    __slots__ = __match_args__ = ("span", "names", "name_spans", "rate")

    def __init__(self, span: Span, names: tuple[str, ...], name_spans: tuple[Span, ...], rate: Expr) -> None:
        self.span = span
        self.names = names
        self.name_spans = name_spans
        self.rate = rate


class While(PlainData):
    """``while CONDITION { ... }``: the body runs while the condition's value is not 0."""

    __slots__ = __match_args__ = ("span", "condition", "body")

    def __init__(self, span: Span, condition: Expr, body: Block) -> None:
        self.span = span
        self.condition = condition
        self.body = body


class Break(PlainData):
    """``break``: leaves the innermost ``repeat``, ``for`` or ``while`` (the parser checks
    that there is one)."""

    __slots__ = __match_args__ = ("span",)

    def __init__(self, span: Span) -> None:
        self.span = span


class Quiet(PlainData):
    """``quiet STATEMENT``: the statement runs without its display."""

    __slots__ = __match_args__ = ("span", "statement")

    def __init__(self, span: Span, statement: Statement) -> None:
        self.span = span
        self.statement = statement


Statement = (
    Let | ExprStatement | Print | ZeroGrad | Assert | Expect
    | FunctionDef | Repeat | ForRange | ForEach | If | Descend | Quiet | While | Break
)


class Program(PlainData):
    """A whole program: its top-level statements in order."""

    __slots__ = __match_args__ = ("statements",)

    def __init__(self, statements: tuple[Statement, ...]) -> None:
        self.statements = statements


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
