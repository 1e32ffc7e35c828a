"""The `.sad` interpreter: an `Interpreter` runs programs against the engine.

Each statement is atomic: it computes everything that can fail before it binds a name or
changes a stored gradient. Front ends that want a whole input undone on failure (the REPL's
line, ``:load``) run it ``atomic``: a journal keeps what the input changed (each name's first
old value, each node's first saved gradient) and puts it back on failure or interrupt.

The session knows nothing of terminals: it yields `outcomes` (plain data) for a front end
to render. Its state is `state.SessionState`; ARCHITECTURE.md maps the other modules.
"""

from __future__ import annotations

from random import Random
import traceback
from typing import TYPE_CHECKING, Callable, Generator

from ..engine.passes import topology as topology_of
from ..engine.scalar import Scalar
from ..engine.tensor_formulas import tensor_edges
from ..engine.tensor_node import TensorNode
from ..engine.tensor_operations import TensorOperation
from ..language import tree
from ..language.collector import paused_collector
from ..language.diagnostics import Diagnostic, LanguageError
from ..language.lexicon import KEYWORDS  # the lexical rules live in the grammar
from ..language.parser import parse_program
from ..language.source import Source, Span
from .control import MAX_ITERATIONS, MAX_STATEMENTS, Run
from .context import Budget, Function
from .failures import keep_reserve, out_of_memory, release_reserve
from .outcomes import Failed, GraphNode, GraphShown, NodeState, Outcome
from .library.registry import LIBRARY, STATEMENT_FUNCTIONS, VALUE_FUNCTIONS
from .state import History, Journal, SessionState
from .statements import node_state
from ..engine.tensor_text import TENSOR_TEXT_WIDTH, is_tensor
from .values import LABEL_LIMIT, ListValue, TextValue, is_count, label_of, operation_text

if TYPE_CHECKING:
    from .context import Builtins

__all__ = [
    "KEYWORDS",
    "LABEL_LIMIT",
    "MAX_ITERATIONS",
    "MAX_STATEMENTS",
    "STATEMENT_FUNCTIONS",
    "VALUE_FUNCTIONS",
    "Interpreter",
]


# As render.text.DEFAULT_WIDTH: the command's width without a terminal.
DEFAULT_TEXT_WIDTH = 100


