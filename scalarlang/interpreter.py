"""The `.sad` interpreter: a `Session` runs statements against the engine.

A statement is planned first (evaluated into outcomes and effects, nothing changed) and its
effects applied only when planning succeeded, so a failing statement binds no name and
changes no stored gradient; ``expect`` plans its statement and never applies it. Front ends
that want a whole input undone on failure (the REPL's line, ``:load``) run it ``atomic``: the
applied effects are journaled and rolled back.

The session knows nothing of terminals: it yields `outcomes` for a front end to render.
"""

from __future__ import annotations

import difflib
import gc
import math
import re
import traceback
from dataclasses import dataclass
from typing import Iterator

from . import ast
from .diagnostics import Diagnostic, LanguageError
from .engine import Scalar, ScalarOperation
from .errors import ScalarAutodiffError
from .gradcheck import GRADCHECK_STEP, GRADCHECK_TOLERANCE, scalar_gradient_check
from .kinds import RUNTIME_KINDS
from .numbers import format_exponent, format_number
from .outcomes import (
    BackwardShown,
    Bound,
    Expected,
    Failed,
    GradcheckShown,
    GraphNode,
    GraphShown,
    NodeState,
    Outcome,
    Printed,
    ValueShown,
)
from .replay import Replay
from .snapshot import restore_gradients, save_gradients
from .source import Source, Span
from .syntax import parse_program

# Functions that give a value, with their argument counts.
VALUE_FUNCTIONS = {
    "exp": 1, "tanh": 1, "log": 1, "detach": 1, "grad": 1, "value": 1,
    # Counts of a graph, so exercises can assert them: unique nodes and operand edges.
    "node_count": 1, "edge_count": 1,
}
# Calls that are statements of their own, with the argument counts they accept.
STATEMENT_FUNCTIONS = {"backward": (1, 2), "graph": (1,), "gradcheck": (2, 4)}
from .lexicon import KEYWORDS  # noqa: E402 - the lexical rules live in the grammar

_UNARY_OPERATIONS = {"exp": Scalar.exp, "tanh": Scalar.tanh, "log": Scalar.log, "detach": Scalar.detach}
_BINARY_OPERATIONS = {"+": Scalar.add, "-": Scalar.sub, "*": Scalar.mul, "/": Scalar.div}
_COMPARISONS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_MISSING = object()
# Labels made from source text are cut to this many characters, whitespace collapsed; so are
# names longer than that, in labels and messages.
LABEL_LIMIT = 60
# An inner error's message quoted by `expectation-failed` is cut to this many characters.
MESSAGE_LIMIT = 300
# `did you mean` compares a name with at most this many of the latest bindings.
SUGGESTION_CANDIDATES = 5_000


# ---- effects: what a planned statement will change ------------------------------------------


@dataclass(frozen=True, slots=True)
class _Bind:
    name: str
    node: Scalar


@dataclass(frozen=True, slots=True)
class _Commit:
    backward_pass: object  # BackwardPass


@dataclass(frozen=True, slots=True)
class _ZeroGrad:
    outputs: tuple[Scalar, ...]


_Effect = _Bind | _Commit | _ZeroGrad


@dataclass(slots=True)
class _Plan:
    outcomes: list[Outcome]
    effects: list[_Effect]


