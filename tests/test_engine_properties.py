"""Property tests of the engine over random graphs that reuse nodes (issue #2).

A graph is built from a small *program*: a few variables and constants, then operations whose
operands are drawn from every node built so far (so ``x*x``, ``s+s``, shared subgraphs,
constants, Python numbers and detached nodes all occur). Oracles:

1. sympy: the same expression built symbolically, differentiated, evaluated at the point;
2. central differences of the rebuilt graph with one variable moved;
3. a reference reverse pass written here from docs/engine.md, float operation for float
   operation, which predicts the exact records or the exact error of any pass.
"""

from __future__ import annotations

import math
import struct
from typing import NamedTuple

import mpmath
import pytest
from hypothesis import assume, event, example, given, note, settings
from hypothesis import strategies as st

from elementary_reference import exact as exact_value, ulps_off
from shared import reference_topology
from scalarlang import (
    BackwardEdge,
    BackwardNode,
    NonFiniteAccumulatedGradient,
    NonFiniteContribution,
    NonFiniteDerivative,
    NonFiniteLeaf,
    NonFinitePassAdjoint,
    NonFiniteResult,
    NonFiniteSeed,
    Scalar,
    ScalarAutodiffError,
    UntrackedOutput,
)

# ---- programs -------------------------------------------------------------------------------

BINARY = ("add", "sub", "mul", "div")
# two-operand operations with a method only: a.max(b), a.max(number)
BINARY_METHODS = ("max", "min")
UNARY = ("neg", "exp", "tanh", "log", "detach", "sqrt", "relu", "sigmoid", "abs", "pow")
# how a binary operation is written: a.add(b), a + b, a + number, number + a
FORMS = ("method", "operator", "number-right", "number-left")
METHOD_FORMS = ("method", "number-right")
# pow's exponent (the step's number): integral, fractional, negative, zero, one
EXPONENTS = (2, 3, 0, 1, -1, -2, 0.5, -0.5, 1.5, 2.0, 4)
# operations without a derivative at some points (relu and abs at 0, max and min on a tie)
KINKED = ("relu", "abs", "max", "min")
OPERATORS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}
# The amplifier (node * 1e-300) * 1e300: value ~ node, but one edge has local derivative 1e300.
TINY, HUGE = 1e-300, 1e300

VALUE_BOUND = 50.0  # every node value stays in [-50, 50] (safe mode)


class Step(NamedTuple):
    op: str
    form: str
    left: int  # operand indices into the program's nodes
    right: int
    number: float


class Program(NamedTuple):
    leaves: tuple[tuple[str, float], ...]  # ("variable" | "constant", value)
    steps: tuple[Step, ...]


nice_values = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -1.5, 0.25])
leaf_values = st.one_of(nice_values, st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False))


@st.composite
def programs(draw, max_steps: int = 10, amplify: bool = False) -> Program:
    variables = draw(st.integers(1, 3))
    constants = draw(st.integers(0, 2))
    leaves = [("variable", draw(leaf_values)) for _ in range(variables)]
    leaves += [("constant", draw(leaf_values)) for _ in range(constants)]
    leaves = draw(st.permutations(leaves))
    ops = BINARY + BINARY_METHODS + UNARY + (("amp",) if amplify else ())
    steps = []
    count = len(leaves)
    used: set[int] = set()
    for _ in range(draw(st.integers(1, max_steps))):
        op = draw(st.sampled_from(ops))
        # operands counted back from the newest node (shrinks towards chains); the left one
        # is often one of the newest, the right one anything built so far (reuse)
        back = st.one_of(st.just(0), st.integers(0, min(2, count - 1)), st.integers(0, count - 1))
        left = count - 1 - draw(back)
        right = count - 1 - draw(st.integers(0, count - 1))
        if op in BINARY:
            form = draw(st.sampled_from(FORMS))
        elif op in BINARY_METHODS:
            form = draw(st.sampled_from(METHOD_FORMS))
        elif op == "pow":  # a ** c or a.pow(c)
            form = draw(st.sampled_from(("operator", "method")))
        else:
            form = "method"
        number = draw(leaf_values) if form.startswith("number") else 0.0
        if op == "pow":
            number = draw(st.sampled_from(EXPONENTS))
        steps.append(Step(op, form, left, right, number))
        used.add(left)
        if _two_operands(op, form):
            used.add(right)
        count += 1
    if draw(st.booleans()):
        # fold every node nothing uses into the output, so the whole program is reachable
        for dangling in range(count - 2, -1, -1):
            if dangling not in used:
                steps.append(Step(draw(st.sampled_from(("add", "sub"))), "method", count - 1, dangling, 0.0))
                used.add(dangling)
                count += 1
    return Program(tuple(leaves), tuple(steps))


def _two_operands(op: str, form: str) -> bool:
    return op in BINARY + BINARY_METHODS and form in ("method", "operator")


