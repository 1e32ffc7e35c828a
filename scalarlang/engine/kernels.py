"""The loops of tensor operations, on flat row-major lists of floats, in pure Python.

Every sum is a left fold in index order (`fold`: functools.reduce of operator.add, the first
element first), never `sum()` of floats (its algorithm changed in Python 3.12), `math.fsum` or
`math.sumprod`: the same bits on every platform and in Pyodide, and the bits of the same
computation written with scalar nodes and the same folds. The hot loops run in C-level
built-ins that keep that order: `map` of `operator.mul`, slices with a step (a column, a fiber
along an axis), `reduce`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce
from operator import add, mul
from typing import TypeVar

Item = TypeVar("Item")


def fold(values: Sequence[float]) -> float:
    """``values[0] + values[1] + ...``, left to right (at least one value)."""
    return reduce(add, values)


def dot(left: Sequence[float], right: Sequence[float]) -> float:
    """``left[0]*right[0] + left[1]*right[1] + ...``, a left fold of the products."""
    return reduce(add, map(mul, left, right))


def expand(values: list[float], positions: Sequence[int] | None) -> list[float]:
    """The elements at ``positions`` (a broadcast, a permutation); None: ``values`` itself."""
    if positions is None:
        return values
    return list(map(values.__getitem__, positions))


def sum_into(contributions: Sequence[float], positions: Sequence[int] | None, count: int) -> list[float]:
    """The reverse of `expand`: each of ``count`` elements the sum of the contributions at the
    positions naming it, added in the order of the positions (a left fold from 0.0)."""
    if positions is None:
        return list(contributions)
    totals = [0.0] * count
    for position, contribution in zip(positions, contributions):
        totals[position] += contribution
    return totals


def sum_tiled(contributions: list[float], count: int) -> list[float]:
    """`sum_into` where the positions are ``0, 1, …, count - 1`` again and again (an operand
    broadcast along leading axes, a bias over a batch's rows): each element's contributions
    added in the same order, a whole row at a time."""
    totals = [0.0] * count
    for start in range(0, len(contributions), count):
        totals = list(map(add, totals, contributions[start:start + count]))
    return totals


# ---- matrix products -------------------------------------------------------------------------
# A is [n, k], B is [k, m]; each entry of a product is `dot` of a row and a column, in order.


# Each entry is the same fold either way; the loops differ in which dimension runs in C. With
# an inner dimension shorter than the rows of the result (`[100, 2] @ [2, 16]`), or rows of the
# result at least `_WIDE` long, a row of the result is accumulated over whole rows of the other
# operand (`_rows_by_terms`): its entries `((a0*b0 + a1*b1) + a2*b2) + ...`, the same left fold
# as `dot`. Six terms a pass, `t + a*x + b*y + ... + f*u`, which Python evaluates left to right
# as `((t + a*x) + b*y) + ...`: the fold's order, a sixth of the lists made (the first pass and
# the rest three terms each, then one). Three terms a pass cost about 350 machine instructions a
# product where `reduce(add, map(mul, row, column))` costs 530 (callgrind, makemore's
# `[32, 200] @ [200, 27]`); six take 10-15% less time again (`[N, 30] @ [30, 200]`, the MLP's
# first layer). Below rows of about 10 the lists' own cost makes the column fold the cheaper.
_WIDE = 10


def _rows_by_terms(rows: list[list[float]], others: list[list[float]]) -> list[float]:
    """Each row r of the result, [len(rows), len(others[0])]: the left fold over p of
    ``r[p] * others[p]`` (element by element, in p's order)."""
    out: list[float] = []
    extend = out.extend
    count = len(others)
    for row in rows:
        if count >= 3:
            a, b, c = row[0], row[1], row[2]
            total = [a * x + b * y + c * z for x, y, z in zip(others[0], others[1], others[2])]
            p = 3
        else:
            first = row[0]
            total = [first * value for value in others[0]]
            p = 1
        while p + 5 < count:
            a, b, c, d, e, f = row[p:p + 6]
            total = [t + a * x + b * y + c * z + d * w + e * v + f * u for t, x, y, z, w, v, u
                     in zip(total, others[p], others[p + 1], others[p + 2], others[p + 3], others[p + 4], others[p + 5])]
            p += 6
        if p + 2 < count:
            a, b, c = row[p], row[p + 1], row[p + 2]
            total = [t + a * x + b * y + c * z for t, x, y, z in zip(total, others[p], others[p + 1], others[p + 2])]
            p += 3
        while p < count:
            a = row[p]
            total = [t + a * x for t, x in zip(total, others[p])]
            p += 1
        extend(total)
    return out


def matmul(a: list[float], n: int, k: int, b: list[float], m: int) -> list[float]:
    """A @ B, [n, m]: B's columns taken once (slices with a step), then each row of A."""
    if k < m or m >= _WIDE:
        return _rows_by_terms([a[start:start + k] for start in range(0, n * k, k)],
                              [b[start:start + m] for start in range(0, k * m, m)])
    columns = [b[j::m] for j in range(m)]
    out: list[float] = []
    extend = out.extend
    for start in range(0, n * k, k):
        row = a[start:start + k]
        extend([reduce(add, map(mul, row, column)) for column in columns])
    return out


def matmul_transposed_right(g: list[float], n: int, m: int, b: list[float], k: int) -> list[float]:
    """G @ Bᵀ for G [n, m] and B [k, m]: [n, k] (B's rows are Bᵀ's columns)."""
    if m < k or k >= _WIDE:
        return _rows_by_terms([g[start:start + m] for start in range(0, n * m, m)], [b[p::m] for p in range(m)])
    rows_of_b = [b[start:start + m] for start in range(0, k * m, m)]
    out: list[float] = []
    extend = out.extend
    for start in range(0, n * m, m):
        row = g[start:start + m]
        extend([reduce(add, map(mul, row, other)) for other in rows_of_b])
    return out


def matmul_transposed_left(a: list[float], n: int, k: int, g: list[float], m: int) -> list[float]:
    """Aᵀ @ G for A [n, k] and G [n, m]: [k, m] (A's columns are Aᵀ's rows)."""
    if n < m or m >= _WIDE:
        return _rows_by_terms([a[p::k] for p in range(k)], [g[start:start + m] for start in range(0, n * m, m)])
    columns_of_g = [g[j::m] for j in range(m)]
    out: list[float] = []
    extend = out.extend
    for p in range(k):
        column = a[p::k]
        extend([reduce(add, map(mul, column, other)) for other in columns_of_g])
    return out


def outer(left: Sequence[float], right: Sequence[float]) -> list[float]:
    """[len(left), len(right)]: each left element times each right element."""
    out: list[float] = []
    extend = out.extend
    for value in left:
        extend([value * other for other in right])
    return out


# ---- along an axis ---------------------------------------------------------------------------
# A tensor seen as [outer, length, inner]: fiber (o, i) holds the `length` elements along the
# axis, in order; fibers are listed o first, then i (the row-major order of the result).


def fibers(values: list[float], outer: int, length: int, inner: int) -> list[list[float]]:
    span = length * inner
    return [values[base + i: base + span: inner] for base in range(0, outer * span, span) for i in range(inner)]


def from_fibers(pieces: Sequence[Sequence[float]], outer: int, length: int, inner: int) -> list[float]:
    """The flat list whose `fibers` are ``pieces``."""
    if inner == 1:
        return [value for piece in pieces for value in piece]
    span = length * inner
    out = [0.0] * (outer * span)
    at = 0
    for base in range(0, outer * span, span):
        for i in range(inner):
            out[base + i: base + span: inner] = pieces[at]
            at += 1
    return out


def along(values: list[float], outer: int, length: int, inner: int,
          function: Callable[[list[float]], Item]) -> list[Item]:
    """``function`` of each fiber along the axis, in the result's row-major order."""
    return list(map(function, fibers(values, outer, length, inner)))


# ---- rows ------------------------------------------------------------------------------------


def gather_rows(values: list[float], width: int, rows: Sequence[int]) -> list[float]:
    """The rows (of ``width`` elements) named by ``rows``, one after another."""
    out: list[float] = []
    extend = out.extend
    for row in rows:
        extend(values[row * width:(row + 1) * width])
    return out


def scatter_rows(contributions: list[float], width: int, rows: Sequence[int], count: int) -> list[float]:
    """The reverse of `gather_rows`: ``count`` rows of zeros, each named row added its
    contribution in the order of ``rows`` (a repeated row adds each of its contributions)."""
    totals = [0.0] * (count * width)
    at = 0
    for row in rows:
        start = row * width
        totals[start:start + width] = map(add, totals[start:start + width], contributions[at:at + width])
        at += width
    return totals
