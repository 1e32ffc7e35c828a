"""Random programs over texts, folds, sampling, `while` and charts against what they must
show (issue 40: the campaign's programs and their oracle join the property tests). The
programs and their oracle are ``tests/text_programs.py``.

Through the real command (``--json``, files in batches, each a fresh session): no traceback
and no internal error (program_files' checks); every `print`, chart, `expected` and error
event is what the oracle says: texts exactly, chart values as bits, a boundary's sign at each
centre of its grid as F computed here gives it, errors only of the kinds the programs can
make. In this process: a program's text output is the same twice, and each wrong statement a
program expects, run bare after what came before it, fails with its kind and leaves every
binding, text, list, gradient and the generator as they were.

Profiles: ``FAST`` programs in the default run (a few seconds), ``DEEP`` behind the slow
marker, with other seeds. ``SCALARLANG_TEXT_SEED=S`` moves the seeds; a failure names the
seed of its program, and ``TextProgramGenerator(seed, folder).program()`` writes it again.
"""

from __future__ import annotations

import io
import os
import struct
from pathlib import Path

import pytest

from commands import needs_command
from program_files import json_events, write_programs
from text_programs import ERROR_KINDS, Program, TextProgramGenerator, sign
from scalarlang.engine.scalar import Scalar
from scalarlang.front.runner import ScriptOutput
from scalarlang.interpreter.core import Interpreter
from scalarlang.interpreter.outcomes import Failed
from scalarlang.interpreter.values import ListValue, TextValue
from scalarlang.language.source import Source

FAST = 300
DEEP = 3_000
IN_PROCESS = 60  # of the fast programs, run twice and failed bare in this process
BASE = int(os.environ.get("SCALARLANG_TEXT_SEED", "0"))


def bits(value) -> object:
    """Numbers by their bits (so -0.0 is not 0.0), inside lists and dicts too."""
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)):
        return struct.pack("<d", float(value))
    if isinstance(value, list):
        return [bits(item) for item in value]
    if isinstance(value, dict):
        return {key: bits(item) for key, item in value.items()}
    return value


def comparable(event: dict) -> dict | None:
    """What the oracle says of an event (labels, messages, positions aside); None: not compared."""
    kind = event["event"]
    if kind == "print":
        return {"event": kind, "text": event["text"]}
    if kind in ("expected", "error"):
        return {"event": kind, "kind": event["kind"]}
    if kind == "plot":
        kept = {key: event[key] for key in ("event", "kind", "title", "xlabel", "ylabel")}
        if event["kind"] == "line":
            kept["series"] = [{"x": series["x"], "y": series["y"]} for series in event["series"]]
        else:
            kept["points"] = event["points"]
        return kept
    return None


def check_boundary(event: dict, factor: float, seed: int) -> None:
    """The sign of F(a, b) = a - b * factor at every centre of the event's grid."""
    grid = event["grid"]
    for row, y in zip(grid["sign"], grid["y"]):
        for shown, x in zip(row, grid["x"]):
            assert shown == sign(x - y * factor), (seed, x, y, factor, shown)


def generate(folder: Path, seeds: range) -> list[Program]:
    return [TextProgramGenerator(seed, folder).program() for seed in seeds]