def _operand_values(step: Step, values: list[float]) -> tuple[float, float]:
    a, b = values[step.left], values[step.right]
    if step.form == "number-right":
        b = step.number
    elif step.form == "number-left":
        a, b = step.number, a
    return a, b


def _safe(step: Step, values: list[float], kink_margin: float = 0.0) -> bool:
    """Whether the step keeps the graph well conditioned (else it is replaced by tanh), and,
    with a ``kink_margin``, keeps that far from the points where relu, abs, max and min
    have no derivative (for finite differences, which straddle a kink)."""
    a, b = _operand_values(step, values)
    op = step.op
    if kink_margin and op in KINKED:
        if op in ("relu", "abs"):
            return abs(a) >= kink_margin
        same_node = step.form == "method" and step.left == step.right  # max(x, x) is smooth
        return same_node or abs(a - b) >= kink_margin
    if op == "pow":
        c = step.number
        if c != int(c) and a < 0.1:  # a fractional power of a negative base, or near 0
            return False
        if c < 0 and abs(a) < 0.1:
            return False
        result = a ** c
    elif op == "sqrt":
        if a < 0.1:
            return False
        result = math.sqrt(a)
    elif op == "exp":
        if a > 3.0:
            return False
        result = math.exp(a)
    elif op == "log":
        if a < 0.1:
            return False
        result = math.log(a)
    elif op == "div":
        if abs(b) < 0.1:
            return False
        result = a / b
    elif op in ("add", "sub", "mul"):
        result = {"add": a + b, "sub": a - b, "mul": a * b}[op]
    else:
        return True
    return abs(result) <= VALUE_BOUND


def make_safe(program: Program, kink_margin: float = 0.0) -> Program:
    """The same program with every unsafe step replaced by tanh of its left operand."""
    values: list[float] = [value for _, value in program.leaves]
    steps = []
    for step in program.steps:
        if not _safe(step, values, kink_margin):
            step = Step("tanh", "method", step.left, step.left, 0.0)
        steps.append(step)
        values.append(_apply_float(step, values))
    return Program(program.leaves, tuple(steps))


def _apply_float(step: Step, values: list[float]) -> float:
    a, b = _operand_values(step, values)
    return {
        "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "div": lambda: a / b,
        "neg": lambda: -a, "exp": lambda: math.exp(a), "tanh": lambda: math.tanh(a),
        "log": lambda: math.log(a), "detach": lambda: a, "amp": lambda: a * TINY * HUGE,
        "pow": lambda: a ** step.number, "sqrt": lambda: math.sqrt(a), "relu": lambda: max(a, 0.0),
        "sigmoid": lambda: 0.5 * (1.0 + math.tanh(0.5 * a)), "abs": lambda: abs(a),
        "max": lambda: max(a, b), "min": lambda: min(a, b),
    }[step.op]()


class Built(NamedTuple):
    nodes: list[Scalar]  # one per leaf and step
    variables: list[Scalar]

    @property
    def output(self) -> Scalar:
        return self.nodes[-1]

    @property
    def tracked_output_index(self) -> int:
        """The newest tracked node (a variable at worst): the output of tests that need one."""
        return max(i for i, node in enumerate(self.nodes) if node.tracks_gradient)


def build(program: Program, moved: dict[int, float] | None = None,
          detached_values: dict[int, float] | None = None) -> Built:
    """The engine graph of a program. ``moved`` overrides leaf values; ``detached_values``
    freezes the value of detach steps (for finite differences)."""
    nodes: list[Scalar] = []
    variables: list[Scalar] = []
    for index, (kind, value) in enumerate(program.leaves):
        value = (moved or {}).get(index, value)
        node = Scalar.variable(value) if kind == "variable" else Scalar.constant(value)
        nodes.append(node)
        if kind == "variable":
            variables.append(node)
    for position, step in enumerate(program.steps, start=len(program.leaves)):
        a, b = nodes[step.left], nodes[step.right]
        op = step.op
        if op in BINARY_METHODS:
            node = getattr(a, op)(b if step.form == "method" else step.number)
        elif op == "pow":
            node = a ** step.number if step.form == "operator" else a.pow(step.number)
        elif op in BINARY:
            if step.form == "method":
                node = getattr(a, op)(b)
            elif step.form == "operator":
                node = OPERATORS[op](a, b)
            elif step.form == "number-right":
                node = OPERATORS[op](a, step.number)
            else:
                node = OPERATORS[op](step.number, a)
        elif op == "detach":
            if detached_values is not None:
                node = Scalar.variable(detached_values[position]).detach()
            else:
                node = a.detach()
        elif op == "amp":
            node = (a * TINY) * HUGE
        else:
            node = getattr(a, op)()
        nodes.append(node)
    return Built(nodes, variables)


