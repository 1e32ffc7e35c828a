"""`scalarlang test` (issue 34): every FILE.sad with a golden FILE.out, run and compared.

Each test makes its own folder of programs. Their outputs print no formatted numbers (texts,
counts, error messages), so a change of the number format changes nothing here; a golden is
either written out by hand (`hello\\n[exit status 0]\\n`) or taken from the real command,
`scalarlang FILE.sad` run in the program's folder, which is the oracle of what `--update`
writes. Most cases run the command in this process (`cli.main`, the code the console script
runs); `tests/test_golden_command_e2e.py` runs the installed command on the issue's cases.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from commands import COMMAND
from scalarlang.front import cli
from scalarlang.front.golden_runs import Deadline, TimedOut, run_in_subprocess, run_program

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Ten million statements: the interpreter's limit stops it after many seconds; a timeout of a
# fraction of a second must stop it first (a run that was not interrupted ends in that error).
ENDLESS = "print \"started\"\nrepeat 1000 { repeat 1000 { repeat 10 { let a = 1 } } }\nprint \"finished\"\n"
UNTRACKED = "print \"before\"\nbackward(const 1)\nprint \"never\"\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def command_output(program: Path) -> str:
    """The oracle: what `scalarlang NAME` prints in the program's folder (both streams, in
    order) and its exit status line."""
    result = subprocess.run(
        [str(COMMAND), program.name], cwd=program.parent, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, timeout=60, env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    return result.stdout.decode("utf-8") + f"[exit status {result.returncode}]\n"


def run_command(capsys, *args: str) -> tuple[int, str, str]:
    status = cli.main(["test", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    """A folder with spaces in its name, and the tests run from its parent."""
    monkeypatch.chdir(tmp_path)
    return tmp_path / "exercises with spaces"


# ---- passing -------------------------------------------------------------------------------------


def test_programs_that_print_their_goldens_pass(folder, capsys):
    write(folder / "hello.sad", 'print "hello"\n')
    write(folder / "hello.out", "hello\n[exit status 0]\n")
    write(folder / "week 2" / "expect.sad", "expect untracked-output: backward(const 1)\n")
    write(folder / "week 2" / "expect.out",
          "expected untracked-output: cannot backpropagate from untracked constant output\n[exit status 0]\n")
    status, out, err = run_command(capsys, folder.name)
    assert (status, out, err) == (0, "2 passed, 0 failed\n", "")
    status, out, _ = run_command(capsys, "-v", folder.name)
    assert out.splitlines() == [
        "passed exercises with spaces/hello.sad",
        "passed exercises with spaces/week 2/expect.sad",
        "2 passed, 0 failed",
    ]


def test_the_current_folder_is_the_default(folder, capsys, monkeypatch):
    write(folder / "hello.sad", 'print "hello"\n')
    write(folder / "hello.out", "hello\n[exit status 0]\n")
    monkeypatch.chdir(folder)
    assert run_command(capsys, "-v")[1].splitlines() == ["passed hello.sad", "1 passed, 0 failed"]


def test_the_golden_is_what_the_command_prints_in_the_program_s_folder(folder, capsys):
    # Standard output and error as one stream in order, the status line; errors name the
    # file as `scalarlang FILE.sad` does from its folder, wherever the tests start.
    programs = [
        write(folder / "errors" / "untracked.sad", UNTRACKED),
        write(folder / "syntax.sad", 'print "one"\nlet y =\n'),
        write(folder / "ünï cödé.sad", 'print "héllo → ✓ 日本"\n'),
    ]
    status, out, _ = run_command(capsys, "--update", *(str(program) for program in programs))
    assert status == 0
    for program in programs:
        golden = program.with_suffix(".out").read_text(encoding="utf-8")
        assert golden == command_output(program)
        assert str(folder) not in golden and folder.name not in golden
    untracked = (folder / "errors" / "untracked.out").read_text(encoding="utf-8")
    assert untracked.startswith("before\nerror[untracked-output]") and " --> untracked.sad:2:10\n" in untracked
    assert untracked.endswith("[exit status 1]\n") and "never" not in untracked
    syntax = (folder / "syntax.out").read_text(encoding="utf-8")
    assert "error[syntax-error]" in syntax and " --> syntax.sad:2:" in syntax and syntax.endswith("[exit status 2]\n")
    assert "one" not in syntax  # a syntax error: nothing ran
    assert (folder / "ünï cödé.out").read_text(encoding="utf-8") == "héllo → ✓ 日本\n[exit status 0]\n"
    # And they pass, from another folder too.
    assert run_command(capsys, folder.name) == (0, "3 passed, 0 failed\n", "")


def test_a_program_reads_and_writes_files_in_its_own_folder(folder, capsys):
    write(folder / "data" / "points.csv", "1,2\n3,4\n5,6\n")
    program = write(folder / "data" / "table.sad",
                    'let rows = read_table("points.csv")\nprint "{len(rows)} rows"\ndraw(const 1, "one.dot")\n')
    write(folder / "data" / "table.out", "3 rows\ndrew const 1 to one.dot (1 unique node, 0 operand edges)\n[exit status 0]\n")
    assert run_command(capsys, folder.name)[0] == 0
    assert (program.parent / "one.dot").is_file() and not Path("one.dot").exists()
    assert Path.cwd() == folder.parent  # and the working folder is put back


def test_each_program_runs_in_a_fresh_session(folder, capsys):
    # `a` binds x and draws from the random generator; `b`, run after it in the same process,
    # has no x, and draws what `a` drew (each session's generator starts from the same seed).
    write(folder / "a.sad", 'let x = var 2\nlet draws = [uniform(0, 1) for i in 0..3]\nprint "{draws}"\n')
    write(folder / "b.sad", 'let draws = [uniform(0, 1) for i in 0..3]\nprint "{draws}"\nexpect undefined-name: x\n')
    run_command(capsys, "--update", str(folder / "a.sad"), str(folder / "b.sad"))
    a, b = ((folder / name).read_text(encoding="utf-8").splitlines() for name in ("a.out", "b.out"))
    assert a[0] == b[0] and a[0].startswith("[")
    assert b[1].startswith("expected undefined-name") and b[-1] == "[exit status 0]"


# ---- failing -------------------------------------------------------------------------------------


@pytest.fixture
def failing(folder, capsys) -> Path:
    """Programs whose goldens were right, each then changed one way: a value, a line gone, the
    exit status, standard error's text; one that still passes."""
    write(folder / "passes.sad", 'print "still fine"\n')
    write(folder / "passes.out", "still fine\n[exit status 0]\n")
    write(folder / "value.sad", 'print "answer: {len([1, 2, 3])}"\nprint "end"\n')
    write(folder / "value.out", "answer: 4\nend\n[exit status 0]\n")
    write(folder / "missing_line.sad", 'print "one"\nprint "three"\n')
    write(folder / "missing_line.out", "one\ntwo\nthree\n[exit status 0]\n")
    write(folder / "status.sad", UNTRACKED)
    write(folder / "stderr.sad", UNTRACKED)
    run_command(capsys, "--update", str(folder / "status.sad"), str(folder / "stderr.sad"))
    status_golden = folder / "status.out"
    status_golden.write_text(status_golden.read_text(encoding="utf-8").replace("[exit status 1]", "[exit status 0]"), encoding="utf-8")
    stderr_golden = folder / "stderr.out"
    text = stderr_golden.read_text(encoding="utf-8")
    assert text.count("cannot backpropagate") == 1
    stderr_golden.write_text(text.replace("cannot backpropagate", "can not backpropagate"), encoding="utf-8")
    return folder