class Interpreter:
    """Names (values, functions, tables: one namespace) and labels of one program or REPL
    session, over the engine's nodes."""

    def __init__(self, library: Builtins = LIBRARY) -> None:
        # The built-ins this session has: the library's entries (library/registry.py).
        self.library = library
        # The names, the generator, the reached variables, the history of passes, the undo
        # journal: changed only through the state's bind, commit and zero.
        self.state = SessionState()
        self.budget = Budget()  # the iterations of comprehensions a statement may run
        # Called with (backward pass, output label, topology index -> label) for every pass
        # before it is committed, shown or not (``--draw DIR``); it may raise DrawingError.
        self.pass_observer: Callable[..., object] | None = None
        # Set by a front end whose process ends with the session (the command running
        # scripts): what the parse loaded and what statements made is then frozen out of the
        # cyclic collector's reach when it resumes (see `run` and `run_program`).
        self.lives_to_exit = False
        # The width the front end shows text at (--width, the terminal's, a notebook's): a
        # chart must fit it, and `plot(..., file: "x.txt")` writes its picture that wide.
        self.text_width = DEFAULT_TEXT_WIDTH

    # ---- what front ends read -------------------------------------------------------------

    @property
    def bindings(self) -> dict[str, Scalar]:
        """A copy of the names bound to values, in binding order."""
        return {name: value for name, value in self.state.names.items() if value.__class__ is Scalar}

    @property
    def functions(self) -> dict[str, str]:
        """The functions defined with ``fn``: name -> signature."""
        return {name: value.signature() for name, value in self.state.names.items() if isinstance(value, Function)}

    @property
    def values(self) -> dict[str, object]:
        """A copy of the names bound to values (nodes, lists, texts and tensors), in binding order."""
        return {
            name: value for name, value in self.state.names.items()
            if value.__class__ is Scalar or value.__class__ is ListValue or value.__class__ is TextValue
            or is_tensor(value)
        }

    @property
    def lists(self) -> dict[str, ListValue]:
        """The names bound to lists, in binding order."""
        return {name: value for name, value in self.state.names.items() if value.__class__ is ListValue}

    def lookup(self, name: str) -> Scalar | None:
        """The node bound to ``name`` (a scalar node, or a tensor: one node too), else None."""
        value = self.state.names.get(name)
        return value if value.__class__ is Scalar or is_tensor(value) else None  # type: ignore[return-value]

    def label_of(self, node: Scalar) -> str:
        """The first name bound to ``node``, else the source text that made it."""
        return label_of(node)

    def state_of(self, node: Scalar, label: str | None = None) -> NodeState:
        return node_state(node, label)

    def graph_of(self, node: Scalar, span: Span) -> GraphShown:
        """The ``graph(...)`` outcome for ``node``, as the REPL's ``:graph`` shows it too."""
        topology = node.topology() if node.__class__ is Scalar else topology_of(node)  # (a tensor: one node)
        positions = {id(member): index for index, member in enumerate(topology)}
        nodes = tuple(_graph_node(index, member, positions) for index, member in enumerate(topology))
        edge_count = sum(len(graph_node.operands) for graph_node in nodes)
        return GraphShown(span, label_of(node), nodes, edge_count)

    @property
    def random(self) -> Random:
        """The generator of `uniform` and `gauss` (seeded 0 when the session starts)."""
        return self.state.random

    @property
    def history(self) -> History | None:
        return self.state.history

    def keep_history(self) -> None:
        """Keep the passes committed from now on, for `explain` (the REPL and notebooks do)."""
        self.state.keep_history()

    def reset(self) -> None:
        self.state.reset()

    # ---- running ----------------------------------------------------------------------------

    def run(
        self, source: Source, *, atomic: bool = False, quiet: bool = False, echo: bool = True
    ) -> Generator[Outcome, None, None]:
        """Parse ``source`` whole, then run its statements until the first failure.

        Outcomes (plain data) are yielded as each statement finishes. With ``atomic``, a failure (or an interrupt,
        or the consumer stopping early) also undoes what the statements before it in
        ``source`` changed. With ``quiet``, the whole program runs as a loop body does:
        statements that only echo show nothing. Without ``echo``, a front end that shows no
        bindings (a script, as text or JSON) gets no `Bound` or `Defined` outcome for `let`,
        `fn` and `descend`: building one for each `let` (and handing it out, the collector
        running again each time) took half of what a top-level `let` cost.
        """
        if "explain" in source.text:  # (a mention is enough: a history only costs memory)
            self.keep_history()
        keep_reserve()
        program = None
        failure: Failed | None = None
        # A session living to exit (the command's) has the parser freeze what its parse loaded
        # and made, lark and its tables, and the program's tree: none of it is garbage, and each
        # later collection would scan it all again (11 M instructions of `-c 'let x = var 2'`).
        try:
            program = parse_program(source, freeze=self.lives_to_exit)
        except LanguageError as error:
            failure = Failed(error.diagnostic, static=True)
        except MemoryError:
            pass  # (reported below, once the handler has freed the parser's frames)
        except Exception as error:  # a bug of ours in the parser
            failure = _internal_failure(error, source)
        if failure is not None:
            yield failure
            return
        if program is None:
            release_reserve()
            yield Failed(out_of_memory(source, None, "the program was parsed"))
            return
        yield from self.run_program(program, source, atomic=atomic, quiet=quiet, echo=echo)

    def run_program(
        self,
        program: tree.Program,
        source: Source,
        *,
        atomic: bool = False,
        quiet: bool = False,
        echo: bool = True,
    ) -> Generator[Outcome, None, None]:
        """Run ``program``'s statements until the first failure (``run`` without the parse).

        Python's cyclic garbage collector is paused while a statement runs, and only then:
        never across a ``yield``, so a consumer that stops iterating (or never resumes)
        leaves it as it was. Running makes no reference cycles (nodes hold none, `expect`
        keeps diagnostics rather than exceptions), so reference counting frees whatever is
        dropped; the collector would only rescan the program's growing graph and compiled
        statements. Measured (CPU time): programs whose graph grows need it, a 20,000-statement
        straight-line program taking 1.22 s without the pause and 1.03 s with it (the whole
        command, best of 9), and the REPL line `repeat 200000 { let z = z * 1.0000001 }`
        0.39 s and 0.18 s; training loops, whose graphs die each step, do not: `examples/xor.sad`
        takes 0.43-0.45 s either way, `fit_line.sad` and `neuron.sad` 0.12 s.
        """
        state = self.state
        state.journal = Journal(state) if atomic else None
        run = Run(self, source, echo)
        steps = run.steps(program.statements, not quiet)
        try:
            while True:
                failure = None
                memory_ran_out = False
                width = TENSOR_TEXT_WIDTH.set(self.text_width)  # (a tensor's text in `print`, `{T}`)
                try:
                    # What the paused statement makes waits in the youngest generation, kept to
                    # the exit or freed by reference counting: in a session living to exit, a
                    # freeze takes it out of every later collection's scan. Measured as above:
                    # the 20,000-statement program takes 1.20 s without it, 1.03 s with it.
                    with paused_collector(freeze=self.lives_to_exit):
                        batch = next(steps)
                except StopIteration:
                    return
                except LanguageError as error:
                    failure = Failed(error.diagnostic)
                except MemoryError:
                    # Reported once out of this handler: its traceback's frames, and all they
                    # hold of the statement's work, are freed by then.
                    memory_ran_out = True
                except Exception as error:  # a bug of ours: report it, keep the session
                    current = run.current
                    failure = _internal_failure(error, source, current.span if current is not None else None)
                finally:
                    TENSOR_TEXT_WIDTH.reset(width)
                if memory_ran_out:
                    release_reserve()
                    current = run.current
                    failure = Failed(out_of_memory(source, current.span if current is not None else None))
                if failure is not None:
                    self._undo()
                    # What the failing statement showed first: `vjp_check`'s table before its
                    # `vjp-check-failed` (other statements show nothing before they fail).
                    shown, run.pending[:] = run.pending[:], []
                    yield from shown
                    yield failure
                    return
                yield from batch
        except BaseException:
            # Interrupted (Ctrl-C) or the consumer stopped early: leave no half-done input.
            self._undo()
            raise
        finally:
            steps.close()
            state.journal = None

    def _undo(self) -> None:
        if self.state.journal is not None:
            self.state.journal.undo()


def _internal_failure(error: BaseException, source: Source, span: Span | None = None) -> Failed:
    message = f"internal error: {type(error).__name__}: {error}; this is a bug in scalarlang"
    return Failed(
        Diagnostic("internal-error", message, span, source, {"exception": type(error).__name__}),
        "".join(traceback.format_exception(error)),
    )


def _graph_node(index: int, member: Scalar, positions: dict[int, int]) -> GraphNode:
    """A node of ``graph(...)``: a tensor node with its values and shape, and the operands of a
    tensor operation's node (its edges are VJPs) as those of any other."""
    if isinstance(member, TensorNode):
        operands = tuple(positions[id(operand)] for operand, _ in tensor_edges(member))
        return GraphNode(index, label_of(member), operation_text(member), member.values, False,  # type: ignore[arg-type]
                         member.tracks_gradient, member.gradient, operands, member.shape)
    if member._operation.__class__ is TensorOperation:
        parents = tuple(positions[id(operand)] for operand, _ in tensor_edges(member))
    else:
        parents = tuple(positions[id(edge.parent)] for edge in member.parents)
    return GraphNode(index, label_of(member), operation_text(member), member.value, is_count(member),
                     member.tracks_gradient, member.gradient, parents)
