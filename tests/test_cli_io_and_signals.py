"""The command under hostile conditions (issue 11, items 3, 5 and 9): output that cannot be
written, a reader that goes away, Ctrl-C at any moment, huge programs. Each runs the installed
console script, as a user does."""

from __future__ import annotations

import errno
import io
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from commands import COMMAND, ROOT, needs_command
from scalarlang.front import cli
from scalarlang.front.runner import EXIT_OK, EXIT_RUNTIME, EXIT_STATIC, SOURCE_LIMIT, read_source, text_source

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX devices and signals")
has_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")

ENOSPC_LINE = f"scalarlang: cannot write output: {os.strerror(errno.ENOSPC)}\n"


def env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "NO_COLOR", "FORCE_COLOR")}


def test_the_cli_statuses_are_the_runners():
    assert (cli.EXIT_OK, cli.EXIT_RUNTIME, cli.EXIT_STATIC) == (EXIT_OK, EXIT_RUNTIME, EXIT_STATIC)
    assert (cli.EXIT_OUTPUT, cli.EXIT_INTERRUPTED, cli.EXIT_PIPE) == (74, 130, 141)


# ---- output that cannot be written (item 3) -------------------------------------------------------


@needs_command
@has_dev_full
@pytest.mark.parametrize(
    "args",
    [["-c", "print 1"], ["--json", "-c", "print 1"], ["--demo"], ["-c", "print 1; lose"], ["examples/detach.sad"],
     ["--help"], ["--version"], ["--print-completion", "bash"]],
    ids=["text", "json", "demo", "error", "file", "help", "version", "completion"],
)
def test_a_full_disk_is_one_line_and_status_74(args):
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [str(COMMAND), *args], stdout=full, stderr=subprocess.PIPE, cwd=ROOT, env=env(), timeout=60
        )
    assert result.returncode == 74
    assert result.stderr.decode() == ENOSPC_LINE  # no traceback, no "Exception ignored"


@needs_command
@has_dev_full
def test_a_full_standard_error_is_status_74_and_silent():
    with open("/dev/full", "w") as full:
        result = subprocess.run([str(COMMAND), "-c", "lose"], stdout=subprocess.PIPE, stderr=full, env=env(), timeout=60)
    assert result.returncode == 74 and result.stdout == b""


class _Failing(io.TextIOBase):
    """A standard output whose writes fail with ``errno``."""

    def __init__(self, number: int):
        self.number = number

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(self.number, os.strerror(self.number))

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("number", [errno.EIO, errno.ENOSPC, errno.EPIPE])
@pytest.mark.parametrize("args", [["-c", "print 1"], ["--json", "-c", "print 1"], ["--demo"]])
def test_every_output_error_is_one_line(monkeypatch, number, args):
    err = io.StringIO()
    # Patched: a real process cannot be given an output failing with EIO (/dev/full is ENOSPC only).
    monkeypatch.setattr(sys, "stdout", _Failing(number))
    monkeypatch.setattr(sys, "stderr", err)
    status = cli.main(args)
    if number == errno.EPIPE:  # a closed pipe: quiet, as if killed by SIGPIPE
        assert (status, err.getvalue()) == (141, "")
    else:
        assert (status, err.getvalue()) == (74, f"scalarlang: cannot write output: {os.strerror(number)}\n")