class Session:
    """Bindings and labels of one program or REPL session, over the engine's nodes."""

    def __init__(self) -> None:
        self._bindings: dict[str, Scalar] = {}
        self._first_names: dict[Scalar, str] = {}
        self._origins: dict[Scalar, tuple[Source, Span]] = {}

    # ---- what front ends read -------------------------------------------------------------

    @property
    def bindings(self) -> dict[str, Scalar]:
        """A copy of the current bindings, in binding order."""
        return dict(self._bindings)

    def lookup(self, name: str) -> Scalar | None:
        return self._bindings.get(name)

    def label_of(self, node: Scalar) -> str:
        """The first name bound to ``node``, else the source text that made it."""
        name = self._first_names.get(node)
        if name is not None:
            return name if len(name) <= LABEL_LIMIT else _shorten(name, LABEL_LIMIT)
        origin = self._origins.get(node)
        if origin is not None:
            source, span = origin
            return _source_label(source.text, span)
        return str(node.operation)

    def state_of(self, node: Scalar, label: str | None = None) -> NodeState:
        return NodeState(
            self.label_of(node) if label is None else label,
            str(node.operation),
            node.value,
            node.tracks_gradient,
            node.gradient,
        )

    def graph_of(self, node: Scalar, span: Span) -> GraphShown:
        """The ``graph(...)`` outcome for ``node``, as the REPL's ``:graph`` shows it too."""
        topology = node.topology()
        positions = {id(member): index for index, member in enumerate(topology)}
        nodes = tuple(
            GraphNode(
                index,
                str(member.operation),
                member.value,
                member.tracks_gradient,
                member.gradient,
                tuple(positions[id(edge.parent)] for edge in member.parents),
            )
            for index, member in enumerate(topology)
        )
        edge_count = sum(len(graph_node.operands) for graph_node in nodes)
        return GraphShown(span, self.label_of(node), nodes, edge_count, _labeler(self, topology))

    def reset(self) -> None:
        self._bindings.clear()
        self._first_names.clear()
        self._origins.clear()

    # ---- running ----------------------------------------------------------------------------

    def run(self, source: Source, *, atomic: bool = False) -> Iterator[Outcome]:
        """Parse ``source`` whole, then run its statements until the first failure.

        Outcomes are yielded as each statement finishes; render each before asking for the
        next (labels are looked up when shown). With ``atomic``, a failure also undoes what
        the statements before it in ``source`` changed.
        """
        try:
            program = parse_program(source)
        except LanguageError as error:
            yield Failed(error.diagnostic)
            return
        except Exception as error:  # a bug of ours in the parser
            yield _internal_failure(error, source)
            return
        yield from self.run_program(program, source, atomic=atomic)

    def run_program(self, program: ast.Program, source: Source, *, atomic: bool = False) -> Iterator[Outcome]:
        """Run ``program``'s statements until the first failure (``run`` without the parse).

        Python's cyclic garbage collector is paused meanwhile. Running makes no reference
        cycles (nodes hold none, `expect` keeps diagnostics rather than exceptions), so
        reference counting frees whatever is dropped; the collector would only rescan the
        program and its growing graph, again and again: of the 19 s that 100,000 statements
        building 10^6 nodes took to run, it took 11.
        """
        collecting = gc.isenabled()
        gc.disable()
        try:
            yield from self._run_statements(program, source, atomic)
        finally:
            if collecting:
                gc.enable()

    def _run_statements(self, program: ast.Program, source: Source, atomic: bool) -> Iterator[Outcome]:
        journal: list | None = [] if atomic else None
        try:
            for statement in program.statements:
                try:
                    plan = self._plan(statement, source)
                except LanguageError as error:
                    failure = Failed(error.diagnostic)
                except Exception as error:  # a bug of ours: report it, keep the session
                    failure = _internal_failure(error, source, statement.span)
                else:
                    self._apply(plan.effects, journal)
                    yield from plan.outcomes
                    continue
                if journal:
                    self._undo(journal)
                yield failure
                return
        except BaseException:
            # Interrupted (Ctrl-C) or the consumer stopped early: leave no half-done input.
            if journal:
                self._undo(journal)
            raise

    # ---- effects ------------------------------------------------------------------------------

    def _apply(self, effects: list[_Effect], journal: list | None) -> None:
        for effect in effects:
            if isinstance(effect, _Bind):
                if journal is not None:
                    journal.append(("bind", effect.name, self._bindings.get(effect.name, _MISSING)))
                self._bindings[effect.name] = effect.node
                if effect.node not in self._first_names:
                    self._first_names[effect.node] = effect.name
                    if journal is not None:
                        journal.append(("name", effect.node))
            elif isinstance(effect, _Commit):
                if journal is not None:
                    journal.append(("grads", save_gradients(effect.backward_pass.topology)))
                effect.backward_pass._commit()
            else:
                if journal is not None:
                    saved = [save_gradients(output.topology()) for output in effect.outputs]
                    journal.append(("grads", [pair for group in saved for pair in group]))
                for output in effect.outputs:
                    output.zero_grad()

    def _undo(self, journal: list) -> None:
        while journal:
            entry = journal.pop()
            if entry[0] == "bind":
                _, name, previous = entry
                if previous is _MISSING:
                    self._bindings.pop(name, None)
                else:
                    self._bindings[name] = previous
            elif entry[0] == "name":
                self._first_names.pop(entry[1], None)
            else:
                restore_gradients(entry[1])

    # ---- statements ---------------------------------------------------------------------------

    def _plan(self, statement: ast.Statement, source: Source) -> _Plan:
        evaluate = _Evaluator(self, source)
        if isinstance(statement, ast.Let):
            node = evaluate.node(statement.value)
            state = NodeState(statement.name, str(node.operation), node.value, node.tracks_gradient, node.gradient)
            return _Plan([Bound(statement.span, statement.name, state)], [_Bind(statement.name, node)])
        if isinstance(statement, ast.ExprStatement):
            expr = statement.expr
            if isinstance(expr, ast.Call) and expr.function in STATEMENT_FUNCTIONS:
                return self._plan_command(statement, expr, evaluate)
            node = evaluate.node(expr)
            return _Plan([ValueShown(statement.span, self.state_of(node))], [])
        if isinstance(statement, ast.Print):
            text = " ".join(evaluate.text(item) for item in statement.items)
            return _Plan([Printed(statement.span, text)], [])
        if isinstance(statement, ast.ZeroGrad):
            if statement.target is None:
                outputs = tuple(self._bindings.values())
            else:
                outputs = (evaluate.node(statement.target),)
            return _Plan([], [_ZeroGrad(outputs)])
        if isinstance(statement, ast.Assert):
            self._check_assert(statement, evaluate)
            return _Plan([], [])
        if isinstance(statement, ast.Expect):
            return self._plan_expect(statement, source)
        raise TypeError(f"unknown statement {type(statement).__name__}")

    def _plan_command(self, statement: ast.ExprStatement, call: ast.Call, evaluate: _Evaluator) -> _Plan:
        evaluate.check_arity(call, STATEMENT_FUNCTIONS[call.function])
        if call.function == "backward":
            return self._plan_backward(statement, call, evaluate)
        if call.function == "graph":
            node = evaluate.node(call.args[0])
            return _Plan([self.graph_of(node, statement.span)], [])
        return self._plan_gradcheck(statement, call, evaluate)

    def _plan_backward(self, statement: ast.ExprStatement, call: ast.Call, evaluate: _Evaluator) -> _Plan:
        output = evaluate.node(call.args[0])
        if len(call.args) == 2:
            seed, seed_span = evaluate.number(call.args[1]), call.args[1].span
        else:
            seed, seed_span = 1.0, call.span
        try:
            backward_pass = output.reverse_pass(seed)
        except ScalarAutodiffError as error:
            span = seed_span if error.kind == "non-finite-seed" else call.args[0].span
            raise evaluate.engine_error(error, span) from None
        shown = BackwardShown(
            statement.span, self.label_of(output), backward_pass, _labeler(self, backward_pass.topology)
        )
        return _Plan([shown], [_Commit(backward_pass)])

    def _plan_gradcheck(self, statement: ast.ExprStatement, call: ast.Call, evaluate: _Evaluator) -> _Plan:
        output = evaluate.node(call.args[0])
        variable = evaluate.node(call.args[1])
        step, tolerance = GRADCHECK_STEP, GRADCHECK_TOLERANCE
        if len(call.args) == 4:
            step, tolerance = evaluate.number(call.args[2]), evaluate.number(call.args[3])
        try:
            backward_pass = output.reverse_pass()
        except ScalarAutodiffError as error:
            raise evaluate.engine_error(error, call.args[0].span) from None
        topology = backward_pass.topology
        position = next((i for i, node in enumerate(topology) if node is variable), None)
        if variable.operation is not ScalarOperation.VARIABLE or position is None:
            where = "is not a variable" if variable.operation is not ScalarOperation.VARIABLE else (
                f"is not in the graph of `{self.label_of(output)}`"
            )
            raise evaluate.error(
                "not-a-variable",
                f"gradcheck needs a tracked variable of the output's graph; `{self.label_of(variable)}` {where}",
                call.args[1].span,
            )
        analytic = backward_pass.nodes[position].pass_adjoint
        try:
            check = scalar_gradient_check(variable.value, analytic, step, tolerance, Replay(topology, position))
        except ScalarAutodiffError as error:
            span = call.args[2].span if error.kind == "invalid-gradcheck-step" else (
                call.args[3].span if error.kind == "invalid-gradcheck-tolerance" else call.span
            )
            raise evaluate.engine_error(error, span) from None
        if not check.passed:
            raise evaluate.error(
                "gradcheck-failed",
                f"gradient check of `{self.label_of(output)}` by `{self.label_of(variable)}` failed: "
                f"analytic {format_number(check.analytic)}, numerical {format_number(check.numerical)}, "
                f"scaled error {format_exponent(check.scaled_error)} > tolerance {format_exponent(check.tolerance)}",
                call.span,
                fields={
                    "analytic": check.analytic,
                    "numerical": check.numerical,
                    "scaled_error": check.scaled_error,
                    "tolerance": check.tolerance,
                },
            )
        shown = GradcheckShown(statement.span, self.label_of(output), self.label_of(variable), check)
        return _Plan([shown], [])

    def _check_assert(self, statement: ast.Assert, evaluate: _Evaluator) -> None:
        left = evaluate.number(statement.left)
        right = evaluate.number(statement.right)
        left_text = evaluate.source.slice(statement.left.span)
        right_text = evaluate.source.slice(statement.right.span)
        fields = {"op": statement.op, "left": left, "right": right}
        if statement.tolerance is not None:
            tolerance = evaluate.number(statement.tolerance)
            if not (math.isfinite(tolerance) and tolerance >= 0.0):
                raise evaluate.error(
                    "assertion-failed",
                    f"tolerance {format_number(tolerance)} must be finite and not negative",
                    statement.tolerance.span,
                    fields={**fields, "tolerance": tolerance},
                )
            difference = abs(left - right)
            if difference <= tolerance:
                return
            raise evaluate.error(
                "assertion-failed",
                f"assertion failed: `{_shorten(left_text)}` is {format_number(left)}, "
                f"`{_shorten(right_text)}` is {format_number(right)}, "
                f"difference {format_number(difference)} exceeds {format_number(tolerance)}",
                statement.span,
                fields={**fields, "tolerance": tolerance},
            )
        if _COMPARISONS[statement.op](left, right):
            return
        raise evaluate.error(
            "assertion-failed",
            f"assertion failed: `{_shorten(left_text)}` is {format_number(left)}, "
            f"`{_shorten(right_text)}` is {format_number(right)}, so `{statement.op}` does not hold",
            statement.span,
            fields=fields,
        )

    def _plan_expect(self, statement: ast.Expect, source: Source) -> _Plan:
        """``expect K1: expect K2: ... STATEMENT``, without recursion (a chain can be as long
        as the nesting limit): the kinds are checked outermost first, the innermost statement
        is planned (never applied), then each ``expect`` judges what the one inside it did."""
        chain: list[ast.Expect] = []
        inner: ast.Statement = statement
        while isinstance(inner, ast.Expect):
            chain.append(inner)
            if inner.kind not in RUNTIME_KINDS:
                break
            inner = inner.statement
        # A failure is kept as its diagnostic: the exception would hold this frame in its
        # traceback, a reference cycle (see `run_program`).
        result: _Plan | Diagnostic
        if chain[-1].kind not in RUNTIME_KINDS:
            unknown = chain.pop()
            result = Diagnostic(
                "expectation-failed",
                f"`{_shorten(unknown.kind, LABEL_LIMIT)}` is not an error kind a statement can fail with",
                unknown.kind_span,
                source,
                {"expected": unknown.kind},
                _suggestion(unknown.kind, sorted(RUNTIME_KINDS)),
            )
        else:
            try:
                result = self._plan(inner, source)  # planned only: never applied
            except LanguageError as error:
                result = error.diagnostic
        for expect in reversed(chain):
            result = _judge_expectation(expect, result, source)
        if isinstance(result, Diagnostic):
            raise LanguageError(result)
        return result


