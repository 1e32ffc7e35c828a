"""Small helpers several test modules use: an expression's shape, a node's source text, the
text a list of outcomes renders to, parsing a program, its one statement or an expression (or
its syntax error), the IEEE bits of a number, of a node or tensor and of the stored gradients
of a graph, a reference topological order of a graph, the nodes and edges of a graph's DOT
text, the points and score the chart tests draw, and the frees of a graph counted in a
fresh process (the finalizer of Emscripten and WASI, by hand); `property_examples`, a
property's own number of examples scaled with the hypothesis profile (conftest.py).

Running programs lives in tests/sessions.py (in process) and tests/commands.py (the real
command)."""

from __future__ import annotations

import html
import io
import math
import random
import re
import struct
import subprocess
import sys
from collections.abc import Iterable, Sequence

import pytest
from hypothesis import settings

from scalarlang import Scalar
from scalarlang.engine.passes import topology
from scalarlang.language.diagnostics import LanguageError
from scalarlang.language.parser import parse_expression, parse_program
from scalarlang.language.source import Source
from scalarlang.language.tree import (
    Binary,
    Call,
    Compare,
    Comprehension,
    Index,
    Leaf,
    ListLiteral,
    Name,
    Number,
    Unary,
)
from scalarlang.render.text import Renderer, make_console


# The examples per property of conftest.py's `full` profile, the one a property's own number is
# written for.
FULL_PROFILE_EXAMPLES = 50


# The examples per property of conftest.py's `quick` profile, the default run's.
QUICK_PROFILE_EXAMPLES = 25


def property_examples(full: int, *, default_run: int | None = None) -> int:
    """A property's own number of examples, ``full`` in the `full` profile (the slow run's),
    scaled with the profile loaded: half of it in the default run, 40 times it in `deep`.

    ``default_run``, for a property whose examples are slow (a tenth of a second and more):
    the number the default run (the `quick` profile) tries instead of half of ``full``. The
    slow run (`full`, as `.ci/run` runs it) and `deep` still try the scaled full number."""
    if default_run is not None and settings.default.max_examples == QUICK_PROFILE_EXAMPLES:
        return default_run
    return max(1, full * settings.default.max_examples // FULL_PROFILE_EXAMPLES)


def sexp(node) -> str:
    """A compact shape of a (small) expression: `(- (- 1 2) 3)`; a list is `[1 (neg 2) x]`,
    an index `(index L 0)`, a comprehension `[(* x 2) (for x L) (for i 0 3)]`."""
    if isinstance(node, Number):
        return str(int(node.value)) if node.value.is_integer() else repr(node.value)
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Unary):
        return f"(neg {sexp(node.operand)})"
    if isinstance(node, Binary):
        return f"({node.op} {sexp(node.left)} {sexp(node.right)})"
    if isinstance(node, Leaf):
        return f"({node.kind} {sexp(node.operand)})"
    if isinstance(node, Call):
        return f"({node.function}{''.join(' ' + sexp(a) for a in node.args)})"
    if isinstance(node, Compare):
        return f"({node.op} {sexp(node.left)} {sexp(node.right)})"
    if isinstance(node, Index):
        return f"(index {sexp(node.target)} {sexp(node.index)})"
    if isinstance(node, ListLiteral):
        return "[" + " ".join(sexp(item) for item in node.items) + "]"
    if isinstance(node, Comprehension):
        clauses = "".join(
            f" (for {' '.join(clause.names)} {sexp(clause.source)}"
            + (f" {sexp(clause.stop)})" if clause.stop is not None else ")")
            for clause in node.clauses
        )
        return f"[{sexp(node.item)}{clauses}]"
    raise AssertionError(node)


def label(text: str, node) -> str:
    """The source text of a node."""
    return text[node.span.start : node.span.end]


def text_of(outcomes, *, echo: bool = False) -> str:
    """What the outcomes print as plain text, 100 columns wide (``echo``: `let` echoed, as the
    REPL does)."""
    stream = io.StringIO()
    renderer = Renderer(make_console(stream, width=100, color="never"), echo_bindings=echo)
    for outcome in outcomes:
        renderer.outcome(outcome)
    return stream.getvalue()


# The seed graph of the README: x = 2, loss = x*x + x*x.
SEED_PROGRAM = "let x = var 2\nlet square = x * x\nlet loss = square + square\n"


def caret_text(diagnostic) -> str:
    """The source text under the diagnostic's span."""
    return diagnostic.source.slice(diagnostic.span)


def parse(text: str):
    """The program ``text`` parsed (as test.sad)."""
    return parse_program(Source("test.sad", text))


def one(text: str):
    """The one statement of the program ``text``."""
    (statement,) = parse(text).statements
    return statement


def expr(text: str):
    """The expression ``text`` parsed (as test.sad)."""
    return parse_expression(Source("test.sad", text))


def error(text: str):
    """The diagnostic of the syntax error of the program ``text`` (it must have one)."""
    with pytest.raises(LanguageError) as info:
        parse(text)
    return info.value.diagnostic


