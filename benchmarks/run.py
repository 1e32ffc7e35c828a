"""Speed and scale of scalarlang against micrograd and PyTorch: ``python benchmarks/run.py``.

Each peer runs in its own worker process (``worker.py``); the repetitions of a case take
turns across the peers (ours, micrograd, torch, ours, ...), so a change in machine load
touches every peer alike, and the best of the repetitions is kept. Memory is measured in one
more fresh process per peer. Then a table of per-node / per-edge figures and ratios
(ours / peer, same graph, same run), the targets with PASS/FAIL, and the figures as JSON.

Options: ``--quick`` (small sizes, a smoke run; the absolute targets are not judged),
``--json PATH`` (default ``benchmarks/results/latest.json``), ``--repeat N`` (default 3),
``--peers a,b``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
REPO = BENCHMARKS.parent
sys.path.insert(0, str(BENCHMARKS))

import report  # noqa: E402

PEERS = ("scalarlang", "micrograd", "torch")

FULL = {"points": 100, "wide": 200_000, "depth": 1_000_000, "statements": 100_000, "startup_runs": 7}
QUICK = {"points": 10, "wide": 20_000, "depth": 100_000, "statements": 10_000, "startup_runs": 3}


class Worker:
    """One peer's process, answering one JSON request a line."""

    def __init__(self, peer: str):
        self.peer = peer
        self.process = subprocess.Popen(
            [sys.executable, str(BENCHMARKS / "worker.py"), peer],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=str(REPO),
        )
        hello = self._read()
        self.available = hello.get("available", False)
        self.version = hello.get("version")
        self.file = hello.get("file")  # the module the worker imported
        self.reason = hello.get("reason")

    def _read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            return {"available": False, "error": "the worker process ended"}
        return json.loads(line)

    def run(self, case: str, **args) -> dict:
        self.process.stdin.write(json.dumps({"case": case, "args": args}) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=60)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_cases(peers: list[str], sizes: dict, repeat: int) -> tuple[dict, dict]:
    """Every timing case, repetitions interleaved across the peers; then memory."""
    workers = {peer: Worker(peer) for peer in peers}
    info = {
        peer: {"available": w.available, "version": w.version, "reason": w.reason, "file": w.file}
        for peer, w in workers.items()
    }
    live = [peer for peer in peers if workers[peer].available]
    plan = [
        ("mlp", {"points": sizes["points"]}, live),
        ("wide", {"count": sizes["wide"]}, live),
        ("deep", {"depth": sizes["depth"]}, live),
        ("interpreter", {"statements": sizes["statements"]}, [p for p in live if p == "scalarlang"]),
    ]
    runs: dict = {}
    try:
        for case, args, members in plan:
            for repetition in range(repeat):
                for peer in members:
                    if case == "deep" and peer == "micrograd" and repetition:
                        continue  # its failure depth does not need repeating
                    _say(f"  {case:<12} {peer:<11} repetition {repetition + 1}/{repeat}")
                    runs.setdefault(case, {}).setdefault(peer, []).append(workers[peer].run(case, **args))
    finally:
        for worker in workers.values():
            worker.close()
    memory: dict = {}
    for peer in live:
        for which in ("graphs", "deep"):
            if which == "deep" and peer == "micrograd":
                continue  # it cannot back-propagate the chain
            _say(f"  memory       {peer:<11} {which} (fresh process)")
            worker = Worker(peer)
            try:
                memory.setdefault(peer, {}).update(
                    worker.run("memory", which=which, points=sizes["points"], depth=sizes["depth"]))
            finally:
                worker.close()
    return {"peers": info, "runs": runs}, memory


def startup(runs: int) -> dict:
    """Wall time of ``scalarlang -c 'let x = var 2'`` and of ``python -c pass``, best of ``runs``.

    Bytecode caching is on, as a user has it (this sandbox sets PYTHONDONTWRITEBYTECODE), with
    the cache in a temporary directory so the tree stays clean; one warm-up run fills it.
    """
    script = shutil.which("scalarlang", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "scalarlang"]
    ours = command + ["-c", "let x = var 2"]
    baseline = [sys.executable, "-c", "pass"]
    with tempfile.TemporaryDirectory(prefix="scalarlang-bench-pycache-") as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        for argv in (ours, baseline):  # warm-up: compile and cache
            check = subprocess.run(argv, env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True)
            if check.returncode != 0:
                return {"available": False, "command": argv, "reason": (check.stderr or check.stdout)[-300:]}
        times: dict = {"ours": [], "python": []}
        cpu: dict = {"ours": [], "python": []}  # user + system: less sensitive to machine load
        for _ in range(runs):
            for key, argv in (("ours", ours), ("python", baseline)):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(argv, env=env, cwd=tempfile.gettempdir(), capture_output=True)
                times[key].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[key].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return {
        "available": True,
        "command": " ".join(ours),
        "ours_s": min(times["ours"]),
        "python_s": min(times["python"]),
        "ours_cpu_s": min(cpu["ours"]),
        "python_cpu_s": min(cpu["python"]),
        "all": times,
    }


def environment() -> dict:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "executable": sys.executable,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run); absolute targets not judged")
    parser.add_argument("--json", metavar="PATH", default=str(BENCHMARKS / "results" / "latest.json"))
    parser.add_argument("--repeat", type=int, default=3, help="repetitions per case, best kept (default 3)")
    parser.add_argument("--peers", default=",".join(PEERS), help="comma-separated subset of " + ",".join(PEERS))
    arguments = parser.parse_args(argv)
    peers = [p for p in arguments.peers.split(",") if p]
    unknown = set(peers) - set(PEERS)
    if unknown or "scalarlang" not in peers:
        parser.error(f"peers are among {', '.join(PEERS)} and include scalarlang")
    sizes = QUICK if arguments.quick else FULL

    _say(f"benchmarking {', '.join(peers)} ({'quick' if arguments.quick else 'full'} sizes, best of {arguments.repeat})")
    started = time.perf_counter()
    timing, memory = run_cases(peers, sizes, arguments.repeat)
    _say("  start-up")
    start_up = startup(sizes["startup_runs"])
    results = {
        "environment": environment(),
        "mode": "quick" if arguments.quick else "full",
        "repeat": arguments.repeat,
        "sizes": sizes,
        **timing,
        "memory": memory,
        "startup": start_up,
    }
    results["summary"] = report.summarise(results)
    results["targets"] = report.targets(results)
    results["elapsed_s"] = time.perf_counter() - started
    results["environment"]["load_average_end"] = os.getloadavg()

    print(report.render(results))
    path = Path(arguments.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nfigures written to {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