def tree_size(program: Program) -> int:
    """Largest expression *tree* of the program's nodes (a DAG with sharing unfolds into a
    tree whose size can grow exponentially: sympy works on trees)."""
    sizes = [1] * len(program.leaves)
    for step in program.steps:
        size = 1 + sizes[step.left]
        if _two_operands(step.op, step.form):
            size += sizes[step.right]
        elif step.op in BINARY + BINARY_METHODS:
            size += 1
        sizes.append(min(size, 10**9))
    return max(sizes)


def symbolic(program: Program, built: Built):
    """The program as sympy expressions; detached nodes and constants become symbols.

    relu, abs, max and min become the branch their operands' values select (PyTorch's
    conventions: relu and abs at 0 are the constant 0, a tie of max or min the mean)."""
    import sympy  # (here, not at the top: see test_gradients_match_sympy)

    exprs = []
    symbols_of_variables = []
    values: dict[sympy.Symbol, sympy.Rational] = {}
    for index, (kind, value) in enumerate(program.leaves):
        symbol = sympy.Symbol(f"{kind[0]}{index}", real=True)
        values[symbol] = sympy.Rational(value)
        exprs.append(symbol)
        if kind == "variable":
            symbols_of_variables.append(symbol)
    for position, step in enumerate(program.steps, start=len(program.leaves)):
        a, b = exprs[step.left], exprs[step.right]
        if step.form == "number-right":
            b = sympy.Rational(step.number)
        elif step.form == "number-left":
            a, b = sympy.Rational(step.number), a
        op = step.op
        if op == "add":
            expr = a + b
        elif op == "sub":
            expr = a - b
        elif op == "mul":
            expr = a * b
        elif op == "div":
            expr = a / b
        elif op == "neg":
            expr = -a
        elif op == "exp":
            expr = sympy.exp(a)
        elif op == "tanh":
            expr = sympy.tanh(a)
        elif op == "log":
            expr = sympy.log(a)
        elif op == "amp":
            expr = a * sympy.Rational(TINY) * sympy.Rational(HUGE)
        elif op == "pow":
            expr = a ** sympy.Rational(step.number)
        elif op == "sqrt":
            expr = sympy.sqrt(a)
        elif op == "sigmoid":
            expr = 1 / (1 + sympy.exp(-a))
        elif op in KINKED:
            expr = _branch(op, a, b, *_operand_values(step, [n.value for n in built.nodes]))
        else:  # detach: a fresh symbol holding the detached node's float value
            symbol = sympy.Symbol(f"d{position}", real=True)
            values[symbol] = sympy.Rational(built.nodes[position].value)
            expr = symbol
        exprs.append(expr)
    return exprs, symbols_of_variables, values


def _branch(op: str, a, b, a_value: float, b_value: float):
    """The sympy expression of a kinked operation at the given operand values."""
    import sympy
    if op == "relu":
        return a if a_value > 0 else sympy.Integer(0)
    if op == "abs":
        return a if a_value > 0 else -a if a_value < 0 else sympy.Integer(0)
    if a_value == b_value:
        return (a + b) / 2
    pick_a = a_value > b_value if op == "max" else a_value < b_value
    return a if pick_a else b


# ---- independent references -----------------------------------------------------------------


class Outcome(NamedTuple):
    error: ScalarAutodiffError | None
    nodes: list[BackwardNode] | None
    edges: list[BackwardEdge] | None


def reference_pass(output: Scalar, seed: float) -> Outcome:
    """docs/engine.md's fresh reverse pass, step by step, using the public API only."""
    try:
        if not output.tracks_gradient:
            raise UntrackedOutput(output.operation)
        if not math.isfinite(seed):
            raise NonFiniteSeed(float(seed))
        topology = reference_topology(output)
        index = {id(node): i for i, node in enumerate(topology)}
        adjoint = [0.0] * len(topology)
        adjoint[-1] = float(seed)
        edges = []
        for child in range(len(topology) - 1, -1, -1):
            upstream = adjoint[child]
            for operand, edge in enumerate(topology[child].parents):
                parent = index[id(edge.parent)]
                local = edge.local_derivative
                contribution = upstream * local
                if not math.isfinite(contribution):
                    raise NonFiniteContribution(child, parent, operand, upstream, local)
                tracked = edge.parent.tracks_gradient
                before = after = None
                if tracked:
                    before = adjoint[parent]
                    after = before + contribution
                    if not math.isfinite(after):
                        raise NonFinitePassAdjoint(parent, before, contribution)
                    adjoint[parent] = after
                edges.append(BackwardEdge(len(edges), child, parent, operand, local, upstream,
                                          contribution, tracked, before, after))
        nodes = []
        for i, node in enumerate(topology):
            if node.tracks_gradient:
                stored = node.gradient
                total = stored + adjoint[i]
                if not math.isfinite(total):
                    raise NonFiniteAccumulatedGradient(i, stored, adjoint[i])
                nodes.append(BackwardNode(i, node.operation, node.value, True, adjoint[i], total))
            else:
                nodes.append(BackwardNode(i, node.operation, node.value, False, None, None))
        return Outcome(None, nodes, edges)
    except ScalarAutodiffError as error:
        return Outcome(error, None, None)


