"""What a compile function is given, as types: the faces of the compiler and of the run that
compile functions see (where the code is and how to compile its parts, the session's state,
how to report), and the two objects they share with the core (a `Function` defined with `fn`,
the `Budget` of comprehensions).

The compile functions of expressions (`operations`, `lists`, `texts`, `calls`, the library's
value functions) take a `Compiling`; those of statements (`statements`, the library's
statement-like calls) take a `Running`. `expressions.Compiler` and `control.Run` are what is
passed, but no compile function imports them: the modules below the compiler form a line, not
a circle through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from random import Random
    from typing import Protocol

    from ..engine.scalar import Scalar
    from ..language import tree
    from ..language.diagnostics import Diagnostic, LanguageError
    from ..language.source import Source, Span
    from .outcomes import GraphShown, Outcome
    from .state import SessionState
    from .values import Made

# An expression compiled: ``evaluate(args)`` gives a Scalar, a ListValue or a TextValue.
Evaluate = Callable[["tuple | None"], Any]

# At most this many iterations of comprehensions in all while one statement runs (nested
# ones multiply), and as many calls of functions defined with `fn` (a function calling another
# twice, thirty levels deep, would make 2^30 calls from thirty lines): the driver refills the
# budget before each statement.
MAX_ITEMS = 1_000_000
MAX_CALLS = 1_000_000


class Budget:
    """The iterations of comprehensions and the calls of `fn` functions a statement has left
    (the driver refills both before each statement): a bound on their time and on the nodes
    they make, whatever their nesting."""

    __slots__ = ("left", "calls")

    def __init__(self) -> None:
        self.left = MAX_ITEMS
        self.calls = MAX_CALLS

    def refill(self) -> None:
        self.left = MAX_ITEMS
        self.calls = MAX_CALLS


class Function:
    """A function defined by ``fn``: its body compiled with its parameters as argument slots."""

    __slots__ = ("name", "params", "arity", "body", "origin", "depth", "span")

    def __init__(self, name: str, params: tuple[str, ...], body, origin, depth: int, span: Span):
        self.name = name
        self.params = params
        self.arity = len(params)
        self.body = body
        self.origin = origin  # the tag of the body's own result node
        self.depth = depth
        self.span = span

    def signature(self) -> str:
        return f"{self.name}({', '.join(self.params)})"


if TYPE_CHECKING:  # (faces for mypy: making Protocol classes costs every start-up a millisecond)

    class Builtins(Protocol):
        """The library handed to the interpreter (`library.registry.Library`): its entries by name."""

        @property
        def values(self) -> Mapping[str, Any]: ...
        @property
        def statements(self) -> Mapping[str, Any]: ...
        def is_reserved(self, name: str) -> bool: ...


    class Compiling(Protocol):
        """The compiler as a compile function of an expression sees it (`expressions.Compiler`)."""

        names: dict  # the session's names (a function body's compiler: the names it may call)
        source: Source
        params: dict[str, int] | None  # names in argument slots: parameters, comprehensions' names
        slots: int
        early: bool  # a function body: calls are resolved when it is compiled
        random: Any  # the session's generator, for `uniform`, `gauss`, `sample`
        budget: Budget
        call_depth: int

        @property
        def library(self) -> Builtins: ...  # the built-ins the session was handed

        # ---- how to report ----------------------------------------------------------------------
        def fail(self, kind: str, message: str, span: Span, fields=None, notes=()) -> LanguageError: ...
        def engine_error(self, error: Any, span: Span) -> LanguageError: ...
        def drawing_error(self, error: Any, span: Span) -> LanguageError: ...
        def node_check(self, expr: tree.Expr, needed_by: str) -> Callable[[Any], LanguageError]: ...
        def list_check(self, expr: tree.Expr, needed_by: str) -> Callable[..., LanguageError]: ...
        def name_failure(self, key: str, value: object, span: Span) -> LanguageError: ...
        def resolve_failure(self, call: tree.Call, function: object) -> LanguageError: ...
        def not_nodes(self, left: tree.Expr, right: tree.Expr, needed_by: str) -> Callable[[Any, Any], LanguageError]: ...
        def text_of(self, expr: Any) -> str: ...
        def check_written_whole(self, value: object, span: Span) -> None: ...
        def whole(self, value: float, span: Span, what: str) -> int: ...

        # ---- where the code is, and its parts compiled ----------------------------------------
        def origin(self, span: Span, count: bool = False, form: str | None = None) -> Made: ...
        def values(self, call: tree.Call) -> tuple[tree.Expr, ...]: ...
        def expression(self, expr: tree.Expr) -> Evaluate: ...
        def depth_of(self, expr: tree.Expr) -> tuple[Evaluate, int]: ...
        def number(self, expr: tree.Expr) -> Callable[[tuple | None], float]: ...
        def number_and_frames(self, expr: tree.Expr) -> tuple[Callable[[tuple | None], float], int]: ...
        def text(self, item: tree.Expr) -> Callable[[tuple | None], str]: ...
        def text_argument(self, item: tree.Expr, needed_by: str) -> Callable[[tuple | None], str]: ...
        def node_expression(self, expr: tree.Expr, needed_by: str) -> Callable[[tuple | None], Scalar]: ...
        def defined_function(self, name: str, span: Span, needed_by: str) -> Function: ...
        def body_compiler(self, names: dict, params: tuple[str, ...], function: str) -> Compiling: ...


    class Session(Protocol):
        """What statements read of the session beyond its state (`core.Interpreter`)."""

        pass_observer: Callable[..., object] | None
        text_width: int

        @property
        def random(self) -> Random: ...
        def graph_of(self, node: Scalar, span: Span) -> GraphShown: ...


    class Running(Protocol):
        """One run as a compile function of a statement sees it (`control.Run`)."""

        @property
        def compiler(self) -> Compiling: ...
        @property
        def state(self) -> SessionState: ...
        @property
        def session(self) -> Session: ...
        @property
        def names(self) -> dict: ...
        @property
        def echo(self) -> bool: ...  # False: bindings make no outcome at all
        @property
        def muted(self) -> int: ...  # inside `expect`: nothing is shown
        @property
        def budget(self) -> Budget: ...

        def emit(self, outcome: Outcome) -> None: ...
        def trial(self, statement: tree.Statement, actions: list) -> Diagnostic | None: ...
