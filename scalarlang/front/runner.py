"""Running scripts: reading program files and printing what a fresh session makes of them.

Shared by the command (files, ``-c``, standard input) and the golden tests.
"""

from __future__ import annotations

import os
import stat
from typing import IO, TYPE_CHECKING, Callable, Iterable, Iterator

from ..language.diagnostics import Diagnostic
from ..interpreter.core import DEFAULT_TEXT_WIDTH
from ..interpreter.outcomes import Failed, Outcome, Warned
from ..language.source import Source

if TYPE_CHECKING:
    from ..render.text import Renderer

EXIT_OK, EXIT_RUNTIME, EXIT_STATIC = 0, 1, 2

# The largest program read, in bytes of UTF-8. A program is parsed whole before it runs, so
# its size bounds the memory it takes: the densest text (`1+1+1+...`) parses into about 165
# bytes a byte at the peak (tests/test_parse_limits.py), so 8 MB parse within 1.4 GB, under
# 2 GB. Past this (a runaway generator, `scalarlang /dev/zero`) the error is `too-long`, found
# after reading at most one byte more.
SOURCE_LIMIT = 8 * 1024 * 1024


def read_source(path: str, stdin: IO[str] | None = None, limit: int = SOURCE_LIMIT) -> Source | Diagnostic:
    """The program in ``path`` (``-``: standard input), or an ``io-error`` or ``too-long``
    diagnostic."""
    name = "<stdin>" if path == "-" else _printable_path(path)
    try:
        if path == "-":
            data = _read_stream(stdin, limit)
        elif os.path.isdir(path):
            return _io_error(name, "is a directory")
        else:
            with open(path, "rb") as file:
                data = _read_file(file, limit)
    except _TooLong as error:
        return too_long(name, error.size, limit)
    except FileNotFoundError as error:
        return _io_error(name, error.strerror or str(error), _named_without_sad(path))
    except OSError as error:
        return _io_error(name, error.strerror or str(error))
    except ValueError as error:  # a NUL in the path (`:load` takes any text)
        return _io_error(name, str(error))
    folder = None if path == "-" else os.path.dirname(os.path.abspath(path))
    return _decoded(name, data, limit, folder)


class _TooLong(Exception):
    def __init__(self, size: int | None):
        super().__init__(size)
        self.size = size


def _read_file(file: IO[bytes], limit: int) -> bytes:
    """At most ``limit`` bytes, or ``_TooLong``: a regular file known to be larger is not read
    at all, anything else (a pipe, a device) is read to one byte past the limit."""
    try:
        status = os.fstat(file.fileno())
    except (OSError, AttributeError, ValueError):  # not a real file (a test's BytesIO)
        status = None
    if status is not None and stat.S_ISREG(status.st_mode) and status.st_size > limit:
        raise _TooLong(status.st_size)
    data = file.read(limit + 1)
    if len(data) > limit:
        raise _TooLong(None)
    return data


def text_source(name: str, text: str, limit: int = SOURCE_LIMIT) -> Source | Diagnostic:
    """A program given as text (``-c``). Command-line bytes that are not UTF-8 reach Python as
    lone surrogates, which no output stream could print: like such a file, an ``io-error``."""
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return _decoded(name, _bytes_of(text), limit)
    if size > limit:
        return too_long(name, size, limit)
    return Source(name, text)


def too_long(name: str, size: int | None, limit: int = SOURCE_LIMIT) -> Diagnostic:
    amount = f" ({size:,} bytes)" if size is not None else ""
    return Diagnostic(
        "too-long",
        f"{name} is longer than the {_size(limit)} a program may have{amount}",
        fields={"file": name, "limit": limit},
        notes=("help: split it into several files, run one after another",),
    )


def _size(limit: int) -> str:
    megabytes = limit / (1024 * 1024)
    return f"{megabytes:g} MB" if megabytes >= 1 else f"{limit} bytes"


