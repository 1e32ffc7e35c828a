"""Properties of lists (issue 24, LANGUAGE.md "Lists: models as data"), with hypothesis (the
profiles of conftest.py: ``ci`` by default, ``HYPOTHESIS_PROFILE=deep`` for 2000 examples).

(a) A random program with lists computes, bit for bit, what the same program written without
    lists computes: each item its own name (``let W_0_1 = var 0.3`` for ``W[0][1]``), each
    comprehension, ``sum``, ``mean``, ``dot``, ``layer`` call unrolled into the folds and
    statements the language defines it as. Values and gradients after ``backward``, and the
    variables ``descend`` makes, are compared as floats' bits; which paths of a list hold the
    same node (``flatten``, ``zip``, a row) is compared too.
(b) A comprehension's names never leak: after ``[x*2 for x in L]`` (or a failing one), ``x`` is
    what it was before, bound (to the same value) or not.
(c) ``descend`` keeps shapes: a nested (even ragged) list of variables becomes a list of the
    same shape of fresh variables, each ``value - lr*gradient`` with gradient 0; an item that
    is not a variable is ``not-a-variable`` naming its path, and nothing is rebound.
(d) ``read_table`` of generated malformed CSV files (ragged rows, empty cells, ``nan``, huge
    numbers, BOM, CRLF, binary junk) through the language gives a table or a typed error
    (``bad-table`` or ``io-error``, with its line and column), never a traceback or an
    ``internal-error``.
"""

from __future__ import annotations

import functools
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st

from list_program_text import LEARNING_RATES, NUMBERS, number
from shared import bits, property_examples
import scalarlang
from scalarlang import Scalar
from scalarlang.interpreter.library import csv_reader as tables
from scalarlang.interpreter.values import ListValue


def session_values(session: scalarlang.Session) -> dict:
    """Every name bound to a node or a list (``Session.names`` has the nodes only)."""
    return session.interpreter.values


def leaves(value) -> list[tuple[tuple[int, ...], Scalar]]:
    """The nodes of a nested list with their paths, depth first in order."""
    if value.__class__ is not ListValue:
        return [((), value)]
    found = []
    for index, item in enumerate(value):
        found += [((index, *path), node) for path, node in leaves(item)]
    return found


def shape_of(value):
    """The nesting of a value, nodes replaced by None."""
    return [shape_of(item) for item in value] if value.__class__ is ListValue else None


# ---- (a) programs with lists, and the same programs written without ------------------------
#
# A template is an expression tree over slots (the items a comprehension binds), scalar
# names and numbers: ("num", v) · ("slot", k) · ("name", n) · ("bin", op, l, r) ·
# ("fn", f, e) · ("sq", e) · ("cmp", op, l, r). It is written twice: with the slots as the
# list program spells them (`p`, `A[i]`), and with the names of the items they stand for.


@functools.lru_cache(maxsize=None)
def templates(slots: int, names: tuple[str, ...]):
    atoms = [st.sampled_from(NUMBERS).map(lambda v: ("num", v)), st.integers(0, slots - 1).map(lambda k: ("slot", k))]
    if names:
        atoms.append(st.sampled_from(names).map(lambda n: ("name", n)))

    def extend(inner):
        return st.one_of(
            st.tuples(st.just("bin"), st.sampled_from("+-*"), inner, inner),
            st.tuples(st.just("fn"), st.sampled_from(("tanh", "relu", "sigmoid")), inner),
            st.tuples(st.just("sq"), inner),
            st.tuples(st.just("cmp"), st.sampled_from((">", "<=", "==")), inner, inner),
        )

    return st.recursive(st.one_of(*atoms), extend, max_leaves=4)


def write(tree, slots: list[str]) -> str:
    kind = tree[0]
    if kind == "num":
        return number(tree[1])
    if kind == "slot":
        return slots[tree[1]]
    if kind == "name":
        return tree[1]
    if kind in ("bin", "cmp"):
        return f"({write(tree[2], slots)} {tree[1]} {write(tree[3], slots)})"
    if kind == "fn":
        return f"{tree[1]}({write(tree[2], slots)})"
    return f"({write(tree[1], slots)} ** 2)"


