"""``scalarlang --demo`` and the seed chapter's scenario functions in ``scalarlang.demo``."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from scalarlang import (
    BackwardEdge,
    BackwardNode,
    NonFiniteAccumulatedGradient,
    NonFiniteSeed,
    ScalarOperation,
    UntrackedOutput,
    format_number,
)
from scalarlang import demo
from scalarlang.engine.numbers import digits

REPO = Path(__file__).resolve().parents[1]
SEED_DIR = Path(__file__).resolve().parents[2] / "shared" / "seed"
FIRST = "reused square: x=2.000000000000"
LAST = "chapter 15 handoff"

# The seed's printed output, as a fallback when the seed document is not next to the repo.
WRITTEN = [
    "reused square: x=2.000000000000 square=4.000000000000 loss=8.000000000000",
    "one backward: x_grad=8.000000000000 square_grad=2.000000000000 loss_grad=1.000000000000",
    "repeated backward: x_grad=16.000000000000 square_grad=4.000000000000 loss_grad=2.000000000000",
    "zero_grad: x_grad=0.000000000000 square_grad=0.000000000000 loss_grad=0.000000000000",
    "after zero: x_grad=8.000000000000 square_grad=2.000000000000 loss_grad=1.000000000000",
    "detach: expression=x*x+detach(x)*3 value=10.000000000000 x_grad=4.000000000000 detached_grad=none",
    "nonlinear: expression=exp(tanh(x)) input=0.500000000000 value=1.587431271430 gradient=1.248431724655",
    "gradcheck: expression=2*x*x analytic=8.000000000000 numerical=8.000000000000 "
    "scaled_error=0.000000000000e0 pass=true",
    "typed errors: constant-output | non-finite-seed | non-finite-accumulated-gradient; "
    "gradients unchanged=true",
    "chapter 15 handoff: replace scalar edges with tensor vector-Jacobian products",
]


def seed_demo_lines() -> list[str]:
    """The ten demo lines as printed in the seed document (or the written copy)."""
    documents = sorted(SEED_DIR.glob("*.txt")) if SEED_DIR.is_dir() else []
    for document in documents:
        lines = document.read_text(encoding="utf-8").splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith(FIRST)]
        if not starts:
            continue
        start = starts[0]
        end = next(i for i in range(start, len(lines)) if lines[i].startswith(LAST))
        return [line.rstrip() for line in lines[start : end + 1]]
    return WRITTEN


def test_seed_block_is_the_ten_lines():
    lines = seed_demo_lines()
    assert len(lines) == 10
    assert lines == WRITTEN  # the written copy is faithful to the seed


def test_demo_command_prints_the_seed_output_exactly():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, "-m", "scalarlang", "--demo"],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout == "\n".join(seed_demo_lines()) + "\n"


def test_cli_main_demo(capsys):
    from scalarlang.front.cli import main

    assert main(["--demo"]) == 0
    assert capsys.readouterr().out.splitlines() == seed_demo_lines()


def test_demo_lines_function():
    assert demo.demo_lines() == seed_demo_lines()


def test_reused_square_example():
    example = demo.reused_square_example()
    assert (example.x_value, example.square_value, example.loss_value) == (2.0, 4.0, 8.0)
    assert example.first == demo.GradientSnapshot(8.0, 2.0, 1.0)
    assert example.repeated == demo.GradientSnapshot(16.0, 4.0, 2.0)
    assert example.zeroed == demo.GradientSnapshot(0.0, 0.0, 0.0)
    assert example.after_zero == demo.GradientSnapshot(8.0, 2.0, 1.0)
    first = example.first_pass
    assert first.seed == 1.0
    assert list(first.nodes) == [
        BackwardNode(0, ScalarOperation.VARIABLE, 2.0, True, 8.0, 8.0),
        BackwardNode(1, ScalarOperation.MUL, 4.0, True, 2.0, 2.0),
        BackwardNode(2, ScalarOperation.ADD, 8.0, True, 1.0, 1.0),
    ]
    assert list(first.edges) == [
        BackwardEdge(0, 2, 1, 0, 1.0, 1.0, 1.0, True, 0.0, 1.0),
        BackwardEdge(1, 2, 1, 1, 1.0, 1.0, 1.0, True, 1.0, 2.0),
        BackwardEdge(2, 1, 0, 0, 2.0, 2.0, 4.0, True, 0.0, 4.0),
        BackwardEdge(3, 1, 0, 1, 2.0, 2.0, 4.0, True, 4.0, 8.0),
    ]


def test_detach_example():
    example = demo.detach_example()
    assert example.input == 2.0
    assert example.value == 10.0
    assert example.x_gradient == 4.0
    assert example.detached_gradient is None


def test_nonlinear_example():
    example = demo.nonlinear_example()
    assert example.input == 0.5
    with digits(12):
        assert format_number(example.value) == "1.587431271430"
        assert format_number(example.gradient) == "1.248431724655"


def test_gradcheck_example():
    check = demo.gradcheck_example()
    assert check.input == 2.0
    assert check.analytic == 8.0 and check.numerical == 8.0
    assert check.step == 2.0**-20 and check.tolerance == 1e-9
    assert check.scaled_error == 0.0 and check.passed is True


def test_typed_error_example():
    example = demo.typed_error_example()
    constant_output, seed, accumulated = example.errors
    assert constant_output == UntrackedOutput(ScalarOperation.CONSTANT)
    assert type(seed) is NonFiniteSeed and seed.seed == float("inf")
    assert type(accumulated) is NonFiniteAccumulatedGradient
    assert accumulated.node == 0
    assert accumulated.stored == accumulated.pass_adjoint
    assert struct.pack("<d", accumulated.stored + accumulated.pass_adjoint) == struct.pack("<d", float("inf"))
    assert [e.kind for e in example.errors] == [
        "untracked-output", "non-finite-seed", "non-finite-accumulated-gradient",
    ]
    assert example.gradients_unchanged is True


@pytest.mark.parametrize("name", [
    "reused_square_example", "detach_example", "nonlinear_example", "gradcheck_example",
    "typed_error_example",
])
def test_scenarios_are_repeatable(name):
    scenario = getattr(demo, name)
    first, second = scenario(), scenario()
    if name == "reused_square_example":
        # the pass objects are distinct graphs; compare what they record
        assert first.first_pass == second.first_pass
        assert (first.first, first.repeated, first.zeroed, first.after_zero) == (
            second.first, second.repeated, second.zeroed, second.after_zero)
    else:
        assert first == second