def _judge_expectation(expect: ast.Expect, result: _Plan | Diagnostic, source: Source) -> _Plan | Diagnostic:
    """What ``expect`` makes of its statement's plan (``result``) or failure."""
    if isinstance(result, Diagnostic):
        got = result
        if got.kind == expect.kind:
            return _Plan([Expected(expect.span, got.kind, got.message)], [])
        return Diagnostic(
            "expectation-failed",
            # Cut: in a chain of expects each message would hold all the inner ones.
            f"expected {expect.kind}, but the statement failed with {got.kind}: {_cut(got.message, MESSAGE_LIMIT)}",
            got.span or expect.span,
            source,
            {"expected": expect.kind, "actual": got.kind},
        )
    return Diagnostic(
        "expectation-failed",
        f"expected {expect.kind}, but the statement succeeded",
        expect.statement.span,
        source,
        {"expected": expect.kind, "actual": None},
    )


# ---- expressions ------------------------------------------------------------------------------


class _Evaluator:
    """Evaluates expressions of one statement; records where each new node came from."""

    __slots__ = ("session", "source")

    def __init__(self, session: Session, source: Source):
        self.session = session
        self.source = source

    def error(self, kind: str, message: str, span: Span, fields=None, notes=()) -> LanguageError:
        return LanguageError(Diagnostic(kind, message, span, self.source, dict(fields or {}), tuple(notes)))

    def engine_error(self, error: ScalarAutodiffError, span: Span) -> LanguageError:
        fields = {name: _field_value(value) for name, value in error.fields.items()}
        return self.error(error.kind, str(error), span, fields)

    def text(self, item: ast.StringLiteral | ast.Expr) -> str:
        if not isinstance(item, ast.StringLiteral):
            return format_number(self.node(item).value)
        pieces = []
        for part in item.parts:
            pieces.append(part.text if isinstance(part, ast.Text) else format_number(self.node(part).value))
        return "".join(pieces)

    def number(self, expr: ast.Expr) -> float:
        """The value of an expression used as a plain number (a seed, a step, a bound).

        A literal, possibly negated, is read directly, so ``backward(loss, inf)`` reports the
        non-finite seed rather than a non-finite constant.
        """
        literal = _literal_value(expr)
        return literal if literal is not None else self.node(expr).value

    def node(self, expr: ast.Expr) -> Scalar:
        """Evaluate ``expr`` to a node, operands first, with an explicit stack."""
        values: list[Scalar] = []
        stack: list[tuple[ast.Expr, bool]] = [(expr, False)]
        while stack:
            current, operands_done = stack.pop()
            if isinstance(current, ast.Number):
                values.append(self._made(current, self._leaf(Scalar.constant, current.value, current.span)))
            elif isinstance(current, ast.Name):
                values.append(self._lookup(current))
            elif isinstance(current, ast.Leaf) and not operands_done:
                literal = _literal_value(current.operand)
                if literal is not None:  # `var inf`: the variable is what is non-finite
                    make = Scalar.variable if current.kind == "var" else Scalar.constant
                    values.append(self._made(current, self._leaf(make, literal, current.span)))
                else:
                    stack.append((current, True))
                    stack.append((current.operand, False))
            elif not operands_done:
                if isinstance(current, ast.Call):
                    self._check_call(current)
                stack.append((current, True))
                for child in reversed(_children(current)):
                    stack.append((child, False))
            else:
                count = len(_children(current))
                operands = values[len(values) - count :]
                del values[len(values) - count :]
                values.append(self._made(current, self._combine(current, operands)))
        return values[0]

    def _made(self, expr: ast.Expr, node: Scalar) -> Scalar:
        origins = self.session._origins
        if node not in origins and node not in self.session._first_names:
            origins[node] = (self.source, expr.span)
        return node

    def _lookup(self, name: ast.Name) -> Scalar:
        node = self.session._bindings.get(name.name)
        if node is not None:
            return node
        # The latest bindings only: difflib against 100,000 names takes most of a second.
        candidates = list(self.session._bindings)[-SUGGESTION_CANDIDATES:] + list(VALUE_FUNCTIONS)
        raise self.error(
            "undefined-name",
            f"`{_shorten(name.name, LABEL_LIMIT)}` is not defined",
            name.span,
            {"name": name.name},
            _suggestion(name.name, candidates),
        )

    def _check_call(self, call: ast.Call) -> None:
        if call.function in STATEMENT_FUNCTIONS:
            raise self.error(
                "unknown-function",
                f"`{call.function}` is a statement and gives no value; use it on a line of its own",
                call.function_span,
                {"function": call.function},
            )
        if call.function not in VALUE_FUNCTIONS:
            raise self.error(
                "unknown-function",
                f"there is no function `{_shorten(call.function, LABEL_LIMIT)}`",
                call.function_span,
                {"function": call.function},
                _suggestion(call.function, list(VALUE_FUNCTIONS) + list(STATEMENT_FUNCTIONS)),
            )
        self.check_arity(call, (VALUE_FUNCTIONS[call.function],))

    def check_arity(self, call: ast.Call, accepted: tuple[int, ...]) -> None:
        if len(call.args) in accepted:
            return
        wanted = " or ".join(str(count) for count in accepted)
        plural = "" if accepted == (1,) else "s"
        raise self.error(
            "wrong-arguments",
            f"`{call.function}` takes {wanted} argument{plural}, got {len(call.args)}",
            call.span,
            {"function": call.function, "expected": list(accepted), "got": len(call.args)},
        )

    def _leaf(self, make, value: float, span: Span) -> Scalar:
        try:
            return make(value)
        except ScalarAutodiffError as error:
            raise self.engine_error(error, span) from None

    def _combine(self, expr: ast.Expr, operands: list[Scalar]) -> Scalar:
        try:
            if isinstance(expr, ast.Binary):
                return _BINARY_OPERATIONS[expr.op](operands[0], operands[1])
            if isinstance(expr, ast.Unary):
                return operands[0].neg()
            if isinstance(expr, ast.Leaf):
                make = Scalar.variable if expr.kind == "var" else Scalar.constant
                return make(operands[0].value)
            return self._call(expr, operands[0])
        except ScalarAutodiffError as error:
            raise self.engine_error(error, expr.span) from None

    def _call(self, call: ast.Call, argument: Scalar) -> Scalar:
        function = call.function
        if function in _UNARY_OPERATIONS:
            return _UNARY_OPERATIONS[function](argument)
        if function == "value":
            return Scalar.constant(argument.value)
        if function == "node_count":
            return Scalar.constant(len(argument.topology()))
        if function == "edge_count":
            return Scalar.constant(sum(len(node.parents) for node in argument.topology()))
        if argument.gradient is None:
            raise self.error(
                "no-gradient",
                f"`{self.session.label_of(argument)}` is untracked ({argument.operation}) and has no gradient",
                call.args[0].span,
                {"operation": str(argument.operation)},
            )
        return Scalar.constant(argument.gradient)


