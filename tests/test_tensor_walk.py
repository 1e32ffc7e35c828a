"""`walk(LOSS)` of a graph holding tensor nodes (issue 43, item 2): node by node from the output
back, each with the adjoint that reached it and each operand edge's VJP with the contribution
it adds, summarised as `explain(T)` summarises; through the real command (text and JSON),
against numpy's VJPs, in the REPL core (one node per key) and the notebook player's frames. It
commits the pass `backward` commits, and nothing else; a walk that fails commits nothing. The
REPL in a real terminal is in test_repl_pty.py, the player in a notebook in test_notebook.py
and in a browser in test_walk_browser.py."""

from __future__ import annotations

import io
import json
import struct

import numpy as np
import pytest

import scalarlang
from commands import needs_command, run_program, run_program_in_process
from scalarlang.engine.passes import topology
from scalarlang.engine.tensor import Tensor
from scalarlang.engine.scalar import Scalar
from scalarlang.front.repl_core import ReplCore
from scalarlang.interpreter.core import Interpreter
from scalarlang.render.text import Renderer, make_console
from sessions import failure, run, run_ok

LAYER = """let X = tensor([[1, 2], [3, 4], [0.5, -1]])
let W = var tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
let b = var tensor([0.1, 0.2, 0.3])
let H = tanh(X @ W + b)
let loss = sum(H)
"""
X = np.array([[1, 2], [3, 4], [0.5, -1]])
W = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
B = np.array([0.1, 0.2, 0.3])

MIXED = """let X = tensor([[1, 2], [3, 4], [0.5, -1]])
let Y = tensor([0, 2, 1])
let W = var tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
let c = var 0.5
let logits = X @ W * c
let loss = mean(cross_entropy(logits, Y)) + c * c
"""


def steps_in(text: str) -> list[str]:
    """The walk's step lines: `node 2 of 4: H: tanh [3, 3]`."""
    return [line for line in text.splitlines() if line.startswith("node ") and " of " in line]


def json_events(program: str) -> list[dict]:
    result = run_program_in_process(program, "--json", width=100)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


@needs_command
def test_the_real_command_walks_a_tensor_layer_node_by_node():
    result = run_program(LAYER + "walk(loss)\n", width=100)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    out = result.stdout
    # The forward graph first (values only), then the header, the nodes from the output back.
    assert out.index("forward graph of loss") < out.index("walk from loss with seed 1: 4 nodes with 6 operand edges")
    assert steps_in(out) == [
        "node 1 of 4: loss: sum, a scalar (sum([3, 3]) → scalar)",
        "node 2 of 4: H: tanh [3, 3] (tanh([3, 3]) → [3, 3])",
        "node 3 of 4: X @ W + b: add [3, 3] ([3, 3] + [3] → [3, 3])",
        "node 4 of 4: X @ W: matmul [3, 3] ([3, 2] @ [2, 3] → [3, 3])",
    ]
    assert "  adjoint that reached it: 1 (the seed: it is the pass's output)\n" in out
    assert "  slot 0 to H: dA = dC, repeated over every element (9 scalar edges)\n    adds [3, 3] 1, 1, 1, …" in out
    assert "  slot 0 to X @ W + b: dA = dC * (1 - C²) (9 scalar edges)\n" in out
    assert "  slot 1 to b: dB = dC, summed to B's shape [3] (9 scalar edges)\n    adds [3] " in out
    assert "  slot 0 to X: dA = dC @ Bᵀ (18 multiply edges; untracked: the pass computes nothing for it)\n" in out
    assert "  slot 1 to W: dB = Aᵀ @ dC (18 multiply edges)\n    adds [2, 3] " in out
    # Then the pass filled in, exactly as `backward` shows it, and the closing line.
    backward = run_program(LAYER + "backward(loss)\n", width=100).stdout
    assert out[out.index("backward from loss"):].startswith(backward)
    assert out.endswith("walked 4 nodes (6 operand edges) from loss: each gradient grew by its pass adjoint, as "
                        "`backward`\n  commits a pass\n")


