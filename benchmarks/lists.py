"""How binding a list scales with its depth and sharing: ``python benchmarks/lists.py``.

Issue 36, item 2: binding a list must cost time linear in its distinct items, whatever its
depth and sharing. Each case runs a program through the Python API (the best of
``--repeat`` runs) at doubling sizes and prints the time per step of its loop: flat figures
mean linear time, a figure that doubles with the size means quadratic. Before the fix,
`let L = [L]` took 1.7 s at 1,000 steps, 8 s at 2,000 and 58 s at 4,000, and `let L = [L, L]`
quadrupled every two steps (10 s at 20): here both stay at microseconds a step.

Cases: a list nested in itself step by step (`let L = [L]`: each `let` binds a list as deep as
the steps so far); a list held twice in itself (`let L = [L, L]`: 2 to the N paths, N + 1
distinct lists), with `descend` and `zero_grad` of it at the end; a wide list of N nodes bound
once (the labels themselves: linear in N); the same list 40 deep (labels cut at the label
limit, so no longer for being deep).
"""

from __future__ import annotations

import argparse
import time

import scalarlang


def best_of(repeat: int, program: str) -> float:
    times = []
    for _ in range(repeat):
        session = scalarlang.Session()
        start = time.perf_counter()
        result = session.run(program)
        times.append(time.perf_counter() - start)
        assert result.ok, result.text
    return min(times)


def nested(steps: int) -> str:
    return f"let L = [1]\nfor i in 0..{steps} {{\n  let L = [L]\n}}\n"


def shared(steps: int) -> str:
    return (
        f"let w = var 0.5\nlet L = [w]\nfor i in 0..{steps} {{\n  let L = [L, L]\n}}\n"
        "quiet backward(w * w)\ndescend L by 0.1\nzero_grad\n"
    )


def wide(size: int) -> str:
    return f"let L = [i for i in 0..{size}]\n"


def deep_and_wide(size: int) -> str:
    return "let L = " + "[" * 40 + f"i for i in 0..{size}" + "]" * 40 + "\n"


CASES = [
    ("let L = [L], N steps", nested, [1_000, 2_000, 4_000, 8_000, 16_000, 32_000]),
    ("let L = [L, L], N steps; descend, zero_grad", shared, [20, 40, 80, 160, 320, 640]),
    ("let L of N nodes", wide, [10_000, 20_000, 40_000, 80_000, 160_000]),
    ("let L of N nodes, 40 deep", deep_and_wide, [10_000, 20_000, 40_000, 80_000, 160_000]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    best_of(1, nested(100))  # (the first run compiles the grammar and warms the imports)
    print(f"{'case':<46} {'N':>8} {'best s':>9} {'us per N':>9}")
    for name, program, sizes in CASES:
        for size in sizes:
            seconds = best_of(options.repeat, program(size))
            print(f"{name:<46} {size:>8,} {seconds:>9.3f} {1e6 * seconds / size:>9.2f}")


if __name__ == "__main__":
    main()
