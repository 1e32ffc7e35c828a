"""Random list programs for ``test_list_programs``: trees in list_model.py's forms, and their
`.sad` text.

`ListProgramGenerator(seed, folder).program()` writes a model (nested lists of variables, a
2-D weight matrix and a ragged list among them), data (a table literal, or a CSV file it writes
into ``folder`` for `read_table`: any line ends, quoted cells or not), functions (one of two
nodes, one returning a list: test_list_properties' `layer`, one scaling a list), then a body:
comprehensions of one or two `for`s (over lists, ranges, `zip`, the rows of a table, nested
into 2-D lists, `var` ones making new parameters), list literals, `flatten`, `zip`, rows,
indexing, `sum`, `mean`, `dot`, `len`, calls, bare expressions (their `value` and `list`
events), `print` with `{EXPR:.17g}` holes, `backward` (the whole pass record), `descend` of
nested lists, training loops, `for` loops over ranges, lists and tables, `if`, `zero_grad`,
`quiet`, `grad`, `random_seed`, second names and lists of variables others hold, losses
times 0 (passes that add 0), and `expect` of fuzzing.py's wrong list statements. It tracks
only the shapes of what is bound; values are the model's business. Seeded: a seed is a
reproducer.
"""

from __future__ import annotations

import random
from pathlib import Path

from fuzzing import BAD_TABLE_FILE, BAD_TEXT_FILE, BROKEN_LISTS, quoted
from list_program_text import LEARNING_RATES, NUMBERS

N = "n"  # a node, among the item types of a list's type (a tuple of item types)
# fuzzing.py's wrong statements about lists that fit on one line, with the kind each fails with.
EXPECTED = tuple((template, kind) for template, kind in BROKEN_LISTS if "\n" not in template)
LAYER = ("layer", ("M", "c", "xs"), (
    "comp",
    ("fn", "relu", ("bin", "+", ("call", "dot", [("index", ("name", "M"), ("name", "i")), ("name", "xs")]),
                    ("index", ("name", "c"), ("name", "i")))),
    [(("i",), ("range", ("int", 0), ("call", "len", [("name", "M")])))],
))
SCALE = ("scale", ("L", "s"), ("comp", ("bin", "*", ("name", "p"), ("name", "s")), [(("p",), ("name", "L"))]))


def flat(kind) -> bool:
    return isinstance(kind, tuple) and all(item == N for item in kind)


def nodes_of(kind) -> int:
    return 1 if kind == N else sum(nodes_of(item) for item in kind)


class Scope:
    """What is bound, by shape: node names (``variables`` the tracked leaves), lists by type,
    ``params`` the lists of variables only, ``tables`` the lists of rows of constants."""

    def __init__(self) -> None:
        self.scalars: list[str] = []
        self.variables: list[str] = []
        self.lists: dict[str, tuple] = {}
        self.params: list[str] = []
        self.tables: list[str] = []

    def bind_scalar(self, name: str, is_variable: bool = False) -> None:
        if name not in self.scalars:
            self.scalars.append(name)
        if is_variable and name not in self.variables:
            self.variables.append(name)
        elif not is_variable and name in self.variables:
            self.variables.remove(name)

    def bind_list(self, name: str, kind: tuple, param: bool = False, table: bool = False) -> None:
        self.lists[name] = kind
        for group, member in ((self.params, param), (self.tables, table)):
            if member and name not in group:
                group.append(name)
            elif not member and name in group:
                group.remove(name)

    def flats(self) -> list[str]:
        return [name for name, kind in self.lists.items() if flat(kind) and kind]

    def matrices(self) -> list[str]:
        return [
            name for name, kind in self.lists.items()
            if kind and all(flat(row) and row for row in kind) and len({len(row) for row in kind}) == 1
        ]