def bits(value):
    return struct.pack("<d", value) if isinstance(value, float) else value


def record_key(record) -> tuple:
    """A record's fields with floats as IEEE bits (so -0.0 and 0.0 differ)."""
    return tuple(bits(value) for value in record)


ERROR_FIELDS = {
    UntrackedOutput: ("operation",),
    NonFiniteSeed: ("seed",),
    NonFiniteContribution: ("child", "parent", "operand", "upstream", "local_derivative"),
    NonFinitePassAdjoint: ("node", "previous", "contribution"),
    NonFiniteAccumulatedGradient: ("node", "stored", "pass_adjoint"),
}


def error_key(error: ScalarAutodiffError) -> tuple:
    names = ERROR_FIELDS[type(error)]
    return (type(error), error.kind) + tuple(
        "nan" if isinstance(v, float) and v != v else bits(v)
        for v in (getattr(error, name) for name in names)
    )


def gradient_bits(nodes) -> list:
    return [None if n.gradient is None else struct.pack("<d", n.gradient) for n in nodes]


def assert_pass_matches(backward_pass, expected: Outcome) -> None:
    assert expected.error is None
    assert [record_key(n) for n in backward_pass.nodes] == [record_key(n) for n in expected.nodes]
    assert [record_key(e) for e in backward_pass.edges] == [record_key(e) for e in expected.edges]


def assert_engine_agrees(output: Scalar, seed: float, watched: list[Scalar]) -> Outcome:
    """reverse_pass and backward_with_seed both do what the reference predicts; a failure
    changes no stored bit, a success commits exactly the prospective gradients."""
    expected = reference_pass(output, seed)
    before = gradient_bits(watched)
    if expected.error is not None:
        event(f"pass error: {expected.error.kind}")
        for call in (output.reverse_pass, output.backward_with_seed):
            with pytest.raises(ScalarAutodiffError) as caught:
                call(seed)
            assert error_key(caught.value) == error_key(expected.error)
            assert gradient_bits(watched) == before
        return expected
    event("pass succeeded")
    assert_pass_matches(output.reverse_pass(seed), expected)
    assert gradient_bits(watched) == before
    committed = output.backward_with_seed(seed)
    assert_pass_matches(committed, expected)
    topology = reference_topology(output)
    for node, record in zip(topology, expected.nodes):
        assert bits(node.gradient) == bits(record.accumulated_gradient)
    in_graph = {id(n) for n in topology}
    assert [b for n, b in zip(watched, before) if id(n) not in in_graph] == [
        b for n, b in zip(watched, gradient_bits(watched)) if id(n) not in in_graph
    ]
    return expected


def path_weight(output: Scalar) -> float:
    """Largest sum over paths of |product of local derivatives|: a conditioning bound."""
    topology = reference_topology(output)
    index = {id(node): i for i, node in enumerate(topology)}
    weight = [0.0] * len(topology)
    weight[-1] = 1.0
    for child in range(len(topology) - 1, -1, -1):
        for edge in topology[child].parents:
            weight[index[id(edge.parent)]] += weight[child] * abs(edge.local_derivative)
    return max(weight)


def safe_graph(program: Program, kink_margin: float = 0.0) -> tuple[Program, Built]:
    program = make_safe(program, kink_margin)
    return program, build(program)


# ---- oracle 1: sympy ------------------------------------------------------------------------


@given(programs())
@example(Program((("variable", 2.0),), (Step("mul", "method", 0, 0, 0.0), Step("add", "method", 1, 1, 0.0))))
@example(Program((("variable", 2.0),), (
    Step("mul", "method", 0, 0, 0.0), Step("detach", "method", 0, 0, 0.0),
    Step("mul", "number-right", 2, 2, 3.0), Step("add", "method", 1, 3, 0.0))))