def fold(items: list[str]) -> str:
    """`sum`'s left fold, written out: ``((a + b) + c)``; one item is the item itself."""
    total = items[0]
    for item in items[1:]:
        total = f"({total} + {item})"
    return total


def dot_text(left: list[str], right: list[str]) -> str:
    return fold([f"({a} * {b})" for a, b in zip(left, right)])


def flat_names(value) -> list[str]:
    return [value] if isinstance(value, str) else [name for item in value for name in flat_names(item)]


def shape_of_names(spelled):
    return [shape_of_names(item) for item in spelled] if isinstance(spelled, list) else None


class Program:
    """A list program and its twin without lists, built statement by statement.

    ``lists`` maps each list name to its items as the twin names them (nested Python lists of
    the twin's names); ``ones`` are its 1-D lists of nodes, ``twos`` its rectangular 2-D ones.
    """

    def __init__(self, draw):
        self.draw = draw
        self.head: list[tuple[str, list[str]]] = []  # (list statement, twin statements)
        self.body: list[tuple[str, list[str]]] = []
        self.lists: dict[str, list] = {}
        self.scalars: list[str] = []
        self.params: list[str] = []
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def ones(self) -> list[str]:
        return [n for n, v in self.lists.items() if v and all(isinstance(i, str) for i in v)]

    def twos(self) -> list[str]:
        return [
            n for n, v in self.lists.items()
            if v and all(isinstance(r, list) and r and all(isinstance(i, str) for i in r) for r in v)
            and len({len(r) for r in v}) == 1
        ]

    def bind_items(self, into, name: str, texts: list, path=()) -> list:
        """Twin statements binding each new item to ``name_i_j``; returns the item names."""
        names = []
        for index, text in enumerate(texts):
            if isinstance(text, list):
                names.append(self.bind_items(into, name, text, (*path, index)))
            else:
                item = "_".join([name, *map(str, (*path, index))])
                into.append(f"let {item} = {text}")
                names.append(item)
        return names

    # -- the model's parameters and data (before the loop) --

    def parameters(self, name: str, shape: tuple[int, ...]):
        draw = self.draw
        twin: list[str] = []
        if draw(st.booleans()):  # drawn: the same draws in the same order on both sides
            inner = "var uniform(-1, 1)"
            texts = [[inner] * shape[1] for _ in range(shape[0])] if len(shape) == 2 else [inner] * shape[0]
            text = (
                f"[[{inner} for j in 0..{shape[1]}] for i in 0..{shape[0]}]" if len(shape) == 2
                else f"[{inner} for i in 0..{shape[0]}]"
            )
        else:
            values = draw(st.lists(st.sampled_from(NUMBERS), min_size=math.prod(shape), max_size=math.prod(shape)))
            items = [f"var {v!r}" for v in values]
            if len(shape) == 2:
                texts = [items[r * shape[1] : (r + 1) * shape[1]] for r in range(shape[0])]
                text = "[" + ", ".join("[" + ", ".join(row) + "]" for row in texts) + "]"
            else:
                texts = items
                text = "[" + ", ".join(items) + "]"
        self.lists[name] = self.bind_items(twin, name, texts)
        self.params.append(name)
        self.head.append((f"let {name} = {text}", twin))

    def data(self, name: str, width: int, rows: int | None):
        """Numbers: each a fresh constant. ``rows``: a table of tuples, else one list."""
        draw = self.draw
        twin: list[str] = []
        if rows is None:
            values = draw(st.lists(st.sampled_from(NUMBERS), min_size=width, max_size=width))
            text = "[" + ", ".join(repr(v) for v in values) + "]"
            texts = [f"const {v!r}" for v in values]
        else:
            table = [draw(st.lists(st.sampled_from(NUMBERS), min_size=width, max_size=width)) for _ in range(rows)]
            text = "[" + ", ".join("(" + ", ".join(repr(v) for v in row) + ")" for row in table) + "]"
            texts = [[f"const {v!r}" for v in row] for row in table]
        self.lists[name] = self.bind_items(twin, name, texts)
        self.head.append((f"let {name} = {text}", twin))

    # -- statements of the loop's body --

    def template(self, slots: int):
        return self.draw(templates(slots, tuple(self.scalars)))

    def derived(self):
        draw = self.draw
        ones, twos = self.ones(), self.twos()
        forms = ["map", "index", "zip", "product", "flatten", "literal", "sum", "mean", "dot", "item", "inline"]
        if twos:
            forms += ["row", "layer"]
        form = draw(st.sampled_from(forms))
        name = self.fresh("Q")
        twin: list[str] = []
        if form == "map":
            source = draw(st.sampled_from(ones))
            tree = self.template(1)
            text = f"[{write(tree, ['p'])} for p in {source}]"
            self.lists[name] = self.bind_items(twin, name, [write(tree, [item]) for item in self.lists[source]])
        elif form == "index":  # i counting up in one list, down (negative indices) in the other
            a, b = draw(st.sampled_from(ones)), draw(st.sampled_from(ones))
            n = min(len(self.lists[a]), len(self.lists[b]))
            tree = self.template(2)
            bound = f"len({a})" if n == len(self.lists[a]) else str(n)
            text = f"[{write(tree, [f'{a}[i]', f'{b}[-1 - i]'])} for i in 0..{bound}]"
            texts = [write(tree, [self.lists[a][i], self.lists[b][-1 - i]]) for i in range(n)]
            self.lists[name] = self.bind_items(twin, name, texts)
        elif form == "zip":
            a, b = draw(st.sampled_from(ones)), draw(st.sampled_from(ones))
            tree = self.template(2)
            text = f"[{write(tree, ['p', 'q'])} for p, q in zip({a}, {b})]"
            texts = [write(tree, [x, y]) for x, y in zip(self.lists[a], self.lists[b])]
            self.lists[name] = self.bind_items(twin, name, texts)
        elif form == "product":  # two `for`s: the first is the outer loop
            a, b = draw(st.sampled_from(ones)), draw(st.sampled_from(ones))
            tree = self.template(2)
            text = f"[{write(tree, ['p', 'q'])} for p in {a} for q in {b}]"
            texts = [write(tree, [x, y]) for x in self.lists[a] for y in self.lists[b]]
            self.lists[name] = self.bind_items(twin, name, texts)
        elif form == "flatten":  # no new nodes: the items themselves
            sources = draw(st.lists(st.sampled_from(sorted(self.lists) + self.scalars), min_size=1, max_size=3))
            text = f"flatten({', '.join(sources)})"
            self.lists[name] = [n for s in sources for n in flat_names(self.lists.get(s, s))]
        elif form == "literal":  # names, items and numbers (fresh constants)
            choices = [*self.scalars, *(f"{s}[{k}]" for s in ones for k in (0, -1))]
            picked = draw(st.lists(st.one_of(st.sampled_from(choices), st.sampled_from(NUMBERS)), min_size=1, max_size=4))
            text = "[" + ", ".join(repr(x) if isinstance(x, float) else x for x in picked) + "]"
            items = []
            for x in picked:
                if isinstance(x, float):
                    items.append(f"{name}_{len(items)}")
                    twin.append(f"let {items[-1]} = const {x!r}")
                else:
                    items.append(self._item(x))
            self.lists[name] = items
        elif form == "row":
            source = draw(st.sampled_from(twos))
            k = draw(st.integers(-len(self.lists[source]), len(self.lists[source]) - 1))
            text = f"{source}[{k}]"
            self.lists[name] = list(self.lists[source][k])
        elif form == "layer":  # a function that returns a list
            ok = [
                (w, x, c) for w in twos for x in ones for c in ones
                if len(self.lists[x]) == len(self.lists[w][0]) and len(self.lists[c]) >= len(self.lists[w])
            ]
            if not ok:
                return self.derived()
            w, x, c = draw(st.sampled_from(ok))
            text = f"layer({w}, {c}, {x})"
            texts = [f"relu(({dot_text(row, self.lists[x])} + {self.lists[c][i]}))" for i, row in enumerate(self.lists[w])]
            self.lists[name] = self.bind_items(twin, name, texts)
        else:
            return self.scalar(form, ones)
        self.body.append((f"let {name} = {text}", twin))

    def _item(self, spelled: str) -> str:
        match = re.fullmatch(r"(\w+)\[(-?\d+)\]", spelled)
        return self.lists[match[1]][int(match[2])] if match else spelled

    def scalar(self, form: str, ones: list[str]):
        draw = self.draw
        name = self.fresh("s")
        if form in ("sum", "mean"):
            source = draw(st.sampled_from(ones))
            items = self.lists[source]
            text = f"{form}({source})"
            twin = fold(items) if form == "sum" else f"({fold(items)} / {len(items)})"
        elif form == "dot":
            a = draw(st.sampled_from(ones))
            same = [b for b in ones if len(self.lists[b]) == len(self.lists[a])]
            b = draw(st.sampled_from(same))
            text, twin = f"dot({a}, {b})", dot_text(self.lists[a], self.lists[b])
        elif form == "item":
            source = draw(st.sampled_from(ones))
            k = draw(st.integers(-len(self.lists[source]), len(self.lists[source]) - 1))
            tree = self.template(1)
            text = f"{write(tree, [f'{source}[{k}]'])} * len({source})"
            twin = f"{write(tree, [self.lists[source][k]])} * {len(self.lists[source])}"
        else:  # "inline": a comprehension used once, inside a fold
            source = draw(st.sampled_from(ones))
            tree = self.template(1)
            text = f"mean([{write(tree, ['p'])} for p in {source}])"
            items = [write(tree, [item]) for item in self.lists[source]]
            twin = f"({fold(items)} / {len(items)})"
        self.scalars.append(name)
        self.body.append((f"let {name} = {text}", [f"let {name} = {twin}"]))


