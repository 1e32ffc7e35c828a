"""Every built-in callable of `.sad`, in two tables: the value functions (`exp(x)`, `sum(L)`,
`read_table("data.csv")`: values inside expressions) and the statement-like calls
(`backward(loss)`, `draw(x, "x.svg")`: statements of their own).

An entry holds all that the rest of the system knows of its callable: its name, how many
arguments it takes and the kind of each (a value, a list, a text such as a file name, the name of a
function), its named options, the function that compiles a call of it, and what `:help` says
of it (its usage, a one-line summary, a category). The compiler, the statements, the reserved
names, the REPL's completion and `:help`, and the highlighter read these tables; no other
place lists built-in names. `call_problem` checks a call against its entry before the entry's
compile function sees it, so a compile function may take its arguments as its entry says.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...engine.scalar import Scalar
from ...language import tree
from ...language.diagnostics import LanguageError
from ...language.overview import CHAIN_RULE, FORWARD_MODE, GRAPH, LISTS, PICTURES, TASKS, TENSORS, TEXTS, TRAINING
from ..values import LABEL_LIMIT, shorten, suggestion
from .arguments import Kind, checked
from .families import Later, LaterTensorsToo, family, tensors_too

if TYPE_CHECKING:
    from ..context import Compiling, Running

# A value function's compile function: ``compile(compiler, call)`` gives ``(combine, operand
# expressions)`` or ``(combine, operand expressions, fuse)`` (see `expressions`).
CompileValue = Callable[["Compiling", tree.Call], tuple]
# A statement-like call's: ``compile(run, statement, call)`` gives the statement's action.
CompileStatement = Callable[["Running", tree.ExprStatement, tree.Call], Callable[[bool], Any]]


VALUE, LIST, TEXT, FUNCTION = Kind.VALUE, Kind.LIST, Kind.TEXT, Kind.FUNCTION
NODE, NODES, STRING, TEXT_LIST = Kind.NODE, Kind.NODES, Kind.STRING, Kind.TEXTS


# The families of the library, by the module that holds their compile functions.
_nodes, _lists, _logits, _texts = family("node_functions"), family("list_functions"), family("logits"), family("text_functions")
_graphs, _chain_rule, _tensor_walk = family("graphs"), family("chain_rule"), family("tensor_walk")
_gradient_check, _vjp_check, _forward_mode = family("gradient_check"), family("vjp_check"), family("forward_mode")
_plots, _tensor_functions, _tensor_forms = family("plots"), family("tensor_functions"), family("tensor_forms")


# (Plain classes with slots, not dataclasses: a dataclass costs its class a code generation at
# import, and every run of the command imports this module.)


class Arity:
    """How many arguments a callable takes: ``least`` to ``most`` (None: no upper bound)."""

    __slots__ = ("least", "most")

    def __init__(self, least: int, most: int | None):
        self.least = least
        self.most = most

    def accepts(self, count: int) -> bool:
        return self.least <= count and (self.most is None or count <= self.most)

    def text(self) -> str:
        """``1 argument``, ``1 or 2 arguments``, ``2 or more arguments``."""
        if self.most is None:
            return f"{self.least} or more arguments"
        counts = list(range(self.least, self.most + 1))
        wanted = " or ".join(str(count) for count in counts) if len(counts) <= 2 else f"{self.least} to {self.most}"
        return f"{wanted} argument{'' if counts == [1] else 's'}"

    def expected(self) -> list[int] | str:
        """The ``expected`` field of a `wrong-arguments` error."""
        if self.most is None:
            return f"{self.least} or more"
        return list(range(self.least, self.most + 1))


def arity(least: int, most: int | None | str = "same") -> Arity:
    """``arity(1)``: exactly one; ``arity(1, 2)``: one or two; ``arity(1, None)``: one or more."""
    return Arity(least, least if most == "same" else most)  # type: ignore[arg-type]


class Entry:
    """What the two kinds of entry share: the shape of a call and its help. Read-only."""

    __slots__ = ("name", "arity", "later", "usage", "summary", "category", "kinds", "options", "notes", "takes", "empty")

    def __init__(
        self,
        name: str,
        arity: Arity,
        compile: Callable | Later | LaterTensorsToo,
        usage: str | tuple[str, ...],
        summary: str,
        category: str,
        kinds: tuple[Kind, ...] = (Kind.VALUE,),
        options: Mapping[str, Kind] | None = None,
        notes: tuple[str, ...] = (),
        takes: str | None = None,
        empty: str | None = None,
    ):
        self.name = name
        self.arity = arity
        # Its compile function, or where to find it (`Later`): see `compile`.
        self.later = compile
        # How `:help` shows it: its forms (`backward(EXPR)`, `backward(EXPR, SEED)`), what it
        # does in one line, and the heading it is listed under; notes are lines of their own.
        self.usage: tuple[str, ...] = (usage,) if isinstance(usage, str) else usage
        self.summary = summary
        self.category = category
        # The kind of each argument in order; the last one repeats for any further argument.
        self.kinds = kinds
        # Named options (`step: 1e-4`) and the kind of each one's value.
        self.options: Mapping[str, Kind] = options or {}
        self.notes = notes
        # When given, a call of the wrong shape is told `NAME takes {takes}` (how `draw` and
        # `read_table` say what their text argument is).
        self.takes = takes
        # A `NODES` argument must have items: what an empty list lacks (`no terms`).
        self.empty = empty

    def kind_of(self, index: int) -> Kind:
        return self.kinds[min(index, len(self.kinds) - 1)]

    @property
    def compile(self) -> Callable:
        """The compile function, its family imported on first use."""
        later = self.later
        if later.__class__ is Later or later.__class__ is LaterTensorsToo:
            return later.resolved()  # type: ignore[union-attr]
        return later  # type: ignore[return-value]


class ValueFunction(Entry):
    """A function whose call is a value: ``compile(compiler, call)``."""

    __slots__ = ()

    def compiled(self, compiler: Compiling, call: tree.Call) -> tuple:
        """``(combine, operands, fuse)`` of a call already checked against the entry (see
        `call_problem`): its arguments' values are checked by kind before ``combine`` runs
        (a name tensors have too: by kind unless one is a tensor, see tensor_forms.py)."""
        function = self.compile
        if self.later.__class__ is LaterTensorsToo:
            return function.compiled(self.name, self.kind_of, self.empty, compiler, call)  # type: ignore[attr-defined]
        return checked(self.name, self.kind_of, self.empty, compiler, call, function(compiler, call))


class StatementCall(Entry):
    """A call that is a statement of its own: ``compile(run, statement, call)``."""

    __slots__ = ()


def _table(*entries: Any) -> dict:
    return {entry.name: entry for entry in entries}


# An entry's category is the task `:help` lists it under: language/overview.py's tasks, in
# their order (an entry of another category gets a heading of its own after these). The
# names below say which kind of entry goes under which task.
CATEGORIES = TASKS
_PASSES = _ENGINE = _GRADIENTS = GRAPH
_DATA = TRAINING
_LISTS, _CHAIN_RULE, _PICTURES = LISTS, CHAIN_RULE, PICTURES
_TEXTS = _MODELS = TEXTS
_CHARTS = PICTURES
_TENSORS = TENSORS
AXIS = {"axis": VALUE}
_FORWARD = FORWARD_MODE

VALUE_FUNCTIONS: dict[str, ValueFunction] = _table(
    ValueFunction("exp", arity(1), tensors_too(_nodes("engine_unary", Scalar.exp), _tensor_forms("method", "exp")), "exp(X)", "e to the power X", _ENGINE, (NODE,)),
    ValueFunction("tanh", arity(1), tensors_too(_nodes("engine_unary", Scalar.tanh), _tensor_forms("method", "tanh")), "tanh(X)", "the hyperbolic tangent", _ENGINE, (NODE,)),
    ValueFunction("log", arity(1), tensors_too(_nodes("engine_unary", Scalar.log), _tensor_forms("method", "log")), "log(X)", "the natural logarithm", _ENGINE, (NODE,)),
    ValueFunction("detach", arity(1), tensors_too(_nodes("engine_unary", Scalar.detach), _tensor_forms("method", "detach")), "detach(X)",
        "an untracked copy of X's value: no gradient flows back", _GRADIENTS, (NODE,)),
    ValueFunction("grad", arity(1), tensors_too(_nodes("compile_grad"), _tensor_forms("gradient_of")), "grad(X)", "a constant holding X's stored gradient", _GRADIENTS, (NODE,)),
    ValueFunction("value", arity(1), tensors_too(_nodes("compile_value"), _tensor_forms("value_of")), "value(X)", "a constant holding X's value", _GRADIENTS, (NODE,)),
    ValueFunction("sqrt", arity(1), tensors_too(_nodes("engine_unary", Scalar.sqrt), _tensor_forms("method", "sqrt")), "sqrt(X)", "the square root", _ENGINE, (NODE,)),
    ValueFunction("relu", arity(1), tensors_too(_nodes("engine_unary", Scalar.relu), _tensor_forms("method", "relu")), "relu(X)", "max(0, X); derivative 0 at 0", _ENGINE, (NODE,)),
    ValueFunction("sigmoid", arity(1), tensors_too(_nodes("engine_unary", Scalar.sigmoid), _tensor_forms("method", "sigmoid")), "sigmoid(X)", "1 / (1 + e^-X)", _ENGINE, (NODE,)),
    ValueFunction("abs", arity(1), tensors_too(_nodes("engine_unary", Scalar.abs), _tensor_forms("method", "abs")), "abs(X)", "|X|; derivative 0 at 0", _ENGINE, (NODE,)),
    ValueFunction("max", arity(1, None), tensors_too(_logits("compile_max"), _tensor_forms("pairwise", "max")), ("max(A, B)", "max(L)", "max(A, B, C, …)", "max(T[, axis: K])"),
        "the larger (a tie shares the gradient); of a list, its first largest item", _ENGINE, options=AXIS),
    ValueFunction("min", arity(1, None), tensors_too(_logits("compile_min"), _tensor_forms("pairwise", "min")), ("min(A, B)", "min(L)", "min(A, B, C, …)", "min(T[, axis: K])"),
        "the smaller (a tie shares the gradient); of a list, its first smallest item", _ENGINE, options=AXIS),
    ValueFunction("sum", arity(1, None), tensors_too(_lists("compile_sum"), _tensor_forms("reduction", "sum")), ("sum(L)", "sum(A, B, …)", "sum(T[, axis: K])"),
        "the left fold L[0] + L[1] + …", _LISTS, options=AXIS),
    ValueFunction("mean", arity(1, None), tensors_too(_lists("compile_mean"), _tensor_forms("reduction", "mean")), ("mean(L)", "mean(A, B, …)", "mean(T[, axis: K])"),
        "the sum divided by the count", _LISTS, options=AXIS),
    ValueFunction("node_count", arity(1), _nodes("compile_node_count"), "node_count(X)",
        "the unique nodes of X's graph", _GRADIENTS, (NODE,)),
    ValueFunction("edge_count", arity(1), _nodes("compile_edge_count"), "edge_count(X)",
        "the operand edges of X's graph", _GRADIENTS, (NODE,)),
    ValueFunction("len", arity(1), tensors_too(_lists("compile_len"), _tensor_forms("length")), ("len(L)", "len(T)"),
        "the number of items of a list, of characters of a text, of rows of a tensor", _LISTS),
    ValueFunction("dot", arity(2), _lists("compile_dot"), "dot(A, B)", "A[0]*B[0] + A[1]*B[1] + …", _LISTS, (LIST,)),
    ValueFunction("flatten", arity(1, None), _lists("compile_flatten"), "flatten(L, …)",
        "every node the arguments hold, in one list", _LISTS),
    ValueFunction("zip", arity(1, None), _lists("compile_zip"), "zip(A, B, …)", "the rows [A[i], B[i], …]", _LISTS, (LIST,)),
    ValueFunction("uniform", arity(2), _lists("compile_uniform"), "uniform(A, B)",
        "a constant drawn uniformly from A to B", _DATA, (NODE,)),
    ValueFunction("gauss", arity(2), _lists("compile_gauss"), "gauss(MU, SIGMA)",
        "a constant drawn from a normal distribution", _DATA, (NODE,)),
    ValueFunction("shuffle", arity(1), _lists("compile_shuffle"), "shuffle(L)",
        "L's items in a random order, as Python's random.shuffle puts them", _DATA, (LIST,)),
    ValueFunction("read_table", arity(1), _lists("compile_read_table"), 'read_table("FILE.csv")',
        "the rows of numbers of a CSV file, as constants", _DATA, (TEXT,),
        takes='a file name, a text: read_table("data.csv") or read_table(path)'),
    ValueFunction("floor", arity(1), _nodes("compile_floor"), "floor(X)",
        "the largest whole number not above X: a constant, no gradient", _ENGINE, (NODE,)),
    ValueFunction("read_text", arity(1), _texts("compile_read_text"), 'read_text("FILE")',
        "the text of a UTF-8 file (its \\r\\n read as \\n)", _TEXTS, (TEXT,),
        takes='a file name, a text: read_text("names.txt") or read_text(path)'),
    ValueFunction("lines", arity(1), _texts("compile_lines"), "lines(T)",
        "the lines of a text, without their \\n", _TEXTS, (STRING,)),
    ValueFunction("chars", arity(1), _texts("compile_chars"), "chars(T)",
        "the distinct characters of a text, sorted: a vocabulary", _TEXTS, (STRING,)),
    ValueFunction("join", arity(1, 2), _texts("compile_join"), ("join(L)", "join(L, SEP)"),
        "a list of texts as one text (with SEP between them)", _TEXTS, (TEXT_LIST, STRING)),
    ValueFunction("encode", arity(2), _texts("compile_encode"), "encode(T, VOCAB)",
        "the index in VOCAB of each character of T", _TEXTS, (STRING, VALUE)),
    ValueFunction("decode", arity(2), _texts("compile_decode"), "decode(L, VOCAB)",
        "the text of the characters of VOCAB at the indices in L", _TEXTS, (NODES, VALUE)),
    ValueFunction("argmax", arity(1), tensors_too(_logits("compile_argmax"), _tensor_forms("reduction", "argmax", default_axis=-1)),
        ("argmax(L)", "argmax(T[, axis: K])"), "the index of the first largest item, a constant", _LISTS, (NODES,), options=AXIS, empty="no largest item"),
    ValueFunction("argmin", arity(1), tensors_too(_logits("compile_argmin"), _tensor_forms("reduction", "argmin", default_axis=-1)),
        ("argmin(L)", "argmin(T[, axis: K])"), "the index of the first smallest item, a constant", _LISTS, (NODES,), options=AXIS, empty="no smallest item"),
    ValueFunction("logsumexp", arity(1), tensors_too(_logits("compile_logsumexp"), _tensor_forms("reduction", "logsumexp")),
        ("logsumexp(L)", "logsumexp(T[, axis: K])"),
        "log(exp(L[0]) + exp(L[1]) + …) without overflow; its edges carry softmax(L)", _MODELS, (NODES,), options=AXIS, empty="no terms"),
    ValueFunction("softmax", arity(1), tensors_too(_logits("compile_softmax"), _tensor_forms("reduction", "softmax", default_axis=-1)),
        ("softmax(L)", "softmax(T[, axis: K])"), "the probabilities exp(L[i] - logsumexp(L)), a list (of a tensor: along the last axis)",
        _MODELS, (NODES,), options=AXIS, empty="no terms"),
    ValueFunction("cross_entropy", arity(2), tensors_too(_logits("compile_cross_entropy"), _tensor_forms("cross_entropy")),
        ("cross_entropy(LOGITS, TARGET)", "cross_entropy(Z, Y)"),
        "logsumexp(LOGITS) - LOGITS[TARGET]: the loss of one example (Z [B, V], Y B indices: the B row losses)", _MODELS, (NODES, VALUE), empty="no classes"),
    ValueFunction("one_hot", arity(2), tensors_too(_logits("compile_one_hot"), _tensor_forms("one_hot"), lists=True), ("one_hot(I, N)", "one_hot(INDICES, N)"),
        "N constants, 1 at index I and 0 elsewhere (of a list or tensor of indices: a constant tensor [len, N])", _MODELS,
        (NODE,)),
    ValueFunction("jvp", arity(2, 3), _forward_mode("compile_jvp"), ("jvp(Y, X)", "jvp(Y, [X, …], [V, …])"),
        "Y's tangent along X (or along V: one number per X) by one forward pass: a constant", _FORWARD,
        (NODE, VALUE, VALUE)),
    ValueFunction("sample", arity(1), tensors_too(_logits("compile_sample"), _tensor_forms("sample")), ("sample(P)", "sample(T)"),
        "an index drawn with probabilities P (a list, or a rank-1 tensor), as Python's random.choices draws it", _MODELS, (NODES,),
        empty="no index to draw"),
    ValueFunction("tensor", arity(1), _tensor_functions("compile_tensor"), "tensor(L)",
        "a tensor of a rectangular list (of tracked nodes: one stacking node); a table's rows: rank 2", _TENSORS),
    ValueFunction("zeros", arity(1, None), _tensor_functions("compile_filled", "zeros"), "zeros(S, …)",
        "a constant tensor of shape S of zeros (`var zeros(S, …)`: a variable)", _TENSORS),
    ValueFunction("ones", arity(1, None), _tensor_functions("compile_filled", "ones"), "ones(S, …)",
        "a constant tensor of shape S of ones", _TENSORS),
    ValueFunction("randn", arity(1, None), _tensor_functions("compile_filled", "randn"), "randn(S, …)",
        "gauss(0, 1) for each element, row major, from the session's generator", _TENSORS),
    ValueFunction("rand", arity(1, None), _tensor_functions("compile_filled", "rand"), "rand(S, …)",
        "uniform(0, 1) for each element, row major, from the session's generator", _TENSORS),
    ValueFunction("shape", arity(1), _tensor_functions("compile_shape"), "shape(T)", "a tensor's dimensions, a list", _TENSORS),
    ValueFunction("reshape", arity(2, None), _tensor_functions("compile_reshape"), "reshape(T, S, …)",
        "the same elements in shape S (one dimension may be -1)", _TENSORS),
    ValueFunction("transpose", arity(1, 3), _tensor_functions("compile_transpose"), ("transpose(T)", "transpose(T, A, B)"),
        "a rank-2 tensor's axes swapped, or axes A and B", _TENSORS),
)

STATEMENT_FUNCTIONS: dict[str, StatementCall] = _table(
    StatementCall("backward", arity(1, 2), _graphs("compile_backward"), ("backward(EXPR)", "backward(EXPR, SEED)"),
        "a reverse pass from EXPR, committed: its node and edge tables", _PASSES),
    StatementCall("graph", arity(1), _graphs("compile_graph"), "graph(EXPR)", "the nodes of EXPR's graph, changing nothing",
        _PASSES),
    StatementCall("gradcheck", arity(2, None), _gradient_check("compile_gradcheck"),
        ("gradcheck(OUT, X, Y, …[, step: S][, tolerance: T])", "gradcheck(OUT, X, STEP, TOLERANCE)"),
        "each variable's pass adjoint against a central difference", _PASSES,
        options={"step": VALUE, "tolerance": VALUE},
        notes=("(with 4 arguments Y, Z are variables if both are tracked, else STEP and TOLERANCE)",)),
    StatementCall("vjp_check", arity(1), _vjp_check("compile_vjp_check"), "vjp_check(LOSS[, tolerance: T])",
        "each tensor VJP of LOSS's graph against the sum of the scalar edges it stands for, changing nothing",
        _TENSORS, options={"tolerance": VALUE}),
    StatementCall("draw", arity(1, 2), _graphs("compile_draw"), ("draw(EXPR)", 'draw(EXPR, "FILE")'),
        "a picture of EXPR's graph (FILE: .svg, .png or .dot)", _PICTURES, (VALUE, TEXT),
        takes='an expression and, optionally, a file name: draw(loss) or draw(loss, "loss.svg")'),
    StatementCall("explain", arity(1), _chain_rule("compile_explain"), "explain(X)",
        "X's adjoint as the sum of its edges, its gradient as the sum of its passes", _CHAIN_RULE),
    StatementCall("paths", arity(2), _chain_rule("compile_paths"), "paths(OUT, X)",
        "every path from OUT down to X, and the sum of their products", _CHAIN_RULE),
    StatementCall("walk", arity(1, 2), _tensor_walk("compile_walk"), ("walk(OUT)", "walk(OUT, SEED)"),
        "backward, one edge per Enter (over tensors, one node)", _CHAIN_RULE),
    StatementCall("tangents", arity(2, 3), _forward_mode("compile_tangents"), ("tangents(Y, X)", "tangents(Y, [X, …], [V, …])"),
        "the forward pass of jvp: each node's value and tangent, the sum over its edges", _FORWARD),
    StatementCall("jacobian", arity(2), _forward_mode("compile_jacobian"), "jacobian([Y, …], [X, …])",
        "dY/dX by n forward passes and by m reverse passes, with what each cost", _FORWARD),
    StatementCall("random_seed", arity(1), _lists("compile_random_seed"), "random_seed(N)",
        "draws start again as Python's random.seed(N) would", _DATA),
    StatementCall("plot", arity(1, 2), _plots("compile_plot"), ("plot(Y)", "plot(X, Y)", "plot([Y1, Y2])"),
        "a line chart of lists of numbers", _CHARTS,
        options={"title": TEXT, "xlabel": TEXT, "ylabel": TEXT, "log": VALUE, "file": TEXT, "labels": VALUE},
        notes=('(named: title: "T", xlabel: "step", ylabel: "loss" for the axes, log: 1 for a log y axis, '
               'labels: ["a", "b"], file: "F.svg" or "F.txt")',)),
    StatementCall("boundary", arity(2), _plots("compile_boundary"), "boundary(F, DATA)",
        "the sign of F(x1, x2) over DATA's rows x1, x2, label", _CHARTS,
        (FUNCTION, VALUE), options={"grid": VALUE, "title": TEXT, "xlabel": TEXT, "ylabel": TEXT, "file": TEXT},
        notes=('(named: grid: N cells a side, 40 by default; title: "T", xlabel: "x1", ylabel: "x2", '
               'file: "F.svg" or "F.txt")',)),
)


class Library:
    """The built-ins handed to an interpreter (`Interpreter(library=...)`, `LIBRARY` by default):
    the value functions and the statement-like calls by name. The core reads them only here."""

    __slots__ = ("values", "statements")

    def __init__(self, values: Mapping[str, ValueFunction], statements: Mapping[str, StatementCall]):
        self.values = values
        self.statements = statements

    def is_reserved(self, name: str) -> bool:
        """Built-in names cannot be bound with `let`, defined with `fn` or be parameters."""
        return name in self.values or name in self.statements


LIBRARY = Library(VALUE_FUNCTIONS, STATEMENT_FUNCTIONS)


def is_reserved(name: str) -> bool:
    """Built-in names cannot be bound with `let`, defined with `fn` or be parameters."""
    return name in VALUE_FUNCTIONS or name in STATEMENT_FUNCTIONS


def builtin_names() -> tuple[str, ...]:
    """Every built-in callable's name: the value functions, then the statement-like calls."""
    return (*VALUE_FUNCTIONS, *STATEMENT_FUNCTIONS)


