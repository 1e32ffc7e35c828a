"""docs/testing.md's CI recipe works as written (issue 45, item 9: it said `pip install
scalarlang`, which no package index has). Quick: the recipe's text names the wheel that
`python -m build --wheel` makes. Slow: its commands run, in order, in temporary folders: the
wheel is built from a copy of this checkout and copied into a course's `tools/`, then the CI
steps install it into a fresh virtual environment and `scalarlang test exercises` passes."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import scalarlang

ROOT = Path(__file__).resolve().parents[1]
WHEEL = f"scalarlang-{scalarlang.__version__}-py3-none-any.whl"


def recipe() -> tuple[list[str], list[str], str]:
    """The shell block's commands (building the wheel), the GitHub Actions `run:` steps, and
    the one line for any other CI, from docs/testing.md's "In CI"."""
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    section = text[text.index("## In CI") :]
    section = section[: section.find("\n## ", 1) if "\n## " in section[1:] else len(section)]
    shell = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    yaml = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    other = re.search(r"GitLab CI or any other: `([^`]*)`", section)
    assert shell and yaml and other, "the recipe's blocks are not where they were"
    build = [line for line in shell.group(1).splitlines() if line.strip() and not line.startswith("#")]
    steps = [line.split("run:", 1)[1].strip() for line in yaml.group(1).splitlines() if line.startswith("- run:")]
    return build, steps, other.group(1)


def test_the_recipe_installs_the_wheel_that_build_makes_not_a_package_no_index_has():
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    assert not re.search(r"pip install scalarlang(?:\s|$|`)", text.replace("`pip install scalarlang` finds no", ""))
    build, steps, other = recipe()
    assert build[0] == "python -m build --wheel --outdir dist"
    copied = build[1].split()
    assert copied[0] == "cp" and fnmatch.fnmatch(WHEEL, copied[1].removeprefix("dist/"))
    install = steps[0].split()
    assert install[:2] == ["pip", "install"] and fnmatch.fnmatch(WHEEL, install[2].removeprefix("tools/"))
    assert copied[2].endswith("/tools/")  # where the CI step looks for it
    assert steps[1] == "scalarlang test exercises"
    assert other == " && ".join(steps)


def _bash(command: str, cwd: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = path
    result = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{command} exited {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.mark.slow
def test_the_recipes_commands_build_install_and_test_a_course(tmp_path):
    build, steps, _ = recipe()
    checkout, course = tmp_path / "scalarlang", tmp_path / "course"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True).stdout.split("\0")
    if not any(tracked):
        pytest.skip("needs a git checkout to copy")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    exercises = course / "exercises"
    exercises.mkdir(parents=True)
    (course / "tools").mkdir()
    for name in ("reused_square", "chain_rule"):
        for suffix in (".sad", ".out"):
            shutil.copy2(ROOT / "examples" / (name + suffix), exercises / (name + suffix))

    here = f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin"  # `python`: one with build
    for command in build:
        _bash(command, checkout, here)
    assert [path.name for path in (course / "tools").iterdir()] == [WHEEL]

    venv = tmp_path / "ci-venv"  # the CI's Python: nothing installed but what the steps install
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    ci_path = f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"
    results = [_bash(step, course, ci_path) for step in steps]
    assert results[-1].stdout.rstrip().splitlines()[-1] == "2 passed, 0 failed"
