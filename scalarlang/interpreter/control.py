"""Running statements: blocks, loops, `if`, `quiet`, with an explicit stack of frames.

`Run` holds what one `Interpreter.run` needs (the session's names and labels, the compiler of the
source, the undo journal, the statement budget). `Run.steps` executes a block: each simple
statement is compiled once into an action (`statements`) and its action called as often as
loops ask (a statement outside any loop runs once: its expressions are walked, `direct`, not
compiled, and its action is not kept); a compound statement's action evaluates its head (the
count, the range, the condition) and returns the frame of the block to run next. Nesting is iterated, never
recursed; outcomes are handed out after each statement that made some, never accumulated.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, Callable, Generator

from ..language import tree
from ..language.diagnostics import Diagnostic, LanguageError
from ..engine.scalar import Scalar
from ..engine.errors import ScalarAutodiffError
from ..language.compact import Statements
from .direct import OnceCompiler
from .expressions import Compiler
from .failures import engine_failure, with_note
from .journal import Journal
from .labels import NURSERY_SIZE
from ..engine.numbers import format_count, format_number
from .outcomes import Outcome
from .checks import COMPARISONS, compile_assert, compile_expect
from .straight import run_straight, run_straight_ints
from .statements import (
    compile_descend,
    compile_expression_statement,
    compile_function,
    compile_let,
    compile_print,
    compile_zero_grad,
    reserved,
    run_let_once,
)

# Limits, each a typed error (`too-long`), checked before a loop starts where its count is known.
MAX_ITERATIONS = 1_000_000
MAX_STATEMENTS = 10_000_000

# Each compiles one kind of simple statement for a `Run` into its action.
_SIMPLE: dict[type[tree.Statement], Callable[[Run, Any], Callable]] = {
    tree.Let: compile_let,
    tree.ExprStatement: compile_expression_statement,
    tree.Print: compile_print,
    tree.ZeroGrad: compile_zero_grad,
    tree.Assert: compile_assert,
    tree.Expect: compile_expect,
    tree.FunctionDef: compile_function,
    tree.Descend: compile_descend,
}


class Loop:
    """A running loop: ``begin(i)`` binds the loop's names for iteration i (0-based)."""

    __slots__ = ("span", "count", "iteration", "begin", "describe")

    def __init__(self, span, count: int, begin: Callable[[int], None], describe: Callable[[int], str]):
        self.span = span
        self.count = count
        self.iteration = 0
        self.begin = begin
        self.describe = describe


class Frame:
    __slots__ = ("statements", "index", "show", "loop", "repeats", "items", "lines", "text")

    def __init__(self, statements: Sequence, show: bool, loop: Loop | None = None):
        self.statements = statements
        self.index = 0
        self.show = show
        self.loop = loop
        # Its statements may run again: it is a loop's body, or inside one (set by the driver).
        self.repeats = loop is not None
        # A program's statements as the parser keeps them (compact ones, bytes or ints, which
        # `straight` may run without reading them back as nodes), its text and its lines.
        self.items: tuple | None = None
        self.lines = self.text = None
        if statements.__class__ is Statements:
            self.items, self.lines, self.text = statements.held()


