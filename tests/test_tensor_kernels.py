"""The kernels' one summation order: every reduction a left fold in index order, in plain
Python floats, with no numpy and no sum() of floats in the engine's tensor modules."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from scalarlang import Tensor

ENGINE = Path(__file__).resolve().parent.parent / "scalarlang" / "engine"
TENSOR_MODULES = ["kernels.py", *sorted(path.name for path in ENGINE.glob("tensor*.py"))]


def left_fold(values):
    total = values[0]
    for value in values[1:]:
        total = total + value
    return total


def test_sums_are_left_folds_where_other_orders_give_other_numbers():
    values = [1e16, 1.0, -1e16, 1.0]  # fsum and a compensated sum() give 2.0
    assert Tensor.constant(values).sum().value == 1.0 == left_fold(values)
    rows = Tensor.constant([values, values[::-1]])
    assert rows.sum(1).values == (1.0, left_fold(values[::-1]))
    assert rows.transpose().sum(0).values == rows.sum(1).values
    assert (Tensor.constant([values]) @ Tensor.constant([[1.0]] * 4)).values == (1.0,)


def test_a_matrix_product_is_each_entry_folded_in_order():
    generator = random.Random(5)
    a = [[generator.uniform(-1e3, 1e3) for _ in range(7)] for _ in range(3)]
    b = [[generator.uniform(-1e-3, 1e3) for _ in range(4)] for _ in range(7)]
    product = (Tensor.constant(a) @ Tensor.constant(b)).tolist()
    assert product == [[left_fold([a[i][p] * b[p][j] for p in range(7)]) for j in range(4)] for i in range(3)]


def test_the_tensor_modules_use_no_numpy_and_no_float_sum():
    for name in TENSOR_MODULES:
        tree = ast.parse((ENGINE / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
                assert not any(module.startswith("numpy") for module in modules), name
            if isinstance(node, ast.Call):
                called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                assert called not in ("sum", "fsum", "sumprod"), (name, node.lineno)


def test_each_matrix_product_loop_gives_every_entry_the_same_fold():
    """The kernels accumulate a row six terms a pass (three first, then three and one at the
    end) when the inner dimension is the shorter (`[100, 2] @ [2, 16]`, a VJP's
    `[100, 1] @ [1, 16]`) or the rows are 10 or more long, else
    fold each row with each column: either way each entry is `left_fold` of its products, bit
    for bit, signed zeros included."""
    from scalarlang.engine import kernels

    generator = random.Random(11)
    for _ in range(400):
        # (both loops; inner dimensions up to 21: two passes of six terms and every tail)
        n, k, m = generator.randint(1, 12), generator.randint(1, 21), generator.randint(1, 12)
        a = [generator.choice([0.0, -0.0, 1e16, -1e16, 1.0, generator.uniform(-1e3, 1e3)]) for _ in range(n * k)]
        b = [generator.choice([0.0, -0.0, 1e-16, 3.0, generator.uniform(-1e3, 1e3)]) for _ in range(k * m)]
        expected = [left_fold([a[i * k + p] * b[p * m + j] for p in range(k)]) for i in range(n) for j in range(m)]
        b_transposed = [b[p * m + j] for j in range(m) for p in range(k)]  # [m, k]
        a_transposed = [a[i * k + p] for p in range(k) for i in range(n)]  # [k, n]
        for found in (
            kernels.matmul(a, n, k, b, m),
            kernels.matmul_transposed_right(a, n, k, b_transposed, m),
            kernels.matmul_transposed_left(a_transposed, k, n, b, m),
        ):
            assert [repr(value) for value in found] == [repr(value) for value in expected], (n, k, m)


def test_a_bias_broadcast_over_rows_gets_its_gradient_added_in_row_order():
    from scalarlang.engine import kernels

    generator = random.Random(12)
    rows, width = 5, 3
    contributions = [generator.choice([0.0, -0.0, 1e16, -1e16, 1.0]) for _ in range(rows * width)]
    positions = [at % width for at in range(rows * width)]
    assert [repr(v) for v in kernels.sum_tiled(contributions, width)] == [
        repr(v) for v in kernels.sum_into(contributions, positions, width)
    ]
    bias = Tensor.variable([1.0, 2.0, 3.0])
    (Tensor.constant([[1e16, 1.0, -0.0]] * 2 + [[-1e16, 1.0, 0.0]]) * bias).sum().backward()
    assert bias.gradient == (left_fold([0.0, 1e16, 1e16, -1e16]), 3.0, 0.0)
