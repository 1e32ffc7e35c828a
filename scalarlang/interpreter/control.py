"""Running statements: blocks, loops, `if`, `quiet`, with an explicit stack of frames.

`Run` holds what one `Interpreter.run` needs (the session's names, the compiler of the source,
the undo journal, the statement budget). `Run.steps` is the one driver: every statement is
compiled into an action (`statements`) when it first runs, and the action is called
as often as loops ask; a compound statement's action evaluates its head (the count, the range,
the condition) and returns the frame of the block to run next. A block's actions are kept by
the compound statement's action, so a loop body is compiled once however often it runs; the
program's own statements run once, and their actions are dropped after it. Nesting is
iterated, never recursed; outcomes are handed out after each statement that made some, never
accumulated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, Generator, assert_never

from ..engine.numbers import format_whole
from ..engine.scalar import Scalar
from ..engine.tensor import Tensor
from ..language import tree
from ..language.diagnostics import Diagnostic, LanguageError
from . import texts
from .calls import compile_function, reserved
from .expressions import Compiler
from .failures import keep_reserve, out_of_memory, release_reserve, with_note
from .lists import characters_of, tensor_rows
from .operations import COMPARISONS, compared, number_of
from .outcomes import Outcome
from .state import Journal
from .statements import (
    compile_assert,
    compile_expect,
    compile_descend,
    compile_expression_statement,
    compile_let,
    compile_print,
    compile_zero_grad,
)
from .values import ListValue, Named, TextValue, cut, describe, label_of, shown_value

# Limits, each a typed error (`too-long`), checked before a loop starts where its count is known.
MAX_ITERATIONS = 1_000_000
MAX_STATEMENTS = 10_000_000

class Loop:
    """A running loop: ``begin(i)`` binds the loop's names for iteration i (0-based). A `while`
    has no count (``count`` None): ``again()`` says whether it runs once more."""

    __slots__ = ("span", "count", "iteration", "begin", "describe", "again")

    def __init__(
        self, span, count: int | None, begin: Callable[[int], None], describe: Callable[[int], str],
        again: Callable[[], bool] | None = None,
    ):
        self.span = span
        self.count = count
        self.iteration = 0
        self.begin = begin
        self.describe = describe
        self.again = again


# What the action of `break` gives the driver: leave the innermost loop.
BREAK = object()


class Frame:
    """A block being run: its statements, their actions (compiled when each first runs; None
    for statements that run once, whose actions are not kept) and the next one's index."""

    __slots__ = ("statements", "actions", "index", "show", "loop")

    def __init__(self, statements: Sequence, actions: list | None, show: bool, loop: Loop | None = None):
        self.statements = statements
        self.actions = actions
        self.index = 0
        self.show = show
        self.loop = loop


def actions_for(statements: Sequence) -> list:
    """The slots for a block's actions, kept by the statement that holds the block."""
    return [None] * len(statements)