class ListProgramGenerator:
    def __init__(self, seed: int, folder: Path):
        self.rng = random.Random(seed)
        self.folder = folder
        self.seed = seed
        self.scope = Scope()
        self.count = 0
        self.files = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    # ---- the program ---------------------------------------------------------------------------

    def program(self, statements: int) -> list:
        rng, scope = self.rng, self.scope
        program: list = []
        if rng.random() < 0.3:
            program.append(("random_seed", rng.randint(0, 99)))
        rows, width = rng.randint(1, 3), rng.randint(1, 3)
        program.append(("let", "W", self.parameters((rows, width))))
        scope.bind_list("W", ((N,) * width,) * rows, param=True)
        program.append(("let", "b", self.parameters((rows,))))
        scope.bind_list("b", (N,) * rows, param=True)
        program.append(("let", "X", ("list", [("lnum", rng.choice(NUMBERS)) for _ in range(width)])))
        scope.bind_list("X", (N,) * width)
        program.append(("let", "w", ("var", ("num", rng.choice(NUMBERS)))))
        scope.bind_scalar("w", is_variable=True)
        if rng.random() < 0.6:
            value, kind = self.ragged(rng.randint(1, 3))
            program.append(("let", "V", value))
            scope.bind_list("V", kind, param=True)
        program.append(("let", "T", self.table()))
        program.append(("fn", *SCALE))
        program.append(("fn", *LAYER))
        program.append(("fn", "f", ("a", "c"), self.template([("name", "a"), ("name", "c")], names=["w"])))
        for _ in range(statements):
            program.append(self.statement())
        return program

    def parameters(self, shape: tuple[int, ...]):
        rng = self.rng
        if rng.random() < 0.4:  # drawn from the session's generator
            inner = ("var", ("call", "uniform", [("num", -1.0), ("num", 1.0)]))
            if len(shape) == 1:
                return ("comp", inner, [(("i",), ("range", ("int", 0), ("int", shape[0])))])
            row = ("comp", inner, [(("j",), ("range", ("int", 0), ("int", shape[1])))])
            return ("comp", row, [(("i",), ("range", ("int", 0), ("int", shape[0])))])
        if len(shape) == 1:
            return ("list", [("var", ("num", rng.choice(NUMBERS))) for _ in range(shape[0])])
        return ("list", [self.parameters(shape[1:]) for _ in range(shape[0])])

    def ragged(self, depth: int):
        """A nested list of variables of uneven lengths, and its type."""
        items, kinds = [], []
        for _ in range(self.rng.randint(1, 3)):
            if depth > 1 and self.rng.random() < 0.5:
                item, kind = self.ragged(depth - 1)
            else:
                item, kind = ("var", ("num", self.rng.choice(NUMBERS))), N
            items.append(item)
            kinds.append(kind)
        return ("list", items), tuple(kinds)

    def table(self):
        """A table of constants T: a literal, or a CSV file `read_table` reads."""
        rng = self.rng
        rows, width = rng.randint(1, 4), rng.randint(2, 3)
        values = [[rng.choice(NUMBERS) if rng.random() < 0.7 else round(rng.uniform(-3, 3), rng.randint(0, 17))
                   for _ in range(width)] for _ in range(rows)]
        self.scope.bind_list("T", ((N,) * width,) * rows, table=True)
        if rng.random() < 0.5:
            return ("list", [("list", [("lnum", v) for v in row]) for row in values])
        path = self.folder / f"s{self.seed}-{self.files}.csv"
        self.files += 1
        end = rng.choice(["\n", "\r\n", "\r"])
        quote = rng.random() < 0.3

        def cell(text: str) -> str:
            return f'"{text}"' if quote or rng.random() < 0.1 else text

        lines = [",".join(cell(name) for name in ("x1", "x2", "y")[:width])] if rng.random() < 0.7 else []
        lines += [",".join(cell(repr(v)) for v in row) for row in values]
        text = end.join(lines) + (end if rng.random() < 0.8 else "")
        path.write_bytes((b"\xef\xbb\xbf" if rng.random() < 0.2 else b"") + text.encode())
        return ("table", path, values)

    # ---- expressions ---------------------------------------------------------------------------

    def item(self):
        """A node: a name, an item of a list (by any index), a number."""
        rng, scope = self.rng, self.scope
        forms = ["num"]
        if scope.scalars:
            forms += ["name"] * 2
        flats = scope.flats()
        if flats:
            forms += ["flat"] * 2
        if scope.matrices():
            forms.append("cell")
        form = rng.choice(forms)
        if form == "num":
            return ("num", rng.choice(NUMBERS))
        if form == "name":
            return ("name", rng.choice(scope.scalars))
        if form == "flat":
            name = rng.choice(flats)
            return ("index", ("name", name), self.index(len(scope.lists[name])))
        name = rng.choice(scope.matrices())
        kind = scope.lists[name]
        return ("index", ("index", ("name", name), self.index(len(kind))), self.index(len(kind[0])))

    def index(self, length: int):
        position = self.rng.randint(-length, length - 1)
        return ("int", position) if position >= 0 else ("neg", ("int", -position))

    def template(self, slots: list, names: list[str] | None = None, leaves: int = 4):
        """An expression tree over ``slots`` (expressions), names and numbers: the forms of
        test_list_properties' templates, and a few more."""
        rng = self.rng
        names = self.scope.scalars if names is None else names
        if leaves <= 1 or rng.random() < 0.3:
            choice = rng.random()
            if slots and choice < 0.6:
                return rng.choice(slots)
            if names and choice < 0.8:
                return ("name", rng.choice(names))
            return ("num", rng.choice(NUMBERS))
        form = rng.choice(["bin", "bin", "bin", "fn", "sq", "cmp", "neg", "max", "div"])
        if form in ("bin", "cmp", "max"):
            split = rng.randint(1, leaves - 1)
            left = self.template(slots, names, split)
            right = self.template(slots, names, leaves - split)
            if form == "bin":
                return ("bin", rng.choice("+-*"), left, right)
            if form == "cmp":
                return ("cmp", rng.choice((">", "<=", "==")), left, right)
            return ("call", rng.choice(("max", "min")), [left, right])
        inner = self.template(slots, names, leaves - 1)
        if form == "fn":
            return ("fn", rng.choice(("tanh", "relu", "sigmoid", "abs")), inner)
        if form == "sq":
            return ("sq", inner)
        if form == "neg":
            return ("neg", inner)
        return ("bin", "/", inner, ("num", rng.choice((2.0, 0.5, 3.0))))

    def scalar(self):
        """A node-valued expression of what is bound."""
        rng, scope = self.rng, self.scope
        flats = scope.flats()
        forms = ["template", "template", "call"]
        if flats:
            forms += ["sum", "mean", "dot", "len", "inline"]
        form = rng.choice(forms)
        if form == "template" or not flats and form != "call":
            return self.template([self.item() for _ in range(rng.randint(1, 3))])
        if form == "call":
            return ("call", "f", [self.item(), self.item()])
        source = rng.choice(flats)
        if form in ("sum", "mean"):
            if rng.random() < 0.3:
                return ("call", form, [self.item() for _ in range(rng.randint(1, 3))])
            return ("call", form, [("name", source)])
        if form == "dot":
            same = [name for name in flats if len(scope.lists[name]) == len(scope.lists[source])]
            return ("call", "dot", [("name", source), ("name", rng.choice(same))])
        if form == "len":
            return ("bin", "*", ("call", "len", [("name", source)]), self.template([self.item()]))
        body = self.template([("name", "p")])
        return ("call", "mean", [("comp", body, [(("p",), ("name", source))])])

    def derived(self):
        """A list-valued expression, its type, and whether it is a list of new variables."""
        rng, scope = self.rng, self.scope
        flats, matrices = scope.flats(), scope.matrices()
        forms = ["literal", "flatten", "range"]
        if flats:
            forms += ["map", "map", "index", "zip", "product", "nested", "zipped", "scale"]
        if matrices:
            forms += ["row"]
        if scope.tables:
            forms += ["rows", "rows"]
        layers = [
            (m, c, x) for m in matrices for c in flats for x in flats
            if len(scope.lists[x]) == len(scope.lists[m][0]) and len(scope.lists[c]) >= len(scope.lists[m])
        ]
        if layers:
            forms += ["layer"]
        form = rng.choice(forms)
        p, q = ("name", "p"), ("name", "q")
        if form == "map":
            a = rng.choice(flats)
            return ("comp", self.template([p]), [(("p",), ("name", a))]), scope.lists[a], False
        if form == "index":  # i counting up in one list and down in the other
            a, b = rng.choice(flats), rng.choice(flats)
            n = min(len(scope.lists[a]), len(scope.lists[b]))
            bound = ("call", "len", [("name", a)]) if n == len(scope.lists[a]) else ("int", n)
            i = ("name", "i")
            down = ("bin", "-", ("num", -1.0), i)
            body = self.template([("index", ("name", a), i), ("index", ("name", b), down)])
            return ("comp", body, [(("i",), ("range", ("int", 0), bound))]), (N,) * n, False
        if form in ("zip", "product", "nested"):
            a, b = rng.choice(flats), rng.choice(flats)
            body = self.template([p, q])
            la, lb = len(scope.lists[a]), len(scope.lists[b])
            if form == "zip":
                pairs = ("call", "zip", [("name", a), ("name", b)])
                return ("comp", body, [(("p", "q"), pairs)]), (N,) * min(la, lb), False
            if form == "product":  # the first `for` is the outer loop
                return ("comp", body, [(("p",), ("name", a)), (("q",), ("name", b))]), (N,) * (la * lb), False
            inner = ("comp", body, [(("q",), ("name", b))])
            return ("comp", inner, [(("p",), ("name", a))]), ((N,) * lb,) * la, False
        if form == "zipped":
            a, b = rng.choice(flats), rng.choice(flats)
            count = min(len(scope.lists[a]), len(scope.lists[b]))
            return ("call", "zip", [("name", a), ("name", b)]), ((N, N),) * count, False
        if form == "scale":
            a = rng.choice(flats)
            return ("call", "scale", [("name", a), self.item()]), scope.lists[a], False
        if form == "rows":
            table = rng.choice(scope.tables)
            kind = scope.lists[table]
            width = len(kind[0])
            names = ("a", "c", "u")[:width]
            if rng.random() < 0.5:
                body = self.template([("name", n) for n in names])
                return ("comp", body, [(names, ("name", table))]), (N,) * len(kind), False
            row = ("name", "r")
            body = self.template([("index", row, ("int", 0)), ("index", row, ("neg", ("int", 1)))])
            return ("comp", body, [(("r",), ("name", table))]), (N,) * len(kind), False
        if form == "row":
            m = rng.choice(matrices)
            kind = scope.lists[m]
            return ("index", ("name", m), self.index(len(kind))), kind[0], m in scope.params
        if form == "layer":
            m, c, x = rng.choice(layers)
            return ("call", "layer", [("name", m), ("name", c), ("name", x)]), (N,) * len(scope.lists[m]), False
        if form == "range":  # new variables: a list descend takes
            n = rng.randint(1, 3)
            body = ("var", self.template([("name", "i")], leaves=2))
            return ("comp", body, [(("i",), ("range", ("int", 0), ("int", n)))]), (N,) * n, True
        if form == "flatten":
            sources = rng.sample(sorted(scope.lists) + scope.scalars, rng.randint(1, 2))
            count = sum(nodes_of(scope.lists[s]) if s in scope.lists else 1 for s in sources)
            params = all(s in scope.params or s in scope.variables for s in sources)
            return ("call", "flatten", [("name", s) for s in sources]), (N,) * count, params
        items, kinds = [], []
        for _ in range(rng.randint(1, 4)):
            choice = rng.random()
            if choice < 0.3:
                items.append(("lnum", rng.choice(NUMBERS)))
                kinds.append(N)
            elif choice < 0.45 and scope.lists:
                name = rng.choice(sorted(scope.lists))
                items.append(("name", name))
                kinds.append(scope.lists[name])
            else:
                items.append(self.item())
                kinds.append(N)
        return ("list", items), tuple(kinds), False

    # ---- statements ----------------------------------------------------------------------------

    def statement(self):
        rng = self.rng
        forms = [
            (4, self.let_list), (3, self.let_scalar), (2, self.show), (2, self.print_stmt), (3, self.train),
            (1, self.loop), (1, self.for_loop), (1, self.if_stmt), (2, self.expect), (1, self.zero_grad),
            (1, self.gradient), (1, self.alias), (1, self.shared_step),
        ]
        return rng.choices([form for _, form in forms], [weight for weight, _ in forms])[0]()

    def let_list(self):
        value, kind, param = self.derived()
        name = self.fresh("Q")
        self.scope.bind_list(name, kind, param=param)
        return ("let", name, value)

    def let_scalar(self):
        if self.rng.random() < 0.2:
            name = self.fresh("v")
            statement = ("let", name, ("var", self.template([self.item()], leaves=2)))
            self.scope.bind_scalar(name, is_variable=True)
            return statement
        name = self.fresh("s")
        statement = ("let", name, self.scalar())
        self.scope.bind_scalar(name)
        return statement

    def show(self):
        if self.rng.random() < 0.5:
            return ("expr", self.scalar())
        return ("expr", self.derived()[0])

    def print_stmt(self):
        parts: list = ["at"]
        for _ in range(self.rng.randint(1, 3)):
            parts += [" ", (self.scalar(), self.rng.choice((".17g", ".17e", "+.6f")))]
        return ("print", parts)

    def loss(self):
        """A tracked loss: the sum of the squares of the parameters and more."""
        rng, scope = self.rng, self.scope
        sources = rng.sample(scope.params, rng.randint(1, len(scope.params))) + rng.sample(
            sorted(set(scope.lists) - set(scope.params)) + scope.scalars, rng.randint(0, 2)
        )
        p = ("name", "p")
        everything = ("call", "flatten", [("name", s) for s in sources])
        squares = ("call", "sum", [("comp", ("bin", "*", p, p), [(("p",), everything)])])
        return ("bin", "+", squares, self.scalar()) if rng.random() < 0.6 else squares

    def descend(self):
        rng, scope = self.rng, self.scope
        names = rng.sample(scope.params + scope.variables, rng.randint(1, 3))
        return ("descend", names, ("num", rng.choice(LEARNING_RATES)))

    def train(self):
        rng = self.rng
        # A loss times 0 now and then: a pass that reaches the variables and adds 0 to each.
        loss = self.loss()
        statements = [("let", "loss", ("bin", "*", loss, ("num", 0.0)) if rng.random() < 0.15 else loss)]
        self.scope.bind_scalar("loss")
        seed = None if rng.random() < 0.8 else ("num", rng.choice((1.0, 0.5, 2.0)))
        statements.append(("backward", ("name", "loss"), seed))
        if rng.random() < 0.2:
            statements[-1] = ("quiet", statements[-1])
        statements.append(self.descend())
        return ("block", statements)

    def shared_step(self):
        """Variables held by two names, a pass that adds 0 to what it reaches, a step through
        some names, then a step through the second name: whether it warns depends only on
        what the pass reached, not on which name stepped first."""
        alias = self.alias()
        name = alias[1]
        train = self.train()[1]
        train[0] = ("let", "loss", ("bin", "*", train[0][2], ("num", 0.0)))
        return ("block", [alias, *train, ("descend", [name], ("num", self.rng.choice(LEARNING_RATES)))])

    def loop(self):
        """A training loop: derived lists and the loss again at each step."""
        rng = self.rng
        body = [self.let_list() for _ in range(rng.randint(0, 2))]
        body += self.train()[1]
        if rng.random() < 0.3:
            body.append(("print", ["step ", (("name", "loss"), ".17g")]))
        return ("repeat", rng.randint(1, 3), body)

    def for_loop(self):
        rng, scope = self.rng, self.scope
        total = ("name", "acc")
        start = ("let", "acc", ("num", 0.0) if rng.random() < 0.5 else ("name", rng.choice(scope.scalars)))
        flats = scope.flats()
        if scope.tables and rng.random() < 0.4:
            table = rng.choice(scope.tables)
            names = ("a", "c", "u")[: len(scope.lists[table][0])]
            body = self.template([("name", n) for n in names])
            loop = ("for", names, ("name", table), [("let", "acc", ("bin", "+", total, body))])
        elif flats and rng.random() < 0.5:
            a = rng.choice(flats)
            body = self.template([("index", ("name", a), ("name", "k"))])
            indices = ("range", ("int", 0), ("call", "len", [("name", a)]))
            loop = ("for", ("k",), indices, [("let", "acc", ("bin", "+", total, body))])
        else:
            source = rng.choice(flats) if flats else "X"
            body = ("fn", "tanh", self.template([("name", "e")]))
            loop = ("for", ("e",), ("name", source), [("let", "acc", ("bin", "+", total, body))])
        scope.bind_scalar("acc")
        return ("block", [start, loop])

    def if_stmt(self):
        rng = self.rng
        name = self.fresh("z")
        then = [("let", name, self.scalar())]
        otherwise = [("let", name, self.scalar())]
        if rng.random() < 0.5:
            then.append(("expr", self.scalar()))
        statement = ("if", rng.choice((">", "<=", "==", "!=")), self.scalar(), self.scalar(), then, otherwise)
        self.scope.bind_scalar(name)
        return statement

    def expect(self):
        rng, scope = self.rng, self.scope
        template, kind = rng.choice(EXPECTED)
        flats = [name for name in scope.flats() if name not in scope.tables]
        name = rng.choice(flats) if flats else "X"
        length = len(scope.lists[name])
        text = template.format(
            l=name, len=length, len1=length + 1, n=rng.choice(scope.scalars), t=rng.choice(scope.tables),
            bad=quoted(BAD_TABLE_FILE), badtext=quoted(BAD_TEXT_FILE),
        )
        return ("expect", kind, text)

    def zero_grad(self):
        if self.rng.random() < 0.5 or "loss" not in self.scope.scalars:
            return ("zero_grad", None)
        return ("zero_grad", ("name", "loss"))

    def gradient(self):
        return ("expr", ("call", "grad", [self.variable()]))

    def variable(self):
        """A variable a name holds: a parameter's item (`W[1][0]`) or a variable's name."""
        rng, scope = self.rng, self.scope
        name = rng.choice(scope.params)
        kind = scope.lists[name]
        path = []
        while kind != N:
            k = rng.randrange(len(kind))
            path.append(k)
            kind = kind[k]
        target = ("name", name)
        for k in path:
            target = ("index", target, ("int", k))
        if rng.random() < 0.5 and scope.variables:
            target = ("name", rng.choice(scope.variables))
        return target

    def alias(self):
        """Variables other names hold too: a list of them (`let Q = [w, W[1][0]]`) or a second
        name for one. Stepping one name must not make the other's variable look unreached."""
        rng, scope = self.rng, self.scope
        items = [self.variable() for _ in range(rng.randint(1, 3))]
        if len(items) == 1 and rng.random() < 0.5:
            name = self.fresh("v")
            scope.bind_scalar(name, is_variable=True)
            return ("let", name, items[0])
        name = self.fresh("Q")
        scope.bind_list(name, (N,) * len(items), param=True)
        return ("let", name, ("list", items))


def flatten_blocks(program: list) -> list:
    """A generator's ("block", statements) is its statements, one after another."""
    result = []
    for statement in program:
        result += statement[1] if statement[0] == "block" else [statement]
    return result
