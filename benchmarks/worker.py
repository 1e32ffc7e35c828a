"""One peer's benchmark process: ``python benchmarks/worker.py PEER``.

``run.py`` starts one of these per peer (scalarlang, micrograd, torch), so no library shares a
process with another, and sends it one JSON request a line; each answer is one JSON line. A
request runs one repetition of one case, with the garbage collector on as a user has it (a
``gc.collect()`` before the clock starts keeps one repetition's garbage out of the next).
The first line a worker writes says whether its peer could be imported.
"""

from __future__ import annotations

import gc
import json
import math
import os
import resource
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
REPO = BENCHMARKS.parent
sys.path.insert(0, str(BENCHMARKS))

import workloads  # noqa: E402


class Peer:
    def __init__(self, name, version, variable, constant, backward, value, gradient):
        self.name = name
        self.version = version
        self.variable = variable
        self.constant = constant
        self.backward = backward
        self.value = value
        self.gradient = gradient


def load_scalarlang() -> Peer:
    # The working tree, whatever is installed; or the tree SCALARLANG_BENCH_TREE names
    # (compare.py: a commit extracted to a temporary folder, measured with the same code).
    sys.path.insert(0, os.environ.get("SCALARLANG_BENCH_TREE") or str(REPO))
    import scalarlang
    from scalarlang import Scalar

    return Peer(
        "scalarlang",
        scalarlang.__version__,
        Scalar.variable,
        Scalar.constant,
        lambda out: out.backward(),  # full evidence: every check, every edge recorded
        lambda node: node.value,
        lambda node: node.gradient,
    )


def load_micrograd() -> Peer:
    from importlib.metadata import version

    from micrograd.engine import Value

    if not hasattr(Value, "tanh"):
        # micrograd 0.1.0 has no tanh; this is the one of its author's lecture, in its style.
        def tanh(self):
            t = math.tanh(self.data)
            out = Value(t, (self,), "tanh")

            def _backward():
                self.grad += (1 - t**2) * out.grad

            out._backward = _backward
            return out

        Value.tanh = tanh

    return Peer(
        "micrograd",
        version("micrograd"),
        lambda v: Value(float(v)),
        lambda v: Value(float(v)),  # micrograd has no untracked nodes
        lambda out: out.backward(),
        lambda node: node.data,
        lambda node: node.grad,
    )


def load_torch() -> Peer:
    warnings.filterwarnings("ignore")  # "Failed to initialize NumPy": not needed here
    import torch

    float64 = torch.float64
    tensor = torch.tensor
    return Peer(
        "torch",
        torch.__version__,
        lambda v: tensor(v, dtype=float64, requires_grad=True),
        lambda v: tensor(v, dtype=float64),
        lambda out: out.backward(),
        lambda node: node.item(),
        lambda node: 0.0 if node.grad is None else node.grad.item(),
    )


LOADERS = {"scalarlang": load_scalarlang, "micrograd": load_micrograd, "torch": load_torch}


# ---- timing cases (one repetition each) -----------------------------------------------------


