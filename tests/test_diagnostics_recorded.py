"""Every syntax diagnostic stays byte for byte what the recorded parser said.

``tests/fixtures/diagnostics.json`` holds about 3,000 short, mostly broken programs (made by
``diagnostic_programs``) with what a trusted parser said about each: null when the program
parsed, else the text the command prints for the `syntax-error` or `too-deep` and the error's
kind, message, span, notes and fields (see ``record_diagnostics``). Here each program is run
again through ``scalarlang.run`` and must give the same, parsed or not parsed included.

Only ``scalarlang.run`` and the public attributes of its Result (``error``, ``text``) and of the
diagnostic (``kind``, ``message``, ``span``, ``notes``, ``fields``) are used, so that the check
survives the package's modules moving around.

When the fixture must change on purpose (a message reworded, a program added), record it again
from a frozen copy of the parser you trust, never from the code under test::

    mkdir -p /tmp/scalarlang-before && git archive COMMIT | tar -x -C /tmp/scalarlang-before
    PYTHONPATH=/tmp/scalarlang-before python tests/record_diagnostics.py

(first recorded from 13bf230; again, reviewed, when lists came in: issue 24, and for the hint on
`step=1e-4` inside a call: issue 32; for `import math` and a keyword one typo off: issue 45; for a built-in called without its
parentheses, `tanh x`: 20 programs gained that note; for an f-string: 4). To run this test against another copy of the package, run
pytest from outside the repository (``python -m pytest`` puts the working folder first on
``sys.path``, so from the root it always tests the working tree).
"""

from __future__ import annotations

import difflib
import json

import pytest

import scalarlang
from diagnostic_programs import SEED, programs
from record_diagnostics import FIXTURE, observe

SHOWN = 10  # mismatches shown in full


@pytest.fixture(scope="module")
def recorded() -> dict:
    if not FIXTURE.exists():
        pytest.fail(f"{FIXTURE} is missing: record it with tests/record_diagnostics.py (see its docstring)")
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _short(text: str, limit: int = 300) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 25] + f"... ({len(text)} characters)"


def test_the_generator_still_makes_the_recorded_programs(recorded):
    """Generator drift (a change to diagnostic_programs.py or to an example) must be seen: the
    recorded outputs belong to the recorded texts, and new texts need a new recording."""
    texts = programs()
    old = [entry["text"] for entry in recorded["programs"]]
    assert recorded["seed"] == SEED, f"the fixture was recorded with seed {recorded['seed']}, the generator has {SEED}"
    assert recorded["count"] == len(old)
    if texts == old:
        return
    first = next((i for i, (a, b) in enumerate(zip(texts, old)) if a != b), min(len(texts), len(old)))
    lines = [
        f"the generator makes {len(texts)} programs, the fixture holds {len(old)};"
        f" the first difference is program {first}:",
        f"  recorded:  {_short(old[first]) if first < len(old) else '(none)'}",
        f"  generated: {_short(texts[first]) if first < len(texts) else '(none)'}",
        "if the change is meant, record the fixture again (tests/record_diagnostics.py, from a"
        " frozen copy of the parser you trust)",
    ]
    pytest.fail("\n".join(lines), pytrace=False)


def _state(entry: dict) -> str:
    diagnostic = entry["diagnostic"]
    return "parsed" if diagnostic is None else f"error[{diagnostic['kind']}]"


def _explain(index: int, was: dict, now: dict) -> str:
    lines = [f"program {index}: {_short(was['text'])}"]
    if (was["rendered"] is None) != (now["rendered"] is None):
        lines.append(f"  was {_state(was)}, now {_state(now)}")
    for key in ("rendered", "diagnostic"):
        if was[key] == now[key] and json.dumps(was[key]) == json.dumps(now[key]):
            continue
        if key == "rendered":
            before, after = (was[key] or "").splitlines(True), (now[key] or "").splitlines(True)
        else:
            before = json.dumps(was[key], indent=1, ensure_ascii=True).splitlines(True)
            after = json.dumps(now[key], indent=1, ensure_ascii=True).splitlines(True)
        diff = difflib.unified_diff(before, after, f"recorded {key}", f"current {key}", n=2)
        lines += ["  " + line.rstrip("\n") for line in diff]
    return "\n".join(lines)


@pytest.fixture
def short_loops(monkeypatch):
    """Patched: a `while` stops after 1,000 iterations instead of 1,000,000. A program that
    parses runs, and the recorded `while x < 3 { }` ran a million empty iterations to its
    runtime `too-long` (0.9 s, a fifth of this test's time), which the test does not look at: only a
    syntax diagnostic is compared. (Against a copy of the package without this module, the
    loops run in full.)"""
    try:
        from scalarlang.interpreter import control
    except ImportError:
        return
    monkeypatch.setattr(control, "MAX_ITERATIONS", 1_000, raising=False)


def test_every_recorded_program_gets_the_same_diagnostic(recorded, short_loops):
    entries = recorded["programs"]
    mismatches = []
    for index, was in enumerate(entries):
        now = observe(scalarlang.run, was["text"])
        # json.dumps as well: the types (1 vs 1.0) and the order of the fields count too.
        if now != was or json.dumps(now) != json.dumps(was):
            mismatches.append((index, was, now))
    if not mismatches:
        return
    flips = sum((was["rendered"] is None) != (now["rendered"] is None) for _, was, now in mismatches)
    summary = (
        f"{len(mismatches)} of {len(entries)} programs get a different diagnostic than recorded"
        f" ({flips} of them parsed before and not now, or the reverse); the first"
        f" {min(SHOWN, len(mismatches))}:"
    )
    shown = [_explain(index, was, now) for index, was, now in mismatches[:SHOWN]]
    pytest.fail("\n\n".join([summary, *shown]), pytrace=False)