def test_each_contribution_is_numpys_vjp_and_the_last_leaves_the_pass_adjoint():
    events = json_events(LAYER + "walk(loss)\n")
    backward = next(event for event in events if event["event"] == "backward")
    steps = [event for event in events if event["event"] == "tensor_step"]
    assert [step["node"] for step in steps] == ["loss", "H", "X @ W + b", "X @ W"]
    assert all((step["line"], step["column"]) == (6, 1) for step in steps)
    H = np.tanh(X @ W + B)
    dZ = 1.0 - H * H  # the adjoint of X @ W + b: dH (ones) times tanh's derivative
    expected = {"H": np.ones((3, 3)), "X @ W + b": dZ, "X @ W": dZ, "b": dZ.sum(axis=0), "W": X.T @ dZ}
    adjoints = {node["label"]: node["pass_adjoint"] for node in backward["nodes"] if node["tracked"]}
    for step in steps:
        for edge in step["edges"]:
            if not edge["operand_tracked"]:
                assert edge["operand"] == "X" and edge["contribution"] is None and edge["after"] is None
                continue
            want = expected[edge["operand"]]
            summary = edge["contribution"]
            assert summary["shape"] == list(want.shape)
            assert summary["first"] == pytest.approx(want.ravel()[:3].tolist(), abs=1e-12)
            at = int(np.argmax(np.abs(want)))
            assert summary["at"] == list(np.unravel_index(at, want.shape))
            assert summary["largest"] == pytest.approx(want.ravel()[at], abs=1e-12)
            # Each operand has one consumer here: its adjoint after the edge is the pass's.
            assert edge["contributions"] == 1 and edge["after"] == summary
            assert edge["after"]["first"] == np.ravel(adjoints[edge["operand"]])[:3].tolist()
    assert steps[2]["adjoint"] == steps[3]["adjoint"]  # `+` passes dC on to A unchanged


def test_a_mixed_graph_shows_scalar_edges_as_upstream_times_local():
    out = run_program_in_process(MIXED + "walk(loss)\n", width=100).stdout
    assert steps_in(out) == [
        "node 1 of 6: loss: add, a scalar",
        "node 2 of 6: c * c: mul, a scalar",
        "node 3 of 6: mean(cross_entropy(logits, Y)): mean, a scalar (mean([3]) → scalar)",
        "node 4 of 6: cross_entropy(logits, Y): cross_entropy [3] (cross_entropy([3, 3]) → [3])",
        "node 5 of 6: logits: mul [3, 3] ([3, 3] * scalar → [3, 3])",
        "node 6 of 6: X @ W: matmul [3, 3] ([3, 2] @ [2, 3] → [3, 3])",
    ]
    assert "  slot 0 to mean(cross_entropy(logits, Y)): 1 × 1 = 1\n" in out
    assert "  slot 0 to c: 1 × 0.5 = 0.5\n  slot 1 to c: 1 × 0.5 = 0.5\n    c's adjoint now (2 contributions): 1\n" in out
    assert "  slot 0 to logits: dA = dC * (softmax(A) - one_hot(Y)) (12 scalar edges)\n" in out
    # c takes a third contribution from the tensor edge of `* c`, summed over its elements.
    third = out[out.index("  slot 1 to c: dB = dC * A, summed over C (B a scalar) (9 scalar edges)"):].splitlines()[1:3]
    assert third[0].startswith("    adds ") and third[1].startswith("    c's adjoint now (3 contributions): ")
    session, _ = run_ok(MIXED + "backward(loss)")
    assert third[1].endswith(scalarlang.engine.numbers.format_number(session.lookup("c").gradient))


def snapshot(session: Interpreter) -> tuple:
    """Every binding by identity and the bits of every stored gradient in their graphs."""
    gradients = []
    for name, value in session.values.items():
        if value.__class__ in (Scalar, Tensor):
            for member in topology(value):
                stored = member.gradient
                if stored is not None:
                    stored = stored if isinstance(stored, tuple) else (stored,)
                    gradients.append((name, str(member.operation), b"".join(struct.pack("<d", v) for v in stored)))
    return tuple((name, id(value)) for name, value in session.values.items()), tuple(gradients)


@pytest.mark.parametrize("program", [LAYER, MIXED], ids=["layer", "mixed"])
def test_a_walk_commits_what_backward_commits_and_nothing_else(program):
    walked, _ = run_ok(program)
    backed, _ = run_ok(program)
    bindings = tuple(walked.values)
    run_ok("walk(loss)\nwalk(loss, 2)", walked)
    run_ok("backward(loss)\nbackward(loss, 2)", backed)
    assert tuple(walked.values) == bindings
    assert snapshot(walked)[1] == snapshot(backed)[1]  # every gradient, bit for bit
    assert walked.state.random.getstate() == backed.state.random.getstate()
    assert walked.lookup("W").gradient != tuple([0.0] * 6)