def _decoded(name: str, data: bytes, limit: int = SOURCE_LIMIT, folder: str | None = None) -> Source | Diagnostic:
    if len(data) > limit:
        return too_long(name, len(data), limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return _io_error(name, f"is not valid UTF-8 (byte {error.start} on line {line})")
    return Source(name, text.removeprefix("\ufeff"), folder)


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


def _read_stream(stream: IO[str] | None, limit: int) -> bytes:
    if stream is None:
        return b""
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return _read_file(buffer, limit)
    data = _bytes_of(stream.read(limit + 1))  # characters, so their bytes are checked after
    if len(data) > limit:
        raise _TooLong(None)
    return data


def _io_error(name: str, reason: str, notes: tuple[str, ...] = ()) -> Diagnostic:
    return Diagnostic("io-error", f"cannot read {name}: {reason}", fields={"file": name}, notes=notes)


def _named_without_sad(path: str) -> tuple[str, ...]:
    """`scalarlang fit_line` where `fit_line.sad` is: the name it was meant to be."""
    if path.endswith(".sad") or not os.path.isfile(path + ".sad"):
        return ()
    return (f"help: did you mean `{_printable_path(path + '.sad')}`?",)


def exit_status(outcome: Outcome) -> int:
    if not isinstance(outcome, Failed):
        return EXIT_OK
    return EXIT_STATIC if outcome.static else EXIT_RUNTIME


# In the command's own process, the session of the program run last: the process ends without
# freeing its graph node by node (`cli.command`), which took 0.2 s after 100,000 `let`s.
_left_for_exit: list = []


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
        draw_dir: str | None = None,
        own_process: bool = False,
    ):
        self.out = out
        # The command's own process, which ends with its programs (see `Interpreter.lives_to_exit`).
        self.own_process = own_process
        self.quiet = quiet
        self.err = err
        self.json_lines = json_lines
        self.debug = debug
        self.file: str | None = None  # the name of the source running, for JSON events
        self.line_open = False  # a JSON line started and not ended
        # --draw DIR: one drawer for the whole command, so passes are numbered across files.
        self.pass_drawer: Callable[..., object] | None = None
        if draw_dir is not None:
            from ..pictures import PassDrawer

            self.pass_drawer = PassDrawer(draw_dir)
        # The consoles (and rich) are made when the first outcome is shown: a program that
        # prints nothing does not load them.
        self._width, self._color = width, color
        self._text: Renderer | None = None
        self._errors: Renderer | None = None
        # The width charts are drawn at: the console's, or --width (100 without one). Only a
        # terminal's console knows its own width; without one it is the default (make_console).
        self.text_width = width if width is not None else DEFAULT_TEXT_WIDTH
        if not json_lines and width is None and _isatty(out):
            self.text_width = self.text.console.width

    @property
    def text(self) -> Renderer:
        if self._text is None:
            self._text = _renderer(self.out, self._width, self._color)
        return self._text

    @property
    def errors(self) -> Renderer:
        if self._errors is None:
            self._errors = _renderer(self.err, self._width, self._color)
        return self._errors

    def run(self, item: Source | Diagnostic) -> int:
        """Run ``item`` (a program, or the diagnostic of one that could not be read: status 2,
        whatever its kind) in a fresh session; the exit status."""
        if isinstance(item, Diagnostic):
            self.file = item.fields.get("file")
            self._start()
            self.show(Failed(item))
            return EXIT_STATIC
        from ..interpreter.core import Interpreter

        self.file = item.name
        self._start()
        status = EXIT_OK
        _left_for_exit.clear()  # (the program before: freed before this one runs)
        session = Interpreter()
        session.pass_observer = self.pass_drawer
        session.lives_to_exit = self.own_process
        session.text_width = self.text_width
        # Scripts show no bindings, as text or JSON: the session need not build them.
        try:
            for outcome in session.run(item, quiet=self.quiet, echo=False):
                self.show(outcome)
                status = max(status, exit_status(outcome))
        except MemoryError:  # while an outcome was written (the session reports its own)
            memory_ran_out = True
        else:
            memory_ran_out = False
        if memory_ran_out:
            # Its graph freed, and the reserve given back: room to say so.
            from ..interpreter.failures import out_of_memory, release_reserve

            release_reserve()
            del session
            self.show(Failed(out_of_memory(item, None, "the output was written")))
            return max(status, EXIT_RUNTIME)
        if self.own_process:
            _left_for_exit.append(session)
        return status

    def _start(self) -> None:
        if self.json_lines:
            from ..render.events import dumps, start_event

            self.out.write(dumps(start_event(self.file)) + "\n")

    def show(self, outcome: Outcome) -> None:
        if self.json_lines:
            from ..render.events import event_pieces

            if self.line_open:  # (an event cut short when the memory ran out: it ends here)
                self.out.write("\n")
            for piece in event_pieces(outcome, self.file):
                self.line_open = True
                self.out.write(piece)
                self.line_open = not piece.endswith("\n")
        elif isinstance(outcome, (Failed, Warned)):
            self.out.flush()  # keep diagnostics after the output that came before them
            self.errors.outcome(outcome)
            self.err.flush()
        else:
            self.text.outcome(outcome)
        if isinstance(outcome, Failed) and outcome.traceback and self.debug:
            self.err.write(outcome.traceback)


def _renderer(stream: IO[str], width: int | None, color: str) -> Renderer:
    from ..render.text import Renderer, make_console

    # width None: a terminal's own width, else the default (make_console decides)
    return Renderer(make_console(stream, width=width, color=color))


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