class Run:
    """One run of a source against a session."""

    def __init__(self, session, source, echo: bool = True):
        self.session = session
        self.state = state = session.state
        self.names = state.names
        self.compiler = Compiler(self.names, source, random=state.random, budget=session.budget, library=session.library)
        self.budget = session.budget
        self.echo = echo  # False: bindings (`let`, `fn`, `descend`) make no outcome at all
        self.pending: list[Outcome] = []
        self.muted = 0  # inside `expect`: the statement's outcomes are not shown
        self.left = MAX_STATEMENTS
        self.current: tree.Statement | None = None

    # ---- what actions call ----------------------------------------------------------------

    def emit(self, outcome: Outcome) -> None:
        if not self.muted:
            self.pending.append(outcome)

    def trial(self, statement: tree.Statement, actions: list) -> Diagnostic | None:
        """Run ``statement`` for `expect`, show nothing, and undo all it did; its failure.

        Interrupt-safe: whatever the moment, the outer journal and muting are back as they
        were, and what the statement did is undone (an interrupted undo is finished first),
        so the outer journal needs to know nothing of it.

        Running out of memory is its failure `out-of-memory` too (`expect out-of-memory:`),
        once the session is as it was: out of the handler the statement's frames are freed;
        the reserve (failures.py) is given back for the undo and the diagnostic, then taken
        again. Memory still too short for the reserve is not the statement's alone: it stays
        a `MemoryError`, which the run reports as any other (no `expect` catches it)."""
        state = self.state
        outer, muted, inner = state.journal, self.muted, Journal(state)
        memory_ran_out = False
        try:
            state.journal = inner
            self.muted = muted + 1
            for _ in self.steps((statement,), False, actions):
                pass
        except LanguageError as error:
            return error.diagnostic
        except MemoryError:
            memory_ran_out = True  # (handled below: here the traceback still holds its frames)
        finally:
            if memory_ran_out:
                release_reserve()
            state.journal = outer
            self.muted = muted
            inner.undo()
        if memory_ran_out:
            current = self.current
            diagnostic = out_of_memory(self.compiler.source, (current or statement).span)
            if not keep_reserve():
                raise MemoryError
            return diagnostic
        return None

    # ---- the driver -------------------------------------------------------------------------

    def steps(
        self, statements: Sequence, show: bool, actions: list | None = None
    ) -> Generator[list[Outcome], None, None]:
        """Run ``statements``; yield the outcomes of each statement that made some. A failure
        is raised as a LanguageError naming the loop iterations it happened in."""
        stack = [Frame(statements, actions, show)]
        pending = self.pending
        try:
            while stack:
                frame = stack[-1]
                body = frame.statements
                index = frame.index
                if index == len(body):
                    loop = frame.loop
                    if loop is not None:
                        loop.iteration += 1
                        if loop.again is not None:  # a `while`: its condition again
                            if loop.again():
                                if loop.iteration >= MAX_ITERATIONS:
                                    stack.pop()
                                    raise self._too_long_while(loop)
                                frame.index = 0
                                continue
                        elif loop.iteration < loop.count:  # type: ignore[operator]  # (counted)
                            frame.index = 0
                            loop.begin(loop.iteration)
                            continue
                    stack.pop()
                    continue
                frame.index = index + 1
                self.budget.refill()
                statement = self.current = body[index]
                self.left -= 1
                if self.left < 0:
                    raise self._too_long_run(statement)
                actions = frame.actions
                if actions is None:  # runs once: compiled, run and dropped
                    action = self._compile(statement)
                else:
                    action = actions[index]
                    if action is None:
                        action = actions[index] = self._compile(statement)
                pushed = action(frame.show)
                if pushed is not None:
                    if pushed is BREAK:  # out of every block up to the innermost loop's, and it
                        while stack.pop().loop is None:
                            pass
                    else:
                        stack.append(pushed)
                if pending:
                    batch = pending[:]
                    pending.clear()
                    yield batch
        except LanguageError as error:
            raise _in_iterations(error, stack) from None

    def _compile(self, statement: tree.Statement) -> Callable:
        """The statement's action; a statement without a case here is a mypy error."""
        match statement:
            case tree.Let():
                return compile_let(self, statement)
            case tree.ExprStatement():
                return compile_expression_statement(self, statement)
            case tree.Print():
                return compile_print(self, statement)
            case tree.ZeroGrad():
                return compile_zero_grad(self, statement)
            case tree.Assert():
                return compile_assert(self, statement)
            case tree.Expect():
                return compile_expect(self, statement)
            case tree.FunctionDef():
                return compile_function(self, statement)
            case tree.Descend():
                return compile_descend(self, statement)
            case tree.Repeat():
                return self._compile_repeat(statement)
            case tree.ForRange():
                return self._compile_range(statement)
            case tree.ForEach():
                return self._compile_each(statement)
            case tree.If():
                return self._compile_if(statement)
            case tree.While():
                return self._compile_while(statement)
            case tree.Break():
                return _break
            case tree.Quiet():
                inner = (statement.statement,)
                inner_actions = actions_for(inner)
                return lambda show: Frame(inner, inner_actions, False)
            case _:
                assert_never(statement)

    # ---- compound statements ---------------------------------------------------------------

    def _compile_repeat(self, statement: tree.Repeat):
        count_of = self.compiler.number(statement.count)
        body = statement.body.statements
        actions = actions_for(body)

        def repeat(show):
            count = self._count(count_of(None), statement.count.span, "the count of `repeat`")
            return self._loop(statement, body, actions, count, _nothing, _no_names)

        return repeat

    def _compile_range(self, statement: tree.ForRange):
        compiler = self.compiler
        problem = reserved(compiler, statement.name, statement.name_span, "a loop's name")
        start_of, stop_of = compiler.number(statement.start), compiler.number(statement.stop)
        body, name = statement.body.statements, statement.name
        actions, state = actions_for(body), self.state
        tag = Named(name, True)  # each fresh index's label: a count named `name`

        def for_range(show):
            if problem is not None:
                raise problem
            start = self.compiler.whole(start_of(None), statement.start.span, "the start of a range")
            stop = self.compiler.whole(stop_of(None), statement.stop.span, "the end of a range")
            count = self._count(float(max(0, stop - start)), statement.span, "the range")

            def begin(iteration):
                node = Scalar.constant(start + iteration)
                node.tag = tag
                state.bind(name, node)

            return self._loop(statement, body, actions, count, begin, lambda i: f"{name} = {start + i}")

        return for_range

    def _compile_each(self, statement: tree.ForEach):
        compiler = self.compiler
        problem = None  # (a name given twice is the parser's syntax error)
        for name, span in zip(statement.names, statement.name_spans):
            problem = problem or reserved(compiler, name, span, "a loop's name")
        names, body = statement.names, statement.body.statements
        actions, state = actions_for(body), self.state
        source_of = compiler.expression(statement.source)
        not_a_list = compiler.list_check(statement.source, "`for … in`")
        source_span, width = statement.source.span, len(names)
        rows_of = tensor_rows(compiler, statement.source, width)

        def for_each(show):
            if problem is not None:
                raise problem
            items = source_of(None)
            if items.__class__ is TextValue:  # its characters, as Python's `for c in text`
                self._count(float(len(items)), source_span, "the text")
                items = characters_of(items)
            if items.__class__ is Tensor:  # its rows (`T[i]`), each made when the loop reaches it
                rows, row = rows_of(items)
                count = self._count(float(rows), source_span, "the tensor")
                made = [None, ()]  # the iteration whose row was made last, and its values

                def values(iteration):
                    if made[0] != iteration:
                        made[:] = [iteration, row(iteration)]
                    return made[1]
            else:
                if items.__class__ is not ListValue:
                    raise not_a_list(items)
                if width > 1:
                    self._check_rows(statement, items, width)
                count = self._count(float(len(items)), source_span, "the list")

                def values(iteration):
                    return (items[iteration],) if width == 1 else items[iteration]

            def begin(iteration):
                for name, value in zip(names, values(iteration)):
                    state.bind(name, value)

            def describe(iteration):
                return ", ".join(f"{name} = {_shown(value)}" for name, value in zip(names, values(iteration)))

            return self._loop(statement, body, actions, count, begin, describe)

        return for_each

    def _check_rows(self, statement: tree.ForEach, items: ListValue, width: int) -> None:
        """Several names take the items of each row: every item a list of that many."""
        for index, row in enumerate(items):
            if row.__class__ is not ListValue or len(row) != width:
                found = f"a row of {len(row)}" if row.__class__ is ListValue else describe(row)
                raise self.compiler.fail(
                    "table-width",
                    f"`for` names {width}, but item {index} of `{self.compiler.text_of(statement.source)}` "
                    f"is {found}",
                    statement.source.span,
                    {"names": width, "index": index},
                )

    def _compile_if(self, statement: tree.If):
        compiler = self.compiler
        left_of, right_of = compared(compiler, statement.left), compared(compiler, statement.right)
        compare = COMPARISONS[statement.op]
        # (not two numbers: two texts compare with `==` and `!=`, the rest is an error)
        of_texts = texts.comparison(compiler, statement.op, statement.left, statement.right, "a number here")
        then = statement.then.statements
        then_actions = actions_for(then)
        otherwise = statement.otherwise.statements if statement.otherwise is not None else None
        otherwise_actions = actions_for(otherwise) if otherwise is not None else None

        def if_(show):
            left_value, right_value = left_of(None), right_of(None)
            left, right = number_of(left_value), number_of(right_value)
            if left is not None and right is not None:
                holds = compare(left, right)
            else:
                holds = of_texts(left_value, right_value)
            if holds:
                return Frame(then, then_actions, show)
            if otherwise is not None:
                return Frame(otherwise, otherwise_actions, show)
            return None

        return if_

    def _compile_while(self, statement: tree.While):
        """``while COND { ... }``: the condition before each iteration; at most
        `MAX_ITERATIONS` iterations (`too-long` when it still holds after them)."""
        condition_of = self.compiler.node_expression(statement.condition, "`while`")
        body = statement.body.statements
        actions = actions_for(body)

        def again() -> bool:
            return condition_of(None)._value != 0.0

        def while_(show):
            if not again():
                return None
            return Frame(body, actions, False, Loop(statement.span, None, _nothing, _no_names, again))

        return while_

    def _too_long_while(self, loop: Loop) -> LanguageError:
        return self.compiler.fail(
            "too-long",
            f"this `while` has run {MAX_ITERATIONS:,} iterations, the most a loop may, and its condition still holds",
            loop.span,
            {"iterations": MAX_ITERATIONS, "limit": MAX_ITERATIONS},
        )

    def _loop(self, statement, body: tuple, actions: list, count: int, begin, describe) -> Frame | None:
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
        return Frame(body, actions, False, loop)

    def _count(self, value: float, span, what: str) -> int:
        count = self.compiler.whole(value, span, what)
        if count < 0:
            raise self.compiler.fail(
                "not-a-count", f"{what} must not be negative, not {format_whole(value)}", span, {"value": value}
            )
        if count > MAX_ITERATIONS:
            raise self.compiler.fail(
                "too-long",
                f"{what} is {format_whole(float(count)) if count >= 10**15 else f'{count:,}'} iterations; "
                f"a loop may run at most {MAX_ITERATIONS:,}",
                span,
                {"iterations": count, "limit": MAX_ITERATIONS},
            )
        return count

    def _too_long_run(self, statement) -> LanguageError:
        return self.compiler.fail(
            "too-long",
            f"this run has run {MAX_STATEMENTS:,} statements, the most one run may",
            statement.span,
            {"limit": MAX_STATEMENTS},
        )


def _nothing(iteration: int) -> None:
    return None


def _break(show: bool) -> object:
    return BREAK


def _no_names(iteration: int) -> str:
    return ""


def _in_iterations(error: LanguageError, stack: list[Frame]) -> LanguageError:
    """The error with a note for each loop it happened in, innermost first."""
    for frame in reversed(stack):
        loop = frame.loop
        if loop is None:
            continue
        names = loop.describe(loop.iteration)
        of = f" of {loop.count:,}" if loop.count is not None else ""
        error = with_note(
            error,
            f"in iteration {loop.iteration + 1:,}{of} of the loop at "
            f"{loop.span.line}:{loop.span.column}" + (f", where {names}" if names else ""),
        )
    return error


def _shown(value: object) -> str:
    """A loop name's value in a failure's note, on one line: a tensor by its label and shape
    (`T[0] (a tensor [2])`: its grid takes lines), anything else as a value line shows it."""
    if value.__class__ is Tensor:
        return f"{label_of(value)} ({describe(value)})"  # type: ignore[arg-type]
    return cut(shown_value(value, 40), 40)
