"""Graph walks and reverse passes: topology, the fresh pass of docs/engine.md, zero_grad.

A node has at most two operands in its slots (_left, _right), or, for an n-ary operation
(`NARY_OPERATIONS`), its first one in _left and the rest in a tuple: the walks read that tuple
only where a node has no _right, so two-operand nodes pay nothing for it. A node of a tensor
operation (`TENSOR_OPERATIONS`: a tensor node, or a scalar node of tensor operands) keeps its
operands the same way, with a VJP on each edge; the walk notes one, and the pass of a graph
holding one is tensor_passes.py's.

`Scalar` takes the public functions here as its methods (`out.backward()`). Walks use
explicit stacks, so a chain a million nodes deep works. They mark nodes with a per-walk
token (one identity test per edge), and the pass checks finiteness once at the end of its
per-edge loop, walking again with every check in place only when something was not finite
(see `_propagate`).

Threads and interrupts: a pass holds the walk lock (node.py) from its walk through its
commit, so passes from several threads on one graph add up; every write of stored gradients
is one C-level step (`node.write_gradients`), so a KeyboardInterrupt or a thread switch never
splits it.
"""

from __future__ import annotations

from functools import reduce as _reduce
from itertools import repeat
from operator import add as _add
from typing import Any, Literal, Sequence, TypeVar, overload

from .errors import (
    NonFiniteAccumulatedGradient,
    NonFiniteContribution,
    NonFinitePassAdjoint,
    NonFiniteSeed,
    UntrackedOutput,
)
from .node import NARY_OPERATIONS, OPERAND_TUPLE_OPERATIONS, Node, real_number
from .node import WALK_LOCK as _WALK_LOCK
from .node import write_gradients as _write_gradients
from .records import BackwardPass
from .tensor_operations import TENSOR_OPERATIONS

# What these functions take and give: nodes of `Scalar`'s class (scalar.py, which takes them
# as its methods, so `out.topology()` is a list of Scalars to a type checker).
Scalar = TypeVar("Scalar", bound=Node)


def topology(output: Scalar) -> list[Scalar]:
    """Every node reachable from ``output`` once, operands before results (DFS post-order)."""
    with _WALK_LOCK:
        return _topology(output)


def reverse_pass(output: Scalar, seed: float = 1.0) -> BackwardPass:
    """One fresh reverse pass from ``output``; writes no stored gradient."""
    return _compute_pass(output, seed, False)


def backward(output: Scalar) -> BackwardPass:
    """One fresh pass seeded by 1, then add its adjoints to the stored gradients."""
    return _compute_pass(output, 1.0, True)


def backward_with_seed(output: Scalar, seed: float) -> BackwardPass:
    """One fresh pass seeded by ``seed``, committed only when all of it is finite."""
    return _compute_pass(output, seed, True)


def committed_topology(output: Scalar, seed: float) -> Sequence[Scalar]:
    """`backward_with_seed` for a caller that reads none of the pass's records: the same
    checks and commit; gives the pass's topology. (A training loop's `backward` that nothing
    shows: the records' arrays were a tenth of a small pass's time.)"""
    return _compute_pass(output, seed, True, False)


def zero_grad(output: Scalar) -> None:
    """Set every tracked node reachable from ``output`` to stored gradient 0.0, all at once (see
    ``node.write_gradients``): no pass in another thread commits into the middle of it."""
    with _WALK_LOCK:
        _zero(_topology(output))


def zero_gradients(nodes: list[Scalar]) -> None:
    """`zero_grad` of graphs a caller has walked already (``nodes``: their topologies), all at
    once: the interpreter walks them anyway, to journal their gradients, and does not walk
    them twice."""
    with _WALK_LOCK:
        _zero(nodes)


def _zero(nodes: list[Scalar]) -> None:
    tracked = [node for node in nodes if node._gradient is not None]
    if any(hasattr(kind, "_shape") for kind in set(map(type, tracked))):
        # tensor nodes among them (their class has a shape): each gets zeros of its size
        gradients: list[Any] = [node._gradient for node in tracked]
        zeros: Any = [0.0 if gradient.__class__ is float else [0.0] * len(gradient) for gradient in gradients]
    else:
        zeros = repeat(0.0, len(tracked))
    _write_gradients(tracked, zeros)  # (made first: the writes are one C-level step)


