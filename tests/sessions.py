"""Running `.sad` text in process, as the tests of the language do: through the interpreter
(`run`, `run_ok`, `failure`: a list of outcomes, or the diagnostic of the failure that ends
them) or through the public API, `scalarlang.Session` (`session_after`, `error_of`); picking
outcomes (`shown`, `only`, `printed`) and a session's state (`state`: what a failed statement
must leave as it was)."""

from __future__ import annotations

import scalarlang
from shared import graph_gradients
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Failed, Printed
from scalarlang.interpreter.values import Named, distinct_nodes
from scalarlang.language.source import Source


def run(text: str, session: Interpreter | None = None, *, name: str = "test.sad", **options) -> list:
    """The outcomes of ``text`` run in ``session`` (a new interpreter by default); ``options``
    go to `Interpreter.run` (``atomic=True``, ``echo=False``, …)."""
    session = Interpreter() if session is None else session
    return list(session.run(Source(name, text), **options))


def run_ok(text: str, session: Interpreter | None = None, **options) -> tuple[Interpreter, list]:
    """Run ``text``; it must not fail. Returns the session and its outcomes."""
    session = Interpreter() if session is None else session
    outcomes = run(text, session, **options)
    failures = [outcome for outcome in outcomes if isinstance(outcome, Failed)]
    assert not failures, failures[0].diagnostic
    return session, outcomes


def failure(text: str, session: Interpreter | None = None, **options):
    """Run ``text``; its last outcome, and only it, must be a failure. Returns the diagnostic."""
    outcomes = run(text, session, **options)
    assert outcomes and isinstance(outcomes[-1], Failed), outcomes
    assert sum(isinstance(outcome, Failed) for outcome in outcomes) == 1
    return outcomes[-1].diagnostic


def session_after(program: str, session: scalarlang.Session | None = None) -> scalarlang.Session:
    """The public API's session after ``program``, which must not fail."""
    session = session or scalarlang.Session()
    result = session.run(program)
    assert result.error is None, result.text
    return session


def error_of(program: str):
    """The error `scalarlang.run(program)` ends with (there must be one)."""
    result = scalarlang.run(program)
    assert result.error is not None, result.text
    return result.error


def shown(outcomes: list, kind: type) -> list:
    """The outcomes of a kind (`ValueShown`, `Expected`, …)."""
    return [outcome for outcome in outcomes if isinstance(outcome, kind)]


def only(outcomes: list, kind: type):
    """The one outcome of a kind (there must be exactly one)."""
    (outcome,) = shown(outcomes, kind)
    return outcome


def state(session: Interpreter) -> tuple:
    """Every bound value (nodes, tensors, lists, texts: by identity) and the bits of every
    stored gradient reachable from one, of scalar nodes and tensors alike."""
    values = session.values
    bound = tuple((name, id(value)) for name, value in values.items())
    return bound, graph_gradients(node for value in values.values() for node in distinct_nodes(value))


def printed(outcomes: list) -> list[str]:
    """The texts `print` printed."""
    return [outcome.text for outcome in outcomes if isinstance(outcome, Printed)]


def with_values(session: Interpreter | None = None, **values) -> Interpreter:
    """``session`` (a new interpreter by default) with engine values bound to names, each
    labelled by its name as `let` labels what it binds: how tests show a tensor made by the
    engine (`Tensor.variable(...)`) before the language has a form that makes it."""
    session = Interpreter() if session is None else session
    for name, value in values.items():
        if value.tag is None:
            value.tag = Named(name)
        session.state.bind(name, value)
    return session


def script_output(program: str | Source, name: str = "p.sad", width: int = 100) -> tuple[int, str]:
    """``program`` (a text, named ``name``, or a `Source` with its folder) run as the command runs
    a script, at ``width`` columns without colour: its exit status and everything it wrote,
    standard output and error together, as a terminal shows them."""
    import io

    from scalarlang.front.runner import ScriptOutput

    stream = io.StringIO()
    source = program if isinstance(program, Source) else Source(name, program)
    status = ScriptOutput(stream, stream, width=width, color="never").run(source)
    return status, stream.getvalue()