LAYER = "fn layer(M, c, xs) = [relu(dot(M[i], xs) + c[i]) for i in 0..len(M)]"


@st.composite
def list_programs(draw):
    program = Program(draw)
    rows, width = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    program.parameters("W", (rows, width))
    program.parameters("b", (rows,))
    program.data("X", width, None)
    if draw(st.booleans()):
        program.parameters("V", (draw(st.integers(1, 4)),))
    if draw(st.booleans()):
        program.data("T", draw(st.integers(2, 3)), draw(st.integers(1, 3)))  # `(v)` alone is a number, not a row
    for _ in range(draw(st.integers(1, 5))):
        program.derived()
    steps = draw(st.integers(0, 2))
    rate = draw(st.sampled_from(LEARNING_RATES))
    return program, steps, rate


def texts_of(program: Program, steps: int, rate: float) -> tuple[str, str, tuple[str, str]]:
    """The list program and its twin: the body (derived lists, the loss, backward) runs
    ``steps`` times with a descend, then once more without; and the two descend statements
    (the test runs them last, after comparing the gradients)."""
    everything = sorted(program.lists) + program.scalars
    sources = ", ".join(everything)
    loss = f"let loss = sum([p * p for p in flatten({sources})])"
    twin_loss = "let loss = " + fold([f"({n} * {n})" for s in everything for n in flat_names(program.lists.get(s, s))])
    descend = f"descend {', '.join(program.params)} by {rate!r}"
    twin_descend = f"descend {', '.join(n for p in program.params for n in flat_names(program.lists[p]))} by {rate!r}"

    def body(with_lists: bool) -> list[str]:
        lines = []
        for text, twin in program.body:
            lines += [text] if with_lists else twin
        return lines + [loss if with_lists else twin_loss, "backward(loss)"]

    def whole(with_lists: bool) -> str:
        lines = [LAYER] if with_lists else []
        for text, twin in program.head:
            lines += [text] if with_lists else twin
        lines.append(f"repeat {steps} {{")
        lines += ["  " + line for line in body(with_lists)]
        lines.append("  " + (descend if with_lists else twin_descend))
        lines.append("}")
        lines += body(with_lists)
        return "\n".join(lines) + "\n"

    return whole(True), whole(False), (descend, twin_descend)


