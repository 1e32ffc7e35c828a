"""micrograd's demo, whole processes: ``python benchmarks/moons.py [--repeat N] [--steps N]``.

Issue 24's targets for ``examples/moons.sad`` (a 2-16-16-1 relu network, the 100 points of
``examples/moons.csv``, 100 steps of gradient descent):

- time: ``scalarlang examples/moons.sad`` (its training: a copy without the pictures it ends
  with, which benchmarks/charts.py times) at most 0.5x the time of the same training on
  micrograd 0.1.0 (``benchmarks/moons_micrograd.py``: the same data, starting weights and order
  of floating-point operations, so it prints the same lines, which is checked here). Both are
  run as a user runs them: whole processes, start-up included, the garbage collector on. The
  commands take turns (after one warm-up each, bytecode cached in a temporary folder) and the
  best wall time of the turns is kept. micrograd with ``--collect-each-step`` (collector off,
  one collection a step: what a patient micrograd user might do) is timed alongside, for
  context, not judged.
- memory: flat from step 10 to step 100 (each step's graph is freed once ``descend`` rebinds
  the names). The program is run with ``let steps = 10`` and with ``let steps = 100`` (copies
  of the example next to a copy of moons.csv), each in a fresh process, and the two are
  compared two ways: the peak resident set of ``scalarlang FILE`` (``ru_maxrss`` of the
  finished child, as a user runs it), and the tracemalloc peak (Python's own allocations,
  exact; tracemalloc makes the run about ten times slower) of the training loop, run through
  ``scalarlang.Session`` after the model's set-up (the program's text up to the loop, then
  the loop as written). The set-up's peak is shown apart: ``read_table`` reads a file with
  ``read(64 MB + 1)``, whose buffer tracemalloc counts in full (the pages it never touches do
  not count in the resident set). Target: the 100-step peak at most 5% above the 10-step
  peak, both ways.

With tensors (issue 42): ``examples/moons_tensor.sad`` trains the same network on the same
data from the same weights with one node per tensor operation. ``--tensor`` times its training
loop against moons.sad's, in fresh processes taking turns, each loop run through
``scalarlang.Session`` after its program's set-up (the text up to the loop), best of the turns;
whole processes (``scalarlang FILE``, start-up included, without the pictures) alongside.
Target: moons.sad's loop at least 10x the time of moons_tensor.sad's. ``--tensor-only`` runs
this case alone (a few seconds a turn; no micrograd needed).

Output: a table on standard output, progress on standard error, and the figures in
``benchmarks/results/moons.json`` (a gitignored folder). The exit status is 0 when both targets
pass. A full run (``--repeat 3``, the default) takes 10 to 15 minutes, micrograd with its collector
on taking most of it (100 to 150 s a run); ``--repeat 1`` about five. benchmarks/README.md
has the figures.
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

BENCHMARKS = Path(__file__).resolve().parent
REPO = BENCHMARKS.parent
EXAMPLE = REPO / "examples" / "moons.sad"
TENSOR_EXAMPLE = REPO / "examples" / "moons_tensor.sad"
DATA = REPO / "examples" / "moons.csv"
MICROGRAD = BENCHMARKS / "moons_micrograd.py"
STEPS_LINE = re.compile(r"^let steps = 100$", re.MULTILINE)
TIME_TARGET = 0.5
TENSOR_TARGET = 10.0
MEMORY_TARGET = 1.05


def scalarlang_command() -> list[str]:
    script = shutil.which("scalarlang", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "scalarlang"]


def program_with_steps(folder: Path, steps: int, example: Path = EXAMPLE) -> Path:
    """A copy of the example running ``steps`` steps, next to a copy of its data, without the
    pictures it ends with (`plot`, `boundary`: micrograd's script trains and prints, and
    benchmarks/charts.py times the boundary)."""
    text = example.read_text(encoding="utf-8")
    if len(STEPS_LINE.findall(text)) != 1:
        raise SystemExit(f"examples/{example.name} has no line `let steps = 100`: update benchmarks/moons.py")
    if "\nplot(" in text:
        text = text[: text.index("\nplot(") + 1]
    shutil.copyfile(DATA, folder / "moons.csv")
    path = folder / f"{example.stem}_{steps}.sad"
    path.write_text(STEPS_LINE.sub(f"let steps = {steps}", text), encoding="utf-8")
    return path


def run_measured(argv: list[str], env: dict) -> dict:
    """One whole process: wall time, CPU time and peak resident set (its own rusage)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=err, cwd=str(REPO), env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return {
        "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "max_rss_bytes": rss,
        "status": process.returncode, "stdout": stdout, "stderr": stderr[-600:],
    }


