"""The README's commands and its sample program stay true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sessions import script_output
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
    assert script_output(program, "fit_line.sad") == (0, shown)


def _names_blocks() -> tuple[str, str]:
    program = next(block for block in _blocks() if block.startswith("# A character-level language model"))
    shown = next(block for block in _blocks() if block.startswith("600 names,"))
    return program, shown


def test_readme_language_model_is_the_example_and_shows_its_golden_output():
    program, shown = _names_blocks()
    assert program == (ROOT / "examples" / "names.sad").read_text(encoding="utf-8")
    golden = (ROOT / "examples" / "names.out").read_text(encoding="utf-8")
    assert golden == shown + "[exit status 0]\n"  # the golden item (slow run) checks the run itself


@pytest.mark.slow  # 100 training steps: about 6 s
def test_readme_language_model_prints_what_the_readme_shows():
    program, shown = _names_blocks()
    source = Source(str(ROOT / "examples" / "names.sad"), program, folder=str(ROOT / "examples"))
    assert script_output(source) == (0, shown)


def test_readme_sample_program_prints_what_the_readme_shows():
    program = next(block for block in _blocks() if block.startswith("# first.sad"))
    shown = next(block for block in _blocks() if block.startswith("backward from loss"))
    assert script_output(program, "first.sad") == (1, shown)


def test_readme_chain_rule_program_prints_what_the_readme_shows():
    program = next(block for block in _blocks() if block.startswith("# chain.sad"))
    shown = next(block for block in _blocks() if block.startswith("x: pass adjoint in pass 2"))
    assert script_output(program, "chain.sad") == (0, shown)
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


# What the README's test command may skip on a fresh machine (issue 26, item 8): what pip cannot
# install (Graphviz), the notebook extra, and file modes that root ignores; everything else
# the tests import comes with `pip install -e '.[test]'`.
NOTEBOOK_MODULES = {"IPython": "ipython", "ipykernel": "ipykernel", "nbclient": "nbclient", "nbformat": "nbformat"}


def _extra(name: str) -> set[str]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = project["optional-dependencies"][name]
    return {re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower() for requirement in requirements}


def test_the_test_extra_installs_every_module_the_tests_skip_without_but_the_notebook_s():
    import sys

    test, notebook = _extra("test"), _extra("notebook")
    skipped_without = set()
    for path in (ROOT / "tests").glob("*.py"):
        skipped_without |= set(re.findall(r"importorskip\(\"([A-Za-z0-9_.]+)\"", path.read_text(encoding="utf-8")))
    assert {"numpy", "micrograd", "IPython"} <= skipped_without
    for module in sorted(skipped_without):
        if module in sys.stdlib_module_names:
            continue
        if module in NOTEBOOK_MODULES:
            assert NOTEBOOK_MODULES[module] in notebook, module
        else:
            assert module.split(".")[0].lower() in test, f"{module}: a fresh `pip install -e '.[test]'` would skip its tests"


def test_the_readme_says_what_the_test_command_skips_and_how_to_run_it():
    after_commands = README.split("```", 2)[2].split("\n## ", 1)[0]
    skips = next(paragraph for paragraph in after_commands.split("\n\n") if "skip" in paragraph)
    flat = " ".join(skips.split())
    for needed in ("`python -m pytest -q -rs`", "Graphviz", "`apt install graphviz`",
                   "notebook extra", "`pip install -e '.[test,notebook]'`", "`slow`", "`chromium`"):
        assert needed in flat, needed
    # The test command runs the suite on every core and one worker more (pytest-xdist, in the
    # `test` extra; conftest.py's pytest_xdist_auto_num_workers). Measured on two idle cores
    # (2026-12-06, issue 41 item 7): 4,700 tests in 71-72 s with three workers, 77 s with two.
    assert "&& python -m pytest -q -n auto\n" in README.split("```", 2)[1]
    flat_readme = " ".join(README.split())
    assert ("in parallel (pytest-xdist's `-n auto`, a process per core and one more: about 70 s on an idle"
            " two-core machine,") in flat_readme


def test_readme_golden_example_is_what_scalarlang_test_writes_and_shows(tmp_path, monkeypatch, capsys):
    # "Keeping exercises honest": the program and its golden (both blocks of the README), the
    # command's verdict, and its report of the change the README describes.
    from scalarlang.front import cli

    section = README.split("## Keeping exercises honest", 1)[1].split("\n## ", 1)[0]
    program, golden, failure = re.findall(r"```[a-z]*\n(.*?)```", section, flags=re.DOTALL)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "reuse.sad").write_text(program, encoding="utf-8")
    assert cli.main(["test", "--update", "exercises/reuse.sad"]) == 0
    assert (tmp_path / "exercises" / "reuse.out").read_text(encoding="utf-8") == golden
    capsys.readouterr()
    assert cli.main(["test", "exercises"]) == 0
    assert capsys.readouterr().out == "1 passed, 0 failed\n"
    old, new = "expect untracked-output: backward(const 1)", "expect untracked-output: backward(y, inf)"
    assert f"`{new}`" in " ".join(section.split())  # the change the README describes
    (tmp_path / "exercises" / "reuse.sad").write_text(program.replace(old, new), encoding="utf-8")
    assert cli.main(["test", "exercises"]) == 1
    assert capsys.readouterr().out == failure


def test_the_readme_summary_names_every_built_in():
    """The paragraph after "The statements:" names every built-in of the registry and every
    keyword of the grammar (read from them: a new one missing here fails this test)."""
    from scalarlang.interpreter.library.registry import builtin_names
    from scalarlang.language.lexicon import KEYWORDS

    summary = README.split("\nThe statements:\n", 1)[1].split("\n\n", 1)[0]
    words = set(re.findall(r"[a-z_]+", summary))
    assert [name for name in builtin_names() if name not in words] == []
    assert sorted(keyword for keyword in KEYWORDS if keyword not in words) == []
