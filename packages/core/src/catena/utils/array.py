"""Small helpers on arrays used throughout the functions."""

from __future__ import annotations

from typing import Any

import numpy


def force_array(x: Any, dtype: Any = None) -> Any:
    """Returns ``x`` as an array: NumPy operations on 0-d arrays return scalars.

    Args:
        x: An array, a NumPy scalar or a Python number.
        dtype: The dtype to cast a scalar to (arrays keep their dtype unless
            it is given).
    """
    if isinstance(x, (numpy.generic, int, float, complex)):
        return numpy.asarray(x, dtype=dtype)
    if dtype is not None and x.dtype != dtype:
        return x.astype(dtype, copy=False)
    return x


def force_type(dtype: Any, value: Any) -> Any:
    """Returns ``value`` cast to ``dtype`` (a scalar becomes a NumPy scalar)."""
    if numpy.isscalar(value):
        return numpy.dtype(dtype).type(value)
    if value.dtype != dtype:
        return value.astype(dtype, copy=False)
    return value


def size_of_shape(shape: Any) -> int:
    """Returns the number of elements of an array of ``shape``."""
    size = 1
    for dim in shape:
        size *= dim
    return int(size)


def sum_to(x: Any, shape: tuple[int, ...]) -> Any:
    """Sums the array ``x`` over broadcast axes so that its shape becomes ``shape``.

    Args:
        x: An array whose shape is ``shape`` broadcast to some larger shape.
        shape: The target shape.

    Returns:
        An array of ``shape``.
    """
    if x.shape == tuple(shape):
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, dim in enumerate(shape) if dim == 1 and x.shape[lead + i] != 1)
    y = x.sum(axis=axes, keepdims=True)
    if lead:
        y = y.reshape(shape)
    return force_array(y)
