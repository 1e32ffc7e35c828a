"""The pytest plugin (issue 34), through pytester: pytest run on projects these tests make.

The plugin comes from the installed entry point (``pytest11``), as in any project where
scalarlang is installed. Outputs print no formatted numbers.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import pytest

import scalarlang
from scalarlang.front import cli

UNTRACKED = 'print "before"\nbackward(const 1)\n'


@pytest.fixture(scope="module", autouse=True)
def every_module_imported_before():
    """pytester's in-process runs remove the modules first imported during a run: a module of
    scalarlang's imported late (on an error's path, say) would come back as a second copy in
    the next run, whose exception classes the first copy's code does not catch. Imported once
    here, they are kept (what a real pytest run, one process, never meets)."""
    for module in pkgutil.walk_packages(scalarlang.__path__, "scalarlang."):
        if not module.name.endswith("__main__"):
            try:
                importlib.import_module(module.name)
            except ImportError:  # an optional extra (the notebook's IPython)
                pass


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with two exercises with goldens (one out of date), one without a golden, a
    Python test, and no plugin settings."""
    pytester.makepyfile(test_python="def test_python():\n    assert True\n")
    folder = pytester.mkdir("exercises")
    (folder / "hello.sad").write_text('print "hello"\n', encoding="utf-8")
    (folder / "hello.out").write_text("hello\n[exit status 0]\n", encoding="utf-8")
    (folder / "stale.sad").write_text('print "{len([1, 2])} items"\n', encoding="utf-8")
    (folder / "stale.out").write_text("3 items\n[exit status 0]\n", encoding="utf-8")
    (folder / "draft.sad").write_text('print "draft"\n', encoding="utf-8")
    return pytester


def test_off_unless_asked_the_plugin_changes_nothing(project):
    with_plugin = project.runpytest("-v")
    without = project.runpytest("-v", "-p", "no:scalarlang")
    with_plugin.assert_outcomes(passed=1)
    without.assert_outcomes(passed=1)
    for result in (with_plugin, without):
        assert [line.split()[:2] for line in result.outlines if "::" in line] == [["test_python.py::test_python", "PASSED"]]


def test_sad_collects_each_program_with_a_golden_as_an_item_named_by_its_path(project):
    result = project.runpytest("--sad", "--collect-only", "-q")
    assert sorted(line for line in result.outlines if "::" in line) == [
        "exercises/hello.sad::hello.sad",
        "exercises/stale.sad::stale.sad",
        "test_python.py::test_python",
    ]


def test_a_failure_shows_the_diff_scalarlang_test_shows(project, capsys, monkeypatch):
    result = project.runpytest("--sad")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == 1
    monkeypatch.chdir(project.path)
    capsys.readouterr()
    assert cli.main(["test", "exercises"]) == 1
    command = capsys.readouterr().out.splitlines()
    diff = command[1:command.index("1 program without a golden not tested (-v lists them)")]
    assert diff[0] == "exercises/stale.out:1: first difference" and "-3 items" in diff and "+2 items" in diff
    text = result.stdout.str()
    assert "exercises/stale.sad: the output differs\n" + "\n".join(diff) + "\n" in text
    assert "FAILED exercises/stale.sad::stale.sad" in text


def test_the_ini_setting_turns_it_on_and_k_selects(project):
    project.makeini("[pytest]\nsad_goldens = true\n")
    result = project.runpytest("-v", "-k", "hello")
    result.assert_outcomes(passed=1, deselected=2)
    assert "exercises/hello.sad::hello.sad PASSED" in result.stdout.str()


def test_sad_update_writes_the_goldens_and_says_which_changed(project):
    result = project.runpytest("--sad-update")
    result.assert_outcomes(passed=3)
    assert "updated exercises/stale.out" in result.outlines
    assert "updated exercises/hello.out" not in result.outlines
    assert (project.path / "exercises" / "stale.out").read_text(encoding="utf-8") == "2 items\n[exit status 0]\n"
    assert not (project.path / "exercises" / "draft.out").exists()
    project.runpytest("--sad").assert_outcomes(passed=3)


def test_a_program_named_on_the_command_line_without_a_golden(project):
    result = project.runpytest("--sad", "exercises/draft.sad")
    result.assert_outcomes(failed=1)
    assert "pytest --sad-update exercises/draft.sad writes it" in result.stdout.str()
    project.runpytest("--sad-update", "exercises/draft.sad").assert_outcomes(passed=1)
    assert (project.path / "exercises" / "draft.out").read_text(encoding="utf-8") == "draft\n[exit status 0]\n"


def test_errors_timeouts_and_the_programs_folder(pytester):
    pytester.makeini("[pytest]\nsad_goldens = true\nsad_timeout = 0.3\n")
    folder = pytester.mkdir("with spaces")
    (folder / "untracked.sad").write_text(UNTRACKED, encoding="utf-8")
    (folder / "endless.sad").write_text("repeat 1000 { repeat 1000 { repeat 10 { let a = 1 } } }\n", encoding="utf-8")
    (folder / "endless.out").write_text("[exit status 0]\n", encoding="utf-8")
    pytester.runpytest("--sad-update", "with spaces/untracked.sad").assert_outcomes(passed=1)
    golden = (folder / "untracked.out").read_text(encoding="utf-8")
    assert " --> untracked.sad:2:10" in golden and golden.endswith("[exit status 1]\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=1)
    assert "with spaces/endless.sad: timed out after 0.3 s" in result.stdout.str()


def test_a_bad_ini_number_is_a_usage_error(project):
    project.makeini("[pytest]\nsad_goldens = true\nsad_timeout = soon\n")
    result = project.runpytest()
    assert "sad_timeout = 'soon' is not a number" in result.stdout.str() + result.stderr.str()
    assert result.ret != 0


def test_the_plugin_module_imports_nothing_heavy(tmp_path):
    # pytest imports it in every run where scalarlang is installed; a run without .sad tests
    # must not pay for the interpreter, lark or rich.
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    pass\n", encoding="utf-8")
    record = tmp_path / "modules.json"
    (tmp_path / "conftest.py").write_text(
        "import json, sys\n"
        "def pytest_sessionfinish(session):\n"
        f"    open({str(record)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n",
        encoding="utf-8",
    )
    # (the other installed plugins left out: what they import is not in question, and the
    # hypothesis plugin alone triples this run's 0.3 s)
    others = ("-p", "no:hypothesispytest", "-p", "no:xdist", "-p", "no:platformdirs")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *others, str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    modules = set(json.loads(record.read_text(encoding="utf-8")))
    assert "scalarlang.front.pytest_plugin" in modules
    heavy = {"scalarlang.interpreter.core", "scalarlang.engine.scalar", "scalarlang.front.goldens", "lark", "rich"}
    assert not heavy & modules
