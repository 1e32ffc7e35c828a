"""What the command and `scalarlang test` share for their arguments and output: a parser that
writes its messages through the guard, the width's check, and the guarded streams whose
failed writes become `OutputError` (the command's own error, not any `OSError`)."""

from __future__ import annotations

import sys


def new_parser(**settings):
    """An argument parser whose messages (help, usage errors) are written through the guard:
    argparse ignores a failed write (help to a full disk would exit 0, printing nothing), so
    a failed write is the command's output error."""
    import argparse

    class Parser(argparse.ArgumentParser):
        # A function giving the description and the epilog: laid out when help is shown,
        # not each time the command starts.
        texts = None

        def format_help(self) -> str:
            if self.texts is not None:
                self.description, self.epilog = self.texts()
                self.texts = None
            return super().format_help()

        def _print_message(self, message, file=None):
            if message:
                GuardedStream(file or sys.stderr).write(message)

    return Parser(formatter_class=argparse.RawDescriptionHelpFormatter, **settings)


def positive_width(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 20 <= value <= 10_000:
        raise argparse.ArgumentTypeError("the width must be between 20 and 10000")
    return value


class OutputError(Exception):
    """Writing to standard output or error failed (``error`` says why, ``stream`` which)."""

    def __init__(self, error: OSError, stream=None):
        super().__init__(error)
        self.error = error
        self.stream = stream


class GuardedStream:
    """A text stream whose write and flush failures become ``OutputError``.

    So the command tells a failed write apart from any other ``OSError``, and rich, which
    turns a ``BrokenPipeError`` into ``SystemExit(1)``, never sees one."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            raise OutputError(error, self._stream) from error

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            raise OutputError(error, self._stream) from error

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
