"""The playground's Python side: runs a `.sad` program in a fresh session (inside Pyodide, in
the page's Web Worker) and hands what it shows to the page a batch at a time, as JSON.

Built on scalarlang's Python API and nothing else of the package: `scalarlang.Session` (its
`interpreter` yields outcomes one statement at a time, "for front ends of your own"),
`scalarlang.front.api.render_outcomes` (outcomes -> `Result` with its text, HTML, SVG picture, chart and walk
parts, as `scalarlang.run` renders them), `scalarlang.front.runner.exit_status` (the
command's exit status of an outcome) and `scalarlang.render.events.event_of` (an error as
`--json` writes it). A batch is rendered and posted when a tenth of a second
has passed since the last one, so the lines of a long training loop appear as it runs; the
text of all batches is what `scalarlang FILE.sad` prints (tests/test_playground_runner.py
checks it against every example's golden file, natively).

A run's lists are freed outermost first once it is done (`run`, `_lists_last`): freeing a
list frees each list that only it holds inside its own free, and in the browser the stack that
this nests on is the JavaScript engine's, which CPython does not measure (its guard against
deep frees does not engage there): a list a loop nests 20,000 deep (`let L = [L]`) ended Python
in the page when the session was let go. (Graphs free one node at a time there: the engine
installs a finalizer on Emscripten, engine/node.py.)

Also imported natively (by the build's smoke test and the tests): it needs no Pyodide.
"""

from __future__ import annotations

import gc
import json
import time
from typing import Callable, cast

import scalarlang
from scalarlang.front.api import ChartPart, PicturePart, Result, WalkPart, render_outcomes
from scalarlang.engine import Scalar
from scalarlang.engine.passes import topology
from scalarlang.front.runner import exit_status
from scalarlang.interpreter.values import ListValue
from scalarlang.interpreter.outcomes import Failed
from scalarlang.language.source import Source
from scalarlang.render.events import event_of

WIDTH = 100  # the golden files' width, and the command's without a terminal
FLUSH_SECONDS = 0.1
# Characters of HTML, SVG and text posted for one run: past this a run goes on, but what it
# shows is counted, not sent (a loop printing a million lines would swamp the page).
OUTPUT_LIMIT = 8_000_000


# Every list alive when a run ended, each after the lists it holds (see `run`).
_left_over: list[ListValue] = []


def run(text: str, name: str, post: Callable[[str], object], width: int = WIDTH) -> dict:
    """Run ``text`` as the program ``name`` in a fresh session. ``post`` receives JSON text:
    ``{"type": "parts", "parts": [...]}`` for each batch, then ``{"type": "done", ...}`` (the
    exit status, the error if one, the time, the parts left out). Returns the last message."""
    try:
        return _run(text, name, post, width)
    finally:
        # The session is gone with _run's frame; its lists, held only here now, go from the
        # last: a list is freed before the lists it holds, so no free reaches past one list.
        while _left_over:
            _left_over.pop()


def _run(text: str, name: str, post: Callable[[str], object], width: int) -> dict:
    started = time.perf_counter()
    session = scalarlang.Session(width=width)
    state = _State(post, width)
    status = 0
    error = None
    try:
        for outcome in session.interpreter.run(Source(name, text)):
            state.pending.append(outcome)
            code = exit_status(outcome)
            if code:
                status = max(status, code)
                if error is None and isinstance(outcome, Failed):
                    error = diagnostic_json(outcome, text, name)
            if time.perf_counter() - state.flushed >= FLUSH_SECONDS:
                state.flush()
        state.flush()
    except Exception as exc:  # a bug of ours, or of the playground: shown, never swallowed
        state.flush()
        status = max(status, 1)
        error = {"kind": "internal-error", "message": f"{type(exc).__name__}: {exc}"}
        state.send([{"kind": "text", "text": f"internal error: {type(exc).__name__}: {exc}\n", "html": ""}])
    done = {
        "type": "done",
        "status": status,
        "error": error,
        "seconds": time.perf_counter() - started,
        "sent": state.sent,
        "left_out": state.left_out,
    }
    post(json.dumps(done))
    _left_over.extend(_lists_last())
    return done


