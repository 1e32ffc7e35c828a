"""``scalarlang test [PATH ...]``: runs every ``FILE.sad`` that has a golden ``FILE.out`` and
compares what it prints with it (``goldens`` has the format, ``golden_runs`` the runs).

Text goes to standard output: each failure with its diff (coloured on a terminal), with
``-v`` every program, and last the summary line ``N passed, M failed``. ``--json`` writes one
event a line instead (docs/testing.md). Exit status: 0 all passed, 1 any failed, 2 a usage
error, which includes finding nothing to test.
"""

from __future__ import annotations

import os
from typing import Any

from .arguments import new_parser, positive_width
from .goldens import DIFFERS, TIMED_OUT, Program, UsageError, Verdict, check, failure_lines, find_programs, matching
from .golden_runs import DEFAULT_TIMEOUT, DEFAULT_WIDTH, ProgramRun, run_program
from ..render.styles import STYLES

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
JSON_VERSION = 1
UPDATE_HINT = "scalarlang test --update"

DESCRIPTION = """\
Runs every FILE.sad that has a golden file FILE.out beside it (folders are
searched recursively; default: the current folder) and compares what it
prints with the golden: standard output and standard error as one stream,
then a line [exit status N], as `scalarlang FILE.sad` prints them from the
program's folder (100 columns, no colour). A .sad file named on the command
line is tested even without a golden (it then fails, or --update writes one).
"""

EPILOG = """\
examples:
  scalarlang test exercises            every exercise with a golden
  scalarlang test -k week1 -x          those with week1 in their path; stop at
                                       the first failure
  scalarlang test --update exercises   write the goldens again (review the diff)
  scalarlang test --update new.sad     write the first golden of new.sad

exit status:
  0    every program printed its golden
  1    a program failed (its output or status differs, it timed out, its golden
       is missing or unreadable)
  2    a usage error, or nothing to test (no FILE.sad with a FILE.out)
  130  interrupted (Ctrl-C)

more: docs/testing.md
"""


def build_parser():
    parser = new_parser(prog="scalarlang test", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("paths", nargs="*", metavar="PATH", help="a folder to search or a .sad program (default: .)")
    parser.add_argument(
        "-k", dest="keywords", action="append", default=[], metavar="TEXT",
        help="only the programs whose path contains TEXT (case ignored; repeat for more)",
    )
    parser.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failure")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every program, and those without a golden")
    parser.add_argument(
        "--update", action="store_true",
        help="write the goldens of the selected programs instead of comparing (says which changed)",
    )
    parser.add_argument("--json", action="store_true", help="write one JSON object per program instead of text")
    parser.add_argument(
        "--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
        help=f"a program running longer fails (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--width", type=_width, default=DEFAULT_WIDTH, metavar="N",
        help=f"the text width the goldens were written at (default {DEFAULT_WIDTH})",
    )
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colour in the report")
    return parser


