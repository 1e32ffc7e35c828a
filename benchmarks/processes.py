"""Whole-process comparisons: ``python benchmarks/processes.py [--quick] [--repeat N]``.

Each case runs complete commands, start-up and compilation included, as a person would type
them, and keeps the best wall time of the repetitions (the commands take turns, so a change in
machine load touches them alike):

- ``python-equivalent``: a straight-line program of N statements (``let aN = aN-1 * 1.0000001
  + k``, then one backward) run by ``scalarlang FILE``, against the same statements as a
  Python script on our engine (``python FILE.py``). The ratio says what the language costs
  over writing the engine calls by hand. Target (issue "One parser, one evaluator"): <= 5.0
  (a program of this shape is not what users write; the language keeps one path for it).
- ``statements``: the same kind of program with 100,000 statements through ``scalarlang``:
  statements per second end to end, for the record (no target).
- ``training``: ``scalarlang examples/xor.sad`` against the same training loop written in
  Python on micrograd and on PyTorch (``benchmarks/training/``). Target: ratio to
  micrograd <= 1.0.
- ``parsed-memory``: bytes of the parsed form per statement (tracemalloc around
  ``parse_program`` of the 100,000-statement program, the text excluded).

Output: a table on standard output and the figures in ``benchmarks/results/processes.json``.
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
TRAINING = BENCHMARKS / "training"


def straight_line_program(statements: int) -> tuple[str, str]:
    """The `.sad` program and its Python twin on the engine, statement for statement."""
    sad = ["let a0 = var 1"]
    python = ["from scalarlang import Scalar", "a0 = Scalar.variable(1)"]
    for index in range(1, statements - 1):
        k = index % 7
        sad.append(f"let a{index} = a{index - 1} * 1.0000001 + {k}")
        python.append(f"a{index} = a{index - 1} * 1.0000001 + {k}")
    last = statements - 2
    sad.append(f"backward(a{last})")  # its tables show 200 rows at most: a few ms
    python.append(f"a{last}.backward()")
    return "\n".join(sad) + "\n", "\n".join(python) + "\n"


def _scalarlang_command() -> list[str]:
    script = shutil.which("scalarlang", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "scalarlang"]


def _time(argv: list[str], env: dict) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=str(REPO), capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, done.stderr[-400:]


def race(commands: dict[str, list[str]], repeat: int) -> dict:
    """Best wall time of each command, the commands taking turns; failures reported."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    results: dict = {name: {"times": []} for name in commands}
    with tempfile.TemporaryDirectory(prefix="scalarlang-bench-pycache-") as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        for argv in commands.values():  # warm-up: byte-compile the libraries
            subprocess.run(argv, env=env, cwd=str(REPO), capture_output=True)
        for _ in range(repeat):
            for name, argv in commands.items():
                seconds, status, errors = _time(argv, env)
                if status != 0:
                    results[name]["error"] = f"exit {status}: {errors.strip()}"
                results[name]["times"].append(seconds)
    for figures in results.values():
        figures["best_s"] = min(figures["times"])
    return results


def _peer_available(module: str) -> bool:
    probe = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    return probe.returncode == 0


def case_python_equivalent(statements: int, repeat: int, folder: Path) -> dict:
    sad, python = straight_line_program(statements)
    (folder / "straight.sad").write_text(sad)
    (folder / "straight.py").write_text(python)
    runs = race(
        {
            "scalarlang": _scalarlang_command() + [str(folder / "straight.sad")],
            "python": [sys.executable, str(folder / "straight.py")],
        },
        repeat,
    )
    return {"statements": statements, "runs": runs, "ratio": runs["scalarlang"]["best_s"] / runs["python"]["best_s"]}


def case_statements(statements: int, repeat: int, folder: Path) -> dict:
    sad, _ = straight_line_program(statements)
    (folder / "long.sad").write_text(sad)
    runs = race({"scalarlang": _scalarlang_command() + [str(folder / "long.sad")]}, repeat)
    best = runs["scalarlang"]["best_s"]
    return {"statements": statements, "runs": runs, "statements_per_s": statements / best}


