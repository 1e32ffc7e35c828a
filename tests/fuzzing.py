"""A grammar-aware generator of `.sad` programs for the fuzz tests (``test_fuzz_programs``).

`ProgramGenerator(rng).program()` writes a program as a list of top-level statements (each
one text, perhaps several lines with nested blocks), mixing every form of the grammar: `let`
of values and tables, `fn`, `print` with `{EXPR}` holes, value lines, `backward`, `zero_grad`,
`graph`, `gradcheck`, `assert … within`, `expect KIND:`, `quiet`, `repeat`, `for` over ranges
and tables, `if`/`else if`/`else`, `descend`, `%` and `**`, every built-in. It keeps track of
what is bound (variables, other values, tables and their widths, functions and their arity,
loop indices), so most statements are meaningful and most programs run far; now and then it
writes one of a catalogue of slightly wrong statements (`BROKEN`: wrong arity, undefined
names, tracked exponents, counts that are not counts or are huge, `descend` of what is not a
variable, non-finite values, tables of mismatched width, Python habits). Loops are bounded
(counts of at most 3, nesting of at most 3 blocks, training loops of a few steps), so a
program runs in milliseconds.

The generator is seeded (`random.Random`): a failing seed is a reproducer.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

VALUE_NAMES = ("x", "y", "z", "w", "b", "h", "loss", "acc", "out")
TABLE_NAMES = ("data", "points", "rows")
FUNCTION_NAMES = ("f", "g", "predict", "neuron", "sq")
INDEX_NAMES = ("i", "j", "k", "step")
ROW_NAMES = ("a", "c", "u", "v")
NUMBERS = ("0", "1", "2", "3", "0.5", "0.25", "0.1", "1.5", "-1", "-0.5", "2.5", "1e-3", ".5")
RARE_NUMBERS = ("1e308", "1e-320", "1e300", "inf", "nan", "-inf", "700", "0.0", "1e16")
UNARY = ("exp", "tanh", "log", "sqrt", "relu", "sigmoid", "abs", "detach", "grad", "value")
SAFE_UNARY = ("tanh", "sigmoid", "relu", "abs", "detach", "value")
BINARY = ("max", "min")
VARIADIC = ("sum", "mean")
COUNTS = ("node_count", "edge_count")
OPERATORS = ("+", "-", "*", "/", "%")
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
KINDS = (
    "undefined-name", "unknown-function", "wrong-arguments", "no-gradient", "not-a-variable",
    "assertion-failed", "non-finite-result", "non-finite-leaf", "tracked-exponent", "not-a-count",
    "not-a-value", "not-a-table", "too-long", "reserved-name", "untracked-output", "non-finite-seed",
    "gradcheck-failed", "expectation-failed", "table-width",
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
    "for a, c in {t1} {{ print a }}", "for a in {t2} {{ print a }}", "for a, c, u in {t2} {{ }}",
    "{t} + 1", "let q = {t} * 2", "for a in {n} {{ }}", "let q = {f}", "{f} + 1", "print {t}",
    "let exp = 1", "fn grad(a) = a", "fn q(len) = len", "let backward = 2", "fn r(a) = r(a)",
    "assert {n} == {n} + 1", "assert {n} != {n}", "assert 1 == 2 within 0.5",
    "gradcheck({n} * {v}, 2)", "gradcheck(exp({v}), {v}, 1, 1e-12)", "gradcheck({v}, {v}, 0, 1)",
    "gradcheck({v}, {v}, tol: 1)", "gradcheck({v}, {v}, step: 1, step: 2)", "exp({n}, x: 1)",
    "expect no-gradient: print 1", "expect undefined-name: let q = 1", "expect wrong-arguments: exp(1)",
    "grad(1)", "grad(detach({n}))",
)
# Wrong whole programs: the parser (or the builder) refuses them, nothing runs.
BROKEN_SYNTAX = (
    "let T = [(1, 2), (3)]", "let T = [(1, 2), 3]", "let T = [{n}]", "let T = [((1, 2))]", "let T = [1, (2, 3)]",
    "fn q(a, a) = a", "for a, a in {t2} {{ }}", "for i, j in 0..3 {{ }}",
    "{n} ^ 2", "def q(a):", "def q(a): return a", "{v} -= 1", "{v} += 0.1", "{v}.grad", "{v}.backward()",
    "for i in range(3):", "if {n} > 1:", "while {n} < 2 {{ }}", "{n} = 1", "x == 1 {{", "import math",
    "print(\"unclosed)", "print \"{{1 +}}\"", "print \"\\q\"", "repeat 2 {{", "}}", "repeat 2\n{{ }}",
    "if 1 < 2 {{ }} elif 2 < 3 {{ }}", "fn q() =", "descend by 0.1", "descend {v} 0.1", "let = 1",
    "quiet", "expect: 1", "expect No_Kind: 1", "assert 1 < 2 within 1", "let q = 1 +", "{n} ** ",
    "let q = lambda a: a", "let q = [1, 2] + 1", "descend {v}, {v} by 0.1",
)
PYTHON_HABITS = (
    ("{n} ^ 2", "**"), ("def q(a):", "fn "), ("def q(a): return a", "fn "), ("{v} -= 1", "descend"),
    ("{v} += 0.1", "let "), ("{v}.grad", "grad("), ("for i in range(3):", "0..3"),
)


@dataclass
class Scope:
    """What the program has bound so far, as far as the generator can tell."""

    variables: set[str] = field(default_factory=set)
    values: set[str] = field(default_factory=set)
    tables: dict[str, int] = field(default_factory=dict)
    functions: dict[str, int] = field(default_factory=dict)
    indices: list[str] = field(default_factory=list)

    def bind_value(self, name: str, tracked_leaf: bool) -> None:
        self.tables.pop(name, None)
        self.functions.pop(name, None)
        self.values.add(name)
        (self.variables.add if tracked_leaf else self.variables.discard)(name)


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
        """A few variables and a table, so that later statements have something to use."""
        rng = self.rng
        lines = []
        for name in rng.sample(("x", "w", "b"), rng.randint(1, 3)):
            lines.append(f"let {name} = var {rng.choice(NUMBERS)}")
            scope.bind_value(name, True)
        if rng.random() < 0.7:
            lines.append(self.table_let(scope))
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
        width_one = [name for name, width in scope.tables.items() if width == 1] or ["[1, 2]"]
        wider = [name for name, width in scope.tables.items() if width >= 2] or ["[(1, 2), (3, 4)]"]
        function = rng.choice(sorted(scope.functions)) if scope.functions else "f"
        arity = scope.functions.get(function, 1)
        return template.format(
            v=rng.choice(variables), n=rng.choice(values), t=rng.choice(tables), t1=rng.choice(width_one),
            t2=rng.choice(wider), f=function, fargs=", ".join(["1"] * (arity + 1)),
        )

    # ---- statements ---------------------------------------------------------------------------

    def statement(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        forms = [
            (6, self.let_value), (2, self.let_variable), (1, self.table_let), (2, self.fn_def),
            (3, self.print_stmt), (1, self.value_line), (3, self.backward_stmt), (1, self.zero_grad_stmt),
            (1, self.graph_stmt), (1, self.draw_stmt), (1, self.gradcheck_stmt), (2, self.assert_stmt), (2, self.expect_stmt),
            (1, self.quiet_stmt), (2, self.descend_stmt), (1, self.semicolons),
        ]
        if depth < 3:
            forms += [(2, self.repeat_stmt), (2, self.for_range), (2, self.for_table), (2, self.if_stmt)]
        if depth == 0:
            forms += [(2, self.training_loop), (1, self.comment)]
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

    def table_let(self, scope: Scope, depth: int = 0) -> str:
        name = self.rng.choice(TABLE_NAMES)
        width = self.rng.randint(1, 3)
        text = f"let {name} = {self.table(width)}"
        scope.values.discard(name)
        scope.variables.discard(name)
        scope.functions.pop(name, None)
        scope.tables[name] = width
        return text

    def table(self, width: int) -> str:
        rng = self.rng
        rows = []
        for _ in range(rng.randint(0, 4)):
            entries = [rng.choice(NUMBERS) for _ in range(width)]
            rows.append(entries[0] if width == 1 and rng.random() < 0.5 else f"({', '.join(entries)}{',' if rng.random() < 0.1 else ''})")
        trailing = "," if rows and rng.random() < 0.1 else ""
        return f"[{', '.join(rows)}{trailing}]"

    def fn_def(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        name = rng.choice(FUNCTION_NAMES)
        params = rng.sample(("p", "q", "r", "e"), rng.randint(1, 3))
        # The body sees the parameters, the globals and the functions defined before.
        inner = Scope(set(scope.variables), set(scope.values) | set(params), {}, dict(scope.functions))
        inner.functions.pop(name, None)
        body = self.expr(inner, size=rng.randint(1, 4))
        scope.tables.pop(name, None)
        scope.values.discard(name)
        scope.variables.discard(name)
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
            else:
                pieces.append("{" + self.expr(scope, size=2) + "}")
        return '"' + "".join(pieces) + '"'

    def value_line(self, scope: Scope, depth: int) -> str:
        return self.expr(scope, top=True)

    def backward_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        output = self.tracked_expr(scope)
        if rng.random() < 0.25:
            return f"backward({output}, {rng.choice(NUMBERS + ('1e300', 'inf', '0'))})"
        return f"backward({output})"

    def zero_grad_stmt(self, scope: Scope, depth: int) -> str:
        return "zero_grad" if self.rng.random() < 0.5 else f"zero_grad({self.expr(scope, size=2)})"

    def graph_stmt(self, scope: Scope, depth: int) -> str:
        return f"graph({self.expr(scope, size=3)})"

    def draw_stmt(self, scope: Scope, depth: int) -> str:
        # No file that would be written: the programs also run in the test process's folder.
        if self.rng.random() < 0.2:
            return f'draw({self.expr(scope, size=2)}, "picture.txt")'  # an unknown format
        return f"draw({self.expr(scope, size=3)})"

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
        rng = self.rng
        if not scope.variables:
            return self.let_variable(scope, depth)
        names = rng.sample(sorted(scope.variables), rng.randint(1, len(scope.variables)))
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
            scope.tables = {name: width for name, width in scope.tables.items() if before.tables.get(name) == width}
            scope.functions = {name: arity for name, arity in scope.functions.items() if before.functions.get(name) == arity}

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

    def repeat_stmt(self, scope: Scope, depth: int) -> str:
        rng = self.rng
        count = rng.choice(("0", "1", "2", "3", "len(data)" if "data" in scope.tables else "2", "1 + 1", "value(2)"))
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
            width = scope.tables[table]
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
        width = scope.tables[table]
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
            if choice < 0.55:
                operator = rng.choice(OPERATORS) if rng.random() < 0.12 else rng.choice("+-*")
                operands.append(f"({left} {operator} {right})")
            elif choice < 0.7:
                exponent = rng.choice(("2", "3", "2 ** 1", "(const 2)", "value(2)", "2", "3", "0.5", "-1", "-2"))
                operands.append(f"({left} ** {exponent})")
            elif choice < 0.85:
                operands.append(f"{rng.choice(SAFE_UNARY if rng.random() < 0.9 else UNARY)}({left} + {right})")
            elif choice < 0.92:
                operands.append(f"{rng.choice(BINARY)}({left}, {right})")
            else:
                operands.append(f"{rng.choice(VARIADIC)}({left}, {right}{', ' + self.atom(scope) if rng.random() < 0.5 else ''})")
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
        if choice < 0.65 and scope.values:
            return rng.choice(sorted(scope.values))
        if choice < 0.75 and scope.indices:
            return rng.choice(scope.indices)
        if choice < 0.85 and scope.functions:
            function = rng.choice(sorted(scope.functions))
            args = [self.simple_atom(scope) for _ in range(scope.functions[function])]
            return f"{function}({', '.join(args)})"
        if choice < 0.9 and scope.tables:
            return f"len({rng.choice(sorted(scope.tables))})"
        if choice < 0.95:
            return f"{rng.choice(UNARY + COUNTS)}({self.simple_atom(scope)})"
        return f"(var {rng.choice(NUMBERS)})"

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