def node_facts(node: Scalar) -> tuple:
    return (str(node.operation), bits(node.value), bits(node.gradient))


# 10 programs in the default run (each about 0.06 s: run twice, with and without lists, and
# trained), the profile's number in the slow run.
@settings(max_examples=property_examples(50, default_run=10))
@given(list_programs())
def test_a_program_with_lists_computes_what_it_computes_without_them(case):
    program, steps, rate = case
    with_lists, without, (descend, twin_descend) = texts_of(program, steps, rate)
    note(with_lists)
    note(without)
    ours, twin = scalarlang.Session(), scalarlang.Session()
    first, second = ours.run(with_lists, name="lists.sad"), twin.run(without, name="twin.sad")
    assert (first.error and first.error.kind) == (second.error and second.error.kind), (first.text[-2000:], second.text[-2000:])
    if first.error is not None:
        assert first.error.kind != "internal-error"
        return
    values, twin_values = session_values(ours), session_values(twin)
    held: dict[str, Scalar] = {}
    for name in [*program.lists, *program.scalars, "loss"]:
        spelled = program.lists.get(name, name)
        value = values[name]
        paths = leaves(value)
        twin_names = flat_names(spelled)
        assert len(paths) == len(twin_names), name
        if isinstance(spelled, list):
            assert shape_of(value) == shape_of_names(spelled), name
        for (path, node), twin_name in zip(paths, twin_names):
            assert node_facts(node) == node_facts(twin_values[twin_name]), (name, path, twin_name)
            # the same node wherever the twin has the same name (flatten, zip, rows hold items)
            assert held.setdefault(twin_name, node) is node, (name, path, twin_name)
    # one more descend: fresh variables of the same shapes, the same numbers
    third, fourth = ours.run(descend), twin.run(twin_descend)
    assert third.ok and fourth.ok, (third.text, fourth.text)
    values, twin_values = session_values(ours), session_values(twin)
    for name in program.params:
        for (path, node), twin_name in zip(leaves(values[name]), flat_names(program.lists[name])):
            assert node is not held[twin_name]
            assert node_facts(node) == node_facts(twin_values[twin_name]) == ("variable", bits(node.value), bits(0.0))