class Run:
    """One run of a source against a session."""

    # Whether compact top-level `let`s may run straight from their values (`straight`);
    # tests turn it off to compare with the usual way.
    straight = True

    def __init__(self, session, source, journal: Journal | None, echo: bool = True):
        self.session = session
        self.names = session._names
        self.labels = session._labels
        self.compiler = Compiler(self.names, self.labels, source)
        self.once = OnceCompiler(self.names, self.labels, source)  # for statements run once
        self.journal = journal
        self.echo = echo  # False: bindings (`let`, `fn`, `descend`) make no outcome at all
        self.pending: list[Outcome] = []
        self.muted = 0  # inside `expect`: the statement's outcomes are not shown
        self.left = MAX_STATEMENTS
        self.compiled: dict[int, Callable] = {}  # id of a statement of the program -> action
        # The statements `compiled` holds actions of, kept alive: a statement read from the
        # parsed form is made anew each time, so an id could otherwise be reused.
        self.kept: list[tree.Statement] = []
        self.current: tree.Statement | None = None

    # ---- what actions call ----------------------------------------------------------------

    def bind(self, name: str, value: object) -> None:
        journal = self.journal
        if journal is not None and name not in journal.names:
            journal.remember_name(name, self.names)
        self.names[name] = value

    def emit(self, outcome: Outcome) -> None:
        if not self.muted:
            self.pending.append(outcome)

    def trial(self, statement: tree.Statement) -> Diagnostic | None:
        """Run ``statement`` for `expect`, show nothing, and undo all it did; its failure."""
        outer = self.journal
        self.journal = Journal()
        self.muted += 1
        try:
            for _ in self.steps((statement,), False):
                pass
        except LanguageError as error:
            return error.diagnostic
        finally:
            self.journal.undo(self.names)
            self.journal = outer
            self.muted -= 1
        return None

    # ---- the driver -------------------------------------------------------------------------

    def steps(self, statements: Sequence, show: bool) -> Generator[list[Outcome], None, None]:
        """Run ``statements``; yield the outcomes of each statement that made some. A failure
        is raised as a LanguageError naming the loop iterations it happened in."""
        stack = [Frame(statements, show)]
        pending, compiled, labels = self.pending, self.compiled, self.labels
        entries = labels.entries
        try:
            while stack:
                frame = stack[-1]
                body = frame.statements
                index = frame.index
                if index == len(body):
                    loop = frame.loop
                    if loop is not None:
                        loop.iteration += 1
                        if loop.iteration < loop.count:
                            frame.index = 0
                            loop.begin(loop.iteration)
                            continue
                    stack.pop()
                    continue
                # (A binding to show goes the usual way.)
                items = frame.items if self.straight and not (frame.show and self.echo) else None
                if items is not None and items[index].__class__ is int:
                    # The statements of learnt shapes from here, as long as they run straight.
                    ran = run_straight_ints(
                        self, items, index, min(len(body), index + self.left), frame.lines, frame.text, not frame.repeats
                    )
                    if ran > index:
                        self.left -= ran - index
                        frame.index = ran
                        self.current = None  # (no outcome; the nursery settled between them)
                        continue
                    items = None  # the first of them did not: the usual way
                frame.index = index + 1
                self.left -= 1
                if self.left < 0:
                    statement = self.current = body[index]
                    raise self._too_long_run(statement)
                if (
                    items is not None
                    and items[index].__class__ is bytes
                    and run_straight(self, items[index], frame.lines, frame.text)
                ):
                    self.current = None  # (it made no outcome)
                else:
                    statement = body[index]
                    self.current = statement
                    action = compiled.get(id(statement))
                    if action is None:
                        if frame.repeats:
                            action = compiled[id(statement)] = self._compile(statement)
                            self.kept.append(statement)
                        else:
                            # A statement outside any loop runs once: its expressions are
                            # walked, not compiled, and its action is not kept (it would only
                            # hold memory the cyclic collector rescans).
                            action = self._compile_once(statement)
                    pushed = action(frame.show)
                    if pushed is not None:
                        if frame.repeats:
                            pushed.repeats = True
                        stack.append(pushed)
                if pending:
                    batch = pending[:]
                    pending.clear()
                    yield batch
                if len(entries) > NURSERY_SIZE:
                    self._settle(not frame.repeats)
        except LanguageError as error:
            raise _in_iterations(error, stack) from None

    def _settle(self, lasting: bool) -> None:
        journal = self.journal
        if journal is None:
            self.labels.settle((), lasting)
            return
        # The journal first: a node it alone keeps alive would keep its operands' entries.
        journal.prune(self.labels)
        self.labels.settle((journal.gradients,), lasting)

    def _compile_once(self, statement: tree.Statement) -> Callable:
        if statement.__class__ is tree.Let:  # the commonest: run without compiling an action
            return partial(run_let_once, self, statement)
        compiler = self.compiler
        self.compiler = self.once
        try:
            return self._compile(statement)
        finally:
            self.compiler = compiler

    def _compile(self, statement: tree.Statement) -> Callable:
        simple = _SIMPLE.get(type(statement))
        if simple is not None:
            return simple(self, statement)
        if isinstance(statement, tree.Repeat):
            return self._compile_repeat(statement)
        if isinstance(statement, tree.ForRange):
            return self._compile_range(statement)
        if isinstance(statement, tree.ForTable):
            return self._compile_table(statement)
        if isinstance(statement, tree.If):
            return self._compile_if(statement)
        if isinstance(statement, tree.Quiet):
            inner = (statement.statement,)
            return lambda show: Frame(inner, False)
        raise TypeError(f"unknown statement {type(statement).__name__}")

    # ---- compound statements ---------------------------------------------------------------

    def _compile_repeat(self, statement: tree.Repeat):
        count_of = self.compiler.number(statement.count)
        body = statement.body.statements

        def repeat(show):
            count = self._count(count_of(None), statement.count.span, "the count of `repeat`")
            return self._loop(statement, body, count, _nothing, _no_names)

        return repeat

    def _compile_range(self, statement: tree.ForRange):
        compiler = self.compiler
        problem = reserved(compiler, statement.name, statement.name_span, "a loop's name")
        start_of, stop_of = compiler.number(statement.start), compiler.number(statement.stop)
        body, name = statement.body.statements, statement.name
        entries, bind, names = self.labels.entries, self.bind, self.names
        named = (name, None, True)  # the label entry of each fresh index: a count named `name`

        def for_range(show):
            if problem is not None:
                raise problem
            start = self._whole(start_of(None), statement.start.span, "the start of a range")
            stop = self._whole(stop_of(None), statement.stop.span, "the end of a range")
            count = self._count(float(max(0, stop - start)), statement.span, "the range")

            def begin(iteration):
                node = Scalar.constant(start + iteration)
                entries[node] = named
                if self.journal is None:
                    names[name] = node
                else:
                    bind(name, node)

            return self._loop(statement, body, count, begin, lambda i: f"{name} = {start + i}")

        return for_range

    def _compile_table(self, statement: tree.ForTable):
        compiler = self.compiler
        problem = None
        for index, (name, span) in enumerate(zip(statement.names, statement.name_spans)):
            problem = problem or reserved(compiler, name, span, "a loop's name")
            if problem is None and name in statement.names[:index]:
                problem = compiler.fail("wrong-arguments", f"`{name}` is named twice in `for`", span, {"name": name})
        names, body, source = statement.names, statement.body.statements, compiler.source
        entries, bind, bound = self.labels.entries, self.bind, self.names
        named = tuple((name, None, False) for name in names)  # label entries of fresh constants
        table_span = statement.table.span

        def for_table(show):
            if problem is not None:
                raise problem
            table = self._table(statement.table)
            if table.rows and table.width != len(names):
                raise compiler.fail(
                    "table-width",
                    f"each row of the table has {table.width} number{'' if table.width == 1 else 's'}, "
                    f"but `for` names {len(names)}",
                    table_span,
                    {"width": table.width, "names": len(names)},
                )
            rows = table.rows
            count = self._count(float(len(rows)), table_span, "the table")

            def begin(iteration):
                journal = self.journal
                for name, value, entry in zip(names, rows[iteration], named):
                    try:
                        node = Scalar.constant(value)
                    except ScalarAutodiffError as error:
                        raise engine_failure(source, error, table_span) from None
                    entries[node] = entry
                    if journal is None:
                        bound[name] = node
                    else:
                        bind(name, node)

            def describe(iteration):
                return ", ".join(f"{name} = {format_number(value)}" for name, value in zip(names, rows[iteration]))

            return self._loop(statement, body, count, begin, describe)

        return for_table

    def _compile_if(self, statement: tree.If):
        left_of = self.compiler.number(statement.left)
        right_of = self.compiler.number(statement.right)
        compare = COMPARISONS[statement.op]
        then = statement.then.statements
        otherwise = statement.otherwise.statements if statement.otherwise is not None else None

        def if_(show):
            if compare(left_of(None), right_of(None)):
                return Frame(then, show)
            if otherwise is not None:
                return Frame(otherwise, show)
            return None

        return if_

    def _loop(self, statement, body: tuple, count: int, begin, describe) -> Frame | None:
        if count == 0:
            return None
        if not body:
            # Nothing runs, but the names are bound as the iterations would bind them: the last
            # one's stay (as in Python), and binding only that one is the same.
            begin(count - 1)
            return None
        if count * len(body) > self.left:
            raise self.compiler.fail(
                "too-long",
                f"this loop would run {count * len(body):,} statements; a run may run at most "
                f"{MAX_STATEMENTS:,} and has {max(self.left, 0):,} left",
                statement.span,
                {"statements": count * len(body), "limit": MAX_STATEMENTS},
            )
        loop = Loop(statement.span, count, begin, describe)
        begin(0)
        return Frame(body, False, loop)

    def _whole(self, value: float, span, what: str) -> int:
        if not (value - value == 0.0 and value.is_integer()):
            raise self.compiler.fail(
                "not-a-count", f"{what} must be a whole number, not {format_number(value)}", span, {"value": value}
            )
        return int(value)

    def _count(self, value: float, span, what: str) -> int:
        count = self._whole(value, span, what)
        if count < 0:
            raise self.compiler.fail(
                "not-a-count", f"{what} must not be negative, not {format_count(value)}", span, {"value": value}
            )
        if count > MAX_ITERATIONS:
            raise self.compiler.fail(
                "too-long",
                f"{what} is {format_count(float(count)) if count >= 10**15 else f'{count:,}'} iterations; "
                f"a loop may run at most {MAX_ITERATIONS:,}",
                span,
                {"iterations": count, "limit": MAX_ITERATIONS},
            )
        return count

    def _table(self, table: tree.Table | tree.Name) -> tree.Table:
        if isinstance(table, tree.Table):
            return table
        value = self.names.get(table.name)
        if isinstance(value, tree.Table):
            return value
        if value is None:
            raise self.compiler.name_failure(table.name, None, table.span)
        raise self.compiler.fail(
            "not-a-table",
            f"`for … in {table.name}` needs a table (`let {table.name} = [ … ]`); `{table.name}` is not one",
            table.span,
            {"name": table.name},
        )

    def _too_long_run(self, statement) -> LanguageError:
        return self.compiler.fail(
            "too-long",
            f"this run has run {MAX_STATEMENTS:,} statements, the most one run may",
            statement.span,
            {"limit": MAX_STATEMENTS},
        )


def _nothing(iteration: int) -> None:
    return None


def _no_names(iteration: int) -> str:
    return ""


def _in_iterations(error: LanguageError, stack: list[Frame]) -> LanguageError:
    """The error with a note for each loop it happened in, innermost first."""
    for frame in reversed(stack):
        loop = frame.loop
        if loop is None:
            continue
        names = loop.describe(loop.iteration)
        error = with_note(
            error,
            f"in iteration {loop.iteration + 1:,} of {loop.count:,} of the loop at "
            f"{loop.span.line}:{loop.span.column}" + (f", where {names}" if names else ""),
        )
    return error
