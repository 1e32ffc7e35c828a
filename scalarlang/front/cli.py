"""The ``scalarlang`` command: reads arguments and programs, runs them, prints, exits.

Text goes to standard output and diagnostics to standard error; ``--json`` writes every event,
errors included, as JSON lines on standard output. The exit statuses are listed in
``EXIT_STATUSES`` (and in ``--help``). ``scalarlang test ...`` (``test`` as the first
argument) is the golden-file tester, ``golden_command``.

Only what a job needs is imported: ``--help`` and ``--version`` load no engine, lark or rich;
a script loads no prompt_toolkit.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

# The built-in half of `signal` (as `interrupts`): the module itself makes enums of every
# signal at import, 1% of a short program's start-up. (typeshed has no stub for `_signal`.)
import _signal as signal  # type: ignore[import-not-found]  # noqa: E402

from .._version import __version__
from ..engine.numbers import MAX_DIGITS, digits
from ..language.collector import paused_collector
from . import interrupts
from .arguments import GuardedStream, OutputError, new_parser, positive_width
from .interrupts import EXIT_INTERRUPTED, exit_interrupted, install_startup_handler, is_startup_handler, raise_once

EXIT_OK, EXIT_RUNTIME, EXIT_STATIC = 0, 1, 2  # the same as runner's (checked by a test)
EXIT_USAGE = EXIT_STATIC  # a usage error: nothing ran, like a syntax error
EXIT_OUTPUT = 74  # EX_IOERR of sysexits.h: the output could not be written
EXIT_PIPE = 128 + 13  # the reader went away: the status of a process killed by SIGPIPE

EXIT_STATUSES = (
    (EXIT_OK, "success"),
    (EXIT_RUNTIME, "a runtime error (a failed assert, expect or gradcheck included)"),
    (EXIT_STATIC, "a syntax error, an unreadable or too long program, a usage error"),
    (EXIT_OUTPUT, "the output could not be written (a full disk, an I/O error)"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
    (EXIT_PIPE, "the reader went away (`| head`): quiet, as if killed by SIGPIPE"),
)

COMPLETION_SHELLS = ("bash", "zsh", "fish")
TEST_COMMAND = "test"  # the first argument that makes the command `scalarlang test` (golden_command)

ENVIRONMENT = (
    "environment: on a terminal, NO_COLOR turns colour off, FORCE_COLOR on, and COLUMNS sets the width; "
    "piped output ignores them (plain, exactly --width wide, default 100). SCALARLANG_HISTORY names the "
    "REPL's history file."
)


def help_texts(width: int) -> tuple[str, str]:
    """The description and the epilog of ``--help``, laid out ``width`` columns wide: what the
    command does, the language briefly by task (language/overview.py's examples), where to read
    more, the environment and the exit statuses."""
    from ..language.overview import EXAMPLES, TASKS
    from .help_layout import Heading, Paragraph, Row, lay_out, plain

    def text(words: str) -> str:
        return plain(lay_out([Paragraph(words, indent=0, hanging=0)], width))

    description = text("Reverse-mode automatic differentiation on scalars. Runs .sad programs; with no "
                       "arguments and a terminal, opens the REPL.") + "\n" + plain(lay_out([Row(
        "scalarlang test [PATH ...]",
        "checks programs against their golden files (scalarlang test --help; a program named `test` runs as "
        "scalarlang ./test)",
    )], width, widest_form=26))
    tasks: list[Heading | Row] = []
    for task in TASKS:
        tasks += [Heading(task), *(Row(example, what) for of, example, what in EXAMPLES if of == task)]
    statuses = [Row(str(status), meaning) for status, meaning in EXIT_STATUSES]
    epilog = "\n".join([
        text("the language, by task:") + plain(lay_out(tasks, width, margin=2)),
        text("A program is one statement a line (or separated by ;). The REPL: `scalarlang` on a terminal; "
             "`:help` there lists every form and built-in by task. More: docs/language.md (the language), "
             "the README, and docs/json.md for the --json schema."),
        text(ENVIRONMENT),
        "exit status:\n" + plain(lay_out(statuses, width)),
    ])
    return description.rstrip("\n"), epilog


def help_width() -> int:
    """The width argparse lays ``--help`` out at: the terminal's (or COLUMNS), less 2."""
    import shutil

    return shutil.get_terminal_size().columns - 2


def build_parser():
    # The options are listed under the usage: spelled out in it, they could not wrap within a
    # narrow terminal (argparse keeps `[--color {auto,always,never}]` whole).
    parser = new_parser(prog="scalarlang", usage="%(prog)s [options] [FILE ...]")
    parser.texts = lambda: help_texts(help_width())
    parser.add_argument("files", nargs="*", metavar="FILE", help="a .sad program to run ('-' reads standard input)")
    parser.add_argument("-c", dest="program", metavar="PROGRAM", help="run PROGRAM text")
    parser.add_argument("--demo", action="store_true", help="print the seed chapter's demo output")
    parser.add_argument("--json", action="store_true", help="write one JSON object per event instead of text")
    parser.add_argument(
        "--quiet", action="store_true",
        help="run the whole program as a loop body: no value lines, backward tables or descend "
        "echoes; print, graph, gradcheck, draw, explain, paths, walk, plot, boundary, warnings "
        "and errors still show",
    )
    parser.add_argument(
        "--width", type=positive_width, default=None, metavar="N",
        help="text width (default: the terminal's, or 100 without one)",
    )
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colour in text output")
    parser.add_argument(
        "--digits", type=_digits, default=None, metavar="N",
        help="print numbers with N decimals (0-17; --digits 12 is the chapter's style); "
        "default: whole numbers short, others with 12 significant digits",
    )
    parser.add_argument(
        "--history-file", metavar="PATH",
        help="REPL history file (default: $SCALARLANG_HISTORY or the user's state directory)",
    )
    parser.add_argument(
        "--draw", metavar="DIR",
        help="also write an SVG picture of every backward pass into DIR (pass-001-loss.svg, ...)",
    )
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks of internal errors")
    parser.add_argument(
        "--print-completion", choices=COMPLETION_SHELLS, metavar="SHELL",
        help="print a completion script for SHELL (bash, zsh or fish) and exit",
    )
    parser.add_argument("--version", action="version", version=f"scalarlang {__version__}")
    return parser


def _digits(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"the digits must be between 0 and {MAX_DIGITS}")
    return value


def command() -> NoReturn:
    """The console script and ``python -m scalarlang``: `main`, then an exit that leaves the
    program's memory to the operating system. Freeing a long program's graph node by node
    (as Python's own exit would) took 0.2 s after 100,000 `let`s; `main` has flushed what
    was printed, and the command registers nothing to run at exit."""
    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, MemoryError):
            pass  # (`main` reported a failing stream, and its status says so)
    os._exit(status)