def test_the_twin_of_a_small_program_is_what_the_language_defines():
    """The unrolling itself, on a program written by hand (so that the property's oracle is
    not only the generator's word)."""
    with_lists = (
        "let W = [[var 0.5, var -1.25], [var 2.0, var 0.1]]\nlet b = [var 0.5, var 3.0]\nlet X = [2.0, -0.75]\n"
        f"{LAYER}\nlet h = layer(W, b, X)\nlet loss = mean(h) + dot(h, [h[-1], 3])\nbackward(loss)\n"
    )
    without = (
        "let W_0_0 = var 0.5\nlet W_0_1 = var -1.25\nlet W_1_0 = var 2.0\nlet W_1_1 = var 0.1\n"
        "let b_0 = var 0.5\nlet b_1 = var 3.0\nlet X_0 = const 2.0\nlet X_1 = const -0.75\n"
        "let h_0 = relu(((W_0_0 * X_0) + (W_0_1 * X_1)) + b_0)\n"
        "let h_1 = relu(((W_1_0 * X_0) + (W_1_1 * X_1)) + b_1)\n"
        "let loss = ((h_0 + h_1) / 2) + ((h_0 * h_1) + (h_1 * 3))\nbackward(loss)\n"
    )
    ours, twin = scalarlang.Session(), scalarlang.Session()
    assert ours.run(with_lists).ok and twin.run(without).ok
    values, twin_values = session_values(ours), session_values(twin)
    for (path, node), name in zip(leaves(values["W"]), ["W_0_0", "W_0_1", "W_1_0", "W_1_1"]):
        assert node_facts(node) == node_facts(twin_values[name])
        assert node.gradient != 0
    assert node_facts(values["loss"]) == node_facts(twin_values["loss"])


# ---- (b) comprehension names never leak -----------------------------------------------------

BEFORE = {
    "unbound": "",
    "node": "let NAME = var 1.5\n",
    "constant": "let NAME = const -2\n",
    "list": "let NAME = [1, 2]\n",
}
# (statements, the names only comprehensions bind in them, the error kind if they fail)
COMPREHENSIONS = [
    ("let y = [x * 2 for x in L]", "x", None),
    ("let y = [x + j for x in L for j in 0..2]", "xj", None),
    ("let y = [j * x for j in 0..2 for x in L]", "jx", None),
    ("let y = [x * k for x, k in zip(L, L)]", "xk", None),
    ("let y = [[x * q for q in L] for x in L]", "xq", None),
    ("let y = [[x for x in L] for x in L]", "x", None),
    ("let y = [x * 2 for x in [x for x in L]]", "x", None),
    ("let y = sum([x * x for x in L])", "x", None),
    ("let y = [x for x in 0..3]", "x", None),
    ("let y = [x[0] * 2 for x in T]", "x", None),
    ("let y = [x * k for x, k in T]", "xk", None),
    ("fn f(z) = [x * z for x in L]\nlet y = f(2)", "x", None),
    ("for i in 0..2 {\n  let y = [x * i for x in L]\n}", "x", None),
    ("let y = [L[x] for x in 0..5]", "x", "index-out-of-range"),  # fails at x = 3
    ("let y = [x * nothing for x in L]", "x", "undefined-name"),
    ("let y = [x * 2 for x in L]\nlet y = [L[x] for x, q in T]", "xq", "index-out-of-range"),
]