def _lists_last() -> list[ListValue]:
    """Every list alive (the session's, and any its outcomes hold), each after the lists it
    holds."""
    lists = [thing for thing in gc.get_objects() if type(thing) is ListValue]
    held = {id(item) for items in lists for item in items if type(item) is ListValue}
    order: list[ListValue] = []
    done: set[int] = set()
    for outermost in lists:
        if id(outermost) in held:
            continue
        stack = [(outermost, iter(outermost))]  # a list is added once the lists it holds are
        while stack:
            current, items = stack[-1]
            item = next(items, None)
            if item is None:
                stack.pop()
                order.append(current)
            elif type(item) is ListValue and id(item) not in done:
                done.add(id(item))
                stack.append((item, iter(item)))
    return order


class _State:
    def __init__(self, post: Callable[[str], object], width: int):
        self.post = post
        self.width = width
        self.pending: list = []
        self.flushed = time.perf_counter()
        self.sent = 0
        self.left_out = 0

    def flush(self) -> None:
        if self.pending:
            result = render_outcomes(self.pending, self.width)
            self.pending = []
            self.send(parts_json(result))
        self.flushed = time.perf_counter()

    def send(self, parts: list[dict]) -> None:
        size = sum(len(part.get("html", "")) + len(part.get("svg", "")) + len(part["text"]) for part in parts)
        if self.sent + size > OUTPUT_LIMIT:
            self.left_out += len(parts)
            return
        self.sent += size
        self.post(json.dumps({"type": "parts", "parts": parts}))


def parts_json(result: Result) -> list[dict]:
    """Each part of a result: ``kind`` (text, picture, chart or walk), ``text`` (what the
    command prints for it: a picture's DOT text, a chart's terminal picture) and ``html`` or
    ``svg``."""
    parts = []
    for part in result.parts:
        if isinstance(part, PicturePart):
            parts.append({"kind": "picture", "text": part.dot, "svg": _inline(part.svg)})
        elif isinstance(part, ChartPart):
            parts.append({"kind": "chart", "text": part.text, "svg": _inline(part.svg)})
        elif isinstance(part, WalkPart):
            parts.append({"kind": "walk", "text": part.text, "html": part.html})
        else:
            parts.append({"kind": "text", "text": part.text, "html": part.html})
    return parts


def _inline(svg: str) -> str:
    start = svg.find("<svg")  # no XML declaration or doctype inside HTML
    return svg[start:] if start >= 0 else svg


def diagnostic_json(failed: Failed, text: str, name: str) -> dict:
    """An error as `scalarlang --json` writes it (kind, message, help, notes, related, the
    error's fields: render/events.py), with where it is when it is in the program run: its
    span's end (1-based, as the diagnostic says it) and its offsets in UTF-16 code units, as
    JavaScript's strings count, for the editor's mark."""
    error = cast(dict, event_of(failed))
    del error["event"]
    diagnostic = failed.diagnostic
    span, source = diagnostic.span, diagnostic.source
    if span is not None and (source is None or (source.name == name and source.text == text)):
        error.update(
            line=span.line,
            column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
            start=_utf16(text, span.start),
            end=_utf16(text, span.end),
        )
    else:
        for key in ("file", "line", "column"):
            error.pop(key, None)
    return error


def _utf16(text: str, offset: int) -> int:
    offset = max(0, min(offset, len(text)))
    return len(text[:offset].encode("utf-16-le")) // 2


def warm() -> None:
    """Load everything a first run needs (the parser, the tables, a picture) while the page
    says it is starting, so that the first Run is as quick as the next."""
    run("let x = var 2\nlet y = x * x\nbackward(y)\nprint \"{grad(x)}\"\ndraw(y)\nwalk(y)", "<warm-up>", lambda _: None)


def versions() -> dict:
    import sys

    import lark
    import rich  # noqa: F401
    from importlib.metadata import version

    return {
        "python": sys.version.split()[0],
        "scalarlang": scalarlang.__version__,
        "lark": lark.__version__,
        "rich": version("rich"),
    }
