"""The names of the operations that make tensor nodes, and scalar nodes of tensor operands.

A plain `Enum`, not a `StrEnum` like `ScalarOperation`: both say "add", and a `StrEnum`'s
members equal their strings, so `ScalarOperation.ADD in TENSOR_OPERATIONS` would be true.
``str()`` of a member is its name as tables show it. Leaves (variable, constant, detached) are
`ScalarOperation`'s: a leaf is a leaf, whatever it holds.
"""

from __future__ import annotations

from enum import Enum


class TensorOperation(Enum):
    """An operation whose node has a tensor operand or a tensor value; its edges carry VJPs."""

    STACK = "tensor"  # tensor(L) of a list holding scalar nodes: an edge to each
    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    NEG = "neg"
    POW = "pow"
    EXP = "exp"
    LOG = "log"
    TANH = "tanh"
    SQRT = "sqrt"
    RELU = "relu"
    SIGMOID = "sigmoid"
    ABS = "abs"
    MAXIMUM = "maximum"  # the larger of two, element by element (`max` is the reduction)
    MINIMUM = "minimum"
    MATMUL = "matmul"
    DOT = "dot"  # rank 1 @ rank 1: a scalar node
    SUM = "sum"
    MEAN = "mean"
    MAX = "max"
    MIN = "min"
    LOGSUMEXP = "logsumexp"
    SOFTMAX = "softmax"
    CROSS_ENTROPY = "cross_entropy"
    INDEX = "index"  # T[i]: a sub-tensor, or an element (a scalar node)
    GATHER = "gather"  # T[I]: the rows I names, stacked
    RESHAPE = "reshape"
    TRANSPOSE = "transpose"

    def __str__(self) -> str:
        return self.value


TENSOR_OPERATIONS = frozenset(TensorOperation)