def check_programs(folder: Path, seeds: range) -> dict[str, int]:
    programs = generate(folder, seeds)
    names = write_programs(folder, [program.text() for program in programs])
    _, by_file = json_events(folder, names)
    tally = {"programs": len(programs), "prints": 0, "charts": 0, "boundaries": 0, "expected": 0, "errors": 0}
    for seed, program, name in zip(seeds, programs, names):
        events = by_file[name]
        got = [comparable(event) for event in events]
        shown = [(event, kept) for event, kept in zip(events, got) if kept is not None]
        where = f"seed {seed} (SCALARLANG_TEXT_SEED={seed}: the first program)\n{program.text()}"
        assert len(shown) == len(program.expected), (where, [kept for _, kept in shown], program.expected)
        for index, ((event, kept), want) in enumerate(zip(shown, program.expected)):
            assert bits(kept) == bits(want), (where, index, kept, want)
            if index in program.boundaries:
                check_boundary(event, program.boundaries[index], seed)
        for kept in (kept for _, kept in shown):
            if kept["event"] == "error":
                assert kept["kind"] in ERROR_KINDS, (where, kept)
        tally["prints"] += sum(kept["event"] == "print" for _, kept in shown)
        tally["charts"] += sum(kept["event"] == "plot" for _, kept in shown)
        tally["boundaries"] += len(program.boundaries)
        tally["expected"] += sum(kept["event"] == "expected" for _, kept in shown)
        tally["errors"] += sum(kept["event"] == "error" for _, kept in shown)
    return tally


@needs_command
def test_random_text_fold_sampling_and_chart_programs_show_what_the_oracle_says(tmp_path):
    tally = check_programs(tmp_path, range(BASE, BASE + FAST))
    # Not vacuous: every form is shown many times, few programs end in an error.
    assert tally["prints"] >= FAST and tally["charts"] >= FAST // 2, tally
    assert tally["boundaries"] >= FAST // 10 and tally["expected"] >= FAST // 5, tally
    assert FAST // 50 <= tally["errors"] <= FAST // 5, tally


@pytest.mark.slow
@needs_command
def test_many_random_text_fold_sampling_and_chart_programs_show_what_the_oracle_says(tmp_path):
    start = BASE + 1_000_000
    tally = check_programs(tmp_path, range(start, start + DEEP))
    assert tally["prints"] >= DEEP and tally["errors"] <= DEEP // 5, tally


# ---- in this process ------------------------------------------------------------------------


def state(session: Interpreter) -> tuple:
    """Every bound value (nodes by identity, value and gradient bits; texts; lists item by
    item), the functions and the generator's state."""

    def described(value) -> object:
        if value.__class__ is Scalar:
            return ("node", id(value), bits(value.value), bits(value.gradient))
        if value.__class__ is TextValue:
            return ("text", str(value))
        if value.__class__ is ListValue:
            return ("list", id(value), tuple(described(item) for item in value))
        return ("other", repr(value))

    values = tuple((name, described(value)) for name, value in session.values.items())
    return values, tuple(session.functions.items()), session.random.getstate()


def run(session: Interpreter, text: str, folder: Path, *, atomic: bool = False) -> Failed | None:
    outcomes = session.run(Source("text.sad", text, str(folder)), atomic=atomic)
    failures = [outcome for outcome in outcomes if isinstance(outcome, Failed)]
    assert all(failure.diagnostic.kind != "internal-error" for failure in failures), text
    return failures[0] if failures else None


def text_output(program: Program, folder: Path) -> str:
    out = io.StringIO()
    ScriptOutput(out, out, width=80, color="never").run(Source("text.sad", program.text(), str(folder)))
    return out.getvalue()


def test_the_programs_print_the_same_twice_and_a_wrong_statement_changes_nothing(tmp_path):
    programs = generate(tmp_path, range(BASE, BASE + IN_PROCESS))
    checked = 0
    for seed, program in zip(range(BASE, BASE + IN_PROCESS), programs):
        first = text_output(program, tmp_path)
        assert first == text_output(program, tmp_path), seed
        assert "Traceback" not in first and "internal-error" not in first, seed
        for index, statement, kind in program.failures:
            session = Interpreter()
            if index and run(session, "\n".join(program.statements[:index]) + "\n", tmp_path) is not None:
                break  # (an earlier statement failed: the rest never runs)
            before = state(session)
            for atomic in (True, False):
                failure = run(session, statement + "\n", tmp_path, atomic=atomic)
                assert failure is not None and failure.diagnostic.kind == kind, (seed, statement, failure)
                assert state(session) == before, (seed, statement, atomic)
            checked += 1
    assert checked >= IN_PROCESS // 3, checked