def main(argv: list[str] | None = None) -> int:
    """The command. SIGINT exits 130 with one line, from start-up (see ``interrupts``) to exit;
    output errors exit 74 with one line, a closed pipe 141 quietly."""
    previous = install_startup_handler()
    previous_hook = sys.unraisablehook
    out, err = GuardedStream(sys.stdout), GuardedStream(sys.stderr)
    try:
        try:
            interrupts.interrupted = False
            sys.unraisablehook = interrupts.quiet_unraisable
            _set_sigint(raise_once)
            try:
                # (No argv: the console script or `python -m scalarlang`, whose process it is.)
                status = _run(argv, out, err, own_process=argv is None)
            except SystemExit as exiting:  # argparse: --help, --version, a usage error
                status = _exit_code(exiting)
            if interrupts.interrupted:  # raised where Python could only report it
                raise KeyboardInterrupt
            out.flush()
            err.flush()
        except KeyboardInterrupt:
            _set_sigint(signal.SIG_IGN)  # a second Ctrl-C while this one is handled does nothing
            status = _interrupted(out, err)
        except OutputError as failure:
            _set_sigint(signal.SIG_IGN)
            if failure.stream is not sys.stdout:  # standard error failed: keep what was printed
                _try_flush(sys.stdout)
            status = _output_failed(failure.error)
        except BrokenPipeError:  # the REPL writes to the real streams
            _set_sigint(signal.SIG_IGN)
            status = _output_failed(BrokenPipeError(32, os.strerror(32)))
        except MemoryError:  # where a session could not report it (a script's is an error event)
            status = _out_of_memory(out, err)
    finally:
        _restore_sigint(previous)
        sys.unraisablehook = previous_hook
    return status


def _exit_code(exiting: SystemExit) -> int:
    """The status of a SystemExit, so that what it printed is flushed in the guarded region."""
    if exiting.code is None:
        return EXIT_OK
    return exiting.code if isinstance(exiting.code, int) else EXIT_USAGE


