"""Ways of running the same statements that must not change what a program does (issue 13):
a session told not to echo bindings (``echo=False``, as scripts run)."""

from __future__ import annotations

import io

import pytest

from scalarlang.interpreter import Session
from scalarlang.outcomes import Bound, Defined, Failed
from scalarlang.render import Renderer, make_console
from scalarlang.runner import ScriptOutput
from scalarlang.source import Source

ECHOING_PROGRAM = """\
let x = var 2
let data = [1, 2, 3]
fn f(a) = a * a + x
let y = f(x) * 3
y
print "y is {y}"
backward(y)
descend x by 0.1
repeat 2 { let z = x * 2
  print z }
quiet let w = x + 1
w
"""


def _text(outcomes) -> str:
    out = io.StringIO()
    renderer = Renderer(make_console(out, width=100, color="never"))
    for outcome in outcomes:
        renderer.outcome(outcome)
    return out.getvalue()


@pytest.mark.parametrize("tail", ["", "let bad = nope + 1\nprint 1\n", "let v = x / 0\n", "fn len(a) = a\n"])
def test_without_echo_only_the_binding_outcomes_are_missing(tail):
    text = ECHOING_PROGRAM + tail
    echoed = list(Session().run(Source("p.sad", text)))
    silent = list(Session().run(Source("p.sad", text), echo=False))
    assert any(isinstance(outcome, (Bound, Defined)) for outcome in echoed)
    assert not any(isinstance(outcome, (Bound, Defined)) for outcome in silent)
    kept = [outcome for outcome in echoed if not isinstance(outcome, (Bound, Defined))]
    assert [type(outcome) for outcome in kept] == [type(outcome) for outcome in silent]
    assert _text(kept) == _text(silent)
    failures = [(o.diagnostic.kind, o.diagnostic.message, o.diagnostic.span) for o in silent if isinstance(o, Failed)]
    assert failures == [(o.diagnostic.kind, o.diagnostic.message, o.diagnostic.span) for o in kept if isinstance(o, Failed)]


def test_without_echo_the_session_ends_the_same():
    echoing, silent = Session(), Session()
    list(echoing.run(Source("p.sad", ECHOING_PROGRAM)))
    list(silent.run(Source("p.sad", ECHOING_PROGRAM), echo=False))
    assert {name: (node.value, node.gradient) for name, node in echoing.bindings.items()} == {
        name: (node.value, node.gradient) for name, node in silent.bindings.items()
    }
    assert echoing.functions == silent.functions
    assert {name: echoing.label_of(node) for name, node in echoing.bindings.items()} == {
        name: silent.label_of(node) for name, node in silent.bindings.items()
    }


@pytest.mark.parametrize("json_lines", [False, True])
def test_scripts_ask_for_no_binding_echoes_and_print_the_same(json_lines, monkeypatch):
    def script(echo_asked: bool | None) -> str:
        original = Session.run

        def run(self, source, **options):
            asked.append(options.get("echo", True))
            if echo_asked is not None:
                options["echo"] = echo_asked
            return original(self, source, **options)

        monkeypatch.setattr(Session, "run", run)
        out, err = io.StringIO(), io.StringIO()
        ScriptOutput(out, err, json_lines=json_lines, color="never").run(Source("p.sad", ECHOING_PROGRAM))
        monkeypatch.setattr(Session, "run", original)
        return out.getvalue() + err.getvalue()

    asked: list[bool] = []
    assert script(None) == script(True)  # what the runner asks for, and the echoing session
    assert asked == [False, False]