@example(Program((("variable", 0.5),), (Step("tanh", "method", 0, 0, 0.0), Step("exp", "method", 1, 1, 0.0))))
def test_gradients_match_sympy(program):
    # sympy is imported where it is used: it takes 0.3 s of CPU, and every pytest-xdist worker
    # imports every test module, most of them never running this test.
    import sympy

    program, built = safe_graph(program)
    if tree_size(program) > 400:
        event("expression tree too large for sympy: skipped")
        return
    exprs, variable_symbols, values = symbolic(program, built)
    # forward values agree too
    for node, expr in zip(built.nodes, exprs):
        exact = float(expr.evalf(30, subs=values))
        assert node.value == pytest.approx(exact, rel=1e-12, abs=1e-12)
    if not built.output.tracks_gradient:
        event("untracked last node")
        with pytest.raises(UntrackedOutput):
            built.output.backward()
        for symbol in variable_symbols:
            assert sympy.diff(exprs[-1], symbol) == 0
    output_index = built.tracked_output_index
    output = built.nodes[output_index]
    weight = path_weight(output)
    note(f"path weight {weight}")
    if weight > 1e4:
        event("ill-conditioned: skipped")
        return
    fresh = output.reverse_pass()
    adjoints = {id(node): record.pass_adjoint for node, record in zip(output.topology(), fresh.nodes)}
    output.backward()
    for variable, symbol in zip(built.variables, variable_symbols):
        exact = float(sympy.diff(exprs[output_index], symbol).evalf(30, subs=values))
        adjoint = adjoints.get(id(variable), 0.0)  # a variable the output does not reach: 0
        assert abs(adjoint - exact) <= 1e-9 * max(1.0, abs(exact)), (symbol, adjoint, exact)
        assert bits(variable.gradient) == bits(0.0 + adjoint)


# ---- oracle 2: central differences ----------------------------------------------------------


def _moved_value(program: Program, detached: dict[int, float], leaf: int, value: float,
                 output_index: int) -> float | None:
    try:
        return build(program, {leaf: value}, detached).nodes[output_index].value
    except ScalarAutodiffError:
        return None


def _central(program, detached, leaf, at, step, output_index) -> float | None:
    above = _moved_value(program, detached, leaf, at + step, output_index)
    below = _moved_value(program, detached, leaf, at - step, output_index)
    if above is None or below is None:
        return None
    return (above - below) / (2 * step)


@given(programs())
def test_gradients_match_central_differences(program):
    program, built = safe_graph(program, kink_margin=1e-2)
    output_index = built.tracked_output_index
    output = built.nodes[output_index]
    output.backward()
    detached = {
        position: built.nodes[position].value
        for position, step in enumerate(program.steps, start=len(program.leaves))
        if step.op == "detach"
    }
    leaves = [i for i, (kind, _) in enumerate(program.leaves) if kind == "variable"]
    for leaf, variable in zip(leaves, built.variables):
        at = variable.value
        step = 2.0**-17 * max(1.0, abs(at))
        coarse = _central(program, detached, leaf, at, step, output_index)
        fine = _central(program, detached, leaf, at, step / 2, output_index)
        if coarse is None or fine is None:
            event("difference left the domain: skipped")
            continue
        if abs(coarse - fine) > 1e-6 * max(1.0, abs(fine)):
            event("unstable difference: skipped")
            continue
        analytic = variable.gradient
        assert abs(analytic - fine) <= 1e-5 * max(1.0, abs(fine), abs(analytic)), (leaf, analytic, fine)


# ---- passes against the reference pass ------------------------------------------------------

power_of_two_seeds = st.builds(lambda sign, k: sign * 2.0**k, st.sampled_from([1.0, -1.0]), st.integers(-8, 8))
moderate_seeds = st.one_of(
    power_of_two_seeds, st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
)


@given(programs(), moderate_seeds)
def test_pass_records_match_reference_and_accumulate(program, seed):
    program, built = safe_graph(program)
    output = built.nodes[built.tracked_output_index]
    topology = output.topology()
    assert all(a is b for a, b in zip(topology, reference_topology(output)))
    assert len(topology) == len(reference_topology(output))
    watched = built.nodes + [n for n in topology if all(n is not m for m in built.nodes)]

    expected = reference_pass(output, seed)  # against the stored zeros
    assert expected.error is None
    fresh = output.reverse_pass(seed)
    assert all(n.gradient in (None, 0.0) for n in watched)
    assert_pass_matches(fresh, expected)
    first = output.backward_with_seed(seed)
    assert first == fresh  # same records from reverse_pass and backward
    assert_pass_matches(first, expected)
    once = [n.gradient for n in topology]
    # the stored gradient after one pass on a fresh graph is 0.0 + the pass adjoint
    for node, record in zip(topology, first.nodes):
        assert bits(node.gradient) == bits(record.accumulated_gradient)
        if record.tracked:
            assert bits(node.gradient) == bits(0.0 + record.pass_adjoint)

    second = output.backward_with_seed(seed)
    assert [record_key(e) for e in second.edges] == [record_key(e) for e in first.edges]
    assert [bits(n.pass_adjoint) for n in second.nodes] == [bits(n.pass_adjoint) for n in first.nodes]
    for node, value in zip(topology, once):
        if value is None:
            assert node.gradient is None
        else:  # a + a is exact in binary floating point
            assert bits(node.gradient) == bits(2.0 * value)

    output.zero_grad()
    assert all(bits(n.gradient) in (None, bits(0.0)) for n in topology)
    output.backward_with_seed(seed)
    assert [bits(n.gradient) for n in topology] == [bits(v) for v in once]