def case_training(repeat: int) -> dict:
    example = REPO / "examples" / "xor.sad"
    if not example.exists():
        return {"available": False, "reason": "examples/xor.sad is not there yet"}
    commands = {"scalarlang": _scalarlang_command() + [str(example)]}
    missing = {}
    for peer, module in (("micrograd", "micrograd"), ("torch", "torch")):
        if _peer_available(module):
            commands[peer] = [sys.executable, str(TRAINING / f"xor_{peer}.py")]
        else:
            missing[peer] = f"{module} is not importable"
    runs = race(commands, repeat)
    ratios = {peer: runs["scalarlang"]["best_s"] / runs[peer]["best_s"] for peer in runs if peer != "scalarlang"}
    return {"available": True, "runs": runs, "ratios": ratios, "missing": missing}


def case_parsed_memory(statements: int) -> dict:
    """Bytes per parsed statement, measured in a fresh process (nothing else allocated)."""
    code = f"""
import json, sys, tracemalloc
sys.path.insert(0, {str(BENCHMARKS)!r})
from processes import straight_line_program
from scalarlang.language.source import Source
from scalarlang.language.parser import parse_program
text, _ = straight_line_program({statements})
source = Source("long.sad", text)
parse_program(Source("warm.sad", "let x = var 1\\n"))  # load the parser's tables first
tracemalloc.start()
before = tracemalloc.get_traced_memory()[0]
program = parse_program(source)
after, peak = tracemalloc.get_traced_memory()
print(json.dumps({{"retained": after - before, "peak": peak - before, "count": len(program.statements)}}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO))
    if done.returncode != 0:
        return {"available": False, "reason": done.stderr[-400:]}
    figures = json.loads(done.stdout)
    count = figures["count"]
    return {
        "available": True,
        "statements": count,
        "bytes_per_statement": figures["retained"] / count,
        "peak_bytes_per_statement": figures["peak"] / count,
    }


def render(results: dict) -> str:
    lines = []
    equivalent = results["python-equivalent"]
    runs = equivalent["runs"]
    lines.append(
        f"python-equivalent ({equivalent['statements']:,} statements): scalarlang {runs['scalarlang']['best_s']:.3f} s, "
        f"python {runs['python']['best_s']:.3f} s, ratio {equivalent['ratio']:.2f}x (target <= 5.0x)"
    )
    statements = results["statements"]
    lines.append(
        f"statements ({statements['statements']:,}): {statements['runs']['scalarlang']['best_s']:.3f} s, "
        f"{statements['statements_per_s']:,.0f} statements/s end to end"
    )
    training = results["training"]
    if training.get("available"):
        parts = [f"{peer} {figures['best_s']:.3f} s" for peer, figures in training["runs"].items()]
        ratios = ", ".join(f"{ratio:.2f}x {peer}" for peer, ratio in training["ratios"].items())
        lines.append(f"training (examples/xor.sad): {', '.join(parts)}; ratio {ratios} (target <= 1.0x micrograd)")
        for peer, reason in training["missing"].items():
            lines.append(f"  {peer} skipped: {reason}")
    else:
        lines.append(f"training: not available ({training.get('reason')})")
    memory = results["parsed-memory"]
    if memory.get("available"):
        lines.append(
            f"parsed form: {memory['bytes_per_statement']:.0f} bytes/statement retained, "
            f"{memory['peak_bytes_per_statement']:.0f} bytes/statement at the peak of the parse"
        )
    else:
        lines.append(f"parsed form: not measured ({memory.get('reason')})")
    for name, case in results.items():
        for peer, figures in case.get("runs", {}).items() if isinstance(case, dict) else ():
            if "error" in figures:
                lines.append(f"  {name} {peer} FAILED: {figures['error']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repetition: a smoke run")
    parser.add_argument("--repeat", type=int, default=None, help="repetitions per command, best kept (default 5; 1 with --quick)")
    parser.add_argument("--json", metavar="PATH", default=str(BENCHMARKS / "results" / "processes.json"))
    arguments = parser.parse_args(argv)
    repeat = arguments.repeat or (1 if arguments.quick else 5)
    small, large = (2_000, 10_000) if arguments.quick else (20_000, 100_000)
    with tempfile.TemporaryDirectory(prefix="scalarlang-bench-") as folder:
        results = {
            "python-equivalent": case_python_equivalent(small, repeat, Path(folder)),
            "statements": case_statements(large, max(1, repeat // 2), Path(folder)),
            "training": case_training(repeat),
            "parsed-memory": case_parsed_memory(large),
            "load_average": os.getloadavg(),
        }
    print(render(results))
    path = Path(arguments.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nfigures written to {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
