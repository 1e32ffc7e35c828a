"""Golden files: each ``FILE.sad`` with a ``FILE.out`` beside it is a test that its output
has not changed. The one path shared by ``scalarlang test`` and the pytest plugin: finding the
programs, the golden format, comparing, the diff, writing goldens (running a program is
``golden_runs``).

The format is what ``cd FOLDER && scalarlang FILE.sad`` prints without a terminal (100
columns, no colour): standard output and standard error as one stream, in the order they were
written, then one line ``[exit status N]``. Line endings do not matter (a CRLF checkout
compares equal, and ``--update`` keeps a file's CRLF); everything else does.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from .golden_runs import ProgramRun

PROGRAM_SUFFIX = ".sad"
GOLDEN_SUFFIX = ".out"
STATUS_LINE = "[exit status {status}]\n"

# Folders the search never enters: hidden ones (.git, .venv), caches, a virtual environment's.
_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules"})


class UsageError(Exception):
    """A path on the command line that cannot be tested (it does not exist, or is not .sad)."""


@dataclass(frozen=True)
class Program:
    """A program to test: ``path`` as found (a path given joined with the part below it), and
    ``name``, how reports name it (the same path, with ``/``)."""

    path: Path
    name: str

    @property
    def golden(self) -> Path:
        return self.path.with_suffix(GOLDEN_SUFFIX)

    @property
    def golden_name(self) -> str:
        return self.name[: -len(PROGRAM_SUFFIX)] + GOLDEN_SUFFIX if self.name.endswith(PROGRAM_SUFFIX) else self.name


@dataclass(frozen=True)
class Found:
    """The programs of a search: ``tested`` (each with its golden, or named on the command
    line), and ``ignored`` (found in a folder without a golden)."""

    tested: tuple[Program, ...]
    ignored: tuple[Program, ...]


def find_programs(paths: Sequence[str]) -> Found:
    """Every ``FILE.sad`` with a ``FILE.out`` beside it under ``paths`` (folders searched
    recursively, in name order); a ``.sad`` file named itself is tested with or without one.
    Each program once, in the order found. Raises ``UsageError`` for a path that is missing or
    a file that is not a ``.sad`` program."""
    tested: list[Program] = []
    ignored: list[Program] = []
    seen: set[str] = set()
    for given in paths:
        if os.path.isdir(given):
            for path in _programs_under(given):
                key = os.path.realpath(path)
                if key not in seen:
                    seen.add(key)
                    program = Program(Path(path), _name(path))
                    (tested if program.golden.is_file() else ignored).append(program)
        elif os.path.isfile(given):
            if not given.endswith(PROGRAM_SUFFIX):
                raise UsageError(f"{given} is not a {PROGRAM_SUFFIX} program")
            key = os.path.realpath(given)
            if key not in seen:
                seen.add(key)
                tested.append(Program(Path(given), _name(given)))
        else:
            raise UsageError(f"no such file or folder: {given}")
    return Found(tuple(tested), tuple(ignored))


def _programs_under(folder: str) -> Iterable[str]:
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(
            name for name in folders
            if not name.startswith(".") and name not in _SKIPPED_FOLDERS
            and not os.path.exists(os.path.join(root, name, "pyvenv.cfg"))
        )
        for name in sorted(files):
            if name.endswith(PROGRAM_SUFFIX):
                yield os.path.join(root, name)


def _name(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def matching(programs: Iterable[Program], keywords: Sequence[str]) -> tuple[Program, ...]:
    """The programs whose name contains any of ``keywords`` (case ignored); all without any."""
    wanted = [keyword.casefold() for keyword in keywords]
    if not wanted:
        return tuple(programs)
    return tuple(program for program in programs if any(word in program.name.casefold() for word in wanted))


# ---- the format ---------------------------------------------------------------------------------


def golden_text(run: ProgramRun) -> str:
    """What the golden of ``run`` holds (a finished run: a timed-out one has no golden)."""
    assert run.status is not None
    return run.output + STATUS_LINE.format(status=run.status)


def _normalized(text: str) -> str:
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def read_golden(path: Path) -> str:
    """The golden's text, its line endings made ``\\n``; OSError or UnicodeDecodeError."""
    return _normalized(path.read_bytes().decode("utf-8"))


def expected_status(golden: str) -> int | None:
    """The exit status a golden's last line names (None when it names none)."""
    last = golden.rstrip("\n").rpartition("\n")[2]
    prefix, suffix = "[exit status ", "]"
    if last.startswith(prefix) and last.endswith(suffix) and last[len(prefix) : -1].isdigit():
        return int(last[len(prefix) : -1])
    return None


# ---- comparing ----------------------------------------------------------------------------------

PASSED, DIFFERS, TIMED_OUT, NO_GOLDEN, BAD_GOLDEN = "passed", "differs", "timed-out", "no-golden", "bad-golden"


