"""The ``scalarlang`` command: reads arguments and programs, runs them, prints, exits.

Exit status: 0 success, 1 a runtime error, 2 a syntax error, an unreadable file or a usage
error. Text goes to standard output and diagnostics to standard error; ``--json`` writes every
event, errors included, as JSON lines on standard output.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Iterator

from . import __version__
from .runner import EXIT_OK, EXIT_RUNTIME
from .runner import EXIT_STATIC as EXIT_USAGE  # a usage error: nothing ran, like a syntax error

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scalarlang",
        description=(
            "Reverse-mode automatic differentiation on scalars. Runs .sad programs; "
            "with no arguments and a terminal, opens the REPL."
        ),
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="a .sad program to run ('-' reads standard input)")
    parser.add_argument("-c", dest="program", metavar="PROGRAM", help="run PROGRAM text")
    parser.add_argument("--demo", action="store_true", help="print the seed chapter's demo output")
    parser.add_argument("--json", action="store_true", help="write one JSON object per event instead of text")
    parser.add_argument(
        "--quiet", action="store_true", help="run the whole program as a loop body: show only print, graph, gradcheck and errors"
    )
    parser.add_argument("--width", type=_positive_int, default=None, metavar="N", help="text width (default 100 without a terminal)")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colour in text output")
    parser.add_argument("--history-file", metavar="PATH", help="REPL history file (default: $SCALARLANG_HISTORY or the XDG state dir)")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks of internal errors")
    parser.add_argument("--version", action="version", version=f"scalarlang {__version__}")
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 20 <= value <= 10_000:
        raise argparse.ArgumentTypeError("the width must be between 20 and 10000")
    return value


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    if arguments.demo:
        if arguments.files or arguments.program is not None:
            return _usage("--demo takes no program")
        from .demo import demo_lines

        sys.stdout.write("\n".join(demo_lines()) + "\n")
        return EXIT_OK
    if arguments.program is not None and arguments.files:
        return _usage("give either -c PROGRAM or files, not both")
    # The REPL prints text for a person; with --json a terminal's input is read as a script.
    if arguments.program is None and not arguments.files and not arguments.json and _isatty(sys.stdin):
        from .repl import run_repl

        return run_repl(arguments)
    try:
        return run_scripts(arguments)
    except BrokenPipeError:
        # The reader went away (`scalarlang --json big.sad | head`): stop quietly, as rich
        # does for text, with nothing left to flush into the closed pipe at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_RUNTIME
    except KeyboardInterrupt:
        sys.stderr.write("scalarlang: interrupted\n")
        return EXIT_INTERRUPTED


def run_scripts(arguments: argparse.Namespace) -> int:
    """Run each program in a fresh session; the status is the worst of them."""
    from .runner import ScriptOutput, read_sources

    output = ScriptOutput(
        sys.stdout,
        sys.stderr,
        json_lines=arguments.json,
        width=arguments.width,
        color=arguments.color,
        debug=arguments.debug,
        quiet=arguments.quiet,
    )
    status = EXIT_OK
    for source_or_failure in _sources(arguments, read_sources):
        status = max(status, output.run(source_or_failure))
    return status


def _sources(arguments: argparse.Namespace, read_sources) -> Iterator:
    if arguments.program is not None:
        from .runner import text_source

        yield text_source("<command line>", arguments.program)
        return
    yield from read_sources(arguments.files or ["-"], sys.stdin)


def _usage(message: str) -> int:
    sys.stderr.write(f"scalarlang: error: {message}\n")
    return EXIT_USAGE


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
