"""Running scripts: reading program files and printing what a fresh session makes of them.

Shared by the command (files, ``-c``, standard input) and the golden tests.
"""

from __future__ import annotations

import os
from typing import IO, Iterable, Iterator

from .diagnostics import Diagnostic
from .kinds import STATIC_KINDS
from .outcomes import Failed, Outcome
from .source import Source

EXIT_OK, EXIT_RUNTIME, EXIT_STATIC = 0, 1, 2


def read_source(path: str, stdin: IO[str] | None = None) -> Source | Diagnostic:
    """The program in ``path`` (``-``: standard input), or an ``io-error`` diagnostic."""
    name = "<stdin>" if path == "-" else _printable_path(path)
    try:
        if path == "-":
            data = _read_stream(stdin)
        elif os.path.isdir(path):
            return _io_error(name, "is a directory")
        else:
            with open(path, "rb") as file:
                data = file.read()
    except OSError as error:
        return _io_error(name, error.strerror or str(error))
    except ValueError as error:  # a NUL in the path (`:load` takes any text)
        return _io_error(name, str(error))
    return _decoded(name, data)


def text_source(name: str, text: str) -> Source | Diagnostic:
    """A program given as text (``-c``). Command-line bytes that are not UTF-8 reach Python as
    lone surrogates, which no output stream could print: like such a file, an ``io-error``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _decoded(name, _bytes_of(text))
    return Source(name, text)


def _decoded(name: str, data: bytes) -> Source | Diagnostic:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return _io_error(name, f"is not valid UTF-8 (byte {error.start} on line {line})")
    return Source(name, text.removeprefix("\ufeff"))


def _bytes_of(text: str) -> bytes:
    """The bytes a str from the command line or a text stream stood for (lone surrogates: the
    bytes they escape, or invalid UTF-8)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _printable_path(path: str) -> str:
    """``path`` as it is reported: bytes of the name that are not UTF-8 shown as U+FFFD."""
    return _bytes_of(path).decode("utf-8", "replace")


def read_sources(paths: Iterable[str], stdin: IO[str] | None = None) -> Iterator[Source | Diagnostic]:
    for path in paths:
        yield read_source(path, stdin)


def _read_stream(stream: IO[str] | None) -> bytes:
    if stream is None:
        return b""
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return buffer.read()
    return _bytes_of(stream.read())


def _io_error(name: str, reason: str) -> Diagnostic:
    return Diagnostic("io-error", f"cannot read {name}: {reason}", fields={"path": name})


def exit_status(outcome: Outcome) -> int:
    if not isinstance(outcome, Failed):
        return EXIT_OK
    return EXIT_STATIC if outcome.diagnostic.kind in STATIC_KINDS else EXIT_RUNTIME


class ScriptOutput:
    """Runs sources in fresh sessions and prints their outcomes as text or JSON lines."""

    def __init__(
        self,
        out: IO[str],
        err: IO[str],
        *,
        json_lines: bool = False,
        width: int | None = None,
        color: str = "auto",
        debug: bool = False,
        quiet: bool = False,
    ):
        self.out = out
        self.quiet = quiet
        self.err = err
        self.json_lines = json_lines
        self.debug = debug
        if not json_lines:
            from .render import DEFAULT_WIDTH, Renderer, make_console

            width = width or DEFAULT_WIDTH
            self.text = Renderer(make_console(out, width=width, color=color))
            self.errors = Renderer(make_console(err, width=width, color=color))

    def run(self, item: Source | Diagnostic) -> int:
        from .interpreter import Session

        outcomes = [Failed(item)] if isinstance(item, Diagnostic) else Session().run(item, quiet=self.quiet)
        status = EXIT_OK
        for outcome in outcomes:
            self.show(outcome)
            status = max(status, exit_status(outcome))
        return status

    def show(self, outcome: Outcome) -> None:
        if self.json_lines:
            from .events import event_pieces

            for piece in event_pieces(outcome):
                self.out.write(piece)
        elif isinstance(outcome, Failed):
            self.out.flush()  # keep diagnostics after the output that came before them
            self.errors.outcome(outcome)
            self.err.flush()
        else:
            self.text.outcome(outcome)
        if isinstance(outcome, Failed) and outcome.traceback and self.debug:
            self.err.write(outcome.traceback)