def _clock(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def _pass_counts(peer, result, premade: int) -> dict:
    """Node and edge counts of the graph, from scalarlang's pass (the other peers build the
    same graph; their own bookkeeping differs: micrograd keeps operands in a set)."""
    if peer.name != "scalarlang":
        return {}
    nodes = len(result.nodes)
    return {"nodes": nodes, "edges": len(result.edges), "built_nodes": nodes - premade}


def case_mlp(peer, points: int) -> dict:
    layers = workloads.mlp_parameters(peer.variable)
    data = workloads.mlp_points(points)
    gc.collect()
    loss, build = _clock(workloads.mlp_loss, peer.constant, layers, data)
    result, backward = _clock(peer.backward, loss)
    figures = {"build_s": build, "backward_s": backward, "value": peer.value(loss)}
    figures["gradient_sum"] = sum(abs(peer.gradient(w)) for layer in layers for neuron in layer for w in neuron)
    figures.update(_pass_counts(peer, result, workloads.parameter_count(layers)))
    if peer.name == "scalarlang":
        _, figures["records_s"] = _clock(_all_records, result)
    del loss, result
    gc.collect()
    # The same build with the collector off, for context (not a target).
    gc.disable()
    try:
        loss, figures["build_gc_off_s"] = _clock(workloads.mlp_loss, peer.constant, layers, data)
    finally:
        gc.enable()
    del loss
    gc.collect()
    return figures


def _all_records(backward_pass) -> tuple[list, list]:
    return list(backward_pass.nodes), list(backward_pass.edges)


def case_wide(peer, count: int) -> dict:
    ws, xs = workloads.wide_data(count)
    weights = [peer.variable(w) for w in ws]
    gc.collect()
    out, build = _clock(workloads.wide_sum, peer.constant, weights, xs)
    result, backward = _clock(peer.backward, out)
    figures = {"build_s": build, "backward_s": backward, "value": peer.value(out)}
    figures["gradient_sum"] = sum(abs(peer.gradient(w)) for w in weights)
    figures.update(_pass_counts(peer, result, count))
    del out, result
    gc.collect()
    return figures


def case_deep(peer, depth: int) -> dict:
    if peer.name == "micrograd":
        return _micrograd_depth_limit(peer)
    start = peer.variable(0.5)
    gc.collect()
    out, build = _clock(workloads.deep_chain, start, depth)
    result, backward = _clock(peer.backward, out)
    figures = {"build_s": build, "backward_s": backward, "value": peer.value(out)}
    figures["gradient"] = peer.gradient(start)
    figures.update(_pass_counts(peer, result, 1))
    del out, result
    gc.collect()
    return figures


def _micrograd_depth_limit(peer) -> dict:
    """micrograd's topological sort is recursive: find the shortest chain it cannot backprop."""

    def fails(depth: int) -> bool:
        out = workloads.deep_chain(peer.variable(0.5), depth)
        try:
            peer.backward(out)
        except RecursionError:
            return True
        return False

    low, high = 1, 1
    while not fails(high):
        low, high = high, high * 2
        if high > 1 << 20:
            return {"fails_at_depth": None}
    while high - low > 1:  # fails(high), not fails(low)
        middle = (low + high) // 2
        low, high = (low, middle) if fails(middle) else (middle, high)
    return {"fails_at_depth": high, "error": "RecursionError", "recursion_limit": sys.getrecursionlimit()}


def case_interpreter(peer, statements: int) -> dict:
    """Parse and run a generated program with the language's own Interpreter, when it exists."""
    try:
        from scalarlang.interpreter.core import Interpreter
        from scalarlang.language.source import Source
        from scalarlang.language.parser import parse_program
    except Exception as error:  # noqa: BLE001 - any failure means "not there yet"
        return {"available": False, "reason": f"{type(error).__name__}: {error}"}
    text = workloads.interpreter_program(statements)
    source = Source("<benchmark>", text)
    gc.collect()
    try:
        program, parse = _clock(parse_program, source)
        session = Interpreter()
        outcomes, run = _clock(_run_all, session, program, source)
    except Exception as error:  # noqa: BLE001
        return {"available": False, "reason": f"{type(error).__name__}: {error}"}
    failed = [o for o in outcomes if type(o).__name__ == "Failed"]
    if failed:
        return {"available": False, "reason": f"the generated program failed: {failed[0]!r}"[:300]}
    count = len(program.statements)
    del program, session, outcomes
    gc.collect()
    return {"available": True, "statements": count, "parse_s": parse, "run_s": run}


def _run_all(session, program, source) -> list:
    return list(session.run_program(program, source))


# ---- memory (run in a fresh worker: process high-water marks are not reset) ------------------


def _rss_now() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _rss_peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def case_memory(peer, which: str, points: int, depth: int) -> dict:
    """``which`` is "deep" (the chain's peak resident growth: build + backward) or "graphs"
    (bytes per node and per edge). Each runs in a fresh process: resident memory that a
    previous graph freed would be reused and hide the growth."""
    gc.collect()
    if which == "deep":
        start = peer.variable(0.5)
        baseline = _rss_peak()
        out = workloads.deep_chain(start, depth)
        result = peer.backward(out)
        figures = {"deep_peak_rss_bytes": _rss_peak() - baseline, "deep_nodes": depth + 1}
        del out, result, start
        return figures
    # Exact Python allocations (tracemalloc), for the MLP graph and (scalarlang) a 10^5
    # chain. PyTorch's tensors are allocated outside Python's allocator, so for it the
    # resident-memory growth is reported instead.
    figures = {"mlp": _graph_memory(peer, lambda: workloads.mlp_loss(
        peer.constant, workloads.mlp_parameters(peer.variable), workloads.mlp_points(points)))}
    if peer.name == "scalarlang":
        figures["chain"] = _graph_memory(peer, lambda: workloads.deep_chain(peer.variable(0.5), 100_000))
    return figures


def _graph_memory(peer, build) -> dict:
    gc.collect()
    if peer.name == "torch":
        before = _rss_now()
        out = build()
        built = _rss_now()
        result = peer.backward(out)
        after = _rss_now()
        figures = {"method": "rss", "graph_bytes": built - before, "pass_retained_bytes": after - built,
                   "peak_bytes": max(built, after) - before}
        del out, result
        return figures
    tracemalloc.start()
    try:
        out = build()
        built, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = peer.backward(out)
        after, peak = tracemalloc.get_traced_memory()
        figures = {"method": "tracemalloc", "graph_bytes": built, "pass_retained_bytes": after - built,
                   "peak_bytes": peak}
        if peer.name == "scalarlang":
            figures["nodes"] = len(result.nodes)
            figures["edges"] = len(result.edges)
            figures["record_arrays"] = _record_arrays(result)
            list(result.edges[:1])  # the per-edge positions are built on first access
            figures["after_edge_access_bytes"] = tracemalloc.get_traced_memory()[0] - built
        del out, result
    finally:
        tracemalloc.stop()
    gc.collect()
    return figures


def _record_arrays(backward_pass) -> dict:
    return {
        name: sys.getsizeof(getattr(backward_pass, name))
        for name in ("topology", "_adjoints", "_accumulated", "_edges", "_edge_before")
        if hasattr(backward_pass, name) and getattr(backward_pass, name) is not None
    }


CASES = {
    "mlp": case_mlp,
    "wide": case_wide,
    "deep": case_deep,
    "interpreter": case_interpreter,
    "memory": case_memory,
}


def main() -> int:
    name = sys.argv[1]
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # a library's print must not break the protocol

    def answer(message: dict) -> None:
        real_stdout.write(json.dumps(message) + "\n")
        real_stdout.flush()

    try:
        peer = LOADERS[name]()
    except Exception as error:  # noqa: BLE001 - a missing peer is reported, not fatal
        answer({"available": False, "reason": f"{type(error).__name__}: {error}"})
        return 0
    module = sys.modules.get(peer.name)  # which copy was imported (compare.py checks it)
    answer({"available": True, "peer": peer.name, "version": peer.version, "file": getattr(module, "__file__", None)})
    for line in sys.stdin:
        request = json.loads(line)
        try:
            figures = CASES[request["case"]](peer, **request.get("args", {}))
        except Exception as error:  # noqa: BLE001
            figures = {"error": f"{type(error).__name__}: {error}"}
        answer(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
