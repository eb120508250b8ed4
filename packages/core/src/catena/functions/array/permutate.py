"""``permutate``: reorder an array along an axis by a permutation."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


def _check_permutation(indices: Any) -> None:
    host = numpy.asarray(backend.get_device_from_array(indices).to_numpy(indices))
    n = len(host)
    outside = host[(host < 0) | (host >= n)]
    if outside.size:
        raise ValueError(f'indices must be a permutation of 0, ..., {n - 1}; it holds the '
                         f'out-of-range index {outside[0]}')
    counts = numpy.bincount(host, minlength=n)
    if (counts > 1).any():
        raise ValueError(f'indices must be a permutation of 0, ..., {n - 1}; it holds '
                         f'{int(numpy.argmax(counts > 1))} more than once')


class Permutate(FunctionNode):
    """Reorders ``x`` along ``axis``: ``y[i] = x[indices[i]]`` (``y[indices[i]] = x[i]``
    with ``inv``).

    Attributes:
        indices: The permutation of the last forward pass (the second input),
            as Chainer's node kept it.
    """

    def __init__(self, axis: int = 0, inv: bool = False) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f'axis must be an int; got {axis!r}')
        self.axis = axis
        self.inv = bool(inv)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'indices'))
        x_type, ind_type = in_types
        type_check.expect(x_type.dtype.kind == 'f', ind_type.dtype.kind == 'i',
                          ind_type.ndim == 1)
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        type_check.expect(x_type.shape[self.axis] == ind_type.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        x, indices = inputs
        _check_permutation(indices)
        self.indices = indices  # Chainer's attribute (its node held the array)
        xp = backend.get_array_module(x)
        if not self.inv:
            return xp.take(x, indices, axis=self.axis),
        y = xp.empty(x.shape, x.dtype)
        y[(slice(None),) * (self.axis % x.ndim) + (indices,)] = x
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        indices, = self.get_retained_inputs()
        gx, = Permutate(self.axis, not self.inv).apply((grad_outputs[0], indices))
        return gx, None


def permutate(x: Any, indices: Any, axis: int = 0, inv: bool = False) -> Variable:
    """Permutes ``x`` along an axis.

    ``y[i] = x[indices[i]]`` along ``axis`` (the same as
    ``x.take(indices, axis)``); with ``inv``, ``indices`` is read as the
    inverse permutation: ``y[indices[i]] = x[i]``.

    Args:
        x: A Variable or array of floating point type.
        indices: A Variable or one-dimensional integer array holding a
            permutation of ``0, ..., x.shape[axis] - 1``.
        axis: The axis to permute.
        inv: Use the inverse of ``indices``.

    Returns:
        Variable: The permuted variable.

    Raises:
        ValueError: If ``indices`` is not a permutation.

    .. admonition:: Example

        >>> x = np.arange(6, dtype=np.float32).reshape(3, 2)
        >>> indices = np.array([2, 0, 1], np.int32)
        >>> F.permutate(x, indices).array
        array([[4., 5.],
               [0., 1.],
               [2., 3.]], dtype=float32)
        >>> F.permutate(x, indices, inv=True).array
        array([[2., 3.],
               [4., 5.],
               [0., 1.]], dtype=float32)
    """
    return Permutate(axis, inv).apply((x, indices))[0]