def test_each_kind_of_change_fails_with_its_diff_and_the_line_of_its_first_difference(failing, capsys):
    status, out, err = run_command(capsys, failing.name)
    assert status == 1 and err == ""
    name = failing.name
    blocks = {block.splitlines()[0]: block.splitlines()[1:] for block in re.split(r"\n(?=FAILED )", out.rsplit("\n", 2)[0])}
    assert out.endswith("\n1 passed, 4 failed\n")
    assert blocks[f"FAILED {name}/value.sad: the output differs"] == [
        f"{name}/value.out:1: first difference",
        f"--- {name}/value.out (golden)",
        f"+++ {name}/value.sad (output now)",
        "@@ -1,3 +1,3 @@",
        "-answer: 4",
        "+answer: 3",
        " end",
        " [exit status 0]",
    ]
    assert blocks[f"FAILED {name}/missing_line.sad: the output differs"][0] == f"{name}/missing_line.out:2: first difference"
    assert blocks[f"FAILED {name}/missing_line.sad: the output differs"][4:] == [" one", "-two", " three", " [exit status 0]"]
    status_block = blocks[f"FAILED {name}/status.sad: exit status 1, the golden says 0"]
    golden_lines = (failing / "status.out").read_text(encoding="utf-8").splitlines()
    assert status_block[0] == f"{name}/status.out:{len(golden_lines)}: first difference"
    assert status_block[-2:] == ["-[exit status 0]", "+[exit status 1]"]
    stderr_block = blocks[f"FAILED {name}/stderr.sad: the output differs"]
    assert stderr_block[0] == f"{name}/stderr.out:2: first difference"
    assert [line for line in stderr_block if line[:1] in "-+" and line[:3] not in ("---", "+++")] == [
        "-error[untracked-output]: can not backpropagate from untracked constant output",
        "+error[untracked-output]: cannot backpropagate from untracked constant output",
    ]
    assert not ANSI.search(out)