@given(st.sampled_from(sorted(BEFORE)), st.sampled_from(COMPREHENSIONS), st.data())
@example("node", COMPREHENSIONS[0], None)
@example("unbound", COMPREHENSIONS[13], None)
def test_comprehension_names_never_leak(before, comprehension, data):
    """The comprehension's names after it are what they were before it: here one of them
    (``watched``) was bound before or not, the others were not."""
    text, inner, kind = comprehension
    watched = data.draw(st.sampled_from(inner)) if data is not None else inner[0]
    session = scalarlang.Session()
    setup = BEFORE[before].replace("NAME", watched) + "let L = [var 0.5, var -1.25, 3]\nlet T = [(1, 2), (3, 4)]\n"
    assert session.run(setup).ok
    seen = session_values(session).get(watched)
    result = session.run(text)
    note(setup + text)
    assert (result.error and result.error.kind) == kind, result.text
    after = session_values(session)
    assert after.get(watched) is seen
    assert [name for name in inner if name != watched and name in after] == []


def test_a_comprehension_sees_its_own_name_not_the_outer_one():
    session = scalarlang.Session()
    assert session.run("let x = var 10\nlet L = [var 0.5, var -1.25]\nlet y = [x * 2 for x in L]\nlet z = [x for x in L]").ok
    values = session_values(session)
    assert [node.value for node in values["y"]] == [1.0, -2.5]
    assert all(a is b for a, b in zip(values["z"], values["L"]))  # items themselves, no new nodes
    assert values["x"].value == 10


# ---- (c) descend keeps shapes ---------------------------------------------------------------

nested = st.recursive(
    st.sampled_from(NUMBERS),
    lambda inner: st.lists(inner, min_size=0, max_size=3),
    max_leaves=10,
).filter(lambda v: isinstance(v, list) and any(True for _ in _floats(v)))


def _floats(value):
    if isinstance(value, list):
        for item in value:
            yield from _floats(item)
    else:
        yield value


def literal(value, spell=lambda v: f"var {v!r}") -> str:
    if isinstance(value, list):
        return "[" + ", ".join(literal(item, spell) for item in value) + "]"
    return spell(value)


def plain_shape(value):
    return [plain_shape(item) for item in value] if isinstance(value, list) else None


@given(nested, st.sampled_from(LEARNING_RATES + (1.0, 0.0)), st.booleans())
def test_descend_keeps_the_shape_and_makes_fresh_variables(structure, rate, with_scalar):
    coefficients = [NUMBERS[k % len(NUMBERS)] for k, _ in enumerate(_floats(structure))]
    program = (
        f"let W = {literal(structure)}\nlet v = var 0.25\n"
        f"let loss = dot(flatten(W), {literal(coefficients, repr)}) + sum([p * p for p in flatten(W)]) + v * v\n"
        "backward(loss)\n"
    )
    session = scalarlang.Session()
    assert session.run(program).ok
    old, old_v = session_values(session)["W"], session_values(session)["v"]
    before = [(node, node.value, node.gradient) for _, node in leaves(old)]
    result = session.run(f"descend W{', v' if with_scalar else ''} by {rate!r}")
    assert result.ok, result.text
    new = session_values(session)["W"]
    assert new is not old and shape_of(new) == shape_of(old) == plain_shape(structure)
    for (path, node), (old_node, value, gradient) in zip(leaves(new), before):
        assert node is not old_node and node.operation == "variable"
        assert bits(node.value) == bits(value - rate * gradient), path
        assert node.gradient == 0.0
        assert (old_node.value, old_node.gradient) == (value, gradient)  # the old node is unchanged
    assert (session_values(session)["v"] is old_v) is not with_scalar


