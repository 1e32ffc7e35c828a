"""`scalarlang test` end to end (issue 34): the installed command, as a subprocess, on a folder
this test makes with each of the issue's cases; tests/test_golden_command.py has the details,
in-process. The programs print no formatted numbers, so the number format does not matter.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from commands import COMMAND, ROOT

ENDLESS = "repeat 1000 { repeat 1000 { repeat 10 { let a = 1 } } }\n"
UNTRACKED = 'print "before"\nbackward(const 1)\n'

pytestmark = pytest.mark.skipif(not COMMAND.exists(), reason=f"{COMMAND} is not installed")


def scalarlang(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "FORCE_COLOR")}
    return subprocess.run(
        [str(COMMAND), *args], cwd=cwd, capture_output=True, timeout=120,
        env={**environment, "PYTHONIOENCODING": "utf-8"},
    )


def lines(result: subprocess.CompletedProcess) -> list[str]:
    return result.stdout.decode("utf-8").splitlines()


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """`course/week 1/`: one program for each case, its golden written by `--update` and then,
    for the failing ones, changed as the case says."""
    root = tmp_path_factory.mktemp("course")
    week = root / "week 1"
    week.mkdir()
    programs = {
        "passes": 'print "fine"\n',
        "value": 'print "{len([1, 2])} items"\n',
        "missing_line": 'print "a"\nprint "b"\n',
        "status": UNTRACKED,
        "stderr": UNTRACKED,
        "syntax": 'print "x"\nlet =\n',
        "timeout": ENDLESS,
        "ünïcödé": 'print "→ ✓ 日本"\n',
        "crlf": 'print "one"\nprint "two"\n',
    }
    for name, text in programs.items():
        (week / f"{name}.sad").write_text(text, encoding="utf-8")
    (week / "draft.sad").write_text('print "no golden yet"\n', encoding="utf-8")
    named = [f"week 1/{name}.sad" for name in programs if name != "timeout"]
    result = scalarlang("test", "--update", *named, cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    (week / "timeout.out").write_text("[exit status 0]\n", encoding="utf-8")

    def change(name: str, old: str, new: str) -> None:
        golden = week / f"{name}.out"
        text = golden.read_text(encoding="utf-8")
        assert old in text
        golden.write_text(text.replace(old, new, 1), encoding="utf-8")

    change("value", "2 items", "3 items")
    change("missing_line", "a\n", "a\nin between\n")
    change("status", "[exit status 1]", "[exit status 0]")
    change("stderr", "cannot backpropagate", "may not backpropagate")
    golden = week / "crlf.out"
    golden.write_bytes(golden.read_bytes().replace(b"\n", b"\r\n"))
    return root


def test_every_case_of_the_issue_through_the_command(course):
    result = scalarlang("test", "-v", "--timeout", "0.5", cwd=course)
    assert result.returncode == 1 and result.stderr == b""
    shown = lines(result)
    verdicts = [line for line in shown if line.startswith(("passed ", "FAILED ", "ignored "))]
    assert verdicts == [
        "passed week 1/crlf.sad",
        "FAILED week 1/missing_line.sad: the output differs",
        "passed week 1/passes.sad",
        "FAILED week 1/status.sad: exit status 1, the golden says 0",
        "FAILED week 1/stderr.sad: the output differs",
        "passed week 1/syntax.sad",
        "FAILED week 1/timeout.sad: timed out after 0.5 s",
        "FAILED week 1/value.sad: the output differs",
        "passed week 1/ünïcödé.sad",
        "ignored week 1/draft.sad: no golden week 1/draft.out",
    ]
    assert shown[-1] == "4 passed, 5 failed"
    assert "week 1/missing_line.out:2: first difference" in shown
    assert "-in between" in shown
    assert "week 1/value.out:1: first difference" in shown and "-3 items" in shown and "+2 items" in shown
    assert "-error[untracked-output]: may not backpropagate from untracked constant output" in shown
    syntax = (course / "week 1" / "syntax.out").read_text(encoding="utf-8")
    assert " --> syntax.sad:2:" in syntax and syntax.endswith("[exit status 2]\n")
    assert not any("\x1b[" in line for line in shown)  # piped: no colour


def test_update_k_and_x_through_the_command(course, tmp_path):
    # A copy, so that the other test sees the goldens as the fixture made them.
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(course), str(copy)], check=True)
    before = {path.name: path.read_bytes() for path in (copy / "week 1").glob("*.out")}
    result = scalarlang("test", "--update", "-k", "VALUE", "-k", "crlf", "week 1", cwd=copy)
    assert (result.returncode, lines(result)) == (0, ["updated week 1/value.out", "1 updated, 1 unchanged"])
    after = {path.name: path.read_bytes() for path in (copy / "week 1").glob("*.out")}
    assert after.pop("value.out") == b"2 items\n[exit status 0]\n"
    before.pop("value.out")
    assert after == before
    result = scalarlang("test", "-x", "-k", "value", "-k", "missing", ".", cwd=copy)
    assert result.returncode == 1 and lines(result)[0] == "FAILED week 1/missing_line.sad: the output differs"
    assert lines(result)[-2:] == ["stopped at the first failure (-x): 1 program not run", "0 passed, 1 failed"]


def test_json_and_usage_errors_through_the_command(course):
    result = scalarlang("test", "--json", "-k", "passes", "-k", "value", cwd=course)
    events = [json.loads(line) for line in lines(result)]
    assert result.returncode == 1
    assert [(event["event"], event.get("file"), event.get("result")) for event in events] == [
        ("start", None, None),
        ("program", "week 1/passes.sad", "passed"),
        ("program", "week 1/value.sad", "failed"),
        ("summary", None, None),
    ]
    assert scalarlang("test", "no such folder", cwd=course).returncode == 2
    assert scalarlang("test", "-k", "nothing like it", cwd=course).returncode == 2


def test_the_examples_pass_and_ci_runs_them():
    result = scalarlang("test", "-k", "reused_square", "-k", "errors", "examples", cwd=ROOT)
    assert (result.returncode, lines(result)) == (0, ["2 passed, 0 failed"])
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # (with a timeout longer than the default 60 s: names_tensor.sad trains for about a minute)
    assert " scalarlang test --timeout 600 examples" in ci


def test_a_script_named_test_and_the_other_forms_of_the_command_still_work(tmp_path):
    (tmp_path / "test").write_text('print "a program called test"\n', encoding="utf-8")
    assert lines(scalarlang("./test", cwd=tmp_path)) == ["a program called test"]
    result = scalarlang("test", cwd=tmp_path)
    assert result.returncode == 2 and b"scalarlang ./test" in result.stderr
    assert lines(scalarlang("-c", 'print "c"', cwd=tmp_path)) == ["c"]
    assert scalarlang("--demo", cwd=tmp_path).returncode == 0
    assert b"scalarlang test [PATH ...]" in scalarlang("--help", cwd=tmp_path).stdout
