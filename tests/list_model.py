"""An evaluator of `.sad` list programs written for the tests, apart from the package, with its
own nodes and reverse pass (model_nodes.py), built from what docs/engine.md and
docs/language.md say, never from the engine or the interpreter (``test_list_programs`` runs
the command on the same programs and compares every event).

Programs are trees (the generator's, `list_programs.py`), not text: nothing here parses. What
the language defines, this follows: a number literal is a fresh constant each time it is
evaluated (negated in an expression, `neg` of it; as an item of a list literal, one constant);
`sum` and `dot` are left folds of `+`, `mean` one division of the fold by a constant count; a
comparison, `len`, `value` and `grad` are constants; a comprehension's names are its own; a
function's other names are looked up when it runs; `descend` makes fresh variables
`value - lr * gradient` of the same shape (a variable held twice, in lists or by two of its
names, becomes one fresh variable, and a list held twice one new list), and warns, once per
statement, when every variable it steps has gradient 0 and no committed pass reached any since
it was made or zeroed (naming each by its first path, depth first); a loop's body shows only what `print` shows.

Expressions: ("num", v) · ("name", n) · ("bin", op, l, r) · ("fn", f, e) · ("sq", e) ·
("cmp", op, l, r) (the forms of test_list_properties' templates) · ("neg", e) · ("call", f,
args) · ("var", e) · ("const", e) · ("index", list, i) · ("list", items) (a number item is
("lnum", v)) · ("comp", body, fors), each for (names, source), a source a list expression or
("range", a, b) · ("int", k) (a whole number, as a range writes it) · ("table", path, rows)
(`read_table` of a file whose rows are known).
Statements: ("let", n, e) · ("expr", e) · ("print", parts) (text, or (expression, spec)) ·
("backward", e, seed) · ("descend", names, lr) · ("zero_grad", e or None) · ("fn", n, params,
body) · ("repeat", n, body) · ("for", names, source, body) · ("if", op, l, r, then, else) ·
("expect", kind, text) · ("quiet", statement) · ("random_seed", n).
"""

from __future__ import annotations

import math
import random
from typing import Any

from model_nodes import COMPARE, ModelError, Node, binary, constant, reverse_pass, topology, unary, variable


