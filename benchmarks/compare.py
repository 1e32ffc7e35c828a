"""Before and after a change, side by side in one run: ``python benchmarks/compare.py --before REF``.

"Before" is REF (any git ref or commit) extracted with ``git archive REF | tar -x`` into a
temporary folder; "after" is the working tree (or ``--after REF``, extracted the same way).
Each side runs with its folder first on PYTHONPATH, from an empty working directory (``python
-m`` and ``python -c`` put the current directory first on ``sys.path``), and each command is
checked once with ``python -v`` to see that every ``scalarlang`` module it imported came from
its side's folder. Only the command line (``python -m scalarlang``) and the public API
(``scalarlang.run``, ``scalarlang.Scalar``) are used, so the harness survives modules moving.

Cases (whole processes, the commands taking turns -- before, after, peer, before, ... --, best
of N wall times, bytecode caching on in a temporary cache):

- every ``examples/*.sad`` (of the after side), before and after: after/before <= 1.05, and
  the two must exit alike (their outputs are compared too);
- ``examples/xor.sad`` with its loop set to 4,000 steps, against the same training written
  in Python on micrograd (``training/xor_micrograd.py``, its step count set alike); a run
  printing every step's loss checks that the three give the same losses within 1e-9:
  after/before <= 1.05 (today about 0.8x micrograd's time);
- start-up, ``python -m scalarlang -c 'let x = var 2'`` against ``python -c pass`` (at least
  15 turns): after/before <= 1.10 (best times), and the median of the after side's turns at
  most 60 ms above the median of Python's (issue 41);
- the 20,000-statement straight-line program of ``processes.py`` against its Python twin
  (run on the after side's engine): after/twin <= 5;
- parse memory of the 100,000-statement program with a syntax error added as its last line
  (``scalarlang.run`` parses the whole text, finds the error, runs nothing): tracemalloc's
  peak per statement in a fresh process, the error's report included (a report-only control
  is shown), and the resident-memory growth in another: after <= 1,500 bytes per statement;
- the engine ratios of ``run.py --quick`` (build and backward against micrograd), run with
  this tree's ``run.py`` for each side in turn (``SCALARLANG_BENCH_TREE``), N rounds; ours
  the best of a side's rounds, micrograd's the best of all rounds (the same code on both
  sides, so its noise does not move the comparison): after ratio / before ratio <= 1.05.

Output: a table with PASS/FAIL on standard output, progress on standard error, and the
figures in ``benchmarks/results/compare.json``. Exit status 0 when every target passes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
REPO = BENCHMARKS.parent
sys.path.insert(0, str(BENCHMARKS))

from processes import straight_line_program  # noqa: E402  (the program and its Python twin)

PYTHON = sys.executable
XOR_STEPS = 4_000
STRAIGHT_STATEMENTS = 20_000
PARSE_STATEMENTS = 100_000
LOSS_TOLERANCE = 1e-9

# The targets of the redesign issue.
EXAMPLE_SLOWDOWN = 1.05  # examples and engine ratios: no slower than before, within 5%
STARTUP_SLOWDOWN = 1.10  # start-up within 10% of before
STARTUP_ABOVE_PYTHON = 0.060  # issue 41: `-c 'let x = var 2'` within 60 ms of `python -c pass` (medians)
STARTUP_TURNS = 15  # at least: a median of 15 interleaved runs
TWIN_RATIO = 5.0  # the 20,000-statement program at most 5x its Python twin
PARSE_BYTES = 1_500  # bytes per statement at the peak of parsing 100,000 statements


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ---- the two sides ----------------------------------------------------------------------------


@dataclass
class Side:
    name: str  # "before" or "after"
    root: Path  # the folder that holds the `scalarlang` package
    label: str  # what it is: a ref and commit, or the working tree
    env: dict = field(default_factory=dict)


def git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"compare.py: git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def extract(ref: str, folder: Path) -> str:
    """``git archive REF | tar -x -C folder``; the commit's full hash."""
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    folder.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(REPO), "archive", commit], stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", str(folder)], stdin=archive.stdout)
    archive.stdout.close()
    if archive.wait() != 0 or untar.returncode != 0:
        raise SystemExit(f"compare.py: could not extract {ref} ({commit}) into {folder}")
    if not (folder / "scalarlang" / "__init__.py").exists():
        raise SystemExit(f"compare.py: {ref} has no scalarlang/__init__.py")
    return commit