@given(programs(), st.integers(-8, 8))
def test_power_of_two_seed_scales_every_adjoint_exactly(program, k):
    program, built = safe_graph(program)
    output = built.nodes[built.tracked_output_index]
    unit = output.reverse_pass(1.0)
    scaled = output.reverse_pass(2.0**k)
    magnitudes = [abs(e.contribution) for e in unit.edges] + [abs(e.local_derivative) for e in unit.edges]
    if any(0.0 < m < 2.0**-1000 for m in magnitudes):
        event("subnormal territory: only approximate")
        exact = False
    else:
        exact = True
    for one, many in zip(unit.nodes, scaled.nodes):
        if one.pass_adjoint is None:
            assert many.pass_adjoint is None
        elif exact:
            assert bits(many.pass_adjoint) == bits(one.pass_adjoint * 2.0**k)
        else:
            assert many.pass_adjoint == pytest.approx(one.pass_adjoint * 2.0**k, rel=1e-12, abs=1e-300)


@given(programs(max_steps=10), st.lists(st.integers(0, 10**6), min_size=1, max_size=6))
def test_topology_of_any_node_matches_recursive_reference(program, picks):
    program, built = safe_graph(program)
    nodes = built.nodes
    # walk several (overlapping) subgraphs in a random order: walks must not interfere
    for pick in picks + [len(nodes) - 1]:
        node = nodes[pick % len(nodes)]
        topology = node.topology()
        reference = reference_topology(node)
        assert len(topology) == len(reference)
        assert all(a is b for a, b in zip(topology, reference))
    index = {id(n): i for i, n in enumerate(built.output.topology())}
    for node in built.output.topology():
        for edge in node.parents:
            assert index[id(edge.parent)] < index[id(node)]


@given(programs())
def test_untracked_output_is_rejected_and_changes_nothing(program):
    program, built = safe_graph(program)
    output = built.output.detach() if built.output.tracks_gradient else built.output
    before = gradient_bits(built.nodes)
    with pytest.raises(UntrackedOutput) as caught:
        output.backward()
    assert caught.value == UntrackedOutput(output.operation)
    assert gradient_bits(built.nodes) == before


# ---- atomicity under injected overflow ------------------------------------------------------

prime_seeds = st.lists(st.floats(-100.0, 100.0, allow_nan=False, allow_infinity=False), max_size=2)


def _prime(output: Scalar, seeds: list[float]) -> None:
    """Successful passes first, so that stored gradients are not all zero."""
    for seed in seeds:
        if reference_pass(output, seed).error is None:
            output.backward_with_seed(seed)


def _tracked_nodes(built: Built) -> list[Scalar]:
    return [n for n in built.nodes if n.tracks_gradient]


@given(programs(), prime_seeds, st.integers(0, 10**6), st.integers(200, 305), st.sampled_from([1.0, -1.0]))
def test_injected_contribution_overflow(program, primes, pick, exponent, sign):
    """An edge with local derivative 10**e from a chosen node: the pass fails on that edge."""
    program, built = safe_graph(program)
    tracked = _tracked_nodes(built)
    assume(tracked)
    chosen = tracked[pick % len(tracked)]
    big = Scalar.constant(10.0**exponent)
    injected = chosen * big  # local derivative to `chosen` is 10**e, value stays finite
    output = built.output + injected
    _prime(output, primes)
    seed = sign * 10.0 ** (310 - exponent)
    watched = output.topology()
    expected = assert_engine_agrees(output, seed, watched)
    assert type(expected.error) is NonFiniteContribution
    index = {id(n): i for i, n in enumerate(watched)}
    assert expected.error.child == index[id(injected)] and expected.error.operand == 0
    assert expected.error.parent == index[id(chosen)]


@given(programs(), prime_seeds, st.integers(0, 10**6), st.floats(1.0, 1.99), st.sampled_from([1.0, -1.0]))
def test_injected_pass_adjoint_overflow(program, primes, pick, mantissa, sign):
    """Two finite contributions near the largest float reach a chosen node: their sum overflows."""
    program, built = safe_graph(program)
    tracked = _tracked_nodes(built)
    assume(tracked)
    chosen = tracked[pick % len(tracked)]
    scale = 2.0**1000
    output = (built.output + chosen * scale) + chosen * scale
    _prime(output, primes)
    seed = sign * mantissa * 2.0**23  # each contribution is mantissa * 2**1023
    watched = output.topology()
    expected = assert_engine_agrees(output, seed, watched)
    assert type(expected.error) is NonFinitePassAdjoint
    assert expected.error.node == [i for i, n in enumerate(watched) if n is chosen][0]


@given(programs(), prime_seeds, st.integers(0, 10**6), st.floats(1.05, 1.9), st.floats(1.05, 1.9),
       st.sampled_from([1.0, -1.0]))