def _seconds(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError("the timeout must be more than 0 and at most 86400 seconds")
    return value


def _width(text: str) -> int:
    return positive_width(text)


def run_tests(argv: list[str], out, err) -> int:
    """The command ``scalarlang test`` with ``argv`` (the words after ``test``)."""
    arguments = build_parser().parse_args(argv)
    paths = arguments.paths or ["."]
    try:
        found = find_programs(paths)
    except UsageError as error:
        return _usage(err, str(error))
    selected = matching(found.tested, arguments.keywords)
    ignored = matching(found.ignored, arguments.keywords)
    if not selected:
        return _usage(err, _nothing_to_test(paths, arguments.keywords, ignored, bool(arguments.paths)))
    report: Report = JsonReport(out) if arguments.json else TextReport(out, arguments.color, arguments.verbose)
    counts = {"passed": 0, "failed": 0, "updated": 0, "unchanged": 0}
    for index, program in enumerate(selected):
        run = run_program(program.path, width=arguments.width, timeout=arguments.timeout)
        result, verdict = check(program, run, arguments.timeout, arguments.update)
        counts[result] += 1
        report.program(program, run, verdict, result)
        if result == "failed" and arguments.exitfirst:
            report.stopped(len(selected) - index - 1)
            break
    report.ignored(ignored)
    report.summary(counts, len(ignored), arguments.update)
    return EXIT_FAILED if counts["failed"] else EXIT_PASSED


def _nothing_to_test(paths: list[str], keywords: list[str], ignored, paths_given: bool) -> str:
    where = ", ".join(paths)
    if keywords:
        message = f"no program with a golden under {where} has {' or '.join(map(repr, keywords))} in its path"
    else:
        message = f"nothing to test: no FILE.sad with a golden FILE.out beside it under {where}"
    if ignored:
        message += f" ({len(ignored)} without one; `{UPDATE_HINT} FILE.sad` writes a first golden)"
    if not paths_given and os.path.isfile("test"):
        message += "\n  (to run the program named `test`: scalarlang ./test)"
    return message


def _usage(err, message: str) -> int:
    err.write(f"scalarlang test: error: {message}\n")
    return EXIT_USAGE


# ---- reports ------------------------------------------------------------------------------------


class Report:
    def program(self, program: Program, run: ProgramRun, verdict: Verdict, result: str) -> None: ...

    def stopped(self, left: int) -> None: ...

    def ignored(self, programs: tuple[Program, ...]) -> None: ...

    def summary(self, counts: dict[str, int], ignored: int, update: bool) -> None: ...


class TextReport(Report):
    """Failures with their diffs as they come, the summary last; ``verbose``: every program."""

    def __init__(self, out, color: str, verbose: bool):
        from ..render.text import make_console

        self.console = make_console(out, width=None, color=color)
        self.verbose = verbose

    def line(self, *parts: tuple[str, str]) -> None:
        from rich.text import Text

        self.console.print(Text.assemble(*parts), soft_wrap=True)

    def program(self, program: Program, run: ProgramRun, verdict: Verdict, result: str) -> None:
        if result == "failed":
            self.line(("FAILED", STYLES["error"]), (f" {program.name}: {verdict.reason}", ""))
            for text in failure_lines(program, verdict, UPDATE_HINT):
                self.line((text, _diff_style(text) if verdict.kind == DIFFERS else ""))
        elif result == "updated":
            self.line(("updated", STYLES["warning"]), (f" {program.golden_name}", ""))
        elif self.verbose:
            self.line((result, STYLES["ok"] if result == "passed" else STYLES["dim"]), (f" {program.name}", ""))

    def stopped(self, left: int) -> None:
        self.line((f"stopped at the first failure (-x): {_count(left, 'program')} not run", STYLES["note"]))

    def ignored(self, programs: tuple[Program, ...]) -> None:
        if self.verbose:
            for program in programs:
                self.line(("ignored", STYLES["dim"]), (f" {program.name}: no golden {program.golden_name}", ""))
        elif programs:
            self.line((f"{_count(len(programs), 'program')} without a golden not tested (-v lists them)", STYLES["dim"]))

    def summary(self, counts: dict[str, int], ignored: int, update: bool) -> None:
        if update:
            text = f"{counts['updated']} updated, {counts['unchanged']} unchanged"
            if counts["failed"]:
                text += f", {counts['failed']} failed"
        else:
            text = f"{counts['passed']} passed, {counts['failed']} failed"
        self.line((text, STYLES["error"] if counts["failed"] else "bold " + STYLES["ok"]))


def _diff_style(line: str) -> str:
    if line.startswith(("---", "+++")):
        return STYLES["header"]
    if line.startswith("@@"):
        return STYLES["hunk"]
    if line.startswith("-"):
        return STYLES["removed"]
    if line.startswith("+"):
        return STYLES["added"]
    return ""


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


class JsonReport(Report):
    """One JSON object a line: a ``start``, a ``program`` for each program (those without a
    golden included), a ``summary``."""

    def __init__(self, out):
        from ..render.events import dumps

        self.out = out
        self.dumps = dumps
        self.left = 0  # the programs -x left out
        self.write({"event": "start", "version": JSON_VERSION})

    def write(self, event: dict[str, Any]) -> None:
        self.out.write(self.dumps(event) + "\n")

    def program(self, program: Program, run: ProgramRun, verdict: Verdict, result: str) -> None:
        self.write({
            "event": "program",
            "file": program.name,
            "golden": program.golden_name,
            "result": result,
            "failure": None if verdict.passed else verdict.kind,
            "reason": verdict.reason or None,
            "status": run.status,
            "expected_status": verdict.expected_status,
            "first_difference": verdict.first_difference,
            "diff": list(verdict.diff) if verdict.kind == DIFFERS else None,
            "seconds": round(run.seconds, 3),
            "timed_out": verdict.kind == TIMED_OUT,
        })

    def ignored(self, programs: tuple[Program, ...]) -> None:
        for program in programs:
            self.write({
                "event": "program", "file": program.name, "golden": program.golden_name, "result": "ignored",
                "failure": None, "reason": "no golden", "status": None, "expected_status": None,
                "first_difference": None, "diff": None, "seconds": None, "timed_out": False,
            })

    def stopped(self, left: int) -> None:
        self.left = left

    def summary(self, counts: dict[str, int], ignored: int, update: bool) -> None:
        self.write({"event": "summary", **counts, "ignored": ignored, "not_run": self.left})