@given(nested, st.data())
def test_descend_over_a_list_with_a_constant_names_its_path_and_rebinds_nothing(structure, data):
    count = sum(1 for _ in _floats(structure))
    constant = data.draw(st.integers(0, count - 1))
    position = iter(range(count))
    text = literal(structure, lambda v: f"{'const' if next(position) == constant else 'var'} {v!r}")
    session = scalarlang.Session()
    program = f"let W = {text}\nlet v = var 2\nlet loss = sum([p * p for p in flatten(W)]) + v\nbackward(loss)"
    assert session.run(program).ok
    old = session_values(session)["W"]
    path = leaves(old)[constant][0]
    result = session.run("descend W by 0.1")
    assert result.error is not None and result.error.kind == "not-a-variable", result.text
    assert "W" + "".join(f"[{i}]" for i in path) in result.error.message
    assert session_values(session)["W"] is old


# ---- (d) read_table on malformed files --------------------------------------------------------

_FOLDER = tempfile.TemporaryDirectory(prefix="list-properties-")
CSV = Path(_FOLDER.name) / "t.csv"

GOOD_CELLS = ["0", "1", "-1", "0.5", "-2.25", "1e-3", " 3 ", "\t4", ".5", "7.", "1_000", "+2", "1E2"]
BAD_CELLS = [
    "", " ", "nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1e999", "9" * 400, "abc", '"1"',
    "0x10", "1__0", "１", "٣", "1,5", "1;2", "--1", "1e", "e3", "\u00a01", "\x0b1", "1\r2", "é",
]


@st.composite
def csv_files(draw):
    """Bytes of a CSV file: rows of good and bad cells, ragged or not, with a header or not,
    LF or CRLF or mixed line ends, a BOM or not, blank lines, binary junk spliced in."""
    width = draw(st.integers(1, 4))
    rows = draw(st.integers(0, 5))
    bad = draw(st.floats(0, 1))
    lines = []
    if draw(st.booleans()):
        lines.append(",".join(draw(st.sampled_from(["x", "y", "label", "x1", "1", ""])) for _ in range(width)))
    for _ in range(rows):
        cells = width + (draw(st.integers(-1, 1)) if draw(st.integers(0, 4)) == 0 else 0)  # ragged, sometimes
        row = []
        for _ in range(max(cells, 1)):
            pool = BAD_CELLS if draw(st.floats(0, 1)) < bad * 0.3 else GOOD_CELLS
            row.append(draw(st.sampled_from(pool)) if draw(st.integers(0, 9)) else draw(st.text(max_size=4)))
        lines.append(",".join(row))
    if rows and draw(st.integers(0, 5)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "  ", "\t"])))
    ending = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    text = ""
    for line in lines:
        text += line + (draw(st.sampled_from(["\n", "\r\n"])) if ending == "mixed" else ending)
    if text and draw(st.booleans()):
        text = text[: -1 if text.endswith("\n") and not text.endswith("\r\n") else -2]  # no last newline
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 3)) == 0:
        junk = draw(st.binary(min_size=1, max_size=6))
        at = draw(st.integers(0, len(data)))
        data = data[:at] + junk + data[at:]
    return data


def check_table_outcome(session: scalarlang.Session, result) -> None:
    error = result.error
    assert "Traceback" not in result.text
    if error is None:
        table = session_values(session)["t"]
        assert table.__class__ is ListValue
        expected = tables.read_table(CSV)
        assert [[node.value for node in row] for row in table] == [list(row) for row in expected]
        for row in table:
            assert row.__class__ is ListValue and len(row) == len(table[0])
            assert all(node.operation == "constant" and math.isfinite(node.value) for node in row)
        return
    assert error.kind in ("bad-table", "io-error"), result.text
    assert "t" not in session_values(session)
    assert error.span is not None and error.span.line == 1  # at the statement's argument
    fields = error.fields
    if error.kind == "bad-table" or "line_in_file" in fields:
        line, column = fields["line_in_file"], fields["column_in_file"]
        assert isinstance(line, int) and isinstance(column, int) and line >= 1 and column >= 1
        assert f"line {line}, column {column}" in error.message


