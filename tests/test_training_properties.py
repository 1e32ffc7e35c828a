"""Property: random programs with functions and loops against an independent oracle (issue 9).

The oracle is the same program made straight-line by this test: loops unrolled (a `for`
index bound with `let`, an `if` on the index decided here), every call of a function
inlined (its arguments bound to fresh names first, so each parameter is the argument's node
itself, as a call makes it). Both run in fresh sessions; every printed number, the failure
kind (if any), and the bits of every value and gradient the program's names end with must
agree.
"""

from __future__ import annotations

import functools
import math

from hypothesis import given, note
from hypothesis import strategies as st

from shared import bits
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Failed, Printed
from scalarlang.language.source import Source

GLOBALS = ("g0", "g1")
NUMBERS = (0.5, -1.25, 2.0, 0.1, 3.0)

# ---- expression trees: ("num", v) · ("name", n) · ("bin", op, l, r) · ("tanh", e) · ("call", f, args)


def expressions(names: tuple[str, ...], functions: dict[str, int]):
    return _expressions(names, tuple(sorted(functions.items())))


@functools.lru_cache(maxsize=None)
def _expressions(names: tuple[str, ...], arity_items: tuple):
    """Built once per (names, functions): hypothesis strategies are slow to build."""
    functions = dict(arity_items)
    atoms = st.one_of(st.sampled_from(NUMBERS).map(lambda v: ("num", v)), st.sampled_from(names).map(lambda n: ("name", n)))

    def extend(inner):
        options = [
            st.tuples(st.just("bin"), st.sampled_from("+-*"), inner, inner),
            st.tuples(st.just("tanh"), inner),
        ]
        if functions:
            options.append(
                st.sampled_from(sorted(functions)).flatmap(
                    lambda name: st.tuples(st.just("call"), st.just(name), st.lists(inner, min_size=functions[name], max_size=functions[name]).map(tuple))
                )
            )
        return st.one_of(*options)

    return st.recursive(atoms, extend, max_leaves=6)


def text(tree) -> str:
    kind = tree[0]
    if kind == "num":
        return repr(tree[1]) if tree[1] >= 0 else f"({tree[1]!r})"
    if kind == "name":
        return tree[1]
    if kind == "bin":
        return f"({text(tree[2])} {tree[1]} {text(tree[3])})"
    if kind == "tanh":
        return f"tanh({text(tree[1])})"
    return f"{tree[1]}({', '.join(text(arg) for arg in tree[2])})"


# ---- programs: ("let", tree) · ("print", tree) · ("step",) · ("for", a, b, body) · ("repeat", n, body) · ("if_even", body)


@st.composite
def programs(draw):
    functions: dict[str, tuple[tuple[str, ...], tuple]] = {}
    for index in range(draw(st.integers(0, 3))):
        params = ("p0", "p1")[: draw(st.integers(1, 2))]
        arities = {name: len(spec[0]) for name, spec in functions.items()}
        body = draw(expressions(params + GLOBALS, arities))
        functions[f"f{index}"] = (params, body)
    arities = {name: len(spec[0]) for name, spec in functions.items()}

    main = draw(_block(0, (), tuple(sorted(arities.items()))))
    starts = draw(st.tuples(st.sampled_from(NUMBERS), st.sampled_from(NUMBERS)))
    return functions, main, starts


@functools.lru_cache(maxsize=None)
def _block(depth: int, index_names: tuple[str, ...], arity_items: tuple):
    """A block's statements; built once per (depth, loop indices, functions)."""
    arities = dict(arity_items)

    def block(depth: int, index_names: tuple[str, ...]):
        return _block(depth, index_names, arity_items)

    names = GLOBALS + ("acc",) + index_names
    simple = st.one_of(
        st.tuples(st.just("let"), expressions(names, arities)),
        st.tuples(st.just("print"), expressions(names, arities)),
        st.just(("step",)),
    )
    if depth >= 2:
        return st.lists(simple, min_size=1, max_size=3)
    index_name = f"i{depth}"
    compound = st.one_of(
        st.tuples(st.just("for"), st.integers(-1, 1), st.integers(0, 3), st.deferred(lambda: block(depth + 1, index_names + (index_name,))), st.just(index_name)),
        st.tuples(st.just("repeat"), st.integers(0, 3), st.deferred(lambda: block(depth + 1, index_names))),
    )
    if index_names:
        compound = st.one_of(compound, st.tuples(st.just("if_even"), st.just(index_names[-1]), st.deferred(lambda: block(depth + 1, index_names))))
    return st.lists(st.one_of(simple, compound), min_size=1, max_size=3)


