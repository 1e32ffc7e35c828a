"""A grammar-aware generator of `.sad` programs for the fuzz tests (``test_fuzz_programs``).

`ProgramGenerator(rng).program()` writes a program as a list of top-level statements (each
one text, perhaps several lines with nested blocks), mixing every form of the grammar: `let`
of values, tables (lists of numbers or of rows of numbers) and lists of nodes (literals,
comprehensions with one or several `for`s, `zip`, `flatten`, `read_table`), `fn` (some
making and returning lists), `print` with `{EXPR}` holes, value lines, `backward`,
`zero_grad`, `graph`, `gradcheck`, `vjp_check`, `assert … within`, `expect KIND:`, `quiet`, `repeat`,
`for` over ranges, tables and lists, `if`/`else if`/`else`, `descend` of variables and of
lists of them, indexing, comparisons inside expressions, `%` and `**`, `random_seed`, every
built-in. It keeps track of what is bound (variables, other values, tables and their sizes,
lists and their shapes, functions and their arity, loop indices), so most statements are
meaningful and most programs run far; now and then it writes one of a catalogue of slightly
wrong statements (`BROKEN`: wrong arity, undefined names, tracked exponents, counts that are
not counts or are huge, `descend` of what is not a variable, non-finite values, rows of the
wrong width, an index out of range or not whole, a list where a node is needed and a node
where a list is needed, files that are not tables, Python habits). Loops are bounded (counts
of at most 3, nesting of at most 3 blocks, training loops of a few steps, lists of at most a
few items), so a program runs in milliseconds.

The generator is seeded (`random.Random`): a failing seed is a reproducer.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

from scalarlang.interpreter.library.registry import VALUE_FUNCTIONS, Kind

VALUE_NAMES = ("x", "y", "z", "w", "b", "h", "loss", "acc", "out")
TABLE_NAMES = ("data", "points", "rows")
LIST_NAMES = ("ws", "hs", "xs", "grid", "pairs", "params")
FUNCTION_NAMES = ("f", "g", "predict", "neuron", "sq")
INDEX_NAMES = ("i", "j", "k", "step")
ROW_NAMES = ("a", "c", "u", "v")
NUMBERS = ("0", "1", "2", "3", "0.5", "0.25", "0.1", "1.5", "-1", "-0.5", "2.5", "1e-3", ".5")
RARE_NUMBERS = ("1e308", "1e-320", "1e300", "inf", "nan", "-inf", "700", "0.0", "1e16")
# Every built-in of one node, from the registry: a new one is fuzzed without being named here.
UNARY = tuple(
    name for name, entry in VALUE_FUNCTIONS.items() if entry.kinds == (Kind.NODE,) and entry.arity.most == 1
)
DRAWS = ("uniform(-1, 1)", "uniform(0, 0.5)", "gauss(0, 1)", "gauss(1, 0.1)")
SAFE_UNARY = ("tanh", "sigmoid", "relu", "abs", "detach", "value")
BINARY = ("max", "min")
VARIADIC = ("sum", "mean")
OPERATORS = ("+", "-", "*", "/", "%", "//")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
KINDS = (
    "undefined-name", "unknown-function", "wrong-arguments", "no-gradient", "not-a-variable",
    "assertion-failed", "non-finite-result", "non-finite-leaf", "tracked-exponent", "not-a-count",
    "not-a-value", "too-long", "reserved-name", "untracked-output", "non-finite-seed",
    "gradcheck-failed", "expectation-failed", "table-width", "not-a-node", "not-a-list",
    "not-an-index", "index-out-of-range", "bad-table", "io-error", "not-a-text", "bad-text", "not-in-vocabulary",
    "bad-probabilities",
)

# The tables `read_table` reads: a good one (a line of names, then 3 rows of 3 numbers) and
# one with a bad cell. Absolute paths: programs run in other folders (the command's, a test's).
FIXTURES = Path(__file__).resolve().parent / "fixtures"
TABLE_FILE = FIXTURES / "fuzz_table.csv"
TABLE_FILE_SHAPE = (3, 3)
BAD_TABLE_FILE = FIXTURES / "fuzz_bad_table.csv"
# The texts `read_text` reads: three names with CRLF line ends and a non-ASCII letter, and a
# file that is not UTF-8.
TEXT_FILE = FIXTURES / "fuzz_text.txt"
BAD_TEXT_FILE = FIXTURES / "fuzz_bad_text.txt"
# Names of texts and of what is made of them: no other statement uses them.
TEXT_NAMES = ("s", "u", "vocab", "ids", "word")
# Texts as literals: escapes, doubled braces, letters beyond ASCII, the empty text.
TEXT_LITERALS = ('"hello"', '"a\\nb\\n"', '"ab{{c}}"', '"é→z"', '""', '"x\\"y"', '"tab\there"')


def quoted(path: Path) -> str:
    """A path as a `.sad` string (escapes and doubled braces, should the path have any)."""
    text = str(path).replace("\\", "\\\\").replace('"', '\\"').replace("{", "{{").replace("}", "}}")
    return f'"{text}"'


# Slightly wrong statements about lists, each with the kind it fails with. `{l}` is a bound
# flat list of nodes (`{len}` its length, `{len1}` one more), `{n}` a value, `{t}` a table.
# (Templates: a brace that is the program's is doubled.)
BROKEN_LISTS = (
    ("let q = {l}[{len}]", "index-out-of-range"), ("print {l}[-{len1}]", "index-out-of-range"),
    ("let q = [1, 2][2]", "index-out-of-range"), ("let q = [][0]", "index-out-of-range"),
    ("let q = {l}[0.5]", "not-an-index"), ("let q = {l}[1 / 3]", "not-an-index"), ("print {l}[-0.5]", "not-an-index"),
    ("let q = {l}[{l}]", "not-a-node"),
    ("tanh({l})", "not-a-node"), ("let q = {l} + 1", "not-a-list"), ("backward({l})", "not-a-node"),
    ("let q = {n} < {l}", "not-a-node"), ("if {l} > 1 {{ }}", "not-a-node"), ("assert {l} == 1", "not-a-node"),
    ("zero_grad({l})", "not-a-node"), ("graph({l})", "not-a-node"), ("let q = uniform({l}, 1)", "not-a-node"),
    ("random_seed({l})", "not-a-node"), ("let q = [1, (2, 3)][1] + 1", "not-a-list"), ("let q = [1, 2] + 1", "not-a-list"),
    ("let q = sum([1, [2]])", "not-a-node"), ("let q = var {l}", "not-a-node"), ("repeat {l} {{ }}", "not-a-node"),
    ("let q = len({n})", "not-a-list"), ("let q = len(1 + 2)", "not-a-list"), ("let q = {n}[0]", "not-a-list"),
    ("let q = zip({l}, {n})", "not-a-list"), ("let q = dot({n}, {l})", "not-a-list"), ("let q = [p for p in {n}]", "not-a-list"),
    ("for p in {n} {{ }}", "not-a-list"), ("let q = {l}[0][0]", "not-a-list"),
    ("for a, c in [1, 2] {{ }}", "table-width"), ("for a, c in [(1, 2), (3)] {{ }}", "table-width"),
    ("let q = [a for a, c in [(1, 2, 3)]]", "table-width"), ("for a, c, u in zip({l}, {l}) {{ }}", "table-width"),
    ("let q = dot({l}, [1, 2, 3, 4, 5, 6, 7])", "wrong-arguments"), ("let q = sum([])", "wrong-arguments"),
    ("let q = mean([])", "wrong-arguments"), ("let q = dot([], [])", "wrong-arguments"), ("random_seed(0.5)", "wrong-arguments"),
    ("let q = read_table({n})", "not-a-text"), ("let q = read_table(1)", "wrong-arguments"), ("let q = zip()", "wrong-arguments"),
    ("let q = [i for i in 0..0.5]", "not-a-count"), ("let q = [{n} for i in 0..2000000]", "too-long"),
    ("let q = [i * j for i in 0..2 for j in 0..1e300]", "too-long"),
    ("{l}(1)", "unknown-function"), ("let q = [{l} for i in range(3)]", "unknown-function"),
    ("let q = [1, var 2]\ndescend q by 0.1", "not-a-variable"), ("descend {t} by 0.1", "not-a-variable"),
    ("let q = [var 1, [var 2]]\ndescend q by nan", "non-finite-leaf"),
    ('let q = read_table("no-such-file.csv")', "io-error"), ("let q = read_table({bad})", "bad-table"),
    ("let q = [{l}, 1] * 2", "not-a-node"), ("print {l}, {l}[{len}]", "index-out-of-range"),
    # Texts and `+` of lists.
    ("let q = {l} + {n}", "not-a-list"), ('let q = "a" + {n}', "not-a-text"), ('let q = {n} + "a"', "not-a-text"),
    ('let q = exp("abc")', "not-a-node"), ('let q = "abc"[3]', "index-out-of-range"), ('let q = "abc"[0.5]', "not-an-index"),
    ('let q = "a" < "b"', "not-a-node"), ('let q = "a" == {n}', "not-a-text"), ("let q = lines({n})", "not-a-text"),
    ("let q = join({l} + [1])", "not-a-text"), ('let q = join(["a"], {n})', "not-a-text"), ("let q = chars({l})", "not-a-text"),
    ('let q = encode("abz", "ab")', "not-in-vocabulary"), ('let q = encode("ab", ["a", "bc"])', "wrong-arguments"),
    ('let q = decode([2], "ab")', "index-out-of-range"), ('let q = decode(["a"], "ab")', "not-a-node"),
    ('let q = read_text("no-such-file.txt")', "io-error"), ("let q = read_text({badtext})", "bad-text"),
    ("let q = read_text({n})", "not-a-text"), ("let q = read_text([1])", "wrong-arguments"),
    ('let q = "ab"\ndescend q by 0.1', "not-a-variable"), ('let q = floor("a")', "not-a-node"),
    ("let q = {n} // 0", "non-finite-result"), ("let q = 1e308 // 1e-308", "non-finite-result"),
    ('let q = [{n}] + "a"', "not-a-list"), ('for a, c in "ab" {{ }}', "table-width"), ('let q = "ab" * 2', "not-a-node"),
    ('let q = "{{1:.3f}}" + "{{\"a\":.2f}}"', "not-a-node"), ("let q = 1\nwhile q < 2 {{ }}", "too-long"),
    ('while "a" {{ }}', "not-a-node"), ("let q = 0\nwhile q < 3 {{ let q = q + [1] }}", "not-a-list"),
    ("plot([])", "empty-series"), ("plot({n})", "not-a-list"), ("plot([1, [2]])", "not-a-node"),
    ("plot({l}, [1, 2, 3, 4, 5, 6, 7])", "length-mismatch"), ('plot({l}, file: "chart.pdf")', "unknown-picture-format"),
    ("fn q(a, c) = a - c\nboundary(q, [(0, 1, 1)], grid: 1000)", "grid-out-of-range"),
    ("fn q(a, c) = a - c\nboundary(q, [(0, 1)])", "point-shape"), ("boundary({n}, [(0, 1, 1)])", "unknown-function"),
)

# Slightly wrong statements. `{v}` is a tracked variable, `{n}` any bound value, `{t}` a table,
# `{f}` a function (with `{fargs}` one argument too many): each filled from what is bound.
BROKEN_RUNTIME = (
    "exp({n}, {n})", "max({n})", "sum()", "mean()", "len({t}, {t})", "len({n})", "backward()",
    "backward({n}, 1, 2)", "gradcheck({n})", "graph()", "value()", "{f}({fargs})", "{f}()",
    "lose + 1", "let q = {n} * undefined_thing", "print \"{{lost}}\"", "foo({n})", "zero_grad(nope)",
    "{n} ** {v}", "let q = 2 ** {v}", "let q = {n} ** (var 2)",
    "repeat 1.5 {{ print 1 }}", "repeat -1 {{ print 1 }}", "repeat nan {{ print 1 }}", "repeat {v} + 0.25 {{ }}",
    "for i in 0..2.5 {{ print i }}", "for i in inf..3 {{ }}",
    "repeat 2000000 {{ let q = 1 }}", "for i in 0..10000000 {{ }}", "repeat 1e300 {{ }}",
    "for i in 0..1000001 {{ }}", "repeat 3 {{ repeat 2000000 {{ }} }}",
    "descend loss by 0.1", "descend {t} by 0.1", "descend {f} by 0.1", "descend nope by 0.1",
    "descend {v} by inf", "descend {v} by nan", "descend {v} by 1e308 * 1e308", "let q = (var {n}) * 2\ndescend q by 0.1",
    "descend {v} by {t}", "True", "None + 1",
    "let q = var inf", "let q = const nan", "let q = {n} / 0", "let q = log(0 * {n})", "let q = sqrt(-1 - abs({n}))",
    "let q = exp(1000 + {n})", "backward({n}, inf)", "backward(const 2)", "let q = {n} % 0", "let q = 1e308 * 10",
    "for a, c in {t1} {{ print a }}", "for a in {t2} {{ let q = a + 1 }}", "for a, c, u in {t2} {{ }}",
    "{t} + 1", "let q = {t} * 2", "for a in {n} {{ }}", "let q = {f}", "{f} + 1", "print tanh({t})",
    "let exp = 1", "fn grad(a) = a", "fn q(len) = len", "let backward = 2", "fn r(a) = r(a)",
    "assert {n} == {n} + 1", "assert {n} != {n}", "assert 1 == 2 within 0.5",
    "gradcheck({n} * {v}, 2)", "gradcheck(exp({v}), {v}, 1, 1e-12)", "gradcheck({v}, {v}, 0, 1)",
    "gradcheck({v}, {v}, tol: 1)", "gradcheck({v}, {v}, step: 1, step: 2)", "exp({n}, x: 1)",
    "expect no-gradient: print 1", "expect undefined-name: let q = 1", "expect wrong-arguments: exp(1)",
    "grad(1)", "grad(detach({n}))",
) + tuple(template for template, _ in BROKEN_LISTS)
# Wrong whole programs: the parser (or the builder) refuses them, nothing runs.
BROKEN_SYNTAX = (
    "let T = [(1, 2), (3)", "let T = [1 2]", "let T = [{n},, 1]", "let T = [(1, 2)) ]",
    "let q = {l}[]", "let q = [for i in 0..3]", "let q = [i for i in]", "let q = [i for i, j in 0..3]",
    "let q = [i for i in 0..3, 4]", "let q = 1 < 2 < 3", "assert 1 < 2 < 3", "let q = {l}[0", "let q = {l}[0]]",
    "{l}[0] = 1", "{l}.append(1)", "let q = np.dot({l}, {l})", "let q = random.uniform(-1, 1)", "random.seed(1)",
    "let q = [i for i in 0..3 if i > 1]", "let q = {l}[1:2]", "let q = assert == 1",
    "fn q(a, a) = a", "for a, a in {t2} {{ }}", "for i, j in 0..3 {{ }}",
    "{n} ^ 2", "def q(a):", "def q(a): return a", "{v} -= 1", "{v} += 0.1", "{v}.grad", "{v}.backward()",
    "for i in range(3):", "if {n} > 1:", "while {n} < 2:", "{n} = 1", "x == 1 {{", "import math",
    "print(\"unclosed)", "print \"{{1 +}}\"", "print \"\\q\"", "repeat 2 {{", "}}", "repeat 2\n{{ }}",
    "if 1 < 2 {{ }} elif 2 < 3 {{ }}", "fn q() =", "descend by 0.1", "descend {v} 0.1", "let = 1",
    "quiet", "expect: 1", "expect No_Kind: 1", "assert 1 < 2 within 1", "let q = 1 +", "{n} ** ",
    "let q = lambda a: a", "descend {v}, {v} by 0.1",
    "break", "if 1 < 2 {{ break }}", "repeat 2 {{ expect too-long: break }}", "let q = \"abc\".upper()",
    "let q = {l}[0:1]", "let break = 1", "fn q(a) = break", "while {n} < 2 {{ }} else {{ }}",
)
PYTHON_HABITS = (
    ("{n} ^ 2", "**"), ("def q(a):", "fn "), ("def q(a): return a", "fn "), ("{v} -= 1", "descend"),
    ("{v} += 0.1", "let "), ("{v}.grad", "grad("), ("for i in range(3):", "0..3"),
    ("{l}.append(1)", " + [item]"), ("let q = np.dot({l}, {l})", "`dot(a, b)`"),
    ('let q = "a, b".split(",")', "lines("), ("while {n} < 2:", "{ ... }"), ("let q = {l}[1:]", "no slices"),
    ("let q = random.uniform(-1, 1)", "`uniform(a, b)`"),
)


@dataclass
class Scope:
    """What the program has bound so far, as far as the generator can tell: values (and which
    are tracked variables), tables (lists of numbers or of rows of numbers: name -> (rows,
    width), width 1 a flat list of numbers), lists of nodes (name -> shape: `(3,)`, `(3, 2)`;
    `parameters` those holding only variables, which `descend` takes), functions (name ->
    arity; `list_functions` those that return a list) and loop indices."""

    variables: set[str] = field(default_factory=set)
    values: set[str] = field(default_factory=set)
    tables: dict[str, tuple[int, int]] = field(default_factory=dict)
    functions: dict[str, int] = field(default_factory=dict)
    indices: list[str] = field(default_factory=list)
    lists: dict[str, tuple[int, ...]] = field(default_factory=dict)
    parameters: set[str] = field(default_factory=set)
    list_functions: set[str] = field(default_factory=set)  # functions that return a list

    def forget(self, name: str) -> None:
        self.tables.pop(name, None)
        self.functions.pop(name, None)
        self.list_functions.discard(name)
        self.lists.pop(name, None)
        self.parameters.discard(name)
        self.values.discard(name)
        self.variables.discard(name)

    def bind_value(self, name: str, tracked_leaf: bool) -> None:
        self.forget(name)
        self.values.add(name)
        (self.variables.add if tracked_leaf else self.variables.discard)(name)

    def bind_table(self, name: str, rows: int, width: int) -> None:
        self.forget(name)
        self.tables[name] = (rows, width)

    def bind_list(self, name: str, shape: tuple[int, ...], parameters: bool) -> None:
        self.forget(name)
        self.lists[name] = shape
        if parameters:
            self.parameters.add(name)

    def flat_lists(self, nonempty: bool = False) -> list[str]:
        return sorted(name for name, shape in self.lists.items() if len(shape) == 1 and (shape[0] or not nonempty))

    def matrices(self) -> list[str]:
        return sorted(name for name, shape in self.lists.items() if len(shape) == 2 and shape[0] and shape[1])

    def full_tables(self) -> list[str]:
        return sorted(name for name, (rows, _) in self.tables.items() if rows)


class ProgramGenerator:
    """Random programs of every form; ``broken`` is the chance that a top-level statement is
    one of the slightly wrong ones (``syntax`` the share of those that break the parse)."""

    def __init__(self, rng: random.Random, *, broken: float = 0.05, syntax: float = 0.2, max_statements: int = 14):
        self.rng = rng
        self.pending: list[str] = []  # statements a form needs before it (a table for a loop)
        self.broken = broken
        self.syntax = syntax
        self.max_statements = max_statements

    # ---- programs ----------------------------------------------------------------------------

    def program(self) -> list[str]:
        """Top-level statements, each a text without a trailing newline: one statement (some
        over several lines), except `a; b` pairs and the empty or comment-only lines."""
        rng, scope = self.rng, Scope()
        statements = self.prelude(scope)
        for _ in range(rng.randint(1, self.max_statements)):
            self.pending = []
            if rng.random() < self.broken:  # (some are two lines: two statements)
                statements += self.broken_statement(scope).split("\n")
                continue
            statement = self.statement(scope, depth=0)
            statements += self.pending + [statement]
        return statements

    def prelude(self, scope: Scope) -> list[str]:
        """A few variables, a table and a list, so that later statements have something to use."""
        rng = self.rng
        lines = []
        for name in rng.sample(("x", "w", "b"), rng.randint(1, 3)):
            lines.append(f"let {name} = var {rng.choice(NUMBERS)}")
            scope.bind_value(name, True)
        if rng.random() < 0.7:
            lines.append(self.table_let(scope))
        if rng.random() < 0.6:
            lines.append(self.list_let(scope))
        return lines

    def broken_statement(self, scope: Scope) -> str:
        rng = self.rng
        catalogue = BROKEN_SYNTAX if rng.random() < self.syntax else BROKEN_RUNTIME
        return self.fill(rng.choice(catalogue), scope)

    def fill(self, template: str, scope: Scope) -> str:
        """A catalogue template with its holes filled from what is bound."""
        rng = self.rng
        variables = sorted(scope.variables) or ["x"]
        values = sorted(scope.values) or ["x"]
        tables = sorted(scope.tables) or ["data"]
        width_one = [name for name, (rows, width) in scope.tables.items() if width == 1 and rows] or ["[1, 2]"]
        wider = [name for name, (rows, width) in scope.tables.items() if width >= 2 and rows] or ["[(1, 2), (3, 4)]"]
        function = rng.choice(sorted(scope.functions)) if scope.functions else "f"
        arity = scope.functions.get(function, 1)
        flat = scope.flat_lists(nonempty=True)
        name = rng.choice(flat) if flat else "[var 1, var 2]"
        length = scope.lists[name][0] if flat else 2
        return template.format(
            v=rng.choice(variables), n=rng.choice(values), t=rng.choice(tables), t1=rng.choice(width_one),
            t2=rng.choice(wider), f=function, fargs=", ".join(["1"] * (arity + 1)),
            l=name, len=length, len1=length + 1, bad=quoted(BAD_TABLE_FILE), badtext=quoted(BAD_TEXT_FILE),
        )

    # ---- statements ---------------------------------------------------------------------------

    def statement(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        forms = [
            (6, self.let_value), (2, self.let_variable), (1, self.table_let), (2, self.fn_def),
            (3, self.print_stmt), (1, self.value_line), (3, self.backward_stmt), (1, self.zero_grad_stmt),
            (1, self.graph_stmt), (1, self.draw_stmt), (2, self.gradcheck_stmt), (2, self.assert_stmt), (2, self.expect_stmt),
            (1, self.quiet_stmt), (2, self.descend_stmt), (1, self.semicolons),
            (3, self.list_let), (1, self.list_fn_def), (1, self.list_line), (1, self.random_seed_stmt),
            (1, self.explain_stmt), (1, self.paths_stmt), (1, self.walk_stmt), (1, self.plot_stmt),
            (1, self.boundary_stmt), (1, self.forward_stmt),
        ]
        if depth < 3:
            forms += [(2, self.repeat_stmt), (2, self.for_range), (2, self.for_table), (2, self.for_list), (2, self.if_stmt),
                      (2, self.while_loop)]
        forms.append((2, self.text_stmt))
        if depth == 0:
            forms += [(2, self.training_loop), (1, self.model_loop), (1, self.comment)]
        makers = [maker for weight, maker in forms for _ in range(weight)]
        return rng.choice(makers)(scope, depth)

    def let_value(self, scope: Scope, depth: int) -> str:
        name = self.rng.choice(VALUE_NAMES)
        text = f"let {name} = {self.expr(scope, top=True)}"
        scope.bind_value(name, False)
        return text

    def let_variable(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        name = rng.choice(VALUE_NAMES)
        operand = rng.choice(NUMBERS) if rng.random() < 0.6 else self.expr(scope, size=2)
        text = f"let {name} = var {operand}"
        scope.bind_value(name, True)
        return text

    def table_let(self, scope: Scope, depth: int = 0, *, least: int = 0, width: int | None = None) -> str:
        """`let NAME = [...]` of numbers (width 1) or rows of numbers, or now and then
        `read_table` of the fixture."""
        rng = self.rng
        name = rng.choice(TABLE_NAMES)
        if width is None and rng.random() < 0.15:
            scope.bind_table(name, *TABLE_FILE_SHAPE)
            return f"let {name} = read_table({quoted(TABLE_FILE)})"
        width = rng.randint(1, 3) if width is None else width
        rows = rng.randint(least, 4)
        text = f"let {name} = {self.table(width, rows)}"
        scope.bind_table(name, rows, width)
        return text

    def table(self, width: int, rows: int | None = None) -> str:
        """A list of ``rows`` numbers (width 1: each bare or in parentheses, a group) or of
        rows of ``width`` numbers (`(1, 2)` or `[1, 2]`, a trailing comma now and then)."""
        rng = self.rng
        cells = []
        for _ in range(rng.randint(0, 4) if rows is None else rows):
            entries = [rng.choice(NUMBERS) for _ in range(width)]
            if width == 1:
                cells.append(entries[0] if rng.random() < 0.5 else f"({entries[0]})")
                continue
            opening, closing = ("(", ")") if rng.random() < 0.8 else ("[", "]")
            cells.append(f"{opening}{', '.join(entries)}{',' if rng.random() < 0.1 else ''}{closing}")
        trailing = "," if cells and rng.random() < 0.1 else ""
        return f"[{', '.join(cells)}{trailing}]"

    # ---- lists --------------------------------------------------------------------------------

    def list_let(self, scope: Scope, depth: int = 0) -> str:
        name = self.rng.choice(LIST_NAMES)
        text, shape, parameters = self.list_expr(scope)
        scope.bind_list(name, shape, parameters)
        return f"let {name} = {text}"

    def list_expr(self, scope: Scope) -> tuple[str, tuple[int, ...], bool]:
        """A list of nodes: its text, its shape and whether it holds only variables."""
        rng = self.rng
        n, m = rng.randint(0, 3), rng.randint(1, 3)
        flat = scope.flat_lists()
        full = scope.flat_lists(nonempty=True)
        tables = scope.full_tables()
        choice = rng.randint(0, 13)
        if choice == 0:
            return f"[{', '.join(self.expr(scope, size=1) for _ in range(n))}]", (n,), False
        if choice == 1:
            return f"[{', '.join(f'var {rng.choice(NUMBERS)}' for _ in range(n))}]", (n,), True
        if choice == 2:
            return f"[var {rng.choice(DRAWS)} for i in 0..{n}]", (n,), True
        if choice == 3:
            return f"[[var {rng.choice(DRAWS)} for j in 0..{m}] for i in 0..{n}]", (n, m), True
        if choice == 4:
            return f"[var 0 for i in 0..{n}]", (n,), True
        if choice == 5 and flat:
            source = rng.choice(flat)
            body = rng.choice(("tanh(p * {e})", "p * {e} + 1", "relu(p) - {e}", "(p > {e}) * p", "p ** 2"))
            return f"[{body.format(e=self.expr(scope, size=1))} for p in {source}]", scope.lists[source], False
        if choice == 6 and len(flat) >= 1:
            first, second = rng.choice(flat), rng.choice(flat)
            pairs = min(scope.lists[first][0], scope.lists[second][0])
            if rng.random() < 0.5:
                return f"zip({first}, {second})", (pairs, 2), first in scope.parameters and second in scope.parameters
            return f"[p * q for p, q in zip({first}, {second})]", (pairs,), False
        if choice == 7 and scope.lists:
            names = rng.sample(sorted(scope.lists), rng.randint(1, min(3, len(scope.lists))))
            count = sum(math.prod(scope.lists[name]) for name in names)
            return f"flatten({', '.join(names)})", (count,), all(name in scope.parameters for name in names)
        if choice == 8 and tables:
            table = rng.choice(tables)
            rows, width = scope.tables[table]
            if width == 1:
                return f"[{table}[i] * {self.simple_atom(scope)} for i in 0..len({table})]", (rows,), False
            if width == 2 and rng.random() < 0.5:
                return f"[a * c - {self.simple_atom(scope)} for a, c in {table}]", (rows,), False
            return f"[row[{rng.randrange(width)}] + {self.simple_atom(scope)} for row in {table}]", (rows,), False
        if choice == 9:
            return f"[i * j - {self.simple_atom(scope)} for i in 0..{n} for j in 0..{m}]", (n * m,), False
        if choice == 10 and full:
            source = rng.choice(full)
            return f"[{source}[i] + {source}[-1 - i] for i in 0..len({source})]", scope.lists[source], False
        if choice == 11 and scope.matrices() and full:
            matrix = rng.choice(scope.matrices())
            vectors = [name for name in full if scope.lists[name][0] == scope.lists[matrix][1]]
            if vectors:
                vector = rng.choice(vectors)
                return f"[relu(dot({matrix}[i], {vector})) for i in 0..len({matrix})]", (scope.lists[matrix][0],), False
        if choice == 12:
            return f"[{', '.join(rng.choice(DRAWS) for _ in range(n))}]", (n,), False
        if choice == 13 and scope.list_functions and flat:
            function, first, second = rng.choice(sorted(scope.list_functions)), rng.choice(flat), rng.choice(flat)
            if function == "scale":
                return f"scale({first}, {self.simple_atom(scope)})", scope.lists[first], False
            if function == "pairwise":
                return f"pairwise({first}, {second})", (min(scope.lists[first][0], scope.lists[second][0]),), False
            for matrix in scope.matrices():
                rows, columns = scope.lists[matrix]
                biases = [name for name in flat if scope.lists[name][0] == rows]
                inputs = [name for name in flat if scope.lists[name][0] == columns]
                if biases and inputs:
                    return f"layer({matrix}, {rng.choice(biases)}, {rng.choice(inputs)})", (rows,), False
        return f"[{', '.join(rng.choice(NUMBERS) for _ in range(n))}]", (n,), False

    def list_fn_def(self, scope: Scope, depth: int) -> str:
        """A function that makes and returns a list (called where a list is wanted)."""
        rng = self.rng
        name = rng.choice(("layer", "scale", "pairwise"))
        scope.forget(name)
        scope.list_functions.add(name)
        if name == "layer":
            return "fn layer(W, b, xs) = [relu(dot(W[i], xs) + b[i]) for i in 0..len(W)]"
        if name == "scale":
            return f"fn scale(xs, k) = [x * k + {self.simple_atom(scope)} for x in xs]"
        return "fn pairwise(xs, ys) = [a * c for a, c in zip(xs, ys)]"

    def list_line(self, scope: Scope, depth: int) -> str:
        """A list shown: a value line, a `print` (values and `{holes}`), `len` and folds."""
        rng = self.rng
        lists = sorted(scope.lists) or ["[1, 2]"]
        name = rng.choice(lists)
        choice = rng.random()
        if choice < 0.3:
            return name
        if choice < 0.5:
            return f'print {name}, "{{{name}}} has {{len({name})}}"'
        if choice < 0.7:
            text, _, _ = self.list_expr(scope)
            return text
        return f"print len(flatten({name})), len(zip({name}, {name}))"

    def random_seed_stmt(self, scope: Scope, depth: int) -> str:
        return f"random_seed({self.rng.choice(('0', '1', '42', '1337', '-7', '2 ** 40'))})"

    def fn_def(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        return self.fn_def_of(scope, rng.choice(FUNCTION_NAMES), tuple(rng.sample(("p", "q", "r", "e"), rng.randint(1, 3))))

    def fn_def_of(self, scope: Scope, name: str, params: tuple[str, ...]) -> str:
        rng = self.rng
        # The body sees the parameters, the globals and the functions defined before.
        inner = Scope(set(scope.variables), set(scope.values) | set(params), {}, dict(scope.functions))
        inner.lists = dict(scope.lists)
        inner.functions.pop(name, None)
        body = self.expr(inner, size=rng.randint(1, 4))
        scope.forget(name)
        scope.functions[name] = len(params)
        return f"fn {name}({', '.join(params)}) = {body}"

    def print_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        items = []
        for _ in range(rng.randint(1, 3)):
            items.append(self.string(scope) if rng.random() < 0.6 else self.expr(scope, size=2))
        return "print " + ", ".join(items)

    def string(self, scope: Scope) -> str:
        rng = self.rng
        pieces = []
        for _ in range(rng.randint(1, 4)):
            choice = rng.random()
            if choice < 0.45:
                pieces.append(rng.choice(("step", "loss", " ", "w =", "é", "\\\"", "\\\\", "\\n", "{{", "}}", "#", "\t", "→")))
            elif choice < 0.8:
                pieces.append("{" + self.expr(scope, size=2) + "}")
            else:  # a hole with a format spec
                spec = rng.choice((".3f", ".2e", "g", ">10.4f", "+.1%", "", "8.2f", "<6g", ",.1f"))
                pieces.append("{" + self.expr(scope, size=2) + ":" + spec + "}")
        return '"' + "".join(pieces) + '"'

    def value_line(self, scope: Scope, depth: int) -> str:
        return self.expr(scope, top=True)

    def backward_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        output = self.tracked_expr(scope)
        if rng.random() < 0.25:
            return f"backward({output}, {rng.choice(NUMBERS + ('1e300', 'inf', '0'))})"
        return f"backward({output})"

    def explain_stmt(self, scope: Scope, depth: int) -> str:
        return f"explain({self.variable(scope) if self.rng.random() < 0.6 else self.expr(scope, size=2)})"

    def paths_stmt(self, scope: Scope, depth: int) -> str:
        return f"paths({self.tracked_expr(scope)}, {self.variable(scope)})"

    def forward_stmt(self, scope: Scope, depth: int) -> str:
        """Forward mode: `jvp` (a value), `tangents` and `jacobian`, along one variable or a
        direction (now and then of the wrong length, or with a computed node as an input)."""
        rng = self.rng
        output, variable = self.tracked_expr(scope), self.variable(scope)
        inputs = [variable, self.variable(scope) if rng.random() < 0.9 else self.expr(scope, size=1)]
        direction = [rng.choice(NUMBERS) for _ in range(2 if rng.random() < 0.9 else 1)]
        along = f"[{', '.join(inputs)}], [{', '.join(direction)}]"
        choice = rng.random()
        if choice < 0.3:
            return f"tangents({output}, {variable if rng.random() < 0.5 else along})"
        if choice < 0.6:
            return f"jacobian([{output}, {self.expr(scope, size=2)}], [{', '.join(inputs)}])"
        return f"print \"{{jvp({output}, {variable if rng.random() < 0.5 else along})}}\""

    def walk_stmt(self, scope: Scope, depth: int) -> str:
        return "walk" + self.backward_stmt(scope, depth)[len("backward"):]

    def zero_grad_stmt(self, scope: Scope, depth: int) -> str:
        return "zero_grad" if self.rng.random() < 0.5 else f"zero_grad({self.expr(scope, size=2)})"

    def graph_stmt(self, scope: Scope, depth: int) -> str:
        return f"graph({self.expr(scope, size=3)})"

    def draw_stmt(self, scope: Scope, depth: int) -> str:
        # No file that would be written: the programs also run in the test process's folder.
        if self.rng.random() < 0.2:
            return f'draw({self.expr(scope, size=2)}, "picture.txt")'  # an unknown format
        return f"draw({self.expr(scope, size=3)})"

    def plot_stmt(self, scope: Scope, depth: int) -> str:
        """`plot` of a list of nodes, a list of numbers, or of two lists (no file is written)."""
        rng = self.rng
        flat = scope.flat_lists(nonempty=True) + [name for name, (rows, width) in scope.tables.items() if rows and width == 1]
        ys = rng.choice(sorted(flat)) if flat else self.table(1)
        title = f', title: "{rng.choice(("loss", "curve", ""))}"' if rng.random() < 0.4 else ""
        if rng.random() < 0.2:
            return f"plot([{ys}, {ys}]{title})"
        if rng.random() < 0.2:
            return f"plot({ys}, {ys}{title})"
        return f"plot({ys}{title})"

    def boundary_stmt(self, scope: Scope, depth: int) -> str:
        """`boundary` of a function of two arguments over a table of rows x1, x2, label."""
        rng = self.rng
        pairs = sorted(name for name, arity in scope.functions.items() if arity == 2 and name not in scope.list_functions)
        if not pairs:
            if depth:
                return self.plot_stmt(scope, depth)
            self.pending.append(self.fn_def_of(scope, "side", ("p", "q")))
            pairs = ["side"]
        tables = sorted(name for name, (rows, width) in scope.tables.items() if rows and width == 3)
        data = rng.choice(tables) if tables and rng.random() < 0.7 else self.table(3)
        return f"boundary({rng.choice(pairs)}, {data}, grid: {rng.choice((2, 3, 5))})"

    def gradcheck_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        variable = rng.choice(sorted(scope.variables)) if scope.variables else "x"
        output = f"{self.expr(scope, size=2)} * {variable}" if rng.random() < 0.7 else self.expr(scope, size=3)
        roll = rng.random()
        if roll < 0.25:
            return f"gradcheck({output}, {variable}, {rng.choice(('1e-6', '1e-4', '0.5'))}, {rng.choice(('1e-6', '1e-3', '1'))})"
        if roll < 0.45:  # named, in either order, maybe with several variables
            named = [f"step: {rng.choice(('1e-6', '1e-4', '0.5'))}", f"tolerance: {rng.choice(('1e-6', '1e-3', '1'))}"]
            named = rng.sample(named, rng.randint(1, 2))
            variables = rng.sample(sorted(scope.variables), min(len(scope.variables), rng.randint(1, 3))) or [variable]
            return f"gradcheck({output}, {', '.join(variables + named)})"
        if roll >= 0.92:  # the tensor VJPs of a graph made of these nodes (no draw: the same programs)
            return f"vjp_check(sum(tanh(tensor([{output}, {variable}])) * {variable}))"
        return f"gradcheck({output}, {variable})"

    def assert_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        left, right = self.expr(scope, size=2), self.expr(scope, size=2)
        if rng.random() < 0.3:
            return f"assert {left} == {left} within {rng.choice(('1e-9', '0', '1'))}"
        if rng.random() < 0.4:
            return f"assert value({left}) == value({left})"
        return f"assert {left} {rng.choice(COMPARISONS)} {right}"

    def expect_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        # Mostly a statement that fails with the kind expected; now and then a mismatch.
        pairs = (
            ("undefined-name", "let q = nope + 1"), ("wrong-arguments", f"exp({self.name(scope)}, 1)"),
            ("unknown-function", "foo(1)"), ("no-gradient", "grad(2)"), ("tracked-exponent", f"2 ** {self.variable(scope)}"),
            ("not-a-count", "repeat 0.5 { }"), ("not-a-variable", "gradcheck(2, 2)"), ("undefined-name", "descend nope by 1"),
            ("non-finite-leaf", "var inf"), ("assertion-failed", "assert 1 > 2"), ("too-long", "repeat 2000000 { }"),
            ("non-finite-result", f"exp(1000 * abs({self.name(scope)}) + 1000)"), ("untracked-output", "backward(2)"),
            ("not-a-node", f"tanh([{self.name(scope)}])"), ("not-a-list", f"let q = len({self.name(scope)})"),
            ("index-out-of-range", "print [1, 2][2]"), ("not-an-index", "[1, 2][0.5]"), ("table-width", "for a, c in [1] { }"),
            ("io-error", 'let q = read_table("no-such-file.csv")'), ("bad-table", f"let q = read_table({quoted(BAD_TABLE_FILE)})"),
        )
        kind, statement = rng.choice(pairs)
        if rng.random() < 0.15:
            kind = rng.choice(KINDS)
        if rng.random() < 0.15:
            statement = self.statement(copy.deepcopy(scope), depth=3)
        return f"expect {kind}: {statement}"

    def quiet_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        inner = rng.choice((self.backward_stmt, self.value_line, self.let_value, self.print_stmt, self.graph_stmt))
        return f"quiet {inner(scope, depth)}"

    def descend_stmt(self, scope: Scope, depth: int) -> str:
        """`descend` of variables and of lists of them."""
        rng = self.rng
        candidates = sorted(scope.variables | scope.parameters)
        if not candidates:
            return self.let_variable(scope, depth)
        names = rng.sample(candidates, rng.randint(1, len(candidates)))
        return f"descend {', '.join(names)} by {rng.choice(('0.1', '0.01', '0.5', '1', '0'))}"

    def semicolons(self, scope: Scope, depth: int) -> str:
        first = self.rng.choice((self.let_value, self.print_stmt, self.backward_stmt, self.value_line))(scope, 3)
        second = self.rng.choice((self.let_value, self.print_stmt, self.zero_grad_stmt))(scope, 3)
        return f"{first}; {second}"

    def comment(self, scope: Scope, depth: int) -> str:
        return self.rng.choice(("# a comment", "", "# {not a hole} ; let nothing = 1", ";"))

    # ---- blocks ----------------------------------------------------------------------------------

    def block(self, scope: Scope, depth: int) -> str:
        """`{ … }` with 0-3 statements, one a line (or `;`-separated on one line). A block may
        run no times: afterwards only what was bound the same way before and after it counts."""
        before = copy.deepcopy(scope)
        try:
            return self._block(scope, depth)
        finally:
            scope.variables &= before.variables
            scope.values &= before.values
            scope.tables = {name: size for name, size in scope.tables.items() if before.tables.get(name) == size}
            scope.functions = {name: arity for name, arity in scope.functions.items() if before.functions.get(name) == arity}
            scope.lists = {name: shape for name, shape in scope.lists.items() if before.lists.get(name) == shape}
            scope.parameters &= before.parameters
            scope.list_functions &= before.list_functions

    def _block(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        statements = [self.statement(scope, depth + 1) for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.05 and depth < 2:
            statements.append(self.broken_runtime_inline(scope))
        if not statements:
            return "{ }"
        if rng.random() < 0.2 and all("\n" not in text for text in statements):
            return "{ " + "; ".join(statements) + " }"
        # Relative indentation: an enclosing block indents this one's lines again.
        body = "\n".join("  " + line for text in statements for line in text.split("\n"))
        return "{\n" + body + "\n}"

    def broken_runtime_inline(self, scope: Scope) -> str:
        return self.fill(self.rng.choice(BROKEN_RUNTIME[:30]), scope)

    def while_loop(self, scope: Scope, depth: int) -> str:
        """`while` counting down a name of its own (bound before it), now and then with a
        `break` under an `if`, or in a `for` or `repeat` of its body."""
        rng = self.rng
        name = f"left{depth}"
        self.pending.append(f"let {name} = {rng.randint(0, 3)}")
        body = self.block(scope, depth)
        step = f"let {name} = {name} - 1"
        breaking = rng.random()
        if breaking < 0.3:
            step += f"\n  if {name} == 1 {{ break }}"
        elif breaking < 0.45:
            step += "\n  repeat 3 { break }\n  for i in 0..3 { if i == 1 { break } }"
        return f"while {name} > 0 {{\n  {step}\n  while 0 {{ }}\n}}" if body == "{ }" else (
            f"while {name} > 0 " + body[:-1].rstrip() + f"\n  {step}\n}}"
        )

    def text_stmt(self, scope: Scope, depth: int) -> str:
        """A statement of texts, after the ones that bind what it uses (`s`, `vocab`): literals,
        `read_text`, `len`, indexing, `+`, `==`, `lines`, `chars`, `join`, `encode`, `decode`,
        `for c in s`, `floor` and `//` of their counts."""
        rng = self.rng
        source = f"read_text({quoted(TEXT_FILE)})" if rng.random() < 0.5 else rng.choice(TEXT_LITERALS)
        self.pending.append(f"let s = {source}")
        self.pending.append(rng.choice(("let vocab = chars(s)", "let vocab = chars(s + \"q\")", "let vocab = join(chars(s))")))
        forms = (
            "let ids = encode(s, vocab)",
            "print decode(encode(s, vocab), vocab) == s, len(s), s",
            'print join(lines(s), ", "), lines(s)',
            'let u = s + "!" + "{len(s) // 2}"',
            "s",
            '[c for c in s + "."]',
            'for c in s + "xy" {\n  if c == "y" { break }\n  print c, floor(len(s) / 3)\n}',
            'if len(s) > 0 { print s[0], s[-1], s[len(s) // 2] } else { print "empty" }',
            "let word = decode([i % len(vocab) for i in 0..4], vocab)" if rng.random() < 0.5 else "vocab",
            'assert join(lines(s + "\\n")) == join(lines(s))',
            'print len(lines(s)) // 1, flatten([s], ["a"]) + [1] + []',
        )
        return rng.choice(forms)

    def repeat_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        count = rng.choice(("0", "1", "2", "3", "len(data)" if "data" in scope.tables else "2", "1 + 1", "value(2)", "(1 < 2) + 1"))
        return f"repeat {count} {self.block(scope, depth)}"

    def for_range(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        name = rng.choice([index for index in INDEX_NAMES if index not in scope.indices] or ["i"])
        start = rng.randint(-2, 2)
        end = start + rng.randint(0, 3)
        scope.indices.append(name)
        bound = name in scope.values
        scope.bind_value(name, False)
        try:
            return f"for {name} in {start}..{end} {self.block(scope, depth)}"
        finally:
            scope.indices.remove(name)
            if not bound:
                scope.values.discard(name)

    def for_table(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        if scope.tables and rng.random() < 0.7:
            table = rng.choice(sorted(scope.tables))
            _, width = scope.tables[table]
        else:
            width = rng.randint(1, 3)
            table = self.table(width)
        names = rng.sample(ROW_NAMES, width)
        unbound = [name for name in names if name not in scope.values]
        for name in names:
            scope.bind_value(name, False)
        text = f"for {', '.join(names)} in {table} {self.block(scope, depth)}"
        scope.values.difference_update(unbound)
        return text

    def for_list(self, scope: Scope, depth: int) -> str:
        """`for p in L` over a list of nodes (each item itself), `for p, q in zip(A, B)`, or
        `for row in TABLE` (each row a list, read by index)."""
        rng = self.rng
        flat, tables = scope.flat_lists(), scope.full_tables()
        if flat and (rng.random() < 0.6 or not tables):
            if rng.random() < 0.3:
                first, second = rng.choice(flat), rng.choice(flat)
                names, source = ["p", "q"], f"zip({first}, {second})"
            else:
                names, source = ["p"], rng.choice(flat)
        elif tables:
            table = rng.choice(tables)
            rows, width = scope.tables[table]
            if width == 1:
                names, source = ["p"], table
            else:
                names, source = ["row"], table
        else:
            text, shape, _ = self.list_expr(scope)
            names, source = ["p"], text if len(shape) == 1 else "[1, 2]"
        unbound = [name for name in names if name not in scope.values]
        if names == ["row"]:
            # A row is a list: the body reads its cells.
            _, width = scope.tables[source]
            scope.forget("row")
            cell = f"row[{rng.randrange(width)}]"
            body = f"{{ let acc = {self.simple_atom(scope)} + {cell} * {cell} }}"
            scope.bind_value("acc", False)
            scope.bind_list("row", (width,), False)  # (the table has rows: the loop runs)
            return f"for row in {source} {body}"
        for name in names:
            scope.bind_value(name, False)
        text = f"for {', '.join(names)} in {source} {self.block(scope, depth)}"
        scope.values.difference_update(unbound)
        return text

    def if_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        if scope.indices and rng.random() < 0.6:
            condition = f"{rng.choice(scope.indices)} % {rng.randint(1, 3)} == 0"
        else:
            condition = f"{self.expr(scope, size=2)} {rng.choice(COMPARISONS)} {self.expr(scope, size=2)}"
        text = f"if {condition} {self.block(scope, depth)}"
        if rng.random() < 0.3:
            text += f" else if {self.expr(scope, size=1)} > 0 {self.block(scope, depth)}"
        if rng.random() < 0.5:
            text += ("\n" if rng.random() < 0.3 else " ") + f"else {self.block(scope, depth)}"
        return text

    def training_loop(self, scope: Scope, depth: int) -> str:
        """The chapter's shape: a loss over a table, a pass, a step, a print now and then."""
        rng = self.rng
        weights = sorted(scope.variables) or ["w"]
        if not scope.variables:
            scope.bind_value("w", True)
        if not scope.tables or rng.random() < 0.3:
            self.pending.append(self.table_let(scope))  # a statement of its own, before the loop
        table = rng.choice(sorted(scope.tables))
        _, width = scope.tables[table]
        columns = rng.sample(ROW_NAMES, width)
        for name in columns:  # the body of `for … in table` below may run no times, but uses them
            scope.bind_value(name, False)
        model = " + ".join(f"{weight} * {column}" for weight, column in zip(weights, columns * 3))
        if rng.random() < 0.4:
            model = f"{rng.choice(('tanh', 'sigmoid', 'relu'))}({model})"
        target = columns[-1]
        loss = rng.choice((f"({model} - {target}) ** 2", f"abs({model} - {target})", f"({model} - {target}) * ({model} - {target})"))
        lr = rng.choice(("0.1", "0.01", "0.05"))
        steps = rng.randint(1, 4)
        scope.bind_value("loss", False)
        scope.bind_value("step", False)
        descend = f"descend {', '.join(weights)} by {lr}"
        average = f"\n  let loss = loss / max(len({table}), 1)" if rng.random() < 0.5 else ""
        for weight in weights:
            scope.bind_value(weight, True)
        return (
            f"for step in 0..{steps} {{\n"
            f"  let loss = const 0\n"
            f"  for {', '.join(columns)} in {table} {{\n"
            f"    let loss = loss + {loss}\n"
            f"  }}{average}\n"
            f"  {rng.choice(('backward(loss)', 'quiet backward(loss)'))}\n"
            f"  {descend}\n"
            f"  if step % 2 == 0 {{ print \"step {{step}} loss {{loss}}\" }}\n"
            f"}}"
        )

    def model_loop(self, scope: Scope, depth: int) -> str:
        """The demo of "Lists: models as data" in small: a two-layer network as lists of
        variables, a function that makes a layer's list, a loss over a table's rows by index,
        an accuracy from comparisons, `descend` of the lists."""
        rng = self.rng
        tables = [name for name, (rows, width) in scope.tables.items() if rows and width >= 3]
        if not tables or rng.random() < 0.3:
            self.pending.append(self.table_let(scope, least=1, width=3))
            tables = [name for name, (rows, width) in scope.tables.items() if rows and width >= 3]
        table = rng.choice(sorted(tables))
        hidden, steps = rng.randint(1, 3), rng.randint(1, 3)
        draw = rng.choice(DRAWS)
        lines = [
            f"random_seed({rng.randint(0, 2000)})",
            f"let W1 = [[var {draw} for j in 0..2] for i in 0..{hidden}]",
            f"let b1 = [var 0 for i in 0..{hidden}]",
            f"let W2 = [[var {draw} for j in 0..{hidden}]]",
            "let b2 = [var 0]",
            "fn layer(W, b, xs) = [relu(dot(W[i], xs) + b[i]) for i in 0..len(W)]",
            "fn score(x1, x2) = dot(W2[0], layer(W1, b1, [x1, x2])) + b2[0]",
        ]
        self.pending.extend(lines)
        for name, shape in (("W1", (hidden, 2)), ("b1", (hidden,)), ("W2", (1, hidden)), ("b2", (1,))):
            scope.bind_list(name, shape, True)
        scope.forget("layer")
        scope.forget("score")
        scope.list_functions.add("layer")
        scope.functions["score"] = 2
        for name in ("scores", "losses"):
            scope.bind_list(name, (scope.tables[table][0],), False)
        for name in ("loss", "accuracy", "step"):
            scope.bind_value(name, False)
        rate = rng.choice(("1 - 0.9 * step / 100", "0.1", "0.05"))
        return (
            f"for step in 0..{steps} {{\n"
            f"  let scores = [score(row[0], row[1]) for row in {table}]\n"
            f"  let losses = [relu(1 - {table}[i][2] * scores[i]) for i in 0..len({table})]\n"
            f"  let loss = sum(losses) * (1 / len({table})) + 1e-4 * sum([p * p for p in flatten(W1, b1, W2, b2)])\n"
            f"  let accuracy = mean([({table}[i][2] > 0) == (scores[i] > 0) for i in 0..len({table})])\n"
            f"  {rng.choice(('backward(loss)', 'quiet backward(loss)'))}\n"
            f"  descend W1, b1, W2, b2 by {rate}\n"
            f"  if step % 2 == 0 {{ print \"step {{step}} loss {{loss}} accuracy {{accuracy}}\" }}\n"
            f"  {rng.choice(('zero_grad', 'zero_grad(loss)', 'let seen = len(flatten(W1, W2))'))}\n"
            f"}}"
        )

    # ---- expressions ------------------------------------------------------------------------------

    def name(self, scope: Scope) -> str:
        return self.rng.choice(sorted(scope.values) or ["1"])

    def variable(self, scope: Scope) -> str:
        return self.rng.choice(sorted(scope.variables) or ["(var 1)"])

    def tracked_expr(self, scope: Scope) -> str:
        """Mostly an expression over a variable, so that the pass has something to do."""
        if scope.variables and self.rng.random() < 0.9:
            return f"{self.variable(scope)} * {self.expr(scope, size=2)}" if self.rng.random() < 0.7 else self.expr(scope, size=3, prefer=self.variable(scope))
        return self.expr(scope, size=3)

    def expr(self, scope: Scope, size: int = 3, prefer: str | None = None, top: bool = False) -> str:
        """An expression of about ``size`` operations, built bottom-up with an explicit list of
        operand texts (each already an atom or parenthesised where precedence needs it). Only at
        the ``top`` of a statement is `var`/`const` left unparenthesised (it takes everything on
        its right); otherwise the result is an operand."""
        rng = self.rng
        operands = [self.atom(scope, prefer) for _ in range(size + 1)]
        while len(operands) > 1:
            right = operands.pop()
            left = operands.pop()
            choice = rng.random()
            if choice < 0.52:
                operator = rng.choice(OPERATORS) if rng.random() < 0.12 else rng.choice("+-*")
                operands.append(f"({left} {operator} {right})")
            elif choice < 0.66:
                exponent = rng.choice(("2", "3", "2 ** 1", "(const 2)", "value(2)", "2", "3", "0.5", "-1", "-2"))
                operands.append(f"({left} ** {exponent})")
            elif choice < 0.8:
                operands.append(f"{rng.choice(SAFE_UNARY if rng.random() < 0.9 else UNARY)}({left} + {right})")
            elif choice < 0.87:
                operands.append(f"{rng.choice(BINARY)}({left}, {right})")
            elif choice < 0.93:
                operands.append(f"{rng.choice(VARIADIC)}({left}, {right}{', ' + self.atom(scope) if rng.random() < 0.5 else ''})")
            else:  # a comparison: the constant 1 or 0
                operands.append(f"({left} {rng.choice(COMPARISONS)} {right})")
        text = operands[0]
        choice = rng.random()
        if choice < 0.13:
            text = f"{'var' if choice < 0.08 else 'const'} {text}"
            return text if top else f"({text})"
        if choice < 0.18:
            return f"-{text}"
        return text

    def atom(self, scope: Scope, prefer: str | None = None) -> str:
        rng = self.rng
        if prefer is not None and rng.random() < 0.5:
            return prefer
        choice = rng.random()
        if choice < 0.3:
            return rng.choice(NUMBERS) if rng.random() < 0.995 else rng.choice(RARE_NUMBERS)
        if choice < 0.6 and scope.values:
            return rng.choice(sorted(scope.values))
        if choice < 0.68 and scope.indices:
            return rng.choice(scope.indices)
        if choice < 0.76 and scope.functions:
            function = rng.choice(sorted(scope.functions))
            args = [self.simple_atom(scope) for _ in range(scope.functions[function])]
            return f"{function}({', '.join(args)})"
        if choice < 0.8 and scope.tables:
            return f"len({rng.choice(sorted(scope.tables))})"
        if choice < 0.87 and (scope.lists or scope.full_tables()):
            return self.list_atom(scope)
        if choice < 0.9:
            return rng.choice(DRAWS)
        if choice < 0.95:
            return f"{rng.choice(UNARY)}({self.simple_atom(scope)})"
        return f"(var {rng.choice(NUMBERS)})"

    def list_atom(self, scope: Scope) -> str:
        """A node read from a list or a table: an item by index, a fold, a count."""
        rng = self.rng
        full, matrices, tables = scope.flat_lists(nonempty=True), scope.matrices(), scope.full_tables()
        choice = rng.randint(0, 6)
        if choice == 0 and full:
            name = rng.choice(full)
            length = scope.lists[name][0]
            index = rng.randint(-length, length - 1)
            return rng.choice((f"{name}[{index}]", f"{name}[len({name}) - 1]", f"{name}[{index} % len({name})]"))
        if choice == 1 and full:
            name = rng.choice(full)
            return rng.choice((
                f"sum({name})", f"mean({name})", f"dot({name}, {name})", f"sum([p * p for p in {name}])",
                f"mean([p > 0 for p in {name}])", f"mean([(p > 0) == (p < 1) for p in {name}])", f"sum(flatten({name}, [1]))",
            ))
        if choice >= 5 and full:  # folds, probabilities and draws of classifiers
            name = rng.choice(full)
            length = scope.lists[name][0]
            k = rng.randrange(length)
            return rng.choice((
                f"max({name})", f"min({name})", f"logsumexp({name})", f"softmax({name})[{k}]",
                f"(max({name}) + argmax({name}) - logsumexp({name}))",
                f"(min({name}, {name}[0], 1) + argmin({name}) + cross_entropy({name}, {k}))",
                f"(sample(softmax({name})) + dot(one_hot({k}, len({name})), {name}) - max({name}, {name}[0], 1))",
                f"(logsumexp(softmax({name})) + sample(one_hot({k}, {length})) - argmax({name}))",
            ))
        if choice == 4 and full and rng.random() < 0.6:  # tensors of a list (issue 42), folded to a node
            name = rng.choice(full)
            length = scope.lists[name][0]
            T = f"tensor({name})"
            return rng.choice((
                f"sum(reshape(transpose(reshape({T} * ones({length}) + zeros(shape({T})), 1, {length})), -1))",
                f"(mean(exp({T} - max({T}))) + len(shape({T} @ transpose(tensor([{name}])))))",
                f"({T} @ {T} + sum(relu({T}) * (randn(shape({T})) * 0 + rand({length}) * 0), axis: 0))",
                f"sum(softmax(tensor([{name}, {name}]), axis: 0)[1])",
            ))
        if choice == 2 and matrices:
            name = rng.choice(matrices)
            rows, columns = scope.lists[name]
            return rng.choice((f"{name}[{rng.randrange(rows)}][{rng.randrange(columns)}]", f"sum(flatten({name}))", f"len({name}[0])"))
        if choice == 3 and tables:
            name = rng.choice(tables)
            rows, width = scope.tables[name]
            row = rng.randint(-rows, rows - 1)
            if width == 1:
                return f"{name}[{row}]"
            return rng.choice((f"{name}[{row}][{rng.randrange(width)}]", f"sum([row[0] for row in {name}])"))
        name = rng.choice(sorted(scope.lists) or ["[1]"])
        return rng.choice((f"len({name})", f"len(flatten({name}))", f"len(zip({name}, {name}))"))

    def simple_atom(self, scope: Scope) -> str:
        if scope.values and self.rng.random() < 0.6:
            return self.rng.choice(sorted(scope.values))
        return self.rng.choice(NUMBERS[:10])


def program_text(statements: list[str]) -> str:
    return "\n".join(statements) + "\n"


def statement_lines(statements: list[str]) -> list[tuple[int, int]]:
    """The first and last line (1-based) of each top-level statement in `program_text`."""
    spans, line = [], 1
    for text in statements:
        count = text.count("\n") + 1
        spans.append((line, line + count - 1))
        line += count
    return spans


def programs(seed: int, count: int, **options) -> list[list[str]]:
    """``count`` programs from one seed (each from its own `Random`: program k is the same
    whatever the count)."""
    return [ProgramGenerator(random.Random(f"{seed}-{index}"), **options).program() for index in range(count)]