def _children(expr: ast.Expr) -> tuple[ast.Expr, ...]:
    if isinstance(expr, ast.Binary):
        return (expr.left, expr.right)
    if isinstance(expr, (ast.Unary, ast.Leaf)):
        return (expr.operand,)
    if isinstance(expr, ast.Call):
        return expr.args
    return ()


def _literal_value(expr: ast.Expr) -> float | None:
    if isinstance(expr, ast.Number):
        return expr.value
    if isinstance(expr, ast.Unary) and isinstance(expr.operand, ast.Number):
        return -expr.operand.value
    return None


def _labeler(session: Session, topology):
    return lambda index: session.label_of(topology[index])


def _field_value(value: object) -> object:
    # Operations travel as their names; numbers and indices as they are.
    if isinstance(value, ScalarOperation):
        return str(value)
    return value


# Runs of non-space characters, in pieces no longer than a label can show.
_LABEL_PIECE = re.compile(r"\S{1,%d}" % (LABEL_LIMIT + 1))


def _source_label(text: str, span: Span) -> str:
    """The span's text, whitespace collapsed, cut to ``LABEL_LIMIT``. Reads no more than a label
    can show (after collapsing): chains of 100,000 terms have huge spans."""
    pieces: list[str] = []
    length, previous_end = 0, span.start
    for piece in _LABEL_PIECE.finditer(text, span.start, span.end):
        if pieces and piece.start() != previous_end:
            pieces.append(" ")
            length += 1
        pieces.append(piece.group())
        length += len(piece.group())
        previous_end = piece.end()
        if length > LABEL_LIMIT:
            break
    return _shorten("".join(pieces), LABEL_LIMIT)


def _suggestion(word: str, candidates: list[str]) -> tuple[str, ...]:
    """The ``help: did you mean`` note for the candidate closest to ``word``, if one is close.
    A word longer than a label is not compared (difflib's time grows with its square)."""
    if len(word) > LABEL_LIMIT:
        return ()
    close = difflib.get_close_matches(word, candidates, n=1)
    return (f"help: did you mean `{close[0]}`?",) if close else ()


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shorten(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _internal_failure(error: BaseException, source: Source, span: Span | None = None) -> Failed:
    message = f"internal error: {type(error).__name__}: {error}; this is a bug in scalarlang"
    return Failed(
        Diagnostic("internal-error", message, span, source, {"exception": type(error).__name__}),
        "".join(traceback.format_exception(error)),
    )
