"""How long the REPL's `:load` takes beside a big graph: ``python benchmarks/load.py``.

Issue 35, item 4: `:load bigram.sad` took 0.24 s after `:reset` and 3.9 s after
``for i in 0..1000000 { let x = tanh(x) + 1 }`` in the same session, because the undo journal
walked every graph the session's names held. This loads a small bigram training file (or
``--file``) in a REPL core (no terminal) after a reset, then after binding a graph of
``--sizes`` iterations of that loop (two nodes each) under a name the file never uses, and
a pass over it, and prints the first load after that and the best of ``--repeat`` more.
(The input after the loop, the pass here, also pays once for the collector moving the new
graph's nodes to its oldest generation: about 0.5 s for 2,000,000 nodes, whatever the input.)
Before the fix: 0.012 s after a reset, 0.25 s beside 200,001 nodes, 3.8 s beside 2,000,001;
after it 0.012 s for all three.
"""

from __future__ import annotations

import argparse
import gc
import io
import sys
import tempfile
import time
from pathlib import Path

from scalarlang.front.repl_core import ReplCore
from scalarlang.render.text import Renderer, make_console

BIGRAM = """\
random_seed(1)
let pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (0, 2), (2, 4), (4, 0), (1, 3), (3, 5), (5, 1)]
let W = [[var gauss(0, 1) for j in 0..6] for i in 0..6]
fn nll(row, target) = log(sum([exp(z) for z in row])) - row[target]
for step in 0..30 {
  let loss = mean([nll(W[p[0]], p[1]) for p in pairs])
  backward(loss)
  descend W by 1
}
print "loss {loss}"
"""


def timed(core: ReplCore, line: str) -> float:
    start = time.perf_counter()
    core.handle(line)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, help="the .sad file to load (default: a small bigram model)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        file = options.file
        if file is None:
            file = Path(folder) / "bigram.sad"
            file.write_text(BIGRAM, encoding="utf-8")
        stream = io.StringIO()
        core = ReplCore(Renderer(make_console(stream, width=100, color="never")))
        load = f":load {file}"
        core.handle(load)  # the parser's first use compiles its lexer
        if "error" in stream.getvalue():
            sys.exit(stream.getvalue())
        print(f"{'REPL session':<52} {'first s':>8} {'best s':>8}")
        for size in [0, *options.sizes]:
            core.handle(":reset")
            gc.collect()
            if size:
                core.handle("let big = var 0.5")
                core.handle(f"for i in 0..{size} {{ let big = tanh(big) + 1 }}")
                core.handle("backward(big)")
            first = timed(core, load)
            best = min(timed(core, load) for _ in range(options.repeat))
            what = f":load {file.name} beside a graph of {2 * size + 1:,} nodes" if size else f":load {file.name} after :reset"
            print(f"{what:<52} {first:>8.3f} {best:>8.3f}", flush=True)


if __name__ == "__main__":
    main()