def help_rows() -> list[tuple[str, str, tuple[str, ...]]]:
    """(category, the forms joined, summary and notes) of every callable, grouped by category
    (`CATEGORIES` first, then any other in the order it first appears)."""
    entries: list[Entry] = [*STATEMENT_FUNCTIONS.values(), *VALUE_FUNCTIONS.values()]
    categories = list(dict.fromkeys([*CATEGORIES, *(entry.category for entry in entries)]))
    return [
        (entry.category, " · ".join(entry.usage), (entry.summary, *entry.notes))
        for category in categories
        for entry in entries
        if entry.category == category
    ]


# ---- checking a call against its entry -------------------------------------------------------

Fail = Callable[..., LanguageError]  # the compiler's `fail(kind, message, span, fields, notes)`


def call_problem(entry: Entry, call: tree.Call, fail: Fail) -> LanguageError | None:
    """What is wrong with ``call`` as ``entry`` takes its arguments: their count, the kind of
    each, the named options; None when nothing is."""
    name, args = entry.name, call.args
    if not entry.arity.accepts(len(args)):
        message = f"takes {entry.takes}" if entry.takes else f"takes {entry.arity.text()}, got {len(args)}"
        from ...language.hints import arity_hint  # (on first use: only a failure asks)

        forms = " or ".join(f"`{form}`" for form in entry.usage)
        notes = arity_hint(call) or (f"help: {forms}: {entry.summary}",)
        return fail(
            "wrong-arguments", f"`{name}` {message}", call.span,
            {"function": name, "expected": entry.arity.expected(), "got": len(args)}, notes,
        )
    for index, arg in enumerate(args):
        problem = _kind_problem(entry, entry.kind_of(index), arg, f"argument {index + 1}")
        if problem is not None:
            return fail("wrong-arguments", problem, arg.span, {"function": name})
    return options_problem(entry, call, fail)


