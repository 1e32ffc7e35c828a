"""The playground in a browser: time to ready and bytes shipped (issue 27).

    python playground/build.py && python benchmarks/playground.py [--loads N] [--json PATH]

Serves playground/dist on 127.0.0.1 (a thread, as the tests do) and opens it in Debian's
headless Chromium (selenium) with a fresh profile: the first load (cold: nothing cached),
then N more loads of the same page (warm: the browser's caches and the page's service worker
hold every file). "Ready" is when the page says Python is ready to run a program (the worker
has booted Pyodide, installed the wheels and warmed scalarlang up): `window.playground.readyAt`,
in ms since the navigation started. Also timed: the reused square's first run after ready
(click Run to the output), and the site's size (raw and gzipped, what a server compressing
its responses sends) against the bytes the first load fetched.

The target (issue 27): ready in under 3 s from a warm cache on this machine (2 cores).
Figures go to standard output and to benchmarks/results/playground.json (gitignored).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "playground"))

import harness  # noqa: E402

TARGET_SECONDS = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=5, help="warm loads after the first (default 5)")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "playground.json")
    parser.add_argument("--dist", type=Path, default=harness.DIST)
    args = parser.parse_args()
    build = args.dist / "build.json"
    if not build.exists():
        print(f"{args.dist} is not built: run python playground/build.py first", file=sys.stderr)
        return 2
    binary, driver = harness.browser_paths()
    if binary is None or driver is None:
        print("chromium and chromedriver are needed (Debian's chromium and chromium-driver)", file=sys.stderr)
        return 2
    built = json.loads(build.read_text())
    figures = measure(args.dist, args.loads)
    figures["site"] = {"files": built["files"], "bytes": built["bytes"], "gzip_bytes": built["gzip_bytes"]}
    figures["versions"] = built["versions"]
    report(figures)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"figures written to {args.json.relative_to(ROOT) if args.json.is_relative_to(ROOT) else args.json}")
    return 0


def measure(dist: Path, loads: int) -> dict:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with harness.serve(dist) as server, tempfile.TemporaryDirectory(prefix="playground-bench-") as profile:
        browser = harness.chromium(Path(profile) / "chromium", performance_log=False)
        try:
            def load() -> dict:
                before = server.bytes_sent
                browser.get(server.url)
                WebDriverWait(browser, 120).until(lambda _: browser.execute_script("return document.body.dataset.ready") == "true")
                ready = browser.execute_script("return [window.playground.readyAt, window.playground.bootMarks]")
                # The service worker fills its cache after ready: let it finish before the next load.
                WebDriverWait(browser, 60).until(
                    lambda _: browser.execute_script("return !!(navigator.serviceWorker && navigator.serviceWorker.controller)")
                )
                return {"ready_ms": ready[0], "worker_marks_ms": ready[1], "bytes_fetched": server.bytes_sent - before}

            cold = load()
            time.sleep(0.5)
            warm = []
            for _ in range(loads):
                warm.append(load())
                time.sleep(0.5)
            started = time.perf_counter()
            browser.find_element(By.ID, "run").click()
            WebDriverWait(browser, 60).until(lambda _: browser.find_element(By.ID, "output").get_attribute("data-state") == "done")
            first_run = time.perf_counter() - started
            run = browser.execute_script("return window.playground.lastRun")
        finally:
            browser.quit()
    readies = [load["ready_ms"] for load in warm]
    return {
        "cold": cold,
        "warm": warm,
        "warm_ready_ms": {"median": statistics.median(readies), "min": min(readies), "max": max(readies)},
        "first_run": {"seconds_click_to_output": first_run, "python_seconds": run["pythonSeconds"], "status": run["status"]},
        "target_seconds": TARGET_SECONDS,
        "machine": {"cpus": _cpus()},
    }


def report(figures: dict) -> None:
    site = figures["site"]
    cold, warm = figures["cold"], figures["warm_ready_ms"]
    verdict = "PASS" if warm["median"] / 1000 < TARGET_SECONDS else "FAIL"
    print(f"site: {site['bytes'] / 1e6:.1f} MB in {site['files']} files, {site['gzip_bytes'] / 1e6:.1f} MB gzipped")
    print(f"cold load: ready in {cold['ready_ms'] / 1000:.2f} s, {cold['bytes_fetched'] / 1e6:.1f} MB fetched")
    print(f"warm loads ({len(figures['warm'])}): ready in {warm['median'] / 1000:.2f} s median "
          f"({warm['min'] / 1000:.2f}-{warm['max'] / 1000:.2f}), "
          f"{statistics.median(load['bytes_fetched'] for load in figures['warm']) / 1e3:.0f} kB fetched; "
          f"target < {TARGET_SECONDS:.0f} s: {verdict}")
    marks = figures["warm"][-1]["worker_marks_ms"]
    print("  last warm load, in the worker (ms since it started): " + ", ".join(f"{k} {v:.0f}" for k, v in marks.items()))
    run = figures["first_run"]
    print(f"first run of the reused square after ready: {run['seconds_click_to_output'] * 1000:.0f} ms click to output "
          f"({run['python_seconds'] * 1000:.0f} ms in Python)")


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 0)


if __name__ == "__main__":
    sys.exit(main())