def test_injected_accumulated_gradient_overflow(program, primes, pick, stored_mantissa, mantissa, sign):
    """A chosen variable already stores a huge gradient; the next pass overflows the sum there,
    possibly after earlier topology nodes had finite prospective sums."""
    program, built = safe_graph(program)
    chosen = built.variables[pick % len(built.variables)]
    scale = 2.0**1000
    output = built.output + chosen * scale
    _prime(output, primes)
    side = chosen * scale  # another graph: it stores a huge gradient in `chosen` only
    side.backward_with_seed(sign * stored_mantissa * 2.0**23)
    seed = sign * mantissa * 2.0**23
    watched = output.topology() + [side]
    expected = assert_engine_agrees(output, seed, watched)
    assert type(expected.error) is NonFiniteAccumulatedGradient
    topology = output.topology()
    assert expected.error.node == [i for i, n in enumerate(topology) if n is chosen][0]
    event(f"failing topology index > 0: {expected.error.node > 0}")


finite_wild_seeds = st.builds(
    lambda sign, mantissa, exponent: sign * mantissa * 10.0**exponent,
    st.sampled_from([1.0, -1.0]), st.floats(1.0, 9.99), st.integers(-3, 308),
)
wild_seeds = st.one_of(finite_wild_seeds, st.sampled_from([math.inf, -math.inf, math.nan, 0.0, -0.0]))


@given(programs(amplify=True), st.lists(finite_wild_seeds, max_size=3), wild_seeds)
def test_any_pass_matches_reference_and_failures_are_atomic(program, primes, seed):
    """Large seeds and amplifier nodes: whatever happens, it is what the reference says."""
    program, built = safe_graph(program)
    output = built.nodes[built.tracked_output_index]
    watched = built.nodes + output.topology()
    for prime in primes:
        assert_engine_agrees(output, prime, watched)
    assert_engine_agrees(output, seed, watched)


# ---- construction errors never leak Python's own exceptions ---------------------------------

extreme_values = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-200, 1e200, 1e308, -1e308, 710.0, -746.0]),
)


def _ieee(op: str, a: float, b: float) -> float:
    """The IEEE double result Python refuses to give for some inputs."""
    try:
        return {
            "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
            "div": lambda: a / b, "neg": lambda: -a, "exp": lambda: math.exp(a),
            "tanh": lambda: math.tanh(a),
            "log": lambda: math.log(a) if a > 0 else (-math.inf if a == 0 else math.nan),
        }[op]()
    except ZeroDivisionError:
        return math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)
    except OverflowError:
        return math.inf


def _odd(number: float) -> bool:
    return number == int(number) and int(number) % 2 == 1


def _ieee_pow(a: float, c: float) -> float:
    """C99/IEEE pow(a, c) for finite a and c, where math.pow raises."""
    if c == 0.0:
        return 1.0
    if a == 0.0 and c < 0.0:
        return -math.inf if _odd(c) and math.copysign(1.0, a) < 0 else math.inf
    if a < 0.0 and c != int(c):
        return math.nan
    try:
        return math.pow(a, c)
    except OverflowError:
        return -math.inf if a < 0.0 and _odd(c) else math.inf


def _expected_new(op: str, a: float, b: float) -> tuple[float, list[float]] | tuple[float, None]:
    """Value and local derivatives of the new operations, from their definitions."""
    if op == "pow":
        value = _ieee_pow(a, b)
        if not math.isfinite(value) or b == 0.0:
            return value, [0.0]
        lower = _ieee_pow(a, b - 1.0)
        return value, [b * lower if math.isfinite(lower) else math.inf]
    if op == "sqrt":
        if a < 0.0:
            return math.nan, None
        value = math.sqrt(a)
        return value, [0.5 / value if value else math.copysign(math.inf, value)]
    if op == "relu":
        return (a, [1.0]) if a > 0 else (0.0, [0.0])
    if op == "sigmoid":
        with mpmath.workdps(40):  # an independent, much more precise evaluation
            value = float(1 / (1 + mpmath.exp(-mpmath.mpf(a))))
        return value, [value * (1.0 - value)]
    if op == "abs":
        return abs(a), [1.0 if a > 0 else -1.0 if a < 0 else 0.0]
    if a == b:
        return a, [0.5, 0.5]
    larger = a > b
    if op == "max":
        return (a, [1.0, 0.0]) if larger else (b, [0.0, 1.0])
    return (b, [0.0, 1.0]) if larger else (a, [1.0, 0.0])


NEW_OPS = ("pow", "sqrt", "relu", "sigmoid", "abs", "max", "min")


@given(extreme_values, st.one_of(extreme_values, st.sampled_from([0.5, -0.5, 2.0, 3.0, -1.0, 1 / 3])),
       st.sampled_from(NEW_OPS))
