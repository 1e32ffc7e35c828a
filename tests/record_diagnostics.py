"""Record what today's parser says about the programs of `diagnostic_programs`.

Run it on a frozen copy of the code you trust, never on the code under test::

    mkdir -p /tmp/scalarlang-before
    git archive COMMIT | tar -x -C /tmp/scalarlang-before
    PYTHONPATH=/tmp/scalarlang-before python tests/record_diagnostics.py

COMMIT is one whose parser you trust; the fixture was first recorded from 13bf230, the last
commit before the modules moved into subpackages, and again when lists came into the
language (issue 24; the changed diagnostics were reviewed: tables' own errors gone, lists
and comparisons in the expected sets), and when an unclosed opener became a related note
with its own excerpt (issue 26, from f2bfd79: the 31 programs whose error is found on a
later line than the open `(`, `[` or block `{` changed, nothing else), and when texts, `while`,
`break` and `//` came in (issue 32, from the branch `text`: 137 programs changed, reviewed: 29
now parse (string literals as values, `while`, `//`), "an expression or a string" became "an
expression", a string where an operator was expected is now said as such, Python's `while x:`
gets the block hint instead of "no `while`"), and when Python's single-quoted `'abc'` got its
hint (from the working tree of the merge of `friction`: the 5 programs with a `'…'` closed on its
line gained the note, nothing else changed), and when names_mlp.sad built makemore's examples
(issue 43, from 6840ca9: the programs cut from the examples' lines changed, 1,045 new ones; the
2,106 programs in both recordings kept their records, bit for bit), when
examples/forward_mode.sad came in (issue 44, from the branch `forward`, whose parser is main's:
1,347 programs new, 1,354 gone, the 1,797 in both recordings kept their records, bit for bit), and
when `@` and examples/moons_tensor.sad came in (issue 42, from the merge of `tensorlang` and
main, compared with a recording from main's e049fd4 on the same programs: only the 18 programs
holding `@` changed (`@` is an operator, no longer an unexpected character), nothing else), and
when examples/moons_tensor.sad came to end with `vjp_check(loss)` (issue 43, from the branch
`vjpbuiltin`, whose parser is main's: 801 programs new, 817 gone, the 2,350 in both recordings
kept their records, bit for bit), and
when examples/names_tensor.sad came in (issue 43, from main's 8e3e170, the merge's first
parent, whose parser the merge does not change: compared with the branch's own recording, the
2,285 programs in both kept their records, bit for bit), and when a line too long for the
width came to go on indented (branch `friction5`, from its own commit: of 3,157 programs, 92
changed only in the indent of an error message's or a note's further lines, 2 in a caret past
the end of a long line that no longer wraps, and every ``diagnostic`` kept its record), and
when the call hint came to show every argument as written (the same branch, from its own
commit: 12 programs changed, in that note only: `mean 1, 2)` suggests `mean(1, 2)`, not
`mean(1)`, and 11 whose arguments can be read two ways, `max x1 * detach(x1)`, now `max(...)`),
and when two statements on one line came to get their `;` (the same branch, from its own
commit: 54 programs gained that note, `let x = var 2; let ...`, nothing else changed).

(Run it from the repository's root or anywhere else: the script's folder, not the working folder, is first on ``sys.path``.)

It prints which `scalarlang` it imported and refuses the working tree's own package unless
``--from-working-tree`` is given. It writes ``tests/fixtures/diagnostics.json`` (or the path
given with ``--out``): the seed, the count, and for every program, in order::

    {"text": PROGRAM, "rendered": TEXT or null, "diagnostic": OBSERVED or null}

``rendered`` and ``diagnostic`` are null when the program parsed (whatever it did when it ran:
a runtime error is not the parser's business). Otherwise the program failed with a static kind
(``syntax-error`` or ``too-deep``: the parse failed and nothing ran), and ``rendered`` is
exactly what the command prints for it, ``diagnostic`` the error's own parts as plain JSON::

    {"kind", "message", "line", "column", "end_line", "end_column", "notes", "fields"}

The only things read from scalarlang, so that the record survives a reshuffle of its modules:

- ``scalarlang.run(text)`` (the public API; its default name ``<python>`` and width 100);
- of the ``Result``: ``.error`` and ``.text``;
- of the diagnostic ``r.error``: ``.kind``, ``.message``, ``.notes``, ``.fields``, and
  ``.span`` with its ``.line``, ``.column``, ``.end_line`` and ``.end_column``
  (``span`` None is recorded as four nulls).

``fields`` are made plain JSON the way the ``--json`` error event does it (``events._clean``):
non-finite floats become ``"inf"``, ``"-inf"``, ``"nan"``, tuples lists, other objects their
``str``. (scalarlang.api has no JSON route: the event itself is only built by the command.)

A `too-deep` failure is recorded as static whatever its origin: the parser's (``deeper than
1000 levels``) is the only one these short programs reach; a function definition nesting calls
beyond the interpreter's limit would be a runtime `too-deep`, which none of them makes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "diagnostics.json"
STATIC_KINDS = ("syntax-error", "too-deep")


def plain(value: Any) -> Any:
    """A field's value as plain JSON (as the `--json` error event writes it)."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return str(value)


def observe(run: Any, text: str) -> dict[str, Any]:
    """What ``run(text)`` says, through the public Result and diagnostic attributes only."""
    result = run(text)
    error = result.error
    if error is None or error.kind not in STATIC_KINDS:
        return {"text": text, "rendered": None, "diagnostic": None}
    span = error.span
    return {
        "text": text,
        "rendered": result.text,
        "diagnostic": {
            "kind": error.kind,
            "message": error.message,
            "line": None if span is None else span.line,
            "column": None if span is None else span.column,
            "end_line": None if span is None else span.end_line,
            "end_column": None if span is None else span.end_column,
            "notes": [str(note) for note in error.notes],
            "fields": plain(dict(error.fields)),
        },
    }


def dump(record: dict[str, Any]) -> str:
    """The fixture's text: one program a line (ASCII only, so BOMs and CRs are escapes)."""
    head = {key: value for key, value in record.items() if key != "programs"}
    lines = [json.dumps(entry, ensure_ascii=True, sort_keys=False) for entry in record["programs"]]
    body = json.dumps(head, ensure_ascii=True)[:-1]
    return body + ', "programs": [\n' + ",\n".join(lines) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=FIXTURE)
    parser.add_argument("--from-working-tree", action="store_true", help="allow recording from this checkout's scalarlang")
    args = parser.parse_args(argv)

    import scalarlang

    where = Path(scalarlang.__file__).resolve().parent
    print(f"recording from {where}")
    if where == HERE.parent / "scalarlang" and not args.from_working_tree:
        print(
            "this is the working tree's scalarlang: record from a frozen copy (PYTHONPATH=...),"
            " or pass --from-working-tree",
            file=sys.stderr,
        )
        return 2

    sys.path.insert(0, str(HERE))
    import diagnostic_programs

    texts = diagnostic_programs.programs()
    started = time.perf_counter()
    entries = [observe(scalarlang.run, text) for text in texts]
    elapsed = time.perf_counter() - started
    record = {
        "seed": diagnostic_programs.SEED,
        "count": len(entries),
        "programs": entries,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump(record), encoding="utf-8", newline="\n")

    kinds: dict[str, int] = {}
    for entry in entries:
        kind = entry["diagnostic"]["kind"] if entry["diagnostic"] else "parsed"
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(entries)} programs in {elapsed:.1f} s: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