@needs_command
@posix_only
@pytest.mark.parametrize("json_lines", [False, True], ids=["text", "json"])
def test_head_closes_the_pipe_status_141_and_no_message(json_lines):
    program = "let x = var 1\nlet y = " + "+".join(["x"] * 3000) + "\nbackward(y)\ngraph(y)"
    args = (["--json"] if json_lines else []) + ["-c", program]
    process = subprocess.Popen([str(COMMAND), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    process.stdout.readline()  # like `| head -1`
    process.stdout.close()
    error = process.stderr.read()
    process.stderr.close()
    assert process.wait(timeout=60) == 141
    assert error == b""


@needs_command
@posix_only
def test_a_shell_pipeline_into_head_reports_141_with_pipefail():
    # The output is more than any pipe holds (64 KiB by default, at most pipe-max-size: 1 MiB),
    # so the command is still writing when `head` exits, however late `head` runs. (With a
    # graph's 20 KB alone, a `head` that ran after the command had written everything, on a
    # loaded machine, left it nothing to meet: status 0.)
    most = int(Path("/proc/sys/fs/pipe-max-size").read_text()) if Path("/proc/sys/fs/pipe-max-size").exists() else 1 << 20
    line = "-" * 999
    program = f'let x = var 1; graph({"+".join(["x"] * 5000)}); repeat {2 * most // 1000} {{ print "{line}" }}'
    script = f"set -o pipefail; '{COMMAND}' -c '{program}' | head -1"
    result = subprocess.run(["bash", "-c", script], capture_output=True, env=env(), timeout=60)
    assert result.returncode == 141
    assert result.stdout.decode().startswith("graph of ")
    assert result.stderr == b""


# ---- Ctrl-C at any moment (item 5) ------------------------------------------------------------------


def _many_statements(tmp_path: Path) -> Path:
    path = tmp_path / "many.sad"
    path.write_text("let x = var 2\n" + "let y = x * x + 1\nprint y\n" * 4000, encoding="utf-8")
    return path


def _interrupt_at(args: list[str], delay: float, twice: bool) -> subprocess.CompletedProcess:
    process = subprocess.Popen(
        [str(COMMAND), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env()
    )
    time.sleep(delay)
    for _ in range(2 if twice else 1):
        try:
            process.send_signal(signal.SIGINT)
        except ProcessLookupError:
            break
        time.sleep(0.002)
    _, error = process.communicate(timeout=60)
    return subprocess.CompletedProcess(args, process.returncode, b"", error)


PACKAGE = str(ROOT / "scalarlang")


def _before_scalarlang(result: subprocess.CompletedProcess) -> bool:
    """Whether the interrupt came while CPython itself was starting (importing `site`, or
    finding and reading the package's first file): no line of scalarlang had run yet."""
    error = result.stderr.decode(errors="replace")
    return "KeyboardInterrupt" in error and PACKAGE + os.sep not in error


def _assert_clean(result: subprocess.CompletedProcess, delay: float) -> None:
    error = result.stderr.decode(errors="replace")
    assert "Traceback" not in error and "KeyboardInterrupt" not in error, (delay, error)
    # Before Python itself has set up its handler the kernel's default action ends the process
    # (the shell reports that as 130 too); from the first line of scalarlang on it is ours.
    assert result.returncode in (0, 130, -signal.SIGINT), (delay, result.returncode, error)
    if result.returncode == 130:
        assert error == "scalarlang: interrupted\n", (delay, error)
    elif result.returncode == 0:
        assert error == ""


@needs_command
@posix_only
@pytest.mark.parametrize("delay", [0.0, 0.03, 0.08, 0.15], ids=lambda d: f"{int(d * 1000)}ms")
def test_sigint_during_start_up_is_clean(tmp_path, delay):
    result = _interrupt_at([str(_many_statements(tmp_path))], delay, twice=delay > 0.05)
    if _before_scalarlang(result):  # on a loaded machine `site` alone can take 80 ms
        pytest.skip("the interrupt came while CPython itself started, before any scalarlang code")
    _assert_clean(result, delay)


@needs_command
@posix_only
@pytest.mark.slow
def test_sigint_at_random_moments_twenty_trials(tmp_path):
    path = _many_statements(tmp_path)
    rng = random.Random(11)
    before = []
    for trial in range(20):
        delay = rng.uniform(0.0, 0.3)
        args = [str(path)] if trial % 2 else ["-c", "let x = var 2"]
        result = _interrupt_at(args, delay, twice=trial % 3 == 0)
        if _before_scalarlang(result):
            # CPython's own start-up (`site`, an editable install's finder): no scalarlang code
            # can run there. It lasts milliseconds; an interrupt later than that is ours.
            before.append(delay)
            continue
        _assert_clean(result, delay)
    assert len(before) <= 10, before  # most trials reach scalarlang, or the test says little


def test_the_handlers_of_an_in_process_main_are_restored(monkeypatch, capsys):
    before = signal.getsignal(signal.SIGINT)
    assert cli.main(["-c", "1"]) == 0
    assert signal.getsignal(signal.SIGINT) is before  # pytest's own Ctrl-C still works


def test_a_second_interrupt_while_the_first_is_handled_is_ignored(monkeypatch, capsys):
    def interrupted(arguments, out, err, own_process=False):
        os.kill(os.getpid(), signal.SIGINT)  # the first: raises KeyboardInterrupt here
        raise AssertionError("not reached")

    real_flush = cli.GuardedStream.flush

    def flush_interrupted_again(self):
        os.kill(os.getpid(), signal.SIGINT)  # a second Ctrl-C while the first is handled
        real_flush(self)

    # Patched: a second Ctrl-C exactly while the first is handled cannot be timed from outside.
    monkeypatch.setattr(cli, "run_scripts", interrupted)
    monkeypatch.setattr(cli.GuardedStream, "flush", flush_interrupted_again)
    assert cli.main(["-c", "1"]) == 130
    assert capsys.readouterr().err == "scalarlang: interrupted\n"


# ---- huge programs (item 9) -------------------------------------------------------------------------


def test_a_program_over_the_limit_is_too_long(tmp_path):
    path = tmp_path / "big.sad"
    path.write_bytes(b"print 1\n" * 200)
    small = read_source(str(path), limit=1000)
    assert small.kind == "too-long" and small.fields["file"] == str(path)
    assert "1,600 bytes" in small.message
    assert read_source(str(path), limit=1600).text == "print 1\n" * 200  # exactly the limit: fine
    assert text_source("<command line>", "x" * 1001, limit=1000).kind == "too-long"
    assert SOURCE_LIMIT == 8 * 1024 * 1024


def test_standard_input_over_the_limit_reads_at_most_one_byte_more():
    class Counting(io.BytesIO):
        asked = 0

        def read(self, size=-1):
            assert size is not None and size >= 0, "read everything"
            Counting.asked += size
            return super().read(size)

    stdin = io.TextIOWrapper(Counting(b"1\n" * 10_000))
    failure = read_source("-", stdin, limit=100)
    assert failure.kind == "too-long" and Counting.asked <= 101


@needs_command
@posix_only
def test_dev_zero_fails_fast_without_growing(tmp_path):
    started = time.monotonic()
    result = subprocess.run([str(COMMAND), "/dev/zero"], capture_output=True, env=env(), timeout=60)
    assert result.returncode == 2
    assert result.stderr.decode().startswith("error[too-long]: /dev/zero is longer than the 8 MB a program may have")
    assert time.monotonic() - started < 30


@needs_command
def test_a_huge_regular_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "sparse.sad"
    with open(path, "wb") as file:
        file.truncate(SOURCE_LIMIT + 10)  # sparse: costs no disk, and is never read
    result = subprocess.run([str(COMMAND), "--json", str(path)], capture_output=True, env=env(), timeout=60)
    assert result.returncode == 2
    lines = result.stdout.decode().splitlines()
    assert '"kind": "too-long"' in lines[-1] and f"{SOURCE_LIMIT + 10:,} bytes" in lines[-1]


@needs_command
@has_dev_full
def test_when_standard_error_fails_what_was_printed_is_kept():
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [str(COMMAND), "-c", "print 1; lose"], stdout=subprocess.PIPE, stderr=full, env=env(), timeout=60
        )
    assert result.returncode == 74 and result.stdout == b"1\n"
