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
    """Reorders its one input ``x`` along ``axis``: ``y[i] = x[indices[i]]``
    (``y[indices[i]] = x[i]`` with ``inv``).

    As in Chainer, the permutation is a fixed array of the node, not an input:
    no gradient flows to it.

    Args:
        indices: A one-dimensional integer array holding a permutation.
        axis: The axis to permute.
        inv: Use the inverse of ``indices``.

    Attributes:
        indices: The permutation.
    """

    def __init__(self, indices: Any, axis: int = 0, inv: bool = False) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f'axis must be an int; got {axis!r}')
        if not hasattr(indices, 'ndim'):
            indices = numpy.asarray(indices)
        if indices.dtype.kind not in 'iu':
            raise TypeError(f'indices must be an integer array; got dtype {indices.dtype}')
        if indices.ndim != 1:
            raise ValueError(f'indices must be one-dimensional; got shape {indices.shape}')
        self.indices = indices
        self.axis = axis
        self.inv = bool(inv)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f')
        if self.axis >= 0:
            type_check.expect(x_type.ndim > self.axis)
        else:
            type_check.expect(x_type.ndim >= -self.axis)
        type_check.expect(x_type.shape[self.axis] == len(self.indices))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        indices = self.indices
        _check_permutation(indices)
        xp = backend.get_array_module(x)
        if backend.get_array_module(indices) is not xp:
            indices = backend.get_device_from_array(x).send(indices)
        if not self.inv:
            return xp.take(x, indices, axis=self.axis),
        y = xp.empty(x.shape, x.dtype)
        y[(slice(None),) * (self.axis % x.ndim) + (indices,)] = x
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return Permutate(self.indices, self.axis, not self.inv).apply(grad_outputs)


def permutate(x: Any, indices: Any, axis: int = 0, inv: bool = False) -> Variable:
    """Permutes ``x`` along an axis.

    ``y[i] = x[indices[i]]`` along ``axis`` (the same as
    ``x.take(indices, axis)``); with ``inv``, ``indices`` is read as the
    inverse permutation: ``y[indices[i]] = x[i]``.

    Args:
        x: A Variable or array of floating point type.
        indices: A Variable or one-dimensional integer array holding a
            permutation of ``0, ..., x.shape[axis] - 1``. A Variable's array
            is used: no gradient flows to ``indices``.
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
    if isinstance(indices, Variable):
        indices = indices.array
    return Permutate(indices, axis, inv).apply((x,))[0]