@settings(max_examples=4 * settings.default.max_examples)
def test_new_operations_on_extreme_values_give_a_node_or_a_typed_error(a, b, op):
    x = Scalar.variable(a)
    expected, locals_expected = _expected_new(op, a, b)
    try:
        if op == "pow":
            result = x ** b
        elif op in ("max", "min"):
            result = getattr(x, op)(Scalar.variable(b))
        else:
            result = getattr(x, op)()
    except NonFiniteResult as error:
        event(f"{op}: {error.kind}")
        assert op in ("pow", "sqrt") and not math.isfinite(expected)
        assert str(error.operation) == op
        assert bits(error.value) == bits(expected) if expected == expected else math.isnan(error.value)
        return
    except NonFiniteDerivative as error:
        event(f"{op}: {error.kind}")
        assert op in ("pow", "sqrt") and math.isfinite(expected)
        assert not math.isfinite(error.local_derivative) and error.operand == 0
        # the derivative really is not finite: c * a^(c-1) and c * a^c / a both overflow
        if op == "pow" and a != 0.0:
            assert not math.isfinite(b * expected / a)
        return
    event(f"{op}: node")
    assert math.isfinite(expected)
    locals_ = [edge.local_derivative for edge in result.parents]
    assert all(math.isfinite(d) for d in locals_)
    if op == "pow":
        assert result.value == pytest.approx(expected, rel=4e-16, abs=0.0)
        if b == 2.0:
            assert bits(result.value) == bits(a * a) and locals_ == [2.0 * a]
        if math.isfinite(locals_expected[0]):
            assert locals_[0] == pytest.approx(locals_expected[0], rel=1e-15, abs=1e-300)
        else:  # the fallback c * a^c / a of a tiny base
            assert locals_[0] == pytest.approx(b * expected / a, rel=1e-14)
        assert result.exponent == b
    elif op == "sigmoid":
        assert result.value == pytest.approx(expected, rel=2e-15, abs=1e-300)
        assert locals_ == [result.value * (1.0 - result.value)]
    else:
        assert bits(result.value) == bits(expected)
        assert [bits(d) for d in locals_] == [bits(d) for d in locals_expected]


@given(extreme_values, extreme_values, st.sampled_from(BINARY + ("neg", "exp", "tanh", "log")))
@settings(max_examples=4 * settings.default.max_examples)
@example(0.125, 0.0, "tanh")  # (where glibc's tanh is not the nearest double: ours is)
def test_operations_on_extreme_values_give_a_node_or_a_typed_error(a, b, op):
    x, y = Scalar.variable(a), Scalar.variable(b)
    expected = _ieee(op, a, b)
    try:
        result = getattr(x, op)(y) if op in BINARY else getattr(x, op)()
    except NonFiniteResult as error:
        event(error.kind)
        assert not math.isfinite(expected)
        assert str(error.operation) == op
        assert bits(error.value) == bits(expected) if expected == expected else math.isnan(error.value)
        return
    except NonFiniteDerivative as error:
        event(error.kind)
        assert math.isfinite(expected)
        assert str(error.operation) == op and op in ("div", "log")
        assert not math.isfinite(error.local_derivative)
        return
    assert math.isfinite(expected)
    if op in ("exp", "tanh", "log"):
        # The engine's own functions (elementary.py), not the C library's: within one ulp of the
        # true value (test_elementary.py checks how often they are the nearest double); glibc's
        # tanh(0.125) is one ulp below ours. The derivatives follow the engine's value.
        assert ulps_off(result.value, exact_value(op, a)) < 1.0
        expected = result.value
    else:
        assert bits(result.value) == bits(expected)
    locals_ = [edge.local_derivative for edge in result.parents]
    assert all(math.isfinite(d) for d in locals_)
    exact = {
        "add": [1.0, 1.0], "sub": [1.0, -1.0], "mul": [b, a], "neg": [-1.0],
        "exp": [expected], "tanh": [1.0 - expected * expected],
        "log": [1.0 / a] if op == "log" else None, "div": [1.0 / b] if op == "div" else None,
    }[op]
    assert [bits(d) for d in locals_[: len(exact)]] == [bits(d) for d in exact]
    if op == "div":
        assert locals_[1] == pytest.approx(-a / b / b, rel=1e-15, abs=1e-300)


@given(st.one_of(st.floats(), st.integers(-(10**400), 10**400)))
def test_leaves_are_finite_or_rejected(value):
    try:
        expected = float(value)
    except OverflowError:
        expected = math.inf if value > 0 else -math.inf
    try:
        x = Scalar.variable(value)
    except NonFiniteLeaf as error:
        assert not math.isfinite(expected)
        assert str(error.operation) == "variable"
        assert bits(error.value) == bits(expected) if expected == expected else math.isnan(error.value)
        return
    assert math.isfinite(expected)
    assert bits(x.value) == bits(expected)
