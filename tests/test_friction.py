"""What a new user tripped over (issue 26), each from the case that was reported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import scalarlang
from scalarlang.interpreter.checks import KIND_SYNONYMS
from scalarlang.interpreter.failures import RUNTIME_KINDS

ROOT = Path(__file__).resolve().parents[1]
COMMAND = Path(sys.executable).parent / "scalarlang"


@pytest.mark.parametrize(("written", "meant"), [("division-by-zero", "non-finite-result"), ("index-error", "index-out-of-range")])
def test_expect_of_a_common_synonym_suggests_the_kind(written, meant):
    error = scalarlang.run(f"expect {written}: 1 / 0").error
    assert error.kind == "expectation-failed"
    assert error.notes == (f"help: did you mean `{meant}`? (`{written}` is not a kind of `.sad`)",)


def test_expect_of_a_misspelt_kind_suggests_the_closest():
    assert scalarlang.run("expect no-gradeint: grad(const 1)").error.notes == ("help: did you mean `no-gradient`?",)


def test_every_synonym_names_a_real_kind():
    assert set(KIND_SYNONYMS.values()) <= RUNTIME_KINDS
    assert not set(KIND_SYNONYMS) & RUNTIME_KINDS


def test_the_neuron_example_says_what_its_code_does():
    text = (ROOT / "examples" / "neuron.sad").read_text(encoding="utf-8")
    comments = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    code = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    assert "`mean`" not in comments or "mean(" in code


def test_help_says_what_quiet_shows():
    shown = subprocess.run([str(COMMAND), "--help"], capture_output=True, text=True, check=True).stdout
    quiet = " ".join(shown.split("\n  --quiet", 1)[1].split("\n  -")[0].split())
    for word in ("print", "graph", "gradcheck", "draw", "explain", "paths", "walk", "errors"):
        assert word in quiet, quiet