def _kind_problem(entry: Entry, kind: Kind, arg: tree.Expr, which: str) -> str | None:
    """A text in quotes is a value like any other (a text: where a node or a list is needed,
    the compile function's check says so when it runs), except where the entry says what its
    text arguments are (`takes`) or takes a function's name."""
    name, is_text = entry.name, isinstance(arg, tree.StringLiteral)
    # (An expression that may give a text, `path`, `files[i]`, `name + ".svg"`, is checked when it
    # runs: `not-a-text` if it does not.)
    if kind is TEXT and not is_text and _never_a_text(arg):
        if entry.takes:
            return f"`{name}` takes {entry.takes}"
        return f"{which} of `{name}` is a text (in quotes, or a name holding one)"
    if kind is not TEXT and is_text and (entry.takes or kind is FUNCTION):
        if entry.takes:
            return f"`{name}` takes {entry.takes}"
        return f"{which} of `{name}` is the name of a function, not a text"
    if kind is FUNCTION and not isinstance(arg, tree.Name):
        return f"{which} of `{name}` is the name of a function defined with `fn`"
    return None


def _never_a_text(arg: tree.Expr) -> bool:
    """Whether ``arg`` is written as something else than a text (a number, `-2`, `var 2`, a
    list in brackets). A computed value (`z - 1`, `a < b`) is checked when it runs, after its
    own errors: `not-a-text` as for `z + 1`."""
    if isinstance(arg, tree.Unary):
        return isinstance(arg.operand, tree.Number)
    return isinstance(arg, (tree.Number, tree.Leaf, tree.ListLiteral, tree.Comprehension))