def base_environment(cache: Path) -> dict:
    """The caller's environment, bytecode caching on (in ``cache``), no inherited PYTHONPATH."""
    drop = {"PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH", "SCALARLANG_BENCH_TREE"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


# ---- running commands -------------------------------------------------------------------------


@dataclass
class Command:
    name: str  # "before", "after" or the peer's name
    argv: list[str]
    env: dict
    root: Path | None = None  # the folder its scalarlang must come from (None: not checked)


_SOURCE_PATH = re.compile(r"(?:matches |code object from '?)(/[^'\s]+\.py)'?\s*$")


def imported_from(stderr: str) -> list[str]:
    """The source files of the ``scalarlang`` modules a ``python -v`` run imported."""
    paths = []
    for line in stderr.splitlines():
        match = _SOURCE_PATH.search(line)
        if match and "/scalarlang/" in match.group(1):
            paths.append(match.group(1))
    return sorted(set(paths))


def check_files(files: list[str], root: Path) -> dict:
    """Whether every scalarlang module came from ``root`` (and the package itself did)."""
    prefix = str(root) + "/scalarlang/"
    foreign = [f for f in files if not os.path.realpath(f).startswith(prefix)]
    package = any(os.path.realpath(f) == prefix + "__init__.py" for f in files)
    return {
        "expected_root": str(root),
        "modules": len(files),
        "package_file": prefix + "__init__.py" if package else None,
        "foreign": foreign[:20],
        "ok": package and not foreign,
    }


def verify(command: Command, cwd: Path) -> dict:
    """Run the command once more under ``python -v``: where did its scalarlang come from?"""
    assert command.argv[0] == PYTHON
    done = subprocess.run([PYTHON, "-v", *command.argv[1:]], env=command.env, cwd=str(cwd),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return check_files(imported_from(done.stderr), command.root)


def race(commands: list[Command], repeat: int, cwd: Path) -> dict:
    """Best wall time of each command, the commands taking turns, after one warm-up run each
    (which fills the bytecode cache and keeps the output) and one ``python -v`` check."""
    results: dict = {}
    for command in commands:
        done = subprocess.run(command.argv, env=command.env, cwd=str(cwd), capture_output=True, text=True)
        results[command.name] = {
            "argv": command.argv,
            "status": done.returncode,
            "stdout": done.stdout,
            "stderr": done.stderr,
            "times": [],
            "cpu_times": [],
        }
        if command.root is not None:
            results[command.name]["imports"] = verify(command, cwd)
    for _ in range(repeat):
        for command in commands:
            figures = results[command.name]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(command.argv, env=command.env, cwd=str(cwd),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            figures["times"].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            figures["cpu_times"].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            if done.returncode != figures["status"]:
                figures["error"] = (f"exit {done.returncode} in a timed run (warm-up: {figures['status']}): "
                                    f"{done.stderr[-300:]}")
    for figures in results.values():
        figures["best_s"] = min(figures["times"]) if figures["times"] else None
        figures["median_s"] = statistics.median(figures["times"]) if figures["times"] else None
        figures["best_cpu_s"] = min(figures["cpu_times"]) if figures["cpu_times"] else None
    return results


def scalarlang_command(side: Side, *arguments: str) -> Command:
    return Command(side.name, [PYTHON, "-m", "scalarlang", *arguments], side.env, side.root)


def same_output(runs: dict) -> bool:
    """Whether before and after printed the same and exited alike (their warm-up runs)."""
    return all(runs["before"][key] == runs["after"][key] for key in ("status", "stdout", "stderr"))


def imports_ok(runs: dict) -> bool:
    return all(figures.get("imports", {"ok": True})["ok"] for figures in runs.values())


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def failure_of(runs: dict, names: tuple[str, ...], succeed: tuple[str, ...] = ()) -> str | None:
    """What went wrong with the commands ``names``, if anything; ``succeed``: those that must
    exit 0 (an example may fail on purpose, as long as both sides do)."""
    for name in names:
        figures = runs[name]
        if "error" in figures:
            return f"{name}: {figures['error']}"
        if name in succeed and figures["status"] != 0:
            return f"{name}: exit status {figures['status']}: {last_line(figures['stderr'])}"
        if not figures.get("imports", {"ok": True})["ok"]:
            return f"{name}: imported scalarlang from the wrong place ({figures['imports']})"
    return None


def slim(runs: dict) -> dict:
    """The runs for the JSON file: outputs cut short."""
    kept = {}
    for name, figures in runs.items():
        kept[name] = {k: v for k, v in figures.items() if k not in ("stdout", "stderr")}
        kept[name]["stdout_tail"] = figures["stdout"][-300:]
        kept[name]["stderr_tail"] = figures["stderr"][-300:]
    return kept


# ---- the cases --------------------------------------------------------------------------------


def case_examples(before: Side, after: Side, repeat: int, work: Path) -> list[dict]:
    rows = []
    for example in sorted((after.root / "examples").glob("*.sad")):
        say(f"  example {example.name}")
        runs = race([scalarlang_command(before, str(example)), scalarlang_command(after, str(example))], repeat, work)
        same_status = runs["before"]["status"] == runs["after"]["status"]
        problem = failure_of(runs, ("before", "after"))
        if not same_status:
            problem = problem or f"exit status {runs['before']['status']} before, {runs['after']['status']} after"
        rows.append(judged({
            "case": f"example {example.name}",
            "kind": "time",
            "before": runs["before"]["best_s"],
            "after": runs["after"]["best_s"],
            "target": f"after/before <= {EXAMPLE_SLOWDOWN}",
            "limit": EXAMPLE_SLOWDOWN,
            "judge": "after/before",
            "status": {"before": runs["before"]["status"], "after": runs["after"]["status"]},
            "same_output": same_output(runs),
            "problem": problem,
            "runs": slim(runs),
        }))
    return rows


_STEPS = re.compile(r"(for\s+step\s+in\s+0\s*\.\.\s*)(\d+)")
_SAD_EVERY = re.compile(r"(step\s*%\s*)(\d+)(\s*==\s*0)")
_PY_STEPS = re.compile(r"(for\s+step\s+in\s+range\()(\d+)(\))")


def _set(pattern: re.Pattern, text: str, value: int, what: str) -> str:
    if len(pattern.findall(text)) != 1:
        raise ValueError(f"{what}: expected one match of {pattern.pattern!r}")
    return pattern.sub(lambda m: m.group(1) + str(value) + (m.group(3) if m.re.groups >= 3 else ""), text)


_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def compare_numbers(reference: str, other: str) -> dict:
    """Same lines but for the numbers, and the largest difference between the numbers."""
    left, right = reference.splitlines(), other.splitlines()
    if len(left) != len(right) or not left:
        return {"ok": False, "reason": f"{len(left)} lines against {len(right)}"}
    largest = 0.0
    for a, b in zip(left, right):
        if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
            return {"ok": False, "reason": f"lines differ: {a!r} / {b!r}"}
        numbers_a, numbers_b = _NUMBER.findall(a), _NUMBER.findall(b)
        for x, y in zip(numbers_a, numbers_b):
            largest = max(largest, abs(float(x) - float(y)))
    return {"ok": largest <= LOSS_TOLERANCE, "lines": len(left), "max_difference": largest}


def case_xor(before: Side, after: Side, repeat: int, work: Path, plain_env: dict) -> dict:
    row = {"case": f"xor.sad, {XOR_STEPS:,} steps", "kind": "time", "target": f"after/before <= {EXAMPLE_SLOWDOWN}",
           "limit": EXAMPLE_SLOWDOWN, "judge": "after/before", "peer_name": "micrograd"}
    sad = (after.root / "examples" / "xor.sad").read_text(encoding="utf-8")
    peer = (BENCHMARKS / "training" / "xor_micrograd.py").read_text(encoding="utf-8")
    try:
        timed_sad = _set(_STEPS, sad, XOR_STEPS, "examples/xor.sad")
        timed_peer = _set(_PY_STEPS, peer, XOR_STEPS, "training/xor_micrograd.py")
        every_sad = _set(_SAD_EVERY, timed_sad, 1, "examples/xor.sad")
        every_peer = _set(_SAD_EVERY, timed_peer, 1, "training/xor_micrograd.py")
    except ValueError as error:
        return judged({**row, "problem": str(error)})
    files = {}
    for name, text in (("xor_4000.sad", timed_sad), ("xor_4000_micrograd.py", timed_peer),
                       ("xor_every_step.sad", every_sad), ("xor_every_step_micrograd.py", every_peer)):
        files[name] = work / name
        files[name].write_text(text, encoding="utf-8")
    if importlib.util.find_spec("micrograd") is None:
        return judged({**row, "problem": "micrograd is not importable"})

    say("  xor.sad: every step's loss, before, after and micrograd")
    outputs = {}
    for side in (before, after):
        done = subprocess.run(scalarlang_command(side, str(files["xor_every_step.sad"])).argv, env=side.env,
                              cwd=str(work), capture_output=True, text=True)
        outputs[side.name] = done.stdout
    done = subprocess.run([PYTHON, str(files["xor_every_step_micrograd.py"])], env=plain_env, cwd=str(work),
                          capture_output=True, text=True)
    outputs["micrograd"] = done.stdout
    same = {
        "before_vs_micrograd": compare_numbers(outputs["before"], outputs["micrograd"]),
        "after_vs_micrograd": compare_numbers(outputs["after"], outputs["micrograd"]),
    }

    say(f"  xor.sad at {XOR_STEPS:,} steps against micrograd")
    runs = race([
        scalarlang_command(before, str(files["xor_4000.sad"])),
        scalarlang_command(after, str(files["xor_4000.sad"])),
        Command("micrograd", [PYTHON, str(files["xor_4000_micrograd.py"])], plain_env),
    ], repeat, work)
    same["timed_before_vs_micrograd"] = compare_numbers(runs["before"]["stdout"], runs["micrograd"]["stdout"])
    same["timed_after_vs_micrograd"] = compare_numbers(runs["after"]["stdout"], runs["micrograd"]["stdout"])
    problem = failure_of(runs, ("before", "after", "micrograd"), succeed=("before", "after", "micrograd"))
    for name, check in same.items():
        if not check["ok"]:
            problem = problem or f"not the same computation ({name}): {check}"
    return judged({
        **row,
        "before": runs["before"]["best_s"],
        "after": runs["after"]["best_s"],
        "peer": runs["micrograd"]["best_s"],
        "same_losses": same,
        "same_output": same_output(runs),
        "problem": problem,
        "runs": slim(runs),
    })


def case_startup(before: Side, after: Side, repeat: int, work: Path, plain_env: dict) -> list[dict]:
    say("  start-up")
    program = "let x = var 2"
    runs = race([
        scalarlang_command(before, "-c", program),
        scalarlang_command(after, "-c", program),
        Command("python -c pass", [PYTHON, "-c", "pass"], plain_env),
    ], repeat, work)
    problem = failure_of(runs, ("before", "after"), succeed=("before", "after"))
    python = runs["python -c pass"]["median_s"]
    above = {side: runs[side]["median_s"] - python if runs[side]["median_s"] and python else None
             for side in ("before", "after")}
    # The medians of the same interleaved turns: the time a run takes more than Python's own
    # start-up, typically (the best of them, above, says what the code can do on a quiet moment).
    above_python = judged({
        "case": f"start-up above python -c pass, medians of {repeat}",
        "kind": "time",
        "before": above["before"],
        "after": above["after"],
        "target": f"after <= {STARTUP_ABOVE_PYTHON:.3f} s",
        "limit": STARTUP_ABOVE_PYTHON,
        "judge": "after",
        "problem": problem,
    })
    return [above_python, judged({
        "case": f"start-up -c '{program}'",
        "kind": "time",
        "before": runs["before"]["best_s"],
        "after": runs["after"]["best_s"],
        "peer": runs["python -c pass"]["best_s"],
        "peer_name": "python -c pass",
        "peer_difference": True,  # show after - python rather than a ratio
        "target": f"after/before <= {STARTUP_SLOWDOWN}",
        "limit": STARTUP_SLOWDOWN,
        "judge": "after/before",
        "same_output": same_output(runs),
        "problem": problem,
        "runs": slim(runs),
    })]


def case_straight(before: Side, after: Side, repeat: int, work: Path) -> dict:
    say(f"  straight-line program, {STRAIGHT_STATEMENTS:,} statements, and its Python twin")
    sad, python = straight_line_program(STRAIGHT_STATEMENTS)
    (work / "straight.sad").write_text(sad, encoding="utf-8")
    (work / "straight_twin.py").write_text(python, encoding="utf-8")
    runs = race([
        scalarlang_command(before, str(work / "straight.sad")),
        scalarlang_command(after, str(work / "straight.sad")),
        Command("twin", [PYTHON, str(work / "straight_twin.py")], after.env, after.root),
    ], repeat, work)
    return judged({
        "case": f"straight-line, {STRAIGHT_STATEMENTS:,} statements",
        "kind": "time",
        "before": runs["before"]["best_s"],
        "after": runs["after"]["best_s"],
        "peer": runs["twin"]["best_s"],
        "peer_name": "Python twin (after's engine)",
        "target": f"after/twin <= {TWIN_RATIO:g}",
        "limit": TWIN_RATIO,
        "judge": "after/peer",
        "same_output": same_output(runs),
        "problem": failure_of(runs, ("before", "after", "twin"), succeed=("before", "after", "twin")),
        "runs": slim(runs),
    })


# Runs in a fresh process per measurement, through the public API only: `scalarlang.run`
# parses the whole text before running any of it, so a syntax error on the last line makes it
# parse everything and run nothing.
PARSE_MEMORY_SCRIPT = r'''
import json, resource, sys, tracemalloc
mode, path = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as file:
    text = file.read()
import scalarlang
scalarlang.run("let x = var 1\nlet = 1\n")  # the parser's tables and the error report loaded

def rss_now():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()

figures = {}
if mode == "tracemalloc":
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    result = scalarlang.run(text, name="long.sad")
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figures.update(peak_bytes=peak - base, retained_bytes=current - base)
else:
    try:  # reset the high-water mark to the present resident size (Linux)
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        figures["high_water_reset"] = True
    except OSError:
        figures["high_water_reset"] = False
    base = rss_now()
    result = scalarlang.run(text, name="long.sad")
    figures["peak_rss_growth_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
error = result.error
span = getattr(error, "span", None)
figures.update(
    ok=result.ok,
    error_kind=getattr(error, "kind", None),
    error_line=getattr(span, "line", None),
    files=sorted({m.__file__ for n, m in list(sys.modules.items())
                  if n.split(".")[0] == "scalarlang" and getattr(m, "__file__", None)}),
)
print(json.dumps(figures))
'''


def case_parse_memory(before: Side, after: Side, work: Path) -> list[dict]:
    say(f"  parse memory, {PARSE_STATEMENTS:,} statements (fresh processes)")
    text, _ = straight_line_program(PARSE_STATEMENTS)
    final_line = text.count("\n") + 1
    program = work / "parse_memory.sad"
    program.write_text(text + "let = 1\n", encoding="utf-8")  # the syntax error: the last line
    control = work / "parse_memory_control.sad"  # the same lines as comments: the report alone
    control.write_text("".join("#" + line + "\n" for line in text.splitlines()) + "let = 1\n", encoding="utf-8")
    script = work / "parse_memory.py"
    script.write_text(PARSE_MEMORY_SCRIPT, encoding="utf-8")
    measured: dict = {}
    for label, mode, path in (("peak", "tracemalloc", program), ("rss", "rss", program),
                              ("control", "tracemalloc", control)):
        for side in (before, after):
            done = subprocess.run([PYTHON, str(script), mode, str(path)], env=side.env, cwd=str(work),
                                  capture_output=True, text=True)
            if done.returncode != 0:
                measured.setdefault(side.name, {})[label] = {"error": f"exit {done.returncode}: {last_line(done.stderr)}",
                                                             "stderr": done.stderr[-2000:]}
                continue
            figures = json.loads(done.stdout)
            figures["imports"] = check_files(figures.pop("files"), side.root)
            problems = []
            if not figures["imports"]["ok"]:
                problems.append(f"imported scalarlang from the wrong place ({figures['imports']})")
            if figures["error_kind"] != "syntax-error" or figures["error_line"] not in (None, final_line):
                problems.append(f"expected a syntax error on line {final_line}, got {figures['error_kind']} "
                                f"on line {figures['error_line']}")
            if problems:
                figures["error"] = "; ".join(problems)
            measured.setdefault(side.name, {})[label] = figures

    def per_statement(side: str, label: str, key: str):
        figures = measured.get(side, {}).get(label, {})
        return None if "error" in figures or key not in figures else figures[key] / PARSE_STATEMENTS

    def problem(label: str):
        for side in ("before", "after"):
            figures = measured.get(side, {}).get(label, {})
            if "error" in figures:
                return f"{side}: {figures['error']}"
        return None

    common = {"kind": "bytes", "measured": measured}
    return [
        judged({**common, "case": f"parse memory, {PARSE_STATEMENTS:,} statements (peak, tracemalloc)",
                "before": per_statement("before", "peak", "peak_bytes"),
                "after": per_statement("after", "peak", "peak_bytes"),
                "target": f"after <= {PARSE_BYTES:,} B/statement", "limit": PARSE_BYTES, "judge": "after",
                "problem": problem("peak")}),
        judged({**common, "case": "  of which the error's report (control)", "measured": None,
                "before": per_statement("before", "control", "peak_bytes"),
                "after": per_statement("after", "control", "peak_bytes"),
                "target": "information", "problem": problem("control")}),
        judged({**common, "case": "  peak resident growth (no tracemalloc)", "measured": None,
                "before": per_statement("before", "rss", "peak_rss_growth_bytes"),
                "after": per_statement("after", "rss", "peak_rss_growth_bytes"),
                "target": "information", "problem": problem("rss")}),
    ]


def case_engine(before: Side, after: Side, rounds: int, work: Path) -> tuple[list[dict], dict]:
    """``run.py --quick`` for each side in turn, ``rounds`` times. Our figure is the best time
    over that side's rounds; the peer's is its best over all rounds of both sides."""
    peers = ["scalarlang", "micrograd"] + (["torch"] if importlib.util.find_spec("torch") else [])
    raw: dict = {"before": [], "after": [], "errors": []}
    for round_ in range(rounds):
        for side in (before, after):
            say(f"  engine: run.py --quick, {side.name}, round {round_ + 1}/{rounds}")
            path = work / f"engine-{side.name}-{round_}.json"
            env = {**side.env, "SCALARLANG_BENCH_TREE": str(side.root)}
            done = subprocess.run([PYTHON, str(BENCHMARKS / "run.py"), "--quick", "--peers", ",".join(peers),
                                   "--json", str(path)], env=env, cwd=str(work), capture_output=True, text=True)
            if done.returncode != 0 or not path.exists():
                raw["errors"].append(f"{side.name}: run.py exit {done.returncode}: {last_line(done.stderr)}")
                continue
            results = json.loads(path.read_text())
            imported = (results.get("peers", {}).get("scalarlang") or {}).get("file")
            check = check_files([imported] if imported else [], side.root)
            if not check["ok"]:
                reason = (results.get("peers", {}).get("scalarlang") or {}).get("reason")
                raw["errors"].append(f"{side.name}: run.py's worker imported {imported!r}, not {side.root}"
                                     + (f" ({reason})" if reason else ""))
                continue
            raw[side.name].append(results["summary"])

    def best(side: str, case: str, peer: str, key: str):
        values = [s[case]["peers"].get(peer, {}).get(key) for s in raw[side] if case in s]
        values = [v for v in values if isinstance(v, (int, float))]
        return min(values) if values else None

    rows = []
    problem = "; ".join(raw["errors"]) or None
    for case in ("mlp", "wide", "deep"):
        for peer in peers[1:]:
            if case == "deep" and peer == "micrograd":
                continue  # micrograd cannot back-propagate the deep chain (run.py reports where)
            for key, figure in (("build_s", "build"), ("backward_s", "backward")):
                # The peer is the same code in both sides' runs: one denominator, its best time
                # over all of them, so that its own noise does not move after/before.
                theirs = min((v for v in (best(s, case, peer, key) for s in ("before", "after")) if v),
                             default=None)
                ratios = {}
                for side in ("before", "after"):
                    ours = best(side, case, "scalarlang", key)
                    ratios[side] = ours / theirs if ours and theirs else None
                rows.append(judged({
                    "case": f"engine {case} {figure} / {peer}",
                    "kind": "ratio",
                    "before": ratios["before"],
                    "after": ratios["after"],
                    "target": f"after/before <= {EXAMPLE_SLOWDOWN}",
                    "limit": EXAMPLE_SLOWDOWN,
                    "judge": "after/before",
                    "problem": problem,
                }))
    return rows, {"peers": peers, "rounds": rounds, "errors": raw["errors"],
                  "summaries": {side: raw[side] for side in ("before", "after")}}


# ---- judging and the table --------------------------------------------------------------------


def judged(row: dict) -> dict:
    before, after, peer = row.get("before"), row.get("after"), row.get("peer")
    row["after_over_before"] = after / before if before and after is not None else None
    runs = row.get("runs") or {}
    cpu = [(runs.get(side) or {}).get("best_cpu_s") for side in ("before", "after")]
    # the same ratio of user + system time, for context (the machine's speed moves it too)
    row["cpu_after_over_before"] = cpu[1] / cpu[0] if cpu[0] and cpu[1] is not None else None
    if peer:
        row["after_over_peer"] = after / peer if after is not None else None
        row["before_over_peer"] = before / peer if before is not None else None
    judge = row.get("judge")
    value = {"after/before": row["after_over_before"], "after/peer": row.get("after_over_peer"),
             "after": after}.get(judge) if judge else None
    if row.get("problem"):
        row["verdict"] = "FAIL" if judge else "ERROR"
    elif judge is None:
        row["verdict"] = ""
    elif value is None:
        row["verdict"] = "FAIL"
        row["problem"] = "not measured"
    else:
        row["verdict"] = "PASS" if value <= row["limit"] else "FAIL"
    return row


def _figure(row: dict, value) -> str:
    if value is None:
        return "-"
    if row["kind"] == "time":
        return f"{value:.3f} s"
    if row["kind"] == "bytes":
        return f"{value:,.0f} B"
    return f"{value:.2f}x"


def render(rows: list[dict], header: list[str]) -> str:
    table = [("case", "before", "after", "after/before", "(cpu)", "peer", "after/peer (before/peer)", "target", "")]
    for row in rows:
        peer, peer_ratio = "", ""
        if row.get("peer"):
            peer = f"{row['peer_name']} {row['peer']:.3f} s"
            if row.get("peer_difference"):
                a, b = row["after"], row["before"]
                peer_ratio = f"+{a - row['peer']:.3f} s (+{b - row['peer']:.3f} s)" if a and b else "-"
            elif row.get("after_over_peer") is not None and row.get("before_over_peer") is not None:
                peer_ratio = f"{row['after_over_peer']:.2f}x ({row['before_over_peer']:.2f}x)"
        ratio = f"{row['after_over_before']:.3f}" if row.get("after_over_before") is not None else "-"
        cpu = f"({row['cpu_after_over_before']:.3f})" if row.get("cpu_after_over_before") is not None else ""
        table.append((row["case"], _figure(row, row.get("before")), _figure(row, row.get("after")), ratio, cpu,
                      peer, peer_ratio, row.get("target", ""), row.get("verdict", "")))
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = list(header)
    for index, line in enumerate(table):
        cells = [cell.ljust(w) if i in (0, 5, 7) else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths))]
        lines.append("  ".join(cells).rstrip())
        if index == 0:
            lines.append("-" * len(lines[-1]))
    notes = [f"  {row['case'].strip()}: {row['problem']}" for row in rows if row.get("problem")]
    if notes:
        lines += ["", "problems:"] + notes
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", metavar="REF", help="git ref or commit for 'before' (default main)")
    parser.add_argument("--after", default=None, metavar="REF",
                        help="git ref or commit for 'after' (default: the working tree, as it is)")
    parser.add_argument("--repeat", type=int, default=None, help="turns per command, best kept (default 5; 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="one turn per command (start-up: 15), one run.py round")
    parser.add_argument("--json", metavar="PATH", default=str(BENCHMARKS / "results" / "compare.json"))
    parser.add_argument("--skip", default="", help="comma-separated cases to leave out: examples,xor,startup,straight,parse,engine")
    arguments = parser.parse_args(argv)
    repeat = arguments.repeat or (1 if arguments.quick else 5)
    skip = {s for s in arguments.skip.split(",") if s}
    started = time.perf_counter()
    load_start = os.getloadavg()

    with tempfile.TemporaryDirectory(prefix="scalarlang-compare-") as temporary:
        temporary_path = Path(temporary).resolve()
        work = temporary_path / "work"  # the current directory of every command: nothing in it to import
        work.mkdir()
        cache = temporary_path / "pycache"
        env = base_environment(cache)
        before_commit = extract(arguments.before, temporary_path / "before")
        before = Side("before", temporary_path / "before", f"{arguments.before} ({before_commit[:12]})",
                      {**env, "PYTHONPATH": str(temporary_path / "before")})
        if arguments.after:
            after_commit = extract(arguments.after, temporary_path / "after")
            after = Side("after", temporary_path / "after", f"{arguments.after} ({after_commit[:12]})",
                         {**env, "PYTHONPATH": str(temporary_path / "after")})
        else:
            changed = git("status", "--porcelain", "--", "scalarlang").splitlines()
            head = git("rev-parse", "HEAD")
            label = f"working tree {REPO} (HEAD {head[:12]}, {len(changed)} changed paths under scalarlang/)"
            after = Side("after", REPO, label, {**env, "PYTHONPATH": str(REPO)})
        say(f"before: {before.label}\nafter:  {after.label}\nbest of {repeat}")

        rows: list[dict] = []
        engine_raw = None
        if "examples" not in skip:
            rows += case_examples(before, after, repeat, work)
        if "xor" not in skip:
            rows.append(case_xor(before, after, repeat, work, env))
        if "startup" not in skip:
            rows += case_startup(before, after, max(STARTUP_TURNS, 5 * repeat), work, env)
        if "straight" not in skip:
            rows.append(case_straight(before, after, repeat, work))
        if "parse" not in skip:
            rows += case_parse_memory(before, after, work)
        if "engine" not in skip:
            engine_rows, engine_raw = case_engine(before, after, repeat, work)
            rows += engine_rows

    elapsed = time.perf_counter() - started
    load_end = os.getloadavg()
    header = [
        f"before: {before.label}",
        f"after:  {after.label}",
        f"python {sys.version.split()[0]} ({PYTHON}); best of {repeat} (start-up: {max(STARTUP_TURNS, 5 * repeat)}); "
        f"load {load_start[0]:.1f} at start, {load_end[0]:.1f} at end; {elapsed:.0f} s",
        "whole processes, best wall time ((cpu): the same ratio of best user + system time, for context); "
        "every scalarlang module imported from its side's folder: "
        + ("yes" if all(ok_imports(row) for row in rows) else "NO (see problems)"),
        "",
    ]
    cpus = os.cpu_count() or 1
    if max(load_start[0], load_end[0]) > cpus / 2:
        header.insert(-1, f"note: the machine was busy (load up to {max(load_start[0], load_end[0]):.1f} on {cpus} CPUs): "
                          "other processes move these timings; judge from a quiet machine")
    print(render(rows, header))
    passed = sum(row["verdict"] == "PASS" for row in rows)
    failed = [row for row in rows if row["verdict"] in ("FAIL", "ERROR")]
    print(f"\n{passed} PASS, {len(failed)} FAIL" + (" (--quick: one turn each, indicative only)" if arguments.quick else ""))
    different = [row["case"] for row in rows if row.get("same_output") is False]
    if different:
        print("output differs between before and after: " + ", ".join(different))
    results = {
        "before": {"ref": arguments.before, "commit": before_commit, "label": before.label},
        "after": {"ref": arguments.after, "label": after.label, "root": str(after.root)},
        "python": sys.version,
        "executable": PYTHON,
        "repeat": repeat,
        "quick": arguments.quick,
        "load_average": {"start": load_start, "end": load_end},
        "elapsed_s": elapsed,
        "targets": {"example_slowdown": EXAMPLE_SLOWDOWN, "startup_slowdown": STARTUP_SLOWDOWN,
                    "startup_above_python_s": STARTUP_ABOVE_PYTHON,
                    "twin_ratio": TWIN_RATIO, "parse_bytes_per_statement": PARSE_BYTES},
        "rows": rows,
        "engine": engine_raw,
    }
    path = Path(arguments.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(f"figures written to {os.path.relpath(path)}")
    return 0 if not failed else 1


def ok_imports(row: dict) -> bool:
    runs = row.get("runs") or {}
    if not imports_ok(runs):
        return False
    for sides in (row.get("measured") or {}).values():
        for figures in sides.values():
            if "imports" in figures and not figures["imports"]["ok"]:
                return False
    problem = row.get("problem") or ""
    return "imported scalarlang from the wrong place" not in problem and "worker imported" not in problem


if __name__ == "__main__":
    sys.exit(main())