def test_a_walk_that_fails_commits_nothing():
    session, _ = run_ok(LAYER + "backward(loss)")
    before = snapshot(session)
    long_loss = "let s = loss\nfor i in 0..200 { let s = s + sum(H) }\n"
    diagnostic = failure(long_loss + "walk(s)", session, atomic=True)
    assert diagnostic.kind == "too-long" and diagnostic.fields == {"edges": 606, "limit": 500}
    diagnostic = failure("walk(sum(H) * 1e300, 1e300)", session, atomic=True)
    assert diagnostic.kind == "non-finite-tensor-adjoint"
    assert snapshot(session) == before


def test_explain_after_a_walk_reads_the_walked_pass():
    session, outcomes = run_ok(LAYER + "walk(loss)\nexplain(W)")
    (explained,) = [outcome for outcome in outcomes if type(outcome).__name__ == "TensorExplained"]
    walk = next(outcome for outcome in outcomes if type(outcome).__name__ == "WalkShown")
    last_edge = walk.steps[-1].edges[1]
    assert explained.pass_number == 1 and explained.adjoint == last_edge.after == last_edge.edge.contribution


# ---- the REPL core and the player -------------------------------------------------------------


class Keys:
    def __init__(self, stream: io.StringIO, *keys: str):
        self.stream, self.keys, self.seen = stream, list(keys), []

    def __call__(self) -> str:
        self.seen.append(self.stream.getvalue())
        return self.keys.pop(0)


def test_the_repl_shows_one_node_per_key_and_q_shows_the_rest():
    stream = io.StringIO()
    keys = Keys(stream, "\n", "q")
    core = ReplCore(Renderer(make_console(stream, width=100, color="never")), read_key=keys)
    for line in LAYER.splitlines():
        assert core.handle(line)
    start = len(stream.getvalue())
    assert core.handle("walk(loss)")
    out = stream.getvalue()[start:]
    assert "4 nodes, one per Enter: q shows the rest, Ctrl-C stops (the pass is committed)" in out
    assert [[line.split(":")[0] for line in steps_in(seen[start:])] for seen in keys.seen] == [
        ["node 1 of 4"], ["node 1 of 4", "node 2 of 4"]]
    assert len(steps_in(out)) == 4 and out.rstrip().endswith("as `backward`\n  commits a pass")
    assert out.index("forward graph of loss") < out.index("node 1 of 4")


def test_the_players_frames_step_a_node_at_a_time_and_end_at_the_pass_adjoints():
    from scalarlang.front.api import walk_part
    from scalarlang.front.player import walk_frames, walk_text
    from scalarlang.pictures.picture import _numbers_text

    _, outcomes = run_ok(MIXED + "walk(loss)")
    walk = outcomes[-1]
    data = walk_frames(walk, walk_text(walk, 100))
    backward_pass = walk.backward.backward_pass
    assert len(data["steps"]) == len(data["texts"]) - 1 == 6
    assert data["texts"][1].startswith("node 1 of 6: loss: add, a scalar")
    assert [data["stepOf"][step[0]] for step in data["steps"]] == list(range(6))
    # Replayed as the page's script replays them, the adjoints end as the pass's tables show them.
    adjoints = list(data["start"])
    for _, updates in data["steps"]:
        for _, place, after in updates:
            if place is not None:
                adjoints[place] = after
    assert adjoints == [_numbers_text(backward_pass.adjoint(index)) for index in data["nodes"]]
    assert data["start"][-1] == "1" and set(data["start"][:-1]) <= {"0", "0, 0, 0", "0, 0, 0, …"}
    part = walk_part(walk)
    assert 'data-steps="6"' in part.html and "node 1 of 6" in part.text
    assert part.html.count('class="edge') == 10  # every operand edge drawn, lit a node at a time


@pytest.mark.parametrize("statement", ["walk(sum(X))", "backward(sum(X))"])
def test_a_walk_from_constant_tensors_alone_says_which_to_make_a_variable(statement):
    # (This was an internal error in `backward` too: the hint read a tensor's value as a number's.)
    diagnostic = failure("let X = tensor([1, 2])\n" + statement)
    assert diagnostic.kind == "untracked-output"
    assert diagnostic.notes == ("help: `sum(X)` depends on no variable: `X` is a constant tensor; "
                                "make it a variable with `let X = var X`",)
