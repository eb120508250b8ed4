"""``sum``: the sum of elements over given axes."""

from __future__ import annotations

import functools
from typing import Any

import numpy

from catena.function_node import FunctionNode
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.reshape import reshape
from catena.utils import force_array, type_check
from catena.variable import Variable


def _normalize_axis(axis: Any) -> tuple[int, ...] | None:
    if axis is None:
        return None
    if isinstance(axis, int):
        return (axis,)
    if isinstance(axis, (tuple, list)) and all(isinstance(a, int) for a in axis):
        if len(set(axis)) != len(axis):
            raise ValueError(f'axis contains duplicates: {axis}')
        return tuple(axis)
    raise TypeError(f'axis must be None, an int or a tuple of ints; got {axis!r}')


# NumPy's add.reduce sums float32/float64 rows pairwise but without SIMD; einsum
# vectorizes and is about 3x faster on MLP-sized arrays, at the price of longer
# sequential runs per SIMD lane. Up to this many terms per sum its rounding
# error stays within a few ulp of NumPy's, so it is used in that range only
# (and from this many elements on, below which its parsing costs more).
EINSUM_MAX_TERMS = 8192
_EINSUM_MIN_SIZE = 4096
_SUBSCRIPTS = 'abcdefghijklmnopqrstuvwxyz'


@functools.lru_cache(maxsize=256)
def _einsum_plan(ndim: int, axis: tuple[int, ...] | None) -> tuple[str, tuple[int, ...]]:
    """The einsum subscripts that sum over ``axis``, and the reduced axes."""
    reduced = tuple(range(ndim)) if axis is None else tuple(sorted({a % ndim for a in axis}))
    subscripts = _SUBSCRIPTS[:ndim]
    kept = ''.join(s for i, s in enumerate(subscripts) if i not in reduced)
    return f'{subscripts}->{kept}', reduced


def _numpy_sum(x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any:
    if (x.dtype.char not in 'fd' or x.size < _EINSUM_MIN_SIZE
            or x.ndim > len(_SUBSCRIPTS)):
        return x.sum(axis=axis, keepdims=keepdims)
    shape = x.shape
    subscripts, reduced = _einsum_plan(len(shape), axis)
    terms = 1
    for a in reduced:
        terms *= shape[a]
    if terms > EINSUM_MAX_TERMS:
        return x.sum(axis=axis, keepdims=keepdims)
    y = numpy.einsum(subscripts, x)
    if keepdims:
        y = y.reshape(tuple(1 if i in reduced else n for i, n in enumerate(shape)))
    return y


def sum_array(x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any:
    """``x.sum(axis=axis, keepdims=keepdims)``, through einsum where that is safe and faster.

    The forward of :class:`Sum`, shared with the functions that sum inside
    their own forward (softmax and log-softmax).
    """
    if type(x) is numpy.ndarray:
        return _numpy_sum(x, axis, keepdims)
    return x.sum(axis=axis, keepdims=keepdims)


class Sum(FunctionNode):
    """Sum of the elements over axes."""

    keepdims = False

    def __init__(self, axis: Any = None, keepdims: bool = False) -> None:
        self.axis = _normalize_axis(axis)
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == 'f')
        for axis in self.axis or ():
            if axis >= 0:
                type_check.expect(axis < x_type.ndim)
            else:
                type_check.expect(-axis - 1 < x_type.ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        self._in_shape = x.shape
        return force_array(sum_array(x, self.axis, self.keepdims)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        ndim = len(self._in_shape)
        if not self.keepdims and self.axis is not None and ndim > 0:
            axes = sorted(a % ndim for a in self.axis)
            shape = list(gy.shape)
            for axis in axes:
                shape.insert(axis, 1)
            gy = reshape(gy, tuple(shape))
        elif not self.keepdims and ndim > 0:
            gy = reshape(gy, (1,) * ndim)
        return broadcast_to(gy, self._in_shape),


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Sums the elements of ``x`` over ``axis``.

    Args:
        x: A Variable or array of floating point type.
        axis: None (all axes), an int or a tuple of ints.
        keepdims: Keep the summed axes with length one.

    Returns:
        Variable: The sum.

    .. admonition:: Example

        >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> F.sum(x, axis=0).array
        array([3., 5., 7.], dtype=float32)
    """
    return Sum(axis, keepdims).apply((x,))[0]