def prelude(starts) -> list[str]:
    return [f"let g0 = var {starts[0]!r}", f"let g1 = var {starts[1]!r}", "let acc = g0 * g1"]


def source_of(functions, main, starts) -> str:
    lines = prelude(starts)
    for name, (params, body) in functions.items():
        lines.append(f"fn {name}({', '.join(params)}) = {text(body)}")

    def emit(statements, indent: str):
        for statement in statements:
            kind = statement[0]
            if kind == "let":
                lines.append(f"{indent}let acc = {text(statement[1])}")
            elif kind == "print":
                lines.append(f'{indent}print "v {{{text(statement[1])}}}"')
            elif kind == "step":
                lines.append(f"{indent}backward(acc)")
                lines.append(f"{indent}descend g0, g1 by 0.01")
            elif kind == "for":
                _, start, count, body, name = statement
                lines.append(f"{indent}for {name} in {start}..{start + count} {{")
                emit(body, indent + "  ")
                lines.append(f"{indent}}}")
            elif kind == "repeat":
                lines.append(f"{indent}repeat {statement[1]} {{")
                emit(statement[2], indent + "  ")
                lines.append(f"{indent}}}")
            else:
                lines.append(f"{indent}if {statement[1]} % 2 == 0 {{")
                emit(statement[2], indent + "  ")
                lines.append(f"{indent}}}")

    emit(main, "")
    return "\n".join(lines)


def oracle_of(functions, main, starts) -> str:
    """The straight-line program: loops unrolled, calls inlined."""
    lines = prelude(starts)
    counter = [0]

    def inline(tree, hoisted: list[str], params: dict[str, str]):
        kind = tree[0]
        if kind == "num":
            return tree
        if kind == "name":
            return ("name", params.get(tree[1], tree[1]))
        if kind == "bin":
            return ("bin", tree[1], inline(tree[2], hoisted, params), inline(tree[3], hoisted, params))
        if kind == "tanh":
            return ("tanh", inline(tree[1], hoisted, params))
        names, body = functions[tree[1]]
        bound = {}
        for param, arg in zip(names, tree[2]):
            counter[0] += 1
            temp = f"t_{counter[0]}"
            hoisted.append(f"let {temp} = {text(inline(arg, hoisted, params))}")
            bound[param] = temp
        return inline(body, hoisted, bound)

    def emit(statements, indices: dict[str, int]):
        for statement in statements:
            kind = statement[0]
            if kind in ("let", "print"):
                hoisted: list[str] = []
                tree = inline(statement[1], hoisted, {})
                lines.extend(hoisted)
                lines.append(f"let acc = {text(tree)}" if kind == "let" else f'print "v {{{text(tree)}}}"')
            elif kind == "step":
                lines.extend(["backward(acc)", "descend g0, g1 by 0.01"])
            elif kind == "for":
                _, start, count, body, name = statement
                for value in range(start, start + count):
                    lines.append(f"let {name} = {value}")
                    emit(body, {**indices, name: value})
            elif kind == "repeat":
                for _ in range(statement[1]):
                    emit(statement[2], indices)
            elif indices[statement[1]] % 2 == 0:
                emit(statement[2], indices)

    emit(main, {})
    return "\n".join(lines)


def observe(program: str):
    session = Interpreter()
    outcomes = list(session.run(Source("p.sad", program)))
    numbers = []
    for outcome in outcomes:
        if isinstance(outcome, Printed):
            (word,) = outcome.text.split()[1:]
            numbers.append(word)
    failures = [outcome.diagnostic.kind for outcome in outcomes if isinstance(outcome, Failed)]
    state = []
    for name in GLOBALS + ("acc",):
        node = session.lookup(name)
        state.append((name, bits(node.value), bits(node.gradient)))
    return numbers, failures, state


def _same_number(left: str, right: str) -> bool:
    # A count prints as `3`, the oracle's `let i = 3` as `3.000000000000`: the same number.
    a, b = float(left), float(right)
    return (math.isnan(a) and math.isnan(b)) or a == b


@given(programs())
def test_functions_and_loops_agree_with_the_unrolled_inlined_program(case):
    functions, main, starts = case
    program = source_of(functions, main, starts)
    oracle = oracle_of(functions, main, starts)
    note(program)
    note(oracle)
    numbers, failures, state = observe(program)
    expected_numbers, expected_failures, expected_state = observe(oracle)
    assert failures == expected_failures
    assert len(numbers) == len(expected_numbers)
    assert all(_same_number(a, b) for a, b in zip(numbers, expected_numbers)), (numbers, expected_numbers)
    assert state == expected_state
