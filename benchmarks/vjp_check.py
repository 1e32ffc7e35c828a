"""`vjp_check` on makemore's MLP at its real size, one batch: [32, 3] indices into C [27, 10],
[32, 30] @ [30, 200] + b1, tanh, @ [200, 27] + b2, cross_entropy, mean. Prints each tensor
node's row (operation, shapes, scalar edges, largest difference, verdict), the verdict, and the
seconds of the check beside those of one forward and backward of the tensor graph; with
``--language``, the same model written in `.sad` (`C[Xb]` with a [32, 3] tensor of indices) and
`vjp_check(loss)` run by the interpreter, its table as the command prints it.
``python benchmarks/vjp_check.py [--repeat N] [--language]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from pathlib import Path

from scalarlang.engine import Tensor, vjp_check


def batch(seed: int = 1):
    g = random.Random(seed)
    C = Tensor.randn([27, 10], g, variable=True)
    W1 = Tensor.variable([[g.gauss(0, 1) * 0.2 for _ in range(200)] for _ in range(30)])
    b1 = Tensor.variable([g.gauss(0, 1) * 0.01 for _ in range(200)])
    W2 = Tensor.variable([[g.gauss(0, 1) * 0.01 for _ in range(27)] for _ in range(200)])
    b2 = Tensor.variable([0.0] * 27)
    X = [[g.randrange(27) for _ in range(3)] for _ in range(32)]
    Y = [g.randrange(27) for _ in range(32)]

    def loss():
        hidden = (C[X].reshape(32, 30) @ W1 + b1).tanh()
        return (hidden @ W2 + b2).cross_entropy(Y).mean()
    return loss


# makemore's batch in the language (tests/test_vjp_check_language.py checks it, slow).
PROGRAM = (Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "makemore_batch.sad").read_text(encoding="utf-8")


def language(repeat: int) -> None:
    import scalarlang

    session = scalarlang.Session()
    assert session.run(PROGRAM).error is None
    seconds, result = [], None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = session.run("vjp_check(loss)")
        seconds.append(time.perf_counter() - start)
    assert result is not None and result.error is None, result and result.text
    print(result.text, end="")
    print(f"vjp_check(loss) through the language: {statistics.median(seconds):.2f} s (median of {repeat})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--language", action="store_true", help="the same batch written in .sad")
    arguments = parser.parse_args()
    if arguments.language:
        language(arguments.repeat)
        return
    make = batch()
    steps, checks = [], []
    check = None
    for _ in range(arguments.repeat):
        gc.collect()
        start = time.perf_counter()
        loss = make()
        loss.reverse_pass()
        steps.append(time.perf_counter() - start)
        gc.collect()
        start = time.perf_counter()
        check = vjp_check(loss)
        checks.append(time.perf_counter() - start)
    assert check is not None
    for node in check.nodes:
        shapes = ", ".join(str(list(shape)) for shape in node.operand_shapes)
        print(f"{node.name:>4} {str(node.operation):<14} {shapes:<22} {node.scalar_edges:>9,} edges"
              f"  {node.largest_difference:9.2e}  {'ok' if node.passed else 'FAILED'}")
    print(f"verdict: {'passed' if check.passed else 'failed'} ({check.scalar_edges:,} scalar edges)")
    print(f"vjp_check: {statistics.median(checks):.2f} s; forward + reverse pass: {statistics.median(steps) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
