"""The distributions: the wheel holds the grammar and ``py.typed``, installs into a fresh virtual
environment and runs a program there; the sdist holds what its own tests need and they pass
from the unpacked sdist (installed as the README says). Slow: it builds, makes a venv and runs
some of the quick tests there. (The symlink check is quick.)"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import scalarlang

ROOT = Path(__file__).resolve().parents[1]
SDIST_TESTS = [
    "tests/test_golden.py", "tests/test_readme.py", "tests/test_demo.py", "tests/test_cli.py",
    "tests/test_golden_command_e2e.py", "tests/test_parser.py",
]



def test_no_symlink_in_the_repository_and_the_checkout_finds_its_grammar():
    tracked = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True).stdout
    assert not [line for line in tracked.splitlines() if line.startswith("120000")]  # git's symlink mode
    from scalarlang.language.parser import GRAMMAR_PATH

    assert GRAMMAR_PATH.read_bytes() == (ROOT / "grammars" / "scalarlang.lark").read_bytes()


def _run(*args: str | Path, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run(
        [str(arg) for arg in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, f"{args} exited {result.returncode}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


def test_the_minimum_constraints_pin_every_dependency_at_its_floor():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    printed = _run(sys.executable, ROOT / ".ci" / "min_constraints.py", cwd=ROOT).stdout.split()
    assert len(printed) == len(requirements)
    for pin, requirement in zip(printed, requirements):
        name, version = pin.split("==")
        assert requirement.startswith(name) and f">={version}" in requirement


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--outdir", out, ROOT, cwd=ROOT)
    (wheel,) = out.glob("scalarlang-*.whl")
    (sdist,) = out.glob("scalarlang-*.tar.gz")
    return wheel, sdist


@pytest.mark.slow
def test_the_wheel_holds_the_grammar_py_typed_the_licence_and_one_version(dists):
    wheel, _ = dists
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"scalarlang-{scalarlang.__version__}.dist-info"
        metadata = Parser().parsestr(archive.read(f"{info}/METADATA").decode())
    assert {"scalarlang/grammars/scalarlang.lark", "scalarlang/py.typed", f"{info}/licenses/LICENSE"} <= names
    assert (ROOT / "grammars" / "scalarlang.lark").read_bytes() == zipfile.ZipFile(wheel).read(
        "scalarlang/grammars/scalarlang.lark"
    )
    assert metadata["Version"] == scalarlang.__version__
    assert metadata["License-Expression"] == "MIT"
    assert not any(name.startswith(("tests/", "examples/", "grammars/")) for name in names)


@pytest.mark.slow
def test_the_sdist_holds_what_its_tests_need(dists):
    _, sdist = dists
    top = sdist.name.removesuffix(".tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.removeprefix(top + "/") for name in archive.getnames()}
    tracked = subprocess.run(
        ["git", "ls-files", "tests", "examples", "grammars", "docs", "playground"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    if not tracked:  # not a git checkout (e.g. this very test run from an unpacked sdist)
        pytest.skip("needs a git checkout to list the tracked files")
    missing = {name for name in tracked if name not in names}
    assert not missing
    assert {"README.md", "LICENSE", "pyproject.toml", ".ci/run", "grammars/scalarlang.lark"} <= names
    assert not any("__pycache__" in name for name in names)


@pytest.mark.slow
def test_the_wheel_runs_in_a_fresh_venv_and_the_sdist_passes_the_tests_of_what_it_carries(dists, tmp_path):
    wheel, sdist = dists
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "--quiet", wheel, cwd=tmp_path)

    printed = _run(venv / "bin" / "scalarlang", "-c", "print 1", cwd=tmp_path)
    assert printed.stdout == "1\n"
    where = _run(python, "-c", "import scalarlang.language.parser as s; print(s.GRAMMAR_PATH)", cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(venv)  # the installed copy, not the checkout

    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    unpacked = tmp_path / sdist.name.removesuffix(".tar.gz")
    _run(python, "-m", "pip", "install", "--quiet", "-e", ".[test]", cwd=unpacked)
    # Tests that read what the sdist must carry (the grammar, the examples and their goldens,
    # the README's programs, the demo's text) and run its installed command; the whole suite
    # would repeat the default run (test_the_sdist_holds_what_its_tests_need checks the rest).
    tests = _run(python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *SDIST_TESTS, cwd=unpacked)
    assert " passed" in tests.stdout and " failed" not in tests.stdout
