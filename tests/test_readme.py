"""The README's commands and its sample program stay true."""

from __future__ import annotations

import io
import re
from pathlib import Path

from scalarlang.front.runner import ScriptOutput
from scalarlang.language.source import Source

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks() -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)```", README, flags=re.DOTALL)


def _commands(block: str) -> list[str]:
    """The shell commands of a block, a line ending in `\\` joined to the next."""
    return block.replace("\\\n", " ").strip().splitlines()


def test_readme_starts_with_the_two_commands():
    block = _blocks()[0]
    assert all(len(line) <= 80 for line in block.splitlines()), "the first commands fit in 80 columns"
    first = _commands(block)
    assert len(first) == 2
    install_and_run, install_and_test = first
    assert "pip install" in install_and_run and "scalarlang examples/" in install_and_run
    example = install_and_run.split("scalarlang ")[-1].strip()
    assert (ROOT / example).exists()
    assert "pip install" in install_and_test and "pytest" in install_and_test
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[test]'" in ci and "python -m pytest" in ci


def test_readme_training_program_is_the_example_and_prints_its_output():
    example = ROOT / "examples" / "fit_line.sad"
    program = next(block for block in _blocks() if block.startswith("# fit y = 2x + 1"))
    assert program in example.read_text(encoding="utf-8")
    shown = next(block for block in _blocks() if block.startswith("step 0 loss"))
    stream = io.StringIO()
    status = ScriptOutput(stream, stream, width=100, color="never").run(Source("fit_line.sad", program))
    assert status == 0
    assert stream.getvalue() == shown


def test_readme_sample_program_prints_what_the_readme_shows():
    program = next(block for block in _blocks() if block.startswith("# first.sad"))
    shown = next(block for block in _blocks() if block.startswith("backward from loss"))
    stream = io.StringIO()
    status = ScriptOutput(stream, stream, width=100, color="never").run(Source("first.sad", program))
    assert status == 1
    assert stream.getvalue() == shown


def test_readme_chain_rule_program_prints_what_the_readme_shows():
    program = next(block for block in _blocks() if block.startswith("# chain.sad"))
    shown = next(block for block in _blocks() if block.startswith("x: pass adjoint in pass 2"))
    stream = io.StringIO()
    status = ScriptOutput(stream, stream, width=100, color="never").run(Source("chain.sad", program))
    assert status == 0
    assert stream.getvalue() == shown
    example = (ROOT / "examples" / "chain_rule.sad").read_text(encoding="utf-8")
    assert all(line in example for line in program.splitlines()[1:4])  # the same graph


def test_readme_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
    assert len(blocks) >= 2
    for block in blocks:
        namespace: dict = {}
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own README
        if "session" in namespace:
            assert namespace["session"]["x"].gradient == 5.0