def options_problem(entry: Entry | None, call: tree.Call, fail: Fail) -> LanguageError | None:
    """An unknown or repeated named option, or one whose value is of the wrong kind; ``entry``
    None: a function defined with `fn` (which takes none)."""
    seen: set[str] = set()
    for keyword in call.keywords:
        if entry is None or not entry.options:
            return fail(
                "wrong-arguments",
                f"`{call.function}` takes no named arguments (`{shorten(keyword.name)}:`); {_with_options()}",
                keyword.span,
                {"function": call.function, "name": keyword.name},
                (_along_an_axis(),),
            )
        names = list(entry.options)
        if keyword.name not in entry.options:
            # A prefix (`tol:`) is the likeliest slip; difflib finds it too short to match.
            prefixed = [option for option in names if option.startswith(keyword.name)]
            return fail(
                "wrong-arguments",
                f"`{entry.name}` has no argument named `{shorten(keyword.name, LABEL_LIMIT)}`",
                keyword.name_span,
                {"function": entry.name, "name": keyword.name},
                ((f"help: did you mean `{prefixed[0]}`?",) if prefixed else suggestion(keyword.name, names))
                + (f"note: {entry.name}'s named arguments are {_and(names)}",),
            )
        if keyword.name in seen:
            return fail(
                "wrong-arguments", f"`{keyword.name}:` is given twice", keyword.span,
                {"function": entry.name, "name": keyword.name},
            )
        seen.add(keyword.name)
        problem = _kind_problem(entry, entry.options[keyword.name], keyword.value, f"`{keyword.name}:`")
        if problem is not None:
            return fail("wrong-arguments", problem, keyword.value.span, {"function": entry.name, "name": keyword.name})
    return None


def _with_options() -> str:
    """Which callables take named arguments: `only `gradcheck` does (`step:`, `tolerance:`)`
    (those whose one option is a tensor's `axis:` are `_along_an_axis`'s)."""
    entries = [entry for entry in (*STATEMENT_FUNCTIONS.values(), *VALUE_FUNCTIONS.values())
               if entry.options and entry.options != AXIS]
    forms = [f"`{entry.name}`" + " (" + ", ".join(f"`{option}:`" for option in entry.options) + ")" for entry in entries]
    if len(forms) == 1:
        head, _, tail = forms[0].partition(" ")
        return f"only {head} does {tail}"
    return f"only {', '.join(forms[:-1])} and {forms[-1]} do"


def _along_an_axis() -> str:
    """The note of the built-ins that take a tensor's `axis:`."""
    names = [f"`{entry.name}`" for entry in VALUE_FUNCTIONS.values() if entry.options == AXIS]
    return f"note: of a tensor, {', '.join(names[:-1])} and {names[-1]} take `axis: K`"


def _and(names: list[str]) -> str:
    quoted = [f"`{name}:`" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