def left_fold(values: Iterable[float]) -> float:
    """0.0 + v0 + v1 + ..., added in order: the float sum the engine writes (Python 3.12's `sum()`
    is compensated, so it gives other bits)."""
    total = 0.0
    for value in values:
        total += value
    return total


def bits(value: float | None) -> bytes | None:
    """The IEEE bits of a number (so -0.0 and 0.0 differ), or None for None."""
    return None if value is None else struct.pack("<d", value)


def elements_bits(values: Sequence[float] | None) -> bytes | None:
    """The IEEE bits of every number of a sequence (a tensor's elements, row major), or None
    for None."""
    return None if values is None else struct.pack(f"<{len(values)}d", *values)


def value_bits(node) -> object:
    """What a node holds, bit for bit: a scalar node's value; a tensor's shape and elements."""
    if node.__class__ is Scalar:
        return bits(node.value)
    return node.shape, elements_bits(node.values)


def gradient_bits(node) -> bytes | None:
    """A node's stored gradient, bit for bit (None when untracked): a scalar node's one
    number, a tensor's every element."""
    return bits(node.gradient) if node.__class__ is Scalar else elements_bits(node.gradient)


def graph_gradients(nodes: Iterable) -> tuple[tuple[int, bytes | None], ...]:
    """(id, `gradient_bits`) of every node reachable from ``nodes`` (scalar nodes and tensors,
    whichever holds the other in its graph), sorted by id: what a failed statement must leave
    as it was."""
    gradients: dict[int, bytes | None] = {}
    for node in nodes:
        for member in topology(node):
            gradients[id(member)] = gradient_bits(member)
    return tuple(sorted(gradients.items()))


def reference_topology(output: Scalar) -> list[Scalar]:
    """The recursive post-order DFS of docs/engine.md, operands in slot order, written
    independently of the engine (fine for small graphs)."""
    order: list[Scalar] = []
    seen: set[int] = set()

    def visit(node: Scalar) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        for edge in node.parents:
            visit(edge.parent)
        order.append(node)

    visit(output)
    return order


# ---- DOT text: the nodes and edges of a drawn graph -----------------------------------------------

_NODE = re.compile(r"^\s*(n\d+) \[label=<(.*)>(?:,\s[^\]]*)?\];$", re.S)


_EDGE = re.compile(r"^\s*(n\d+) -> (n\d+) \[label=<(.*)>(?:,\s[^\]]*)?\];$", re.S)


def _cells(label: str) -> list[str]:
    """The text lines of an HTML-like label: one per table cell, tags dropped, unescaped."""
    cells = re.findall(r"<td[^>]*>(.*?)</td>", label)
    return [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in cells]


def parse_dot(text: str):
    """The nodes (id: the lines of its label) and edges (from, to, lines) of `to_dot`'s text."""
    assert text.startswith("digraph scalarlang {\n") and text.endswith("}\n")
    nodes, edges = {}, []
    # One statement a `;` at a line's end (a statement spans lines, a label's table a row a line).
    body = "\n".join(text.splitlines()[1:-1])
    for line in re.split(r"(?<=\];)\n", body):
        edge = _EDGE.match(line)
        if edge:
            edges.append((edge.group(1), edge.group(2), _cells(edge.group(3))))
            continue
        node = _NODE.match(line)
        if node:
            nodes[node.group(1)] = _cells(node.group(2))
    return nodes, edges


# ---- charts: the points of two half moons and a score whose sign is a boundary -------------------


def score(x: float, y: float) -> float:
    """A boundary's score at (x, y): a sine wave between the two moons."""
    return y - 0.6 * math.sin(2.5 * x) - 0.1


def moons(count: int = 60) -> list[tuple[float, float, float]]:
    """``count`` points (x, y, label ±1) of two half moons, seeded."""
    generator = random.Random(3)
    points = []
    for _ in range(count):
        angle = generator.uniform(0, math.pi)
        if generator.random() < 0.5:
            points.append((math.cos(angle), math.sin(angle), 1.0))
        else:
            points.append((1 - math.cos(angle), 0.5 - math.sin(angle), -1.0))
    return points


# A fresh process's start: the finalizer the engine installs on Emscripten and WASI, installed
# by hand inside a wrapper that counts the frees (`frees`), the outermost ones (`outermost`) and
# how deep they nest (`deepest`). The program that follows makes graphs, drops them and prints.
COUNTED_FREES = """
import gc
from scalarlang.engine import node
depth = deepest = outermost = frees = 0
def counted(dying):
    global depth, deepest, outermost, frees
    depth += 1
    deepest = max(deepest, depth)
    outermost += depth == 1
    frees += 1
    try:
        node.free_operands_first(dying)
    finally:
        depth -= 1
setattr(node.Node, "__del__", counted)
"""


def counted_frees(program: str) -> list[int]:
    """The whole numbers ``program`` prints, run after `COUNTED_FREES` in a fresh Python."""
    ran = subprocess.run([sys.executable, "-c", COUNTED_FREES + program], capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stderr) == (0, "")
    return [int(number) for number in ran.stdout.split()]