def _topology(output: Scalar) -> list[Scalar]:
    return _walk(output)[0]


def _walk(output: Scalar) -> tuple[list[Scalar], bool]:
    """Iterative post-order DFS from ``output`` visiting operands in slot order, and whether
    the graph holds a node of a tensor operation (its pass is tensor_passes.py's).

    It gives the order of the recursive walk: ``node`` descends into its first unfinished
    operand, saving itself on ``path``; with none left it finishes and the walk climbs back.
    Because nodes never change their operands the graph is acyclic, so a node is never
    reached again while it is on the path, and "visited" only needs marking when a node is
    finished. The mark is a token made for this walk: one identity test, and marks left by
    earlier walks (or by a walk that was interrupted) can never be mistaken for this one's.
    """
    walk = object()
    order: list[Any] = []  # (nodes of any class: their operands are typed as `Node`s)
    append = order.append
    path: list[Any] = []
    push = path.append
    pop = path.pop
    finished = 0  # len(order)
    holds_tensors = False
    node: Any = output
    while True:
        left = node._left
        if left is not None:
            if left._walk is not walk:
                if left._left is None:  # a leaf finishes at once
                    left._walk = walk
                    left._index = finished
                    append(left)
                    finished += 1
                else:
                    push(node)
                    node = left
                    continue
            right = node._right
            if right is not None:
                if right._walk is not walk:
                    if right._left is None:
                        right._walk = walk
                        right._index = finished
                        append(right)
                        finished += 1
                    else:
                        push(node)
                        node = right
                        continue
            elif node._operation in OPERAND_TUPLE_OPERATIONS:
                if node._operation in TENSOR_OPERATIONS:
                    holds_tensors = True
                unfinished = None
                for operand, _ in node._dright:  # type: ignore[attr-defined]  # the rest: see Node
                    if operand._walk is not walk:
                        if operand._left is None:
                            operand._walk = walk
                            operand._index = finished
                            append(operand)
                            finished += 1
                        else:
                            unfinished = operand
                            break
                if unfinished is not None:
                    push(node)
                    node = unfinished
                    continue
        node._walk = walk
        node._index = finished
        append(node)
        finished += 1
        if not path:
            return order, holds_tensors
        node = pop()


def _finite_seed(seed: object) -> float:
    value = real_number(seed, "a backward seed")
    if value - value != 0.0:
        raise NonFiniteSeed(value)
    return value


# (The two results typed apart: a recorded pass, or the committed topology alone.)
@overload
def _compute_pass(output: Scalar, seed: object, commit: bool, recorded: Literal[True] = ...) -> BackwardPass: ...


@overload
def _compute_pass(output: Scalar, seed: object, commit: bool, recorded: Literal[False]) -> Sequence[Scalar]: ...


def _compute_pass(output: Scalar, seed: object, commit: bool, recorded: bool = True) -> BackwardPass | Sequence[Scalar]:
    """The fresh pass of docs/engine.md: checks in order, nothing written until ``commit``;
    its `BackwardPass`, or with ``recorded`` False its topology alone.

    Stored gradients are only read in the prospective-sum step. The walk allocates no object
    the cyclic garbage collector tracks (floats and ints only), so it triggers no collection.
    """
    if output._gradient is None:
        raise UntrackedOutput(output._operation)
    seed = _finite_seed(seed)
    # The lock covers the walk (its marks and indices live on the nodes until propagation
    # ends) through the commit: the stored gradients read below are still the stored ones
    # when the sums are written.
    with _WALK_LOCK:
        order, holds_tensors = _walk(output)
        if holds_tensors:
            # (imported here: a program of scalar nodes only never loads the tensor modules)
            from .tensor_passes import compute_pass

            backward_pass = compute_pass(order, seed, commit)
            return backward_pass if recorded else backward_pass.topology
        adjoints, edge_before = _propagate(order, seed, recorded)
        count = len(order)

        # None marks the untracked nodes: the gradient they keep at the commit, and what
        # their records report.
        accumulated: list[float | None] = [None] * count
        index = 0
        for node in order:
            stored = node._gradient
            if stored is not None:
                adjoint = adjoints[index]
                total = stored + adjoint
                if total - total != 0.0:
                    raise NonFiniteAccumulatedGradient(index, stored, adjoint)
                accumulated[index] = total
            index += 1

        if commit:
            # Every check has passed: now, and only now, write the stored gradients, every
            # node in one step (an untracked one gets the None it has).
            _write_gradients(order, accumulated)

    if not recorded:
        return order
    return BackwardPass._from_walk(seed, order, adjoints, accumulated, edge_before, output._walk)


