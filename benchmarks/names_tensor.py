"""makemore's MLP at its real size with tensors: ``examples/names_tensor.sad`` (issue 43 item 3),
1,000 minibatch steps of a [32, 3] context through embeddings of 10, 200 tanh units and 27
logits, then the loss over the whole training and dev splits and ten sampled names.

``python benchmarks/names_tensor.py [--repeat N] [--steps N] [--no-whole]``

Each turn runs the example in a fresh process through ``scalarlang.Session``, its text in four
parts timed apart (wall and CPU time): the set-up (reading the names, the split, the example
tensors, the starting weights: the text up to the loop), the training loop, the two
whole-split losses, the sampling. Then, unless ``--no-whole``, the whole program as a user runs
it (``scalarlang examples/names_tensor.sad``, start-up included). Best of N turns (default 1:
a turn takes about a minute and a half). Target: the training loop of 1,000 steps in at most
60 s on two cores. Writes ``benchmarks/results/names_tensor.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "names_tensor.sad"
STEPS_LINE = re.compile(r"^let steps = \d+$", re.MULTILINE)
TARGET_S = 60.0

# One turn, in a fresh process: the example's parts run one after another in one session.
PARTS_TIMER = r"""
import json, os, sys, time
import scalarlang
print(scalarlang.__file__, file=sys.stderr)
parts = json.loads(sys.argv[1])
os.chdir(sys.argv[2])
session = scalarlang.Session()
timed = {}
texts = []
for name, text in parts:
    start, cpu = time.perf_counter(), time.process_time()
    result = session.run(text)
    timed[name] = {"wall_s": time.perf_counter() - start, "cpu_s": time.process_time() - cpu}
    if not result.ok:
        raise SystemExit(result.text[-600:])
    texts.append(result.text)
print(json.dumps({"parts": timed, "text": "\n".join(texts)}))
"""


def parts_of(text: str) -> list[tuple[str, str]]:
    """The example's text cut before its loop, after the loop's closing brace, before the
    sampling."""
    loop = text.index("\nfor step in ") + 1
    after = text.index("\n}\n", loop) + 3
    sampling = text.index("\n# Ten new names") + 1
    return [("set-up", text[:loop]), ("training loop", text[loop:after]),
            ("whole-split losses", text[after:sampling]), ("sampling", text[sampling:])]


def run_whole(program: Path) -> dict:
    script = shutil.which("scalarlang", path=str(Path(sys.executable).parent))
    argv = [script] if script else [sys.executable, "-m", "scalarlang"]
    start = time.perf_counter()
    process = subprocess.Popen([*argv, str(program)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               cwd=program.parent)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{program} failed")
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)  # (kilobytes on Linux)
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_bytes": rss}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--no-whole", action="store_true", help="leave out the whole process")
    parser.add_argument("--json", default=str(REPO / "benchmarks" / "results" / "names_tensor.json"))
    arguments = parser.parse_args(argv)
    text = EXAMPLE.read_text(encoding="utf-8")
    if len(STEPS_LINE.findall(text)) != 1:
        raise SystemExit("examples/names_tensor.sad has no line `let steps = N`: update benchmarks/names_tensor.py")
    text = STEPS_LINE.sub(f"let steps = {arguments.steps}", text)
    load_before = os.getloadavg()
    turns: list[dict] = []
    whole: list[dict] = []
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "names_tensor.sad"
        program.write_text(text, encoding="utf-8")
        shutil.copyfile(EXAMPLE.parent / "names_census.txt", Path(folder) / "names_census.txt")
        for turn in range(arguments.repeat):
            print(f"  turn {turn + 1}/{arguments.repeat} ...", file=sys.stderr, flush=True)
            # (from the temporary folder: `-c` puts the working folder first on sys.path, and the
            # scalarlang run must be the installed one, or PYTHONPATH's)
            done = subprocess.run([sys.executable, "-c", PARTS_TIMER, json.dumps(parts_of(text)), folder],
                                  capture_output=True, text=True, cwd=folder)
            if done.returncode != 0:
                raise SystemExit(done.stderr[-600:])
            turns.append({**json.loads(done.stdout), "scalarlang": done.stderr.splitlines()[0]})
            if not arguments.no_whole:
                whole.append(run_whole(program))
    load_after = os.getloadavg()
    best = min(turns, key=lambda turn: turn["parts"]["training loop"]["wall_s"])
    loop = best["parts"]["training loop"]
    passed = loop["wall_s"] <= TARGET_S * arguments.steps / 1000
    lines = [f"names_tensor.sad, {arguments.steps} steps, best of {len(turns)} turns "
             f"(load average {load_before[0]:.2f} at start, {load_after[0]:.2f} at end):"]
    lines.append(f"  (scalarlang from {Path(best['scalarlang']).parent})")
    for name, figures in best["parts"].items():
        lines.append(f"  {name:20} {figures['wall_s']:8.2f} s  (cpu {figures['cpu_s']:.2f} s)")
    lines.append(f"  a training step      {loop['wall_s'] / arguments.steps * 1000:8.1f} ms (cpu {loop['cpu_s'] / arguments.steps * 1000:.1f} ms)")
    if whole:
        fastest = min(whole, key=lambda run: run["wall_s"])
        walls = ", ".join(format(run["wall_s"], ".2f") for run in whole)
        lines.append(f"  whole process        {fastest['wall_s']:8.2f} s  (cpu {fastest['cpu_s']:.2f} s; turns {walls}; "
                     f"peak RSS {fastest['max_rss_bytes'] / 1e6:.0f} MB)")
    lines.append(f"  the loop of {arguments.steps} steps: target <= {TARGET_S * arguments.steps / 1000:.0f} s "
                 f"{'PASS' if passed else 'FAIL'}")
    lines.append(best["text"])
    print("\n".join(lines))
    path = Path(arguments.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"steps": arguments.steps, "turns": turns, "whole": whole, "load": [load_before, load_after],
                                "passed": passed}, indent=2), encoding="utf-8")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
