"""Random list programs against an evaluator written apart (issue 36): every event the real
command prints with ``--json`` is what ``tests/list_model.py`` (its own nodes and reverse pass,
from the documents, never the engine) says it must be.

The programs (``tests/list_programs.py``) hold comprehensions of one or two `for`s, nested and
ragged lists, functions returning lists, `descend` over nested lists, training loops, tables
(literals, and CSV files read with `read_table`), `expect` of wrong list statements, `for`,
`if`, `zero_grad`, `quiet`, `grad` and `print`. Compared, numbers as their bits: each bare
expression's `value` (operation, value, tracked, gradient) or `list` (shape, values) event,
each `print`'s text (holes with a format spec: `.17g` and the like, not the default format),
each `backward` event whole (seed; every node in topology order with its operation, value,
tracked, pass adjoint and accumulated gradient; every edge in visiting order with its
indices, local derivative, upstream, contribution and the parent's adjoint before and after;
labels aside), each `expected` kind, an error's kind, and each `warning` of a `descend` that
steps by gradients no pass wrote (its kind and the paths of its variables: what a pass reached
is the variable, by identity, whatever names hold it; issue 36, items 3 and 4).

Profiles: ``FAST`` (500) programs in the default run, about 3 s; ``DEEP`` (4,000) behind the
slow marker, about 35 s on two cores, with other seeds. The programs run as files through
the command, 250 to a process (test_fuzz_programs' ``json_events``), each a fresh session. ``SCALARLANG_LIST_SEED=S`` moves the
seeds; a failure names the seed of its program (with ``SCALARLANG_LIST_SEED`` set to it, the
default run's first program), and ``ListProgramGenerator(seed, folder)`` writes it again.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from list_model import Model
from list_program_text import program_text
from list_programs import ListProgramGenerator, flatten_blocks
from program_files import json_events, write_programs
from commands import needs_command

FAST = 250  # the default run (the slow one checks DEEP more)
DEEP = 4_000
BASE = int(os.environ.get("SCALARLANG_LIST_SEED", "0"))
# What an event is compared by (labels, messages and positions aside).
KEYS = {
    "value": ("operation", "value", "tracked", "gradient"),
    "list": ("shape", "values"),
    "print": ("text",),
    "backward": ("seed", "nodes", "edges"),
    "expected": ("kind",),
    "error": ("kind",),
    "warning": ("kind", "names"),
}
NODE_KEYS = ("topology_index", "operation", "value", "tracked", "pass_adjoint", "accumulated_gradient")


def comparable(event: dict) -> dict:
    kept = {"event": event["event"], **{key: event[key] for key in KEYS[event["event"]]}}
    if event["event"] == "backward":
        kept["nodes"] = [{key: node[key] for key in NODE_KEYS} for node in event["nodes"]]
    return kept


def same(a, b) -> bool:
    """Equal, floats by their bits (so -0.0 is not 0.0)."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
            and not isinstance(b, bool) and struct.pack("<d", a) == struct.pack("<d", b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def where_different(a, b, path: str = "") -> str | None:
    """The first place where ``a`` and ``b`` differ, as a path, with both values there."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        places = (where_different(a[key], b[key], f"{path}.{key}") for key in a)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        places = (where_different(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
    else:
        return None if same(a, b) else f"{path or 'the event'}: the model says {short(a)}, the command printed {short(b)}"
    return next((place for place in places if place is not None), None)


def short(value) -> str:
    shown = repr(value)
    return shown if len(shown) <= 300 else shown[:299] + "…"


def first_difference(expected: list[dict], actual: list[dict]) -> str | None:
    for index, (want, got) in enumerate(zip(expected, actual)):
        place = where_different(want, got)
        if place is not None:
            return f"event {index} ({want['event']}), {place}"
    if len(expected) != len(actual):
        rest = (expected + actual)[min(len(expected), len(actual)) :][:3]
        return f"{len(expected)} events expected, {len(actual)} printed; the first of the rest: {short(rest)}"
    return None


def check_programs(folder: Path, seeds: range) -> dict[str, int]:
    """Run the programs of ``seeds`` through the command and compare; what they held."""
    texts, expected = [], []
    for seed in seeds:
        generator = ListProgramGenerator(seed, folder)
        program = flatten_blocks(generator.program(statements=generator.rng.randint(4, 14)))
        texts.append(program_text(program))
        expected.append(Model().run(program))
    names = write_programs(folder, texts)
    _, by_file = json_events(folder, names)
    tally = {"programs": len(texts), "events": 0, "backward": 0, "expected": 0, "errors": 0, "warnings": 0}
    for seed, text, name, want in zip(seeds, texts, names, expected):
        got = [comparable(event) for event in by_file[name]]
        difference = first_difference(want, got)
        assert difference is None, f"seed {seed} (SCALARLANG_LIST_SEED={seed}: the first program)\n{text}\n{difference}"
        tally["events"] += len(got)
        tally["backward"] += sum(event["event"] == "backward" for event in got)
        tally["expected"] += sum(event["event"] == "expected" for event in got)
        tally["errors"] += sum(event["event"] == "error" for event in got)
        tally["warnings"] += sum(event["event"] == "warning" for event in got)
    return tally


@needs_command
def test_random_list_programs_agree_with_an_evaluator_written_apart(tmp_path):
    tally = check_programs(tmp_path, range(BASE, BASE + FAST))
    # The programs are not vacuous: passes and expectations are checked, few end in errors.
    assert tally["backward"] >= FAST // 2 and tally["expected"] >= FAST // 10, tally
    assert tally["warnings"] >= FAST // 10, tally  # and `descend`'s warnings, given or not
    assert tally["errors"] <= FAST // 10, tally


@pytest.mark.slow
@needs_command
def test_many_random_list_programs_agree_with_an_evaluator_written_apart(tmp_path):
    start = BASE + 1_000_000
    tally = check_programs(tmp_path, range(start, start + DEEP))
    assert tally["backward"] >= DEEP // 2 and tally["errors"] <= DEEP // 10, tally
