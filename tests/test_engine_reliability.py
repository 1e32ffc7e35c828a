"""Reliability of the engine under threads and interrupts (issue 11, items 1 and 2)."""

from __future__ import annotations

import random
import signal
import sys
import threading
import time
from operator import attrgetter

import pytest

from scalarlang import Scalar
from shared import counted_frees


def _sum_of_copies(x: Scalar, terms: int) -> Scalar:
    """x + x + ... + x: every pass adds exactly ``terms`` to x and 1 to each partial sum."""
    total = x
    for _ in range(terms - 1):
        total = total + x
    return total


def _run_threads(targets) -> list[str]:
    problems: list[str] = []

    def guarded(target):
        def run():
            try:
                target()
            except BaseException as error:  # noqa: BLE001 - any escape is a failure here
                problems.append(f"{type(error).__name__}: {error}")
        return run

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: the race shows anywhere
    try:
        threads = [threading.Thread(target=guarded(target)) for target in targets]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    return problems


def test_concurrent_backward_passes_add_up_exactly():
    """4 threads x 40 passes on one graph: the stored gradients are the sum of all passes
    (PyTorch adds concurrent passes up); none of them is lost."""
    terms, threads, passes = 2001, 4, 40
    x = Scalar.variable(0.5)
    output = _sum_of_copies(x, terms)

    def work():
        for _ in range(passes):
            output.backward()

    assert _run_threads([work] * threads) == []
    assert x.gradient == float(threads * passes * terms)
    assert all(node.gradient == float(threads * passes) for node in output.topology()[1:])


def test_zero_grad_and_backward_from_two_threads_never_mix():
    """zero_grad between or beside passes: afterwards every node holds the same number of
    whole passes (a zero_grad never lands in the middle of a commit, nor a commit in the
    middle of a zero_grad)."""
    terms = 1501
    x = Scalar.variable(0.5)
    output = _sum_of_copies(x, terms)
    topology = output.topology()
    read_gradient = attrgetter("_gradient")
    seen: list[str] = []

    done = threading.Event()

    def passes():
        try:
            for _ in range(60):
                output.backward()
        finally:
            done.set()

    def zeros():
        while not done.is_set():
            output.zero_grad()

    def observe():
        while not done.is_set():
            # one C-level read of every gradient (no bytecode between the reads, so no
            # thread switch): a Python loop could itself straddle a whole commit
            gradients = list(map(read_gradient, topology))
            whole = gradients[-1]
            if gradients[0] != whole * terms or any(g != whole for g in gradients[1:]):
                seen.append("a reader saw a half-written pass or a half-done zero_grad")
                return

    assert _run_threads([passes, zeros, observe]) == []
    assert seen == []
    whole = output.gradient
    assert x.gradient == whole * terms
    assert all(node.gradient == whole for node in topology[1:])


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
def test_interrupted_backward_commits_all_or_nothing():
    """KeyboardInterrupt at random moments of 100 backward passes over a large graph: after
    each pass every stored gradient is either all as before or all as after it."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread")
    x, y = Scalar.variable(0.5), Scalar.variable(-0.25)
    output = x
    for index in range(2000):
        output = output * 0.999 + (y if index % 2 else x) * 0.001
    topology = output.topology()
    adjoints = [record.pass_adjoint for record in output.reverse_pass().nodes]
    tracked = [index for index, node in enumerate(topology) if node.tracks_gradient]

    def best_time(call) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        return min(times)

    # the commit happens between the end of the computing (a reverse pass's time) and the
    # end of a backward: aim there most of all
    computing = best_time(output.reverse_pass)
    duration = best_time(output.backward)
    output.zero_grad()

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    rng = random.Random(11)
    previous = signal.signal(signal.SIGALRM, interrupt)
    interrupted = completed = 0
    problems = []
    try:
        for trial in range(100):
            before = [topology[i].gradient for i in tracked]
            after = [before[k] + adjoints[i] for k, i in enumerate(tracked)]
            if trial % 4 == 0:
                delay = rng.uniform(0.0, 1.2 * duration)  # anywhere in the pass
            else:
                delay = rng.uniform(0.8 * computing, 1.2 * duration)
            try:
                try:
                    signal.setitimer(signal.ITIMER_REAL, max(delay, 1e-6))
                    output.backward()
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                completed += 1
            except KeyboardInterrupt:
                interrupted += 1
            now = [topology[i].gradient for i in tracked]
            if now != before and now != after:
                written = sum(1 for a, b in zip(now, before) if a != b)
                problems.append(f"trial {trial}: {written} of {len(now)} gradients written")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert problems == []
    assert interrupted > 0  # the test did interrupt passes
    # and the graph still works
    output.zero_grad()
    output.backward()
    assert [topology[i].gradient for i in tracked] == [0.0 + adjoints[i] for i in tracked]


def test_a_later_commit_of_a_reverse_pass_writes_what_backward_would():
    """BackwardPass._commit (the interpreter commits after showing a pass) writes every
    tracked node's prospective gradient and leaves untracked nodes untracked."""
    x = Scalar.variable(1.5)
    c = Scalar.constant(2.0)
    output = (x * c + x.detach()).tanh() * x
    pending = output.reverse_pass()
    twin_x = Scalar.variable(1.5)
    twin = (twin_x * Scalar.constant(2.0) + twin_x.detach()).tanh() * twin_x
    twin.backward()
    assert x.gradient == 0.0
    pending._commit()
    assert [n.gradient for n in output.topology()] == [n.gradient for n in twin.topology()]
    assert c.gradient is None and not c.tracks_gradient