def test_a_golden_without_its_last_newline_shows_it_in_the_diff(folder, capsys):
    write(folder / "a.sad", 'print "a"\n')
    (folder / "a.out").write_bytes(b"a\n[exit status 0]")
    status, out, _ = run_command(capsys, folder.name)
    assert status == 1 and f"{folder.name}/a.out:2: first difference" in out
    assert "-[exit status 0]\n\\ No newline at end of file\n+[exit status 0]\n" in out


def test_the_diff_is_coloured_when_asked(failing, capsys):
    status, out, _ = run_command(capsys, "--color", "always", "-k", "value", failing.name)
    assert status == 1 and ANSI.search(out)
    assert "-answer: 4" in ANSI.sub("", out)


def test_a_program_that_runs_too_long_fails_with_that_reason(folder, capsys):
    write(folder / "endless.sad", ENDLESS)
    write(folder / "endless.out", "started\nfinished\n[exit status 0]\n")
    write(folder / "quick.sad", 'print "quick"\n')
    write(folder / "quick.out", "quick\n[exit status 0]\n")
    status, out, _ = run_command(capsys, "-v", "--timeout", "0.3", folder.name)
    assert status == 1
    assert out.splitlines() == [
        f"FAILED {folder.name}/endless.sad: timed out after 0.3 s",
        f"passed {folder.name}/quick.sad",
        "1 passed, 1 failed",
    ]


def test_the_timeout_stops_the_program_in_this_process_where_it_is():
    # The program is interrupted, not run to its end: what it printed before is kept.
    run = run_program_text(ENDLESS, timeout=0.3)
    assert run.status is None and run.output == "started\n"


def run_program_text(text: str, **options):
    import tempfile

    with tempfile.TemporaryDirectory() as temporary:
        path = write(Path(temporary) / "program.sad", text)
        return run_program(path, **options)


def test_outside_the_main_thread_a_program_runs_as_the_command_in_a_subprocess(tmp_path):
    # (A signal timer needs the main thread: there the run is the command's own, killed at the
    # timeout.) The same text as in this process, and the timeout still holds.
    programs = {"untracked": UNTRACKED, "syntax": 'let y =\n', "endless": ENDLESS}
    paths = {name: write(tmp_path / f"{name}.sad", text) for name, text in programs.items()}
    here = {name: run_program(path, timeout=0.5 if name == "endless" else 60) for name, path in paths.items()}
    there: dict = {}
    thread = threading.Thread(
        target=lambda: there.update((name, run_program(path, timeout=0.5 if name == "endless" else 60))
                                    for name, path in paths.items()),
    )
    thread.start()
    thread.join(120)
    assert set(there) == set(programs)
    for name in ("untracked", "syntax"):
        assert (there[name].output, there[name].status) == (here[name].output, here[name].status)
        assert here[name].status in (1, 2)
    assert there["endless"].status is None and here["endless"].status is None
    assert run_in_subprocess(str(tmp_path), "syntax.sad", 100, 60).status == 2


def test_the_deadline_puts_back_the_timer_and_handler_it_found():
    calls = []
    previous = signal.signal(signal.SIGALRM, lambda *args: calls.append(args))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with Deadline(30):
            pass
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 0.5
        with pytest.raises(TimedOut):
            with Deadline(0.05):
                time.sleep(5)
        assert signal.getsignal(signal.SIGALRM) is not None and not calls
        time.sleep(0.6)
        assert len(calls) == 1  # the earlier timer still fired, once, into its own handler
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_ctrl_c_is_not_a_timeout(tmp_path):
    with pytest.raises(KeyboardInterrupt) as raised:
        with Deadline(30):
            raise KeyboardInterrupt
    assert type(raised.value) is KeyboardInterrupt
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


# ---- selecting, stopping, what is not tested -----------------------------------------------------


