"""The source-size limit keeps the largest accepted script's parse within 2 GB: the densest
texts (operator chains, one-token statements) are parsed here at a small size, and their
peak memory per byte of text, scaled to `SOURCE_LIMIT`, must stay under 2 GB with room for
the allocator's own overhead (resident memory is about 6% above what tracemalloc counts)."""

from __future__ import annotations

import tracemalloc

import pytest

from scalarlang.front.runner import SOURCE_LIMIT
from scalarlang.language.parser import parse_program
from scalarlang.language.source import Source

DENSE = {
    "a chain of numbers": "let y = " + "+".join(["1"] * 40_000) + "\n",
    "a chain of names": "let y = " + "*".join(["x"] * 40_000) + "\n",
    "one-token lines": "x\n" * 40_000,
    "one-token statements": "x;" * 40_000,
    "negations": "let y = " + "-x*" * 20_000 + "x\n",
    "calls": "f(x)\n" * 20_000,
    "holes": 'print "{x}{x}"\n' * 10_000,
}


@pytest.mark.slow  # a stress test: seven scripts of the largest size, about ten seconds
@pytest.mark.parametrize("shape", DENSE)
def test_the_largest_accepted_script_parses_within_2_gb(shape):
    text = DENSE[shape]
    parse_program(Source("warm.sad", "let x = 1\n"))  # the parser itself is not the program's
    tracemalloc.start()
    try:
        program = parse_program(Source("dense.sad", text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert program.statements
    per_byte = peak / len(text.encode())
    assert per_byte * SOURCE_LIMIT * 1.25 < 2 * 1024**3, f"{shape}: {per_byte:.0f} bytes a byte"
