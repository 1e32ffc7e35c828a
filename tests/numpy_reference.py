"""numpy's side of the tensor tests, written apart from the engine: a softmax along an axis and
the sum of a broadcast adjoint back to an operand's shape."""

from __future__ import annotations

import numpy as np


def softmax(x, axis):
    shifted = np.exp(x - x.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def unbroadcast(gradient, shape):
    """numpy's sum of a broadcast gradient back to ``shape`` (``()`` for a scalar: a [1] array)."""
    if shape == ():
        return np.array([gradient.sum()])
    while gradient.ndim > len(shape):
        gradient = gradient.sum(axis=0)
    for axis, length in enumerate(shape):
        if length == 1 and gradient.shape[axis] != 1:
            gradient = gradient.sum(axis=axis, keepdims=True)
    return gradient
