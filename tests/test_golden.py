"""Golden files: each examples/NAME.sad has NAME.out, its exact text output (stdout then
stderr, as one stream) and exit status line. ``pytest --update-golden`` rewrites them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from scalarlang.front.runner import ScriptOutput, read_source

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.sad"))


def render_example(path: Path) -> str:
    """What `scalarlang examples/NAME.sad` prints, both streams in order, and its status."""
    stream = io.StringIO()
    output = ScriptOutput(stream, stream, width=100, color="never")
    status = output.run(read_source(str(path.relative_to(ROOT))))
    return stream.getvalue() + f"[exit status {status}]\n"


def test_examples_exist():
    names = {path.stem for path in EXAMPLES}
    required = {"reused_square", "detach", "nonlinear", "gradcheck", "errors", "next_token", "predictions", "fit_line", "neuron", "xor"}
    assert required <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_example_matches_golden(path: Path, request, monkeypatch):
    monkeypatch.chdir(ROOT)
    actual = render_example(path)
    golden = path.with_suffix(".out")
    if request.config.getoption("--update-golden"):
        golden.write_text(actual, encoding="utf-8")
        return
    assert golden.exists(), f"{golden.name} is missing: run pytest --update-golden and review it"
    assert actual == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_example_output_fits_the_width(path: Path, monkeypatch):
    monkeypatch.chdir(ROOT)
    for line in render_example(path).splitlines():
        assert len(line) <= 100, line
        assert line == line.rstrip(), f"trailing whitespace: {line!r}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_example_succeeds(path: Path, monkeypatch):
    # The examples are lessons, not failure demos: each runs to the end.
    monkeypatch.chdir(ROOT)
    assert render_example(path).endswith("[exit status 0]\n")