def test_programs_without_a_golden_are_ignored_and_listed_with_v(folder, capsys):
    write(folder / "tested.sad", 'print "t"\n')
    write(folder / "tested.out", "t\n[exit status 0]\n")
    write(folder / "draft.sad", "this is not even a program\n")
    write(folder / ".hidden" / "old.sad", 'print "old"\n')
    write(folder / ".hidden" / "old.out", "not what it prints\n")
    status, out, _ = run_command(capsys, folder.name)
    assert (status, out) == (0, "1 program without a golden not tested (-v lists them)\n1 passed, 0 failed\n")
    status, out, _ = run_command(capsys, "-v", folder.name)
    assert out.splitlines() == [
        f"passed {folder.name}/tested.sad",
        f"ignored {folder.name}/draft.sad: no golden {folder.name}/draft.out",
        "1 passed, 0 failed",
    ]


def test_a_program_named_on_the_command_line_without_a_golden_fails(folder, capsys):
    write(folder / "new.sad", 'print "new"\n')
    program = f"{folder.name}/new.sad"
    status, out, _ = run_command(capsys, program)
    assert status == 1
    assert out.splitlines() == [
        f"FAILED {folder.name}/new.sad: no golden: {folder.name}/new.out does not exist",
        f"scalarlang test --update {folder.name}/new.sad writes it (review it before you commit it)",
        "0 passed, 1 failed",
    ]
    status, out, _ = run_command(capsys, "--update", program)
    assert (status, out) == (0, f"updated {folder.name}/new.out\n1 updated, 0 unchanged\n")
    assert (folder / "new.out").read_text(encoding="utf-8") == "new\n[exit status 0]\n"


def test_k_selects_by_path_and_x_stops_at_the_first_failure(failing, capsys):
    status, out, _ = run_command(capsys, "-v", "-k", "PASS", "-k", "missing", failing.name)
    assert status == 1
    assert [line for line in out.splitlines() if line.startswith(("FAILED", "passed"))] == [
        f"FAILED {failing.name}/missing_line.sad: the output differs",
        f"passed {failing.name}/passes.sad",
    ]
    assert out.endswith("1 passed, 1 failed\n")
    status, out, _ = run_command(capsys, "-x", failing.name)
    assert status == 1 and out.count("FAILED") == 1
    assert out.endswith("stopped at the first failure (-x): 4 programs not run\n0 passed, 1 failed\n")


def test_update_writes_only_the_selected_goldens_and_says_which_changed(failing, capsys):
    before = {path.name: path.read_bytes() for path in failing.glob("*.out")}
    status, out, _ = run_command(capsys, "--update", "-k", "value", "-k", "passes", failing.name)
    assert (status, out) == (0, f"updated {failing.name}/value.out\n1 updated, 1 unchanged\n")
    after = {path.name: path.read_bytes() for path in failing.glob("*.out")}
    assert after["value.out"] == b"answer: 3\nend\n[exit status 0]\n"
    assert {name: data for name, data in after.items() if name != "value.out"} == {
        name: data for name, data in before.items() if name != "value.out"
    }
    status, out, _ = run_command(capsys, failing.name)
    assert out.endswith("2 passed, 3 failed\n")


def test_crlf_goldens_compare_equal_and_update_keeps_them_crlf(folder, capsys):
    write(folder / "crlf.sad", 'print "one"\nprint "two"\n')
    (folder / "crlf.out").write_bytes(b"one\r\ntwo\r\n[exit status 0]\r\n")
    assert run_command(capsys, folder.name)[:2] == (0, "1 passed, 0 failed\n")
    assert run_command(capsys, "--update", folder.name)[1] == "0 updated, 1 unchanged\n"
    (folder / "crlf.sad").write_text('print "one"\nprint "2"\n', encoding="utf-8")
    assert run_command(capsys, "--update", folder.name)[1] == f"updated {folder.name}/crlf.out\n1 updated, 0 unchanged\n"
    assert (folder / "crlf.out").read_bytes() == b"one\r\n2\r\n[exit status 0]\r\n"


