"""The examples' golden files: each examples/NAME.sad has NAME.out, its exact text output
(stdout then stderr, as one stream) and exit status line.

The comparison itself is not here: scalarlang's pytest plugin collects each example as a test
item (pyproject: `testpaths` has examples/, `sad_goldens = true`), the same code as
`scalarlang test examples` (`.ci/run` runs that too). `pytest --update-golden` (or the
plugin's `--sad-update`) rewrites them. What follows holds of the goldens themselves, so it
reads them instead of running the programs again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scalarlang.front.goldens import expected_status, find_programs, read_golden

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.sad"))


def test_examples_exist():
    names = {path.stem for path in EXAMPLES}
    required = {"reused_square", "detach", "nonlinear", "gradcheck", "errors", "next_token", "predictions", "fit_line", "neuron", "xor"}
    assert required <= names


def test_every_example_has_a_golden_so_the_plugin_tests_it():
    # A missing golden would make the example a program the plugin ignores: it fails here.
    found = find_programs([str(ROOT / "examples")])
    assert not found.ignored, [program.name for program in found.ignored]
    assert sorted(program.path.name for program in found.tested) == sorted(path.name for path in EXAMPLES)


def test_this_project_runs_the_plugin_on_the_examples(pytestconfig):
    assert pytestconfig.pluginmanager.has_plugin("scalarlang"), "pip install -e . registers the plugin"
    assert pytestconfig.getini("sad_goldens") is True
    assert "examples" in pytestconfig.getini("testpaths")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_example_output_fits_the_width(path: Path):
    for line in read_golden(path.with_suffix(".out")).splitlines():
        assert len(line) <= 100, line
        assert line == line.rstrip(), f"trailing whitespace: {line!r}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_example_succeeds(path: Path):
    # The examples are lessons, not failure demos: each runs to the end.
    assert expected_status(read_golden(path.with_suffix(".out"))) == 0


def test_the_neuron_example_says_what_its_code_does():
    text = (ROOT / "examples" / "neuron.sad").read_text(encoding="utf-8")
    comments = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    code = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    assert "`mean`" not in comments or "mean(" in code