def bench_env(cache: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


def case_time(repeat: int, steps: int, folder: Path, cache: str) -> dict:
    program = program_with_steps(folder, steps)
    commands = {
        "scalarlang": scalarlang_command() + [str(program)],
        "micrograd": [sys.executable, str(MICROGRAD), "--steps", str(steps)],
        "micrograd, collect each step": [sys.executable, str(MICROGRAD), "--steps", str(steps), "--collect-each-step"],
    }
    env = bench_env(cache)
    warm = program_with_steps(folder, 1)
    for argv in (scalarlang_command() + [str(warm)], [sys.executable, str(MICROGRAD), "--steps", "1"]):
        subprocess.run(argv, env=env, cwd=str(REPO), capture_output=True)  # byte-compile, warm caches
    runs: dict = {name: [] for name in commands}
    for turn in range(repeat):
        for name, argv in commands.items():
            print(f"  turn {turn + 1}/{repeat}: {name} ...", file=sys.stderr, flush=True)
            runs[name].append(run_measured(argv, env))
    figures: dict = {}
    for name, measured in runs.items():
        figures[name] = {
            "times_s": [m["wall_s"] for m in measured],
            "cpu_s": [m["cpu_s"] for m in measured],
            "best_s": min(m["wall_s"] for m in measured),
            "best_cpu_s": min(m["cpu_s"] for m in measured),
            "max_rss_bytes": max(m["max_rss_bytes"] for m in measured),
            "failures": [f"exit {m['status']}: {m['stderr'].strip()}" for m in measured if m["status"] != 0],
        }
    outputs = {name: {m["stdout"] for m in measured} for name, measured in runs.items()}
    same = len(set().union(*outputs.values())) == 1
    ours, theirs = figures["scalarlang"]["best_s"], figures["micrograd"]["best_s"]
    return {
        "steps": steps,
        "runs": figures,
        "same_output": same,
        "output": sorted(outputs["scalarlang"])[0],
        "ratio": ours / theirs,
        "ratio_cpu": figures["scalarlang"]["best_cpu_s"] / figures["micrograd"]["best_cpu_s"],
        "ratio_collect_each_step": ours / figures["micrograd, collect each step"]["best_s"],
        "passed": same and ours / theirs <= TIME_TARGET and not any(f["failures"] for f in figures.values()),
    }


TRACEMALLOC = """
import json, os, sys, tracemalloc
import scalarlang
scalarlang.run("let x = var 1\\nlet y = [x * i for i in 0..2]\\nbackward(sum(y))")  # load the modules first
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
os.chdir(os.path.dirname(path))  # read_table("moons.csv"): text from no file reads from here
at = text.index("\\nfor step in ") + 1  # the model's set-up, then the training loop as written
session = scalarlang.Session()
tracemalloc.start()
setup = session.run(text[:at], name="moons.sad")
setup_peak = tracemalloc.get_traced_memory()[1]
tracemalloc.reset_peak()
loop = session.run(text[at:], name="moons.sad")
current, peak = tracemalloc.get_traced_memory()
print(json.dumps({"ok": setup.ok and loop.ok, "setup_peak": setup_peak, "peak": peak, "current": current,
                  "text": setup.text + loop.text}))
"""


def case_memory(folder: Path, cache: str, tracemalloc: bool) -> dict:
    env = bench_env(cache)
    figures: dict = {}
    for steps in (10, 100):
        program = program_with_steps(folder, steps)
        print(f"  memory: {steps} steps, resident set ...", file=sys.stderr, flush=True)
        measured = run_measured(scalarlang_command() + [str(program)], env)
        entry = {"max_rss_bytes": measured["max_rss_bytes"], "status": measured["status"], "wall_s": measured["wall_s"]}
        if tracemalloc:
            print(f"  memory: {steps} steps, tracemalloc ...", file=sys.stderr, flush=True)
            done = subprocess.run(
                [sys.executable, "-c", TRACEMALLOC, str(program)], capture_output=True, text=True, env=env, cwd=str(REPO)
            )
            if done.returncode == 0:
                traced = json.loads(done.stdout)
                entry.update(
                    tracemalloc_peak_bytes=traced["peak"], tracemalloc_current_bytes=traced["current"],
                    tracemalloc_setup_peak_bytes=traced["setup_peak"], ok=traced["ok"],
                )
                entry["same_output"] = traced["text"] == measured["stdout"]
            else:
                entry["tracemalloc_error"] = done.stderr[-600:]
        figures[steps] = entry
    first, last = figures[10], figures[100]
    growth = {"rss": last["max_rss_bytes"] / first["max_rss_bytes"]}
    if tracemalloc and "tracemalloc_peak_bytes" in first and "tracemalloc_peak_bytes" in last:
        growth["tracemalloc"] = last["tracemalloc_peak_bytes"] / first["tracemalloc_peak_bytes"]
    ok = all(entry["status"] == 0 and entry.get("ok", True) for entry in figures.values())
    return {
        "steps": figures,
        "growth": growth,
        "passed": ok and all(value <= MEMORY_TARGET for value in growth.values()),
    }


LOOP_TIMER = """
import json, os, sys, time
import scalarlang
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
os.chdir(os.path.dirname(path))
at = text.index("\\nfor step in ") + 1  # the model's set-up, then the training loop as written
session = scalarlang.Session()
setup = session.run(text[:at], name=os.path.basename(path))
start, cpu = time.perf_counter(), time.process_time()
loop = session.run(text[at:], name=os.path.basename(path))
print(json.dumps({"ok": setup.ok and loop.ok, "loop_s": time.perf_counter() - start,
                  "loop_cpu_s": time.process_time() - cpu, "text": loop.text}))
"""


def case_tensor(repeat: int, steps: int, folder: Path, cache: str) -> dict:
    """moons.sad's training loop against moons_tensor.sad's (see the module's docstring)."""
    programs = {name: program_with_steps(folder, steps, example)
                for name, example in (("lists", EXAMPLE), ("tensors", TENSOR_EXAMPLE))}
    env = bench_env(cache)
    for program in programs.values():  # byte-compile, warm caches
        subprocess.run(scalarlang_command() + [str(program)], env=env, cwd=str(REPO), capture_output=True)
    loops: dict = {name: [] for name in programs}
    cpus: dict = {name: [] for name in programs}
    whole: dict = {name: [] for name in programs}
    texts: dict = {name: set() for name in programs}
    for turn in range(repeat):
        for name, program in programs.items():
            print(f"  turn {turn + 1}/{repeat}: {name} ...", file=sys.stderr, flush=True)
            done = subprocess.run([sys.executable, "-c", LOOP_TIMER, str(program)], capture_output=True, text=True,
                                  env=env, cwd=str(REPO))
            if done.returncode != 0:
                raise SystemExit(done.stderr[-600:])
            timed = json.loads(done.stdout)
            loops[name].append(timed["loop_s"])
            cpus[name].append(timed["loop_cpu_s"])
            texts[name].add(timed["text"])
            whole[name].append(run_measured(scalarlang_command() + [str(program)], env)["wall_s"])
    ratio = min(loops["lists"]) / min(loops["tensors"])
    return {
        "steps": steps,
        "loop_s": loops,
        "loop_cpu_s": cpus,
        "whole_s": whole,
        "ratio": ratio,
        "ratio_cpu": min(cpus["lists"]) / min(cpus["tensors"]),
        "ratio_whole": min(whole["lists"]) / min(whole["tensors"]),
        "largest_relative_difference": _largest_difference(texts["lists"], texts["tensors"]),
        "passed": ratio >= TENSOR_TARGET,
    }


def _largest_difference(lists: set, tensors: set) -> float | None:
    """The largest relative difference of the printed losses (as printed: 12 digits)."""
    if len(lists) != 1 or len(tensors) != 1:
        return None
    pattern = re.compile(r"loss (\S+)")
    ours = [float(x) for x in pattern.findall(next(iter(tensors)))]
    theirs = [float(x) for x in pattern.findall(next(iter(lists)))]
    if len(ours) != len(theirs):
        return None
    return max((abs(a - b) / abs(b) for a, b in zip(ours, theirs)), default=0.0)


def render_tensor(timing: dict) -> str:
    lines = [f"moons with tensors, {timing['steps']} steps: the training loop, best of {len(timing['loop_s']['lists'])} turns:"]
    for name, times in timing["loop_s"].items():
        shown = ", ".join(f"{t:.3f}" for t in times)
        wholes = ", ".join(f"{t:.2f}" for t in timing["whole_s"][name])
        cpu = min(timing["loop_cpu_s"][name])
        lines.append(f"  {name:<8} loop {min(times):8.3f} s, cpu {cpu:.3f} s  (turns {shown}; whole process {wholes} s)")
    verdict = "PASS" if timing["passed"] else "FAIL"
    lines.append(f"  moons.sad / moons_tensor.sad: loop {timing['ratio']:.1f}x, cpu {timing['ratio_cpu']:.1f}x"
                 f" (target >= {TENSOR_TARGET:g}x) {verdict}; whole processes {timing['ratio_whole']:.1f}x")
    largest = timing["largest_relative_difference"]
    lines.append("  largest relative difference of the printed losses: "
                 + ("(outputs differ between turns)" if largest is None else f"{largest:.3g}"))
    return "\n".join(lines)


def megabytes(count: float) -> str:
    return f"{count / 1e6:.1f} MB"


def render(results: dict) -> str:
    lines = []
    timing = results["time"]
    runs = timing["runs"]
    lines.append(f"moons demo, {timing['steps']} steps, whole processes, best of {len(runs['scalarlang']['times_s'])} turns:")
    for name, figures in runs.items():
        times = ", ".join(f"{t:.2f}" for t in figures["times_s"])
        lines.append(
            f"  {name:<30} {figures['best_s']:8.2f} s  (cpu {figures['best_cpu_s']:.2f} s; turns {times}; "
            f"peak RSS {megabytes(figures['max_rss_bytes'])})"
        )
        for failure in figures["failures"]:
            lines.append(f"    FAILED: {failure}")
    verdict = "PASS" if timing["passed"] else "FAIL"
    lines.append(
        f"  ratio scalarlang / micrograd {timing['ratio']:.3f}x (cpu {timing['ratio_cpu']:.3f}x; target <= {TIME_TARGET}x) {verdict}; "
        f"against micrograd collecting once a step {timing['ratio_collect_each_step']:.3f}x (context)"
    )
    lines.append(f"  the same printed lines: {'yes' if timing['same_output'] else 'NO'}")
    memory = results["memory"]
    lines.append("memory of the .sad run, 10 steps against 100 steps (fresh processes):")
    for steps, entry in memory["steps"].items():
        traced = (
            f", tracemalloc peak of the loop {megabytes(entry['tracemalloc_peak_bytes'])} "
            f"(left at the end {megabytes(entry['tracemalloc_current_bytes'])}; "
            f"set-up {megabytes(entry['tracemalloc_setup_peak_bytes'])})"
            if "tracemalloc_peak_bytes" in entry else entry.get("tracemalloc_error", "")
        )
        lines.append(f"  {steps:>3} steps: peak RSS {megabytes(entry['max_rss_bytes'])}{traced}")
    growth = ", ".join(f"{name} {value:.3f}x" for name, value in memory["growth"].items())
    verdict = "PASS" if memory["passed"] else "FAIL"
    lines.append(f"  peak at step 100 / peak at step 10: {growth} (target <= {MEMORY_TARGET}x) {verdict}")
    load = results["load_average"]
    lines.append(f"load average at start {load['start'][0]:.2f}, at end {load['end'][0]:.2f} ({os.cpu_count()} CPUs)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="turns of the timed commands, best kept (default 3)")
    parser.add_argument("--steps", type=int, default=100, help="steps of the timed runs (default 100, the demo)")
    parser.add_argument("--no-tracemalloc", action="store_true", help="memory by resident set only (saves about a minute)")
    parser.add_argument("--json", metavar="PATH", default=str(BENCHMARKS / "results" / "moons.json"))
    parser.add_argument("--tensor", action="store_true", help="also time moons_tensor.sad's training against moons.sad's")
    parser.add_argument("--tensor-only", action="store_true", help="only that comparison")
    arguments = parser.parse_args(argv)
    if arguments.tensor_only:
        with tempfile.TemporaryDirectory(prefix="scalarlang-moons-") as folder, \
                tempfile.TemporaryDirectory(prefix="scalarlang-bench-pycache-") as cache:
            timing = case_tensor(arguments.repeat, arguments.steps, Path(folder), cache)
        print(render_tensor(timing))
        path = Path(arguments.json).with_name("moons_tensor.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(timing, indent=2) + "\n")
        return 0 if timing["passed"] else 1
    if subprocess.run([sys.executable, "-c", "import micrograd"], capture_output=True).returncode != 0:
        print("micrograd is not importable: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="scalarlang-moons-") as folder, \
            tempfile.TemporaryDirectory(prefix="scalarlang-bench-pycache-") as cache:
        results = {
            "time": case_time(arguments.repeat, arguments.steps, Path(folder), cache),
            "memory": case_memory(Path(folder), cache, not arguments.no_tracemalloc),
        }
        if arguments.tensor:
            results["tensor"] = case_tensor(arguments.repeat, arguments.steps, Path(folder), cache)
    results["load_average"] = {"start": load_start, "end": os.getloadavg()}
    print(render(results))
    if "tensor" in results:
        print(render_tensor(results["tensor"]))
    path = Path(arguments.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nfigures written to {os.path.relpath(path)}")
    passed = results["time"]["passed"] and results["memory"]["passed"]
    return 0 if passed and results.get("tensor", {"passed": True})["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
