"""The language model of issue 32, whole processes: ``python benchmarks/names.py [--repeat N]``.

Times ``scalarlang examples/names.sad`` (a character bigram model on examples/names.txt: 100
steps over 3,933 pairs, each step 3,933 `cross_entropy` terms of 27 logits, then ten names
drawn with `sample`) against ``python benchmarks/names_engine.py``, the same training written in
Python on our engine (`Scalar` directly, the same order of operations: the two print the same
lines, which is checked). Both run as a user runs them: whole processes, start-up included,
the garbage collector on; the commands take turns after one warm-up each (bytecode cached in
a temporary folder) and the best wall time of the turns is kept.

Target (issue 32): the example under 15 s on a two-core machine. Output: a table on standard
output, progress on standard error, the figures in ``benchmarks/results/names.json`` (a
gitignored folder); the exit status is 0 when the target passes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
REPO = BENCHMARKS.parent
EXAMPLE = REPO / "examples" / "names.sad"
TWIN = BENCHMARKS / "names_engine.py"
TARGET = 15.0


def scalarlang_command() -> list[str]:
    script = shutil.which("scalarlang", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "scalarlang"]


def run_once(argv: list[str], env: dict) -> tuple[float, str]:
    """Wall time and standard output of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(REPO), env=env)
    out, err = process.communicate()
    wall = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({process.returncode}):\n{err.decode()}")
    return wall, out.decode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="turns of each command (best kept)")
    args = parser.parse_args()
    commands = {
        "scalarlang examples/names.sad": [*scalarlang_command(), str(EXAMPLE)],
        "python names_engine.py (our engine)": [sys.executable, str(TWIN)],
    }
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPYCACHEPREFIX": cache}
        outputs = {}
        for name, argv in commands.items():  # warm-up: bytecode cached, files in the page cache
            print(f"warm-up: {name}", file=sys.stderr)
            outputs[name] = run_once(argv, env)[1]
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for turn in range(args.repeat):
            for name, argv in commands.items():
                before = os.times()
                wall, _ = run_once(argv, env)
                after = os.times()
                cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
                walls[name].append(wall)
                cpus[name].append(cpu)
                print(f"turn {turn + 1}: {name} {wall:.2f} s", file=sys.stderr)
    same = len(set(outputs.values())) == 1
    ours, twin = commands
    best = {name: min(times) for name, times in walls.items()}
    load = os.getloadavg()[0]
    print(f"names bigram model, 100 steps, whole processes, best of {args.repeat} turns (load average {load:.2f}):")
    for name in commands:
        turns = ", ".join(f"{wall:.2f}" for wall in walls[name])
        print(f"  {name:<38} {best[name]:6.2f} s  (cpu {min(cpus[name]):.2f} s; turns {turns})")
    passed = best[ours] < TARGET
    print(f"  ratio .sad / Python on the engine {best[ours] / best[twin]:.2f}x; "
          f"target: the example under {TARGET:.0f} s {'PASS' if passed else 'FAIL'}")
    print(f"  the same printed lines: {'yes' if same else 'NO'}")
    results = BENCHMARKS / "results"
    results.mkdir(exist_ok=True)
    (results / "names.json").write_text(json.dumps({
        "repeat": args.repeat, "load_average": load, "walls": walls, "cpus": cpus, "best": best,
        "same_output": same, "target_seconds": TARGET, "passed": passed,
    }, indent=2) + "\n", encoding="utf-8")
    return 0 if passed and same else 1


if __name__ == "__main__":
    raise SystemExit(main())