def _propagate(order: list[Scalar], seed: float, recording: bool = True) -> tuple[list[float], list[float]]:
    """Step 3 of the pass: the fresh adjoints, and each edge's parent adjoint before it
    (``recording``; else none: a pass whose records nobody reads, a quarter of this loop's
    time over an n-ary graph's edges).

    The edge record keeps only what cannot be derived afterwards, the "before" adjoint (see
    ``records``); 0.0 stands for an untracked parent, whose record reports None.

    This walk leaves the finiteness checks out of the per-edge loop: IEEE arithmetic keeps a
    non-finite value non-finite (inf + x is inf or nan, nan + x is nan), so a non-finite
    contribution or sum leaves its mark in the final adjoints or in the sum of the discarded
    contributions to untracked parents. When the marks are all finite, no check of step 3
    could have failed; otherwise ``_propagate_checked`` walks again with every check in
    place, to raise the first failing one with its fields (or, when only a finite sum
    overflowed, to return the same figures).
    """
    count = len(order)
    adjoints = [0.0] * count
    adjoints[count - 1] = seed
    edge_before: list[float] = []
    add_before = edge_before.append
    discarded = 0.0  # contributions to untracked parents, summed only to be checked
    child = count
    for node in reversed(order):
        child -= 1
        operand = node._left
        if operand is None:
            continue  # a leaf: no edges
        upstream = adjoints[child]
        # Slot 0, then slot 1 (written out twice: a loop over slots would allocate per node).
        if operand._gradient is None:
            discarded += upstream * node._dleft
            if recording:
                add_before(0.0)
        else:
            parent = operand._index
            previous = adjoints[parent]
            adjoints[parent] = previous + upstream * node._dleft
            if recording:
                add_before(previous)
        operand = node._right
        if operand is None:
            if node._operation in NARY_OPERATIONS:
                for operand, local in node._dright:  # type: ignore[attr-defined]  # the rest: see Node
                    if operand._gradient is None:
                        discarded += upstream * local
                        if recording:
                            add_before(0.0)
                    else:
                        parent = operand._index
                        previous = adjoints[parent]
                        adjoints[parent] = previous + upstream * local
                        if recording:
                            add_before(previous)
            continue
        if operand._gradient is None:
            discarded += upstream * node._dright
            if recording:
                add_before(0.0)
        else:
            parent = operand._index
            previous = adjoints[parent]
            adjoints[parent] = previous + upstream * node._dright
            if recording:
                add_before(previous)
    marks = _reduce(_add, adjoints, discarded)  # a left fold: the same on every Python (not `sum()`)
    if marks - marks != 0.0:
        return _propagate_checked(order, seed)
    return adjoints, edge_before


def _propagate_checked(order: list[Scalar], seed: float) -> tuple[list[float], list[float]]:
    """Step 3 exactly as docs/engine.md states it, each check at its edge, in visiting order."""
    count = len(order)
    adjoints = [0.0] * count
    adjoints[count - 1] = seed
    edge_before: list[float] = []
    for child in range(count - 1, -1, -1):
        node = order[child]
        upstream = adjoints[child]
        for slot, operand, local in _edges_of(node):
            contribution = upstream * local
            if contribution - contribution != 0.0:
                raise NonFiniteContribution(child, operand._index, slot, upstream, local)
            if operand._gradient is None:
                edge_before.append(0.0)
                continue
            parent = operand._index
            previous = adjoints[parent]
            total = previous + contribution
            if total - total != 0.0:
                raise NonFinitePassAdjoint(parent, previous, contribution)
            adjoints[parent] = total
            edge_before.append(previous)
    return adjoints, edge_before


def _edges_of(node: Scalar) -> tuple:
    """(slot, operand, local derivative) for each operand edge of ``node``, in slot order."""
    return tuple((slot, edge.parent, edge.local_derivative) for slot, edge in enumerate(node.parents))