def nodes_in(value) -> list[Node]:
    """Every node a value holds (a node, or the nodes of a nested list), depth first."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Node):
            found.append(item)
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


class Function:
    def __init__(self, params: tuple[str, ...], body):
        self.params = params
        self.body = body


class Model:
    """One program's run: the bound names, the draws, and the events it shows."""

    def __init__(self):
        self.names: dict[str, Any] = {}
        self.random = random.Random(0)  # a session starts seeded with 0
        self.events: list[dict[str, Any]] = []
        # The variables a committed pass reached since they were made or zeroed (by identity:
        # the model keeps them alive), and the `descend` statements that warned.
        self.reached: dict[int, Node] = {}
        self.warned: set[int] = set()

    def reach(self, nodes: list[Node]) -> None:
        self.reached.update((id(node), node) for node in nodes if node.operation == "variable")

    # ---- statements ------------------------------------------------------------------------------

    def run(self, program: list) -> list[dict[str, Any]]:
        """The events of ``program``: each statement's, then an error's kind if one fails."""
        for statement in program:
            try:
                self.statement(statement, shown=True)
            except ModelError as error:
                self.events.append({"event": "error", "kind": error.kind})
                break
        return self.events

    def statement(self, statement, shown: bool) -> None:
        kind = statement[0]
        if kind == "let":
            self.names[statement[1]] = self.eval(statement[2], {})
        elif kind == "expr":
            value = self.eval(statement[1], {})
            if shown:
                self.events.append(shown_value(value))
        elif kind == "print":
            self.events.append({"event": "print", "text": "".join(self.part(p) for p in statement[1])})
        elif kind == "backward":
            out = self.node(self.eval(statement[1], {}))
            seed = 1.0 if statement[2] is None else self.node(self.eval(statement[2], {})).value
            record = reverse_pass(out, seed)
            self.reach(topology(out))
            if shown:
                self.events.append(record)
        elif kind == "descend":
            self.descend(statement)
        elif kind == "zero_grad":
            roots = list(self.names.values()) if statement[1] is None else [self.eval(statement[1], {})]
            for root in roots:
                for node in nodes_in(root):
                    for reached in topology(node):
                        if reached.tracked:
                            reached.grad = 0.0
                        self.reached.pop(id(reached), None)
            if statement[1] is None:  # every node any name reaches, and no pass reached any since
                self.reached.clear()
        elif kind == "fn":
            self.names[statement[1]] = Function(statement[2], statement[3])
        elif kind == "repeat":
            for _ in range(statement[1]):
                self.block(statement[2])
        elif kind == "for":
            names, source = statement[1], statement[2]
            for item in self.items(source, {}):
                self.bind(names, item, self.names)
                self.block(statement[3])
        elif kind == "if":
            _, op, left, right, then, otherwise = statement
            a, b = self.node(self.eval(left, {})).value, self.node(self.eval(right, {})).value
            for inner in then if COMPARE[op](a, b) else otherwise:  # not a loop: it shows
                self.statement(inner, shown)
        elif kind == "expect":  # a statement that fails as it should changes nothing
            self.events.append({"event": "expected", "kind": statement[1]})
        elif kind == "quiet":
            self.statement(statement[1], shown=False)
        elif kind == "random_seed":
            self.random.seed(statement[1])
        else:
            raise AssertionError(kind)

    def block(self, body: list) -> None:
        for inner in body:  # a loop's body shows only what print shows
            self.statement(inner, shown=False)

    def part(self, part) -> str:
        if isinstance(part, str):
            return part
        expression, spec = part
        return format(self.node(self.eval(expression, {})).value, spec)

    def descend(self, statement) -> None:
        _, names, rate = statement
        lr = self.node(self.eval(rate, {})).value
        made: dict[int, Any] = {}  # id of an old node or list -> its new one, for the statement
        olds: list[tuple[Node, str]] = []  # each variable stepped and its first path
        new = {}
        for name in names:  # every new value first: a failure rebinds nothing
            new[name] = self.map_nodes(self.names[name], name, lambda node, path: self.stepped(node, path, lr, made, olds), made)
        # The warning: every variable stepped has gradient 0 and no pass reached any since it
        # was made or zeroed; once per statement, however often a loop runs it.
        if olds and id(statement) not in self.warned and all(
            node.grad == 0.0 and id(node) not in self.reached for node, _ in olds
        ):
            self.warned.add(id(statement))
            self.events.append({"event": "warning", "kind": "no-backward", "names": [path for _, path in olds]})
        self.names.update(new)

    @staticmethod
    def stepped(node: Node, path: str, lr: float, made: dict, olds: list) -> Node:
        """The new variable of ``node``: one for each variable, however often it is held."""
        if node.operation != "variable":
            raise ModelError("not-a-variable")
        if id(node) not in made:
            value = node.value - lr * node.grad
            if not math.isfinite(value):
                raise ModelError("non-finite-leaf")
            made[id(node)] = variable(value)
            olds.append((node, path))
        return made[id(node)]

    @staticmethod
    def map_nodes(value, name: str, step, made: dict):
        """A node's ``step(node, path)``, or a list of the same shape with ``step`` of each node,
        depth first in order (iterative); a list held twice becomes one new list held twice."""
        if isinstance(value, Node):
            return step(value, name)
        if id(value) in made:
            return made[id(value)]
        result: list = []
        made[id(value)] = result
        stack = [(iter(enumerate(value)), result, name)]
        while stack:
            items, target, path = stack[-1]
            entry = next(items, None)
            if entry is None:
                stack.pop()
                continue
            index, item = entry
            where = f"{path}[{index}]"
            if isinstance(item, Node):
                target.append(step(item, where))
            elif id(item) in made:
                target.append(made[id(item)])
            else:
                inner: list = []
                made[id(item)] = inner
                target.append(inner)
                stack.append((iter(enumerate(item)), inner, where))
        return result

    # ---- expressions -----------------------------------------------------------------------------

    def lookup(self, name: str, local: dict):
        if name in local:
            return local[name]
        if name not in self.names:
            raise ModelError("undefined-name")
        return self.names[name]

    @staticmethod
    def node(value) -> Node:
        if not isinstance(value, Node):
            raise ModelError("not-a-node")
        return value

    def eval(self, expr, local: dict):
        kind = expr[0]
        if kind == "num":
            value = expr[1]
            return unary("neg", constant(-value)) if math.copysign(1.0, value) < 0 else constant(value)
        if kind in ("lnum", "int"):
            return constant(float(expr[1]))
        if kind == "name":
            return self.lookup(expr[1], local)
        if kind == "bin":
            return binary(expr[1], self.node(self.eval(expr[2], local)), self.node(self.eval(expr[3], local)))
        if kind == "fn":
            return unary(expr[1], self.node(self.eval(expr[2], local)))
        if kind == "sq":
            return unary("square", self.node(self.eval(expr[1], local)))
        if kind == "neg":
            return unary("neg", self.node(self.eval(expr[1], local)))
        if kind == "cmp":
            a = self.node(self.eval(expr[2], local)).value
            b = self.node(self.eval(expr[3], local)).value
            return constant(1.0 if COMPARE[expr[1]](a, b) else 0.0)
        if kind in ("var", "const"):
            value = self.node(self.eval(expr[1], local)).value
            return variable(value) if kind == "var" else constant(value)
        if kind == "index":
            items = self.eval(expr[1], local)
            position = self.node(self.eval(expr[2], local)).value
            if not isinstance(items, list):
                raise ModelError("not-a-list")
            if position != int(position):
                raise ModelError("not-an-index")
            position = int(position)
            if not -len(items) <= position < len(items):
                raise ModelError("index-out-of-range")
            return items[position]
        if kind == "list":  # an item that is a number, negated or not, is one constant
            return [constant(item[1]) if item[0] == "num" else self.eval(item, local) for item in expr[1]]
        if kind == "comp":
            return self.comprehension(expr[1], expr[2], local)
        if kind == "table":
            return [[constant(v) for v in row] for row in expr[2]]
        if kind == "call":
            return self.call(expr[1], [self.eval(arg, local) for arg in expr[2]])
        raise AssertionError(kind)

    def comprehension(self, body, fors: list, local: dict) -> list:
        made: list = []
        # Nested loops without recursion: a stack of (level, the names bound so far).
        stack = [(0, dict(local))]
        while stack:
            level, scope = stack.pop()
            if level == len(fors):
                made.append(self.eval(body, scope))
                continue
            names, source = fors[level]
            pending = []
            for item in self.items(source, scope):
                inner = dict(scope)
                self.bind(names, item, inner)
                pending.append((level + 1, inner))
            stack.extend(reversed(pending))
        return made

    def items(self, source, local: dict) -> list:
        if source[0] == "range":
            low, high = (self.node(self.eval(bound, local)).value for bound in source[1:])
            if low != int(low) or high != int(high):
                raise ModelError("not-a-count")
            return [constant(float(i)) for i in range(int(low), int(high))]
        items = self.eval(source, local)
        if not isinstance(items, list):
            raise ModelError("not-a-list")
        return items

    @staticmethod
    def bind(names: tuple[str, ...], item, scope: dict) -> None:
        if len(names) == 1:
            scope[names[0]] = item
            return
        if not isinstance(item, list) or len(item) != len(names):
            raise ModelError("table-width")
        scope.update(zip(names, item))

    def call(self, name: str, args: list):
        if name in ("max", "min"):
            return binary(name, self.node(args[0]), self.node(args[1]))
        if name in ("sum", "mean"):
            items = args[0] if len(args) == 1 and isinstance(args[0], list) else args
            if not items:
                raise ModelError("wrong-arguments")
            total = self.node(items[0])
            for item in items[1:]:
                total = binary("+", total, self.node(item))
            return total if name == "sum" else binary("/", total, constant(float(len(items))))
        if name == "dot":
            a, b = args
            if len(a) != len(b) or not a:
                raise ModelError("wrong-arguments")
            total = binary("*", self.node(a[0]), self.node(b[0]))
            for x, y in zip(a[1:], b[1:]):
                total = binary("+", total, binary("*", self.node(x), self.node(y)))
            return total
        if name == "len":
            return constant(float(len(args[0])))
        if name == "value":
            return constant(self.node(args[0]).value)
        if name == "detach":
            return Node(self.node(args[0]).value, "detached")
        if name == "grad":
            node = self.node(args[0])
            if node.grad is None:
                raise ModelError("no-gradient")
            return constant(node.grad)
        if name == "flatten":
            return [node for arg in args for node in nodes_in(arg)]
        if name == "zip":
            return [list(row) for row in zip(*args)]
        if name == "uniform":
            low, high = self.node(args[0]).value, self.node(args[1]).value
            return constant(self.random.uniform(low, high))
        function = self.names[name]
        return self.eval(function.body, dict(zip(function.params, args)))


def shown_value(value) -> dict[str, Any]:
    """The `value` or `list` event of a bare expression."""
    if isinstance(value, Node):
        # (A `value` event names a pow with its exponent, as the text does; a pass record does not.)
        operation = "pow 2" if value.operation == "pow" else value.operation
        return {"event": "value", "operation": operation, "value": value.value,
                "tracked": value.tracked, "gradient": value.grad}
    return {"event": "list", "shape": shape(value), "values": values_of(value)}


def values_of(value):
    result: list = []
    stack = [(value, result)]
    while stack:
        source, target = stack.pop()
        for item in source:
            if isinstance(item, Node):
                target.append(item.value)
            else:
                inner: list = []
                target.append(inner)
                stack.append((item, inner))
    return result


def shape(value) -> list[int] | None:
    """The lengths of a rectangular list (``[16, 2]``), else None."""
    dims: list[int] = []
    level = [value]
    while True:
        kinds = {isinstance(item, list) for item in level}
        if kinds == {True}:
            lengths = {len(item) for item in level}
            if len(lengths) != 1:
                return None
            dims.append(lengths.pop())
            level = [inner for item in level for inner in item]
            if not level:
                return dims
        elif kinds == {False} or not level:
            return dims
        else:
            return None