@dataclass(frozen=True)
class Verdict:
    """How a program's run compares with its golden. ``kind``: ``passed``, ``differs``,
    ``timed-out``, ``no-golden`` (none beside a program named on the command line),
    ``bad-golden`` (unreadable, not UTF-8, or with ``--update`` not writable). ``reason``: why it failed, in a few words;
    ``first_difference``: the golden's line where the texts part (one past its end when the
    output goes on); ``diff``: the unified diff's lines, golden first."""

    kind: str
    reason: str = ""
    first_difference: int | None = None
    diff: tuple[str, ...] = ()
    expected_status: int | None = None

    @property
    def passed(self) -> bool:
        return self.kind == PASSED


def compare(program: Program, run: ProgramRun, timeout: float) -> Verdict:
    if run.status is None:
        return Verdict(TIMED_OUT, f"timed out after {timeout:g} s")
    try:
        expected = read_golden(program.golden)
    except FileNotFoundError:
        return Verdict(NO_GOLDEN, f"no golden: {program.golden_name} does not exist")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else "it is not UTF-8"
        return Verdict(BAD_GOLDEN, f"cannot read {program.golden_name}: {why or error}")
    actual = _normalized(golden_text(run))
    status = expected_status(expected)
    if actual == expected:
        return Verdict(PASSED, expected_status=status)
    old, new = expected.splitlines(keepends=True), actual.splitlines(keepends=True)
    first = _first_difference(old, new)
    if status is not None and status != run.status and old[:-1] == new[:-1]:
        reason = f"exit status {run.status}, the golden says {status}"
    elif status is not None and status != run.status:
        reason = f"the output differs, and the exit status is {run.status}, not {status}"
    else:
        reason = "the output differs"
    diff = difflib.unified_diff(old, new, f"{program.golden_name} (golden)", f"{program.name} (output now)", lineterm="")
    return Verdict(DIFFERS, reason, first, tuple(_without_line_ends(diff)), status)


def _first_difference(old: list[str], new: list[str]) -> int:
    for number, (was, now) in enumerate(zip(old, new), start=1):
        if was != now:
            return number
    return min(len(old), len(new)) + 1


def _without_line_ends(diff: Iterable[str]) -> Iterator[str]:
    """The diff's lines without their ends; git's marker after a last line that has none (the
    lines were compared with their ends, so a missing last newline is a difference)."""
    for number, line in enumerate(diff):
        if number < 2 or line.startswith("@@") or line.endswith("\n"):
            yield line.removesuffix("\n")
        else:
            yield line
            yield "\\ No newline at end of file"


def failure_lines(program: Program, verdict: Verdict, update_hint: str) -> list[str]:
    """What a failure shows under its headline (the program's name and ``verdict.reason``):
    the golden's file and line of the first difference and the diff; for a missing golden,
    how to write it (``update_hint``: the front end's way, ``scalarlang test --update``)."""
    if verdict.kind == NO_GOLDEN:
        return [f"{update_hint} {program.name} writes it (review it before you commit it)"]
    if verdict.kind != DIFFERS:
        return []
    return [f"{program.golden_name}:{verdict.first_difference}: first difference", *verdict.diff]


def check(program: Program, run: ProgramRun, timeout: float, update: bool = False) -> tuple[str, Verdict]:
    """The result of ``run`` (``passed`` or ``failed``; with ``update``, ``updated`` or
    ``unchanged`` once its golden is written, ``failed`` when it timed out or the golden cannot
    be written) and its verdict. What both front ends do with a run."""
    if not update or run.status is None:
        verdict = compare(program, run, timeout)
        return ("passed" if verdict.passed else "failed"), verdict
    try:
        changed = write_golden(program, run)
    except OSError as error:
        return "failed", Verdict(BAD_GOLDEN, f"cannot write {program.golden_name}: {error.strerror or error}")
    return ("updated" if changed else "unchanged"), Verdict(PASSED)


# ---- writing ------------------------------------------------------------------------------------


def write_golden(program: Program, run: ProgramRun) -> bool:
    """Write ``run``'s golden beside ``program``; whether its text changed (a CRLF file keeps
    its CRLF; the file is replaced whole, never left half-written)."""
    text = golden_text(run)
    path = program.golden
    try:
        old_bytes = path.read_bytes()
    except FileNotFoundError:
        old_bytes = None
    if old_bytes is not None:
        try:
            old = old_bytes.decode("utf-8")
        except UnicodeDecodeError:
            old = None
        if old is not None and _normalized(old) == _normalized(text):
            return False
        if b"\r\n" in old_bytes:
            text = text.replace("\n", "\r\n")
    _replace(path, text.encode("utf-8"))
    return True


def _replace(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        else:
            os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