def _run(argv: list[str] | None, out: GuardedStream, err: GuardedStream, own_process: bool = False) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == [TEST_COMMAND]:  # `scalarlang test ...`; a program named test is ./test
        from .golden_command import run_tests

        return run_tests(words[1:], out, err)
    arguments = build_parser().parse_args(argv)
    if arguments.print_completion:
        from .completion import completion_script

        out.write(completion_script(build_parser(), arguments.print_completion))
        return EXIT_OK
    if arguments.demo:
        if arguments.files or arguments.program is not None:
            return _usage(err, "--demo takes no program")
        from ..demo import demo_lines

        out.write("\n".join(demo_lines()) + "\n")
        return EXIT_OK
    with digits(arguments.digits):
        return _run_programs(arguments, out, err, own_process)


def _run_programs(arguments, out: GuardedStream, err: GuardedStream, own_process: bool) -> int:
    if arguments.program is not None and arguments.files:
        return _usage(err, "give either -c PROGRAM or files, not both")
    # The REPL prints text for a person; with --json a terminal's input is read as a script.
    if arguments.program is None and not arguments.files and not arguments.json and _isatty(sys.stdin):
        from .repl import run_repl

        _set_sigint(signal.default_int_handler)  # Ctrl-C while a statement runs drops it
        return run_repl(arguments)
    return run_scripts(arguments, out, err, own_process)


def run_scripts(arguments, out=None, err=None, own_process: bool = False) -> int:
    """Run each program in a fresh session; the status is the worst of them."""
    # The modules a script needs load with the collector paused: they are long-lived and hold
    # no garbage, and the command's own process then freezes them out of every later
    # collection's scan (what the first parse loads: `Interpreter.run`).
    with paused_collector(freeze=own_process):
        from .runner import ScriptOutput, read_sources, text_source

    output = ScriptOutput(
        out if out is not None else sys.stdout,
        err if err is not None else sys.stderr,
        json_lines=arguments.json,
        width=arguments.width,
        color=arguments.color,
        debug=arguments.debug,
        quiet=arguments.quiet,
        draw_dir=arguments.draw,
        own_process=own_process,
    )
    if arguments.program is not None:
        sources = iter([text_source("<command line>", arguments.program)])
    else:
        sources = read_sources(arguments.files or ["-"], sys.stdin)
    status = EXIT_OK
    for source_or_failure in sources:
        status = max(status, output.run(source_or_failure))
    return status


def _usage(err, message: str) -> int:
    err.write(f"scalarlang: error: {message}\n")
    return EXIT_USAGE


def _interrupted(out: GuardedStream, err: GuardedStream) -> int:
    try:
        out.flush()  # what the program printed before the interrupt
    except OutputError:
        _silence(sys.stdout)
    exit_interrupted(exit_now=False)
    return EXIT_INTERRUPTED


def _out_of_memory(out: GuardedStream, err: GuardedStream) -> int:
    """One line on standard error, in the memory the reserve gave back."""
    from ..interpreter.failures import release_reserve

    release_reserve()
    _set_sigint(signal.SIG_IGN)
    try:
        _try_flush(out)
        err.write("error[out-of-memory]: the memory ran out\n")
        err.flush()
    except (OutputError, MemoryError):
        pass  # (the status says it)
    return EXIT_RUNTIME


def _output_failed(error: OSError) -> int:
    """One line on standard error (none for a closed pipe), and nothing left for Python to
    flush at exit into the stream that failed."""
    _silence(sys.stdout)
    if isinstance(error, BrokenPipeError):
        _silence(sys.stderr)
        return EXIT_PIPE
    try:
        sys.stderr.write(f"scalarlang: cannot write output: {error.strerror or error}\n")
        sys.stderr.flush()
    except OSError:
        pass  # standard error failed too: the status says it
    _silence(sys.stderr)
    return EXIT_OUTPUT


def _try_flush(stream) -> None:
    try:
        stream.flush()
    except (OSError, ValueError):
        pass


def _silence(stream) -> None:
    """Point ``stream``'s file descriptor at /dev/null: the text still buffered in it is then
    flushed there at exit, instead of failing again as "Exception ignored ..."."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's StringIO)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def _set_sigint(handler) -> None:
    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread (main() called from a thread): leave it
        pass
    except MemoryError:  # (the handler is set, or stays as it was: the old one's conversion to an enum failed)
        pass


def _restore_sigint(previous) -> None:
    """Leave SIGINT as it was, unless the command itself installed the start-up handler: then
    the program is over, and a Ctrl-C at exit must not change its status or print anything."""
    if previous is None:
        return
    _set_sigint(signal.SIG_IGN if is_startup_handler(previous) else previous)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