def test_restoring_saved_gradients_puts_back_the_earliest_save_of_a_node():
    from scalarlang.engine.gradients import restore_gradients, save_gradients

    x = Scalar.variable(1.0)
    output = x * x
    first = save_gradients(output.topology())
    output.backward()
    second = save_gradients(output.topology())
    output.backward()
    restore_gradients(first + second)  # x saved twice: the earlier save (0.0) wins
    assert [n.gradient for n in output.topology()] == [0.0, 0.0]
    restore_gradients(second)
    assert x.gradient == 2.0 and output.gradient == 1.0


# ---- freeing deep graphs one node at a time (issue 36) ----------------------------------------

# In a fresh process: the finalizer the engine installs on Emscripten and WASI, installed by
# hand inside a wrapper that counts the frees and how deep they nest (shared.COUNTED_FREES),
# then chains freed.
# Freed by CPython alone, each node's free runs inside its user's, in C (natively CPython's
# guard bounds that at some fifty deep; in the browser it does not, and a chain of 10,000 nodes
# ended Python there): every free is an outermost one, as far as Python frames can tell. With
# the finalizer, the outermost free of each graph lets the rest go one at a time from its loop.
FREE_DEEP = """
from scalarlang.engine import Scalar
def chain(length):
    x = Scalar.variable(0.5)
    for _ in range(length):
        x = x.tanh() + 1
    return x
def nary(length):
    z = Scalar.variable(1.0)
    for _ in range(length):
        z = Scalar.logsumexp([z * 0.5, 1.0, z])
    return z
graphs = [chain(100_000), nary(20_000), sum([Scalar.variable(1.0) * i for i in range(50_000)])]
del graphs
gc.collect()
print(deepest, outermost, frees, sum(isinstance(thing, Scalar) for thing in gc.get_objects()))
"""


def test_where_cpython_cannot_measure_its_stack_a_deep_graph_is_freed_one_node_at_a_time():
    deepest, outermost, frees, left = counted_frees(FREE_DEEP)
    assert frees > 500_000 and left == 0  # every node freed, none kept by the finalizer
    assert outermost <= 10  # a graph's first free lets the rest go: 3 graphs, and their leaves
    assert deepest <= 3  # and no free nests in another more than that


def test_the_finalizer_is_installed_only_where_cpython_cannot_measure_its_stack():
    from scalarlang.engine import node

    assert node.FREES_OPERANDS_FIRST is (sys.platform in ("emscripten", "wasi"))
    assert ("__del__" in vars(node.Node)) is node.FREES_OPERANDS_FIRST
