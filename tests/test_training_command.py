"""The training examples and a long loop through the installed `scalarlang` command (issue 9)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMMAND = shutil.which("scalarlang", path=str(Path(sys.executable).parent)) or shutil.which("scalarlang")


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    for key in ("COLUMNS", "LINES", "TERM", "NO_COLOR", "FORCE_COLOR"):
        environment.pop(key, None)
    return environment


@pytest.mark.skipif(COMMAND is None, reason="the scalarlang command is not installed")
# (xor, 4,000 steps, runs through the command with the other examples in test_cli.py's one process.)
@pytest.mark.parametrize("name", ["fit_line", "neuron"])
def test_a_training_example_through_the_command(name: str):
    result = subprocess.run(
        [COMMAND, f"examples/{name}.sad"], cwd=ROOT, capture_output=True, text=True, env=_environment(), timeout=120
    )
    golden = (ROOT / "examples" / f"{name}.out").read_text(encoding="utf-8")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout + "[exit status 0]\n" == golden


@pytest.mark.skipif(COMMAND is None, reason="the scalarlang command is not installed")
def test_quiet_flag_through_the_command():
    program = "let x = var 2\nx\nbackward(x * x)\nprint grad(x)"
    result = subprocess.run([COMMAND, "--quiet", "-c", program], capture_output=True, text=True, env=_environment())
    assert (result.returncode, result.stdout) == (0, "4\n")
    result = subprocess.run([COMMAND, "-c", program], capture_output=True, text=True, env=_environment())
    assert result.stdout.startswith("x = 2 (variable")


@pytest.mark.skipif(COMMAND is None, reason="the scalarlang command is not installed")
def test_ctrl_c_in_a_long_loop_stops_the_script_cleanly(tmp_path: Path):
    script = tmp_path / "long.sad"
    script.write_text('let x = var 1\nprint "training"\nrepeat 1000000 { let loss = x * x\n backward(loss) }\n', encoding="utf-8")
    process = subprocess.Popen(
        [COMMAND, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_environment()
    )
    assert process.stdout is not None and process.stdout.readline() == "training\n"  # started: no wait for start-up
    time.sleep(0.2)  # in the loop (a million steps take many seconds)
    assert process.poll() is None, "the loop ended before the interrupt"
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert stderr == "scalarlang: interrupted\n"
    assert "Traceback" not in stdout + stderr
