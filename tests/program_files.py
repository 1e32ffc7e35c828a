"""Programs written as files and run through the real command in batches (the grammar-aware
fuzzer of test_fuzz_programs.py and the list programs of test_list_programs.py): each file
opens with a marker `print`, so that a batch's output shows where each file begins; every
file's JSON events, its failure and exit status, the failures a text run shows, and a check
that no output holds a traceback or an internal error."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from commands import command
from scalarlang.interpreter.failures import STATIC_KINDS

MARKER = "@@file "
BATCH = 250  # files per process: start-up paid once, argument lists kept short
POSITION = re.compile(r"^ +--> (.+):(\d+):\d+$")
# (A message whose first word is too long for the width starts on the next line.)
ERROR_HEADER = re.compile(r"^error\[([a-z]+(?:-[a-z]+)*)\]:(?: |$)")


def write_programs(directory: Path, texts: list[str], stem: str = "p") -> list[str]:
    """Files of the programs, each opening with a `print` of its name on its first line, so
    that a text run shows where each file's output begins (JSON events name their file)."""
    names = []
    for index, text in enumerate(texts):
        name = f"{stem}{index:05}.sad"
        (directory / name).write_text(f'print "{MARKER}{name}"; {text}', encoding="utf-8")
        names.append(name)
    return names


def command_in(directory: Path, *args: str) -> subprocess.CompletedProcess:
    """`scalarlang ARGS…` run in ``directory`` (where the files are), bytes out."""
    return command(*args, cwd=directory, timeout=600)


def assert_clean(result: subprocess.CompletedProcess) -> tuple[str, str]:
    out, err = result.stdout.decode("utf-8"), result.stderr.decode("utf-8")
    assert result.returncode in (0, 1, 2), (result.returncode, err[-2000:])
    for text in (out, err):
        assert "Traceback" not in text, text[-3000:]
        assert "internal-error" not in text, text[-3000:]
    return out, err


def json_events(directory: Path, names: list[str], *options: str) -> tuple[int, dict[str, list[dict]]]:
    """Every file's events (without ``file``) from `scalarlang --json`, in batches; the worst
    exit status. Checks the shape of every line on the way. A file whose first line (its
    marker `print`) did not run failed before running: it did not parse (``STATIC``)."""
    by_file: dict[str, list[dict]] = {name: [] for name in names}
    ran: set[str] = set()
    worst = 0
    for start in range(0, len(names), BATCH):
        batch = names[start : start + BATCH]
        result = command_in(directory, "--json", *options, *batch)
        out, err = assert_clean(result)
        assert err == "", err[-2000:]
        order: list[str] = []
        for line in out.splitlines():
            event = json.loads(line)
            assert isinstance(event, dict) and isinstance(event.get("event"), str), line
            assert {"file", "line", "column"} <= event.keys(), line
            assert event.get("kind") != "internal-error", line
            name = event.pop("file")
            assert name in by_file, line
            if event["event"] == "start":  # each file's events open with its own start
                assert event.get("version") == 1 and name not in order, line
                order.append(name)
                continue
            assert order and order[-1] == name, f"{name}'s events are not together: {line}"
            if event["event"] == "print" and event["text"].startswith(MARKER):
                ran.add(name)
                continue
            by_file[name].append(event)
        assert order == batch, "every file runs, in order"
        for name in batch:
            if name not in ran:
                assert len(by_file[name]) == 1 and by_file[name][0]["kind"] in STATIC_KINDS, (name, by_file[name])
                by_file[name][0][STATIC] = True
        statuses = [file_status(by_file[name]) for name in batch]
        assert result.returncode == max(statuses), (result.returncode, statuses)
        worst = max(worst, result.returncode)
    for name, events in by_file.items():
        errors = [index for index, event in enumerate(events) if event["event"] == "error"]
        assert errors in ([], [len(events) - 1]), (name, events[-3:])
    return worst, by_file


# Marks (in `json_events`) the error of a file that did not parse: exit status 2. A failure of
# one of the same kinds at run time (`read_table` cannot read its file) is status 1.
STATIC = "(static)"


def failure_of(events: list[dict]) -> tuple[str, int] | None:
    """The kind and line of a file's error, if it has one."""
    if events and events[-1]["event"] == "error":
        return events[-1]["kind"], events[-1]["line"]
    return None


def is_static(events: list[dict]) -> bool:
    return bool(events) and events[-1].get(STATIC, False)


def file_status(events: list[dict]) -> int:
    failure = failure_of(events)
    return 0 if failure is None else 2 if is_static(events) else 1


def prose_lines(text: str) -> list[str]:
    """The lines of ``text`` outside the DOT text that `draw` prints on a terminal: DOT is
    code to copy into Graphviz, printed unwrapped; everything else fits the width."""
    lines, in_dot = [], False
    for line in text.splitlines():
        if line == "digraph scalarlang {":
            in_dot = True
        elif in_dot and line == "}":
            in_dot = False
        elif not in_dot:
            lines.append(line)
    return lines


def text_failures(
    directory: Path, names: list[str], width: int, printed: frozenset[str] = frozenset()
) -> tuple[dict[str, tuple[str, int]], list]:
    """Each failing file's kind and line, read from the text run's diagnostics, and the
    output of each batch; checks the width of every line but the lines of ``printed``: what
    `print` writes is the program's own text, written as it is, never wrapped (issue 40). (At
    a width where headers and positions wrap, only the number of headers is read.)"""
    narrow = width < 40
    failures: dict[str, tuple[str, int]] = {}
    outputs = []
    for start in range(0, len(names), BATCH):
        result = command_in(directory, "--width", str(width), *names[start : start + BATCH])
        outputs.append((result.stdout, result.stderr))
        out, err = assert_clean(result)
        for line in prose_lines(out) + prose_lines(err):
            assert len(line) <= width or line in printed, (width, line)
        kind = None
        err_lines = err.splitlines()
        for index, line in enumerate(err_lines):
            header = ERROR_HEADER.match(line)
            if narrow:
                # A header too wide for the line breaks before its `[` (`error` / `[too-long]:`).
                broken = line == "error" and index + 1 < len(err_lines) and err_lines[index + 1].startswith("[")
                if line.startswith("error[") or broken:
                    failures[f"#{len(failures)}"] = ("", 0)
            elif header:
                assert kind is None, f"an error without its position before {line!r}"
                kind = header.group(1)
            elif kind is not None and POSITION.match(line):
                name, line_number = POSITION.match(line).groups()
                assert name not in failures, f"two errors in {name}"
                failures[name] = (kind, int(line_number))
                kind = None
        assert kind is None, "an error without its position"
    return failures, outputs