@given(csv_files())
@example(b"x1,x2,y\n1,2,3\n4,5\n")  # ragged
@example(b"1,,2\n")  # an empty cell
@example(b"a,b\r\nnan,1\r\n")  # nan, CRLF
@example(b"\xef\xbb\xbf1,1e400\n")  # BOM, a huge number
@example(b"1,2\n\x00\xff\n")  # binary junk
@example(b"1,2\n\n3,4\n")  # a blank line inside
@example(b"\xef\xbb\xbfx,y\r\n0.5,-1\r\n2,3\r\n")  # a good table, BOM and CRLF
def test_read_table_gives_a_table_or_a_typed_error(data):
    CSV.write_bytes(data)
    session = scalarlang.Session()
    result = session.run(f'let t = read_table("{CSV.as_posix()}")')
    note(repr(data))
    check_table_outcome(session, result)


GOOD_ROWS = st.lists(st.lists(st.sampled_from(GOOD_CELLS), min_size=2, max_size=2), min_size=1, max_size=4)


@given(GOOD_ROWS, st.booleans(), st.booleans())
def test_a_well_formed_table_reads_as_its_numbers(rows, crlf, bom):
    ending = "\r\n" if crlf else "\n"
    text = "x,y" + ending + "".join(",".join(row) + ending for row in rows)
    CSV.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    session = scalarlang.Session()
    result = session.run(f'let t = read_table("{CSV.as_posix()}")\nlet n = len(t)\nlet s = sum([r[0] for r in t])')
    assert result.ok, result.text
    values = session_values(session)
    assert [[node.value for node in row] for row in values["t"]] == [[float(cell) for cell in row] for row in rows]
    assert values["n"].value == len(rows)


MALFORMED = {
    "ragged.csv": (b"x1,x2,y\n1,2,3\n4,5\n", "bad-table", "line 3, column 4"),
    "empty_cell.csv": (b"1,,2\n", "bad-table", "line 1, column 3"),
    "nan.csv": (b"x,y\r\n1,nan\r\n", "bad-table", "line 2, column 3"),
    "huge.csv": (b"\xef\xbb\xbfx,y\n1,1e400\n", "bad-table", "line 2, column 3"),
    "binary.csv": (b"1,2\n3,\x00\n", "io-error", "line 2, column 3"),
}


@pytest.fixture(scope="module")
def malformed_run(tmp_path_factory) -> tuple[int, str, list[str]]:
    """One run of the command over a program per malformed table, each in a folder of its own
    (one process for the five: each file runs in a fresh session). Its status, its standard
    output and its standard error cut into the error of each program, in order."""
    root = tmp_path_factory.mktemp("malformed")
    programs = []
    for file in sorted(MALFORMED):
        folder = root / file.replace(".", "_")
        folder.mkdir()
        (folder / file).write_bytes(MALFORMED[file][0])
        (folder / "p.sad").write_text(f'let t = read_table("{file}")\nprint "never"\n', encoding="utf-8")
        programs.append(str(folder.relative_to(root) / "p.sad"))
    command = Path(sys.executable).parent / "scalarlang"
    argv = [str(command)] if command.exists() else [sys.executable, "-m", "scalarlang"]
    done = subprocess.run(
        [*argv, "--width", "1000", *programs], capture_output=True, text=True, timeout=60, cwd=root,
        env={**os.environ, "NO_COLOR": "1"},
    )
    errors = re.split(r"^(?=error\[)", done.stderr, flags=re.MULTILINE)
    return done.returncode, done.stdout, [error for error in errors if error]


@pytest.mark.parametrize("file", sorted(MALFORMED))
def test_the_command_reports_a_malformed_table_as_a_typed_error(file, malformed_run):
    """End to end: the path relative to the program's folder, exit status 1, no traceback."""
    _, kind, place = MALFORMED[file]
    status, output, errors = malformed_run
    assert status == 1 and output == "" and len(errors) == len(MALFORMED), (output, errors)
    error = errors[sorted(MALFORMED).index(file)]
    assert error.startswith(f"error[{kind}]") and place in error, error
    assert "Traceback" not in error and "never" not in error