def test_an_unreadable_golden_fails_and_a_timed_out_update_writes_nothing(folder, capsys):
    write(folder / "latin.sad", 'print "x"\n')
    (folder / "latin.out").write_bytes("caf\xe9\n".encode("latin-1"))
    write(folder / "endless.sad", ENDLESS)
    write(folder / "endless.out", "old\n")
    status, out, _ = run_command(capsys, "--timeout", "0.3", folder.name)
    assert status == 1 and f"FAILED {folder.name}/latin.sad: cannot read {folder.name}/latin.out: it is not UTF-8" in out
    status, out, _ = run_command(capsys, "--update", "--timeout", "0.3", folder.name)
    assert status == 1 and f"FAILED {folder.name}/endless.sad: timed out after 0.3 s" in out
    assert out.endswith("1 updated, 0 unchanged, 1 failed\n")
    assert (folder / "endless.out").read_text(encoding="utf-8") == "old\n"


def test_a_golden_that_cannot_be_written_fails_and_the_others_are_written(folder, capsys):
    write(folder / "a.sad", 'print "a"\n')
    (folder / "a.out").mkdir()  # (a folder: not writable as a file, even for root)
    write(folder / "b.sad", 'print "b"\n')
    status, out, _ = run_command(capsys, "--update", f"{folder.name}/a.sad", f"{folder.name}/b.sad")
    assert status == 1
    assert out.splitlines() == [
        f"FAILED {folder.name}/a.sad: cannot write {folder.name}/a.out: Is a directory",
        f"updated {folder.name}/b.out",
        "1 updated, 0 unchanged, 1 failed",
    ]


# ---- usage ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["no such folder"], "no such file or folder: no such folder"),
        (["notes.txt"], "notes.txt is not a .sad program"),
        (["empty"], "nothing to test: no FILE.sad with a golden FILE.out beside it under empty"),
        (["-k", "zzz", "."], "no program with a golden under . has 'zzz' in its path"),
        (["--timeout", "0", "."], "the timeout must be more than 0"),
        (["--width", "5", "."], "the width must be between 20 and 10000"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_usage_errors_exit_2(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "notes.txt", "")
    (tmp_path / "empty").mkdir()
    write(tmp_path / "lonely.sad", 'print "x"\n')
    status, out, err = run_command(capsys, *args)
    assert status == 2 and out == "" and message in err


def test_nothing_to_test_says_how_to_write_a_first_golden(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "lonely.sad", 'print "x"\n')
    status, _, err = run_command(capsys)
    assert status == 2
    assert err == (
        "scalarlang test: error: nothing to test: no FILE.sad with a golden FILE.out beside it under . "
        "(1 without one; `scalarlang test --update FILE.sad` writes a first golden)\n"
    )


def test_a_program_named_test_runs_as_dot_slash_test(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "test", 'print "I am a program"\n')
    status, _, err = run_command(capsys)
    assert status == 2 and "(to run the program named `test`: scalarlang ./test)" in err
    assert cli.main(["./test"]) == 0
    assert capsys.readouterr().out == "I am a program\n"


def test_help_of_the_command_and_of_test(capsys):
    assert cli.main(["--help"]) == 0
    assert "scalarlang test [PATH ...]" in capsys.readouterr().out
    assert cli.main(["test", "--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: scalarlang test ")
    for needle in ("-k TEXT", "--update", "--json", "--timeout SECONDS", "[exit status N]", "docs/testing.md"):
        assert needle in text
    assert max(len(line) for line in text.splitlines()) <= 80


# ---- JSON ----------------------------------------------------------------------------------------


def test_json_writes_one_event_per_program(failing, capsys):
    write(failing / "draft.sad", 'print "draft"\n')
    status, out, _ = run_command(capsys, "--json", failing.name)
    events = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    assert events[0] == {"event": "start", "version": 1}
    programs = {event["file"].rsplit("/", 1)[1]: event for event in events if event["event"] == "program"}
    assert {name: event["result"] for name, event in programs.items()} == {
        "missing_line.sad": "failed", "passes.sad": "passed", "status.sad": "failed", "stderr.sad": "failed",
        "value.sad": "failed", "draft.sad": "ignored",
    }
    value = programs["value.sad"]
    assert value["golden"] == f"{failing.name}/value.out" and value["failure"] == "differs"
    assert value["first_difference"] == 1 and value["status"] == value["expected_status"] == 0
    assert "-answer: 4" in value["diff"] and value["seconds"] >= 0
    assert programs["status.sad"]["status"] == 1 and programs["status.sad"]["expected_status"] == 0
    assert programs["passes.sad"]["diff"] is None and programs["passes.sad"]["failure"] is None
    assert events[-1] == {"event": "summary", "passed": 1, "failed": 4, "updated": 0, "unchanged": 0, "ignored": 1, "not_run": 0}
