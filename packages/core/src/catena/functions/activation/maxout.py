"""``maxout``: the maximum over groups of consecutive units."""

from __future__ import annotations

from typing import Any

import numpy

from catena.functions.activation import _along_axis
from catena.functions.array.reshape import reshape
from catena.functions.math import minmax
from catena.utils import type_check
from catena.variable import Variable


def maxout(x: Any, pool_size: int, axis: int = 1) -> Variable:
    """Maxout: the maximum of each group of ``pool_size`` consecutive units along ``axis``.

    The units along ``axis`` are split into ``x.shape[axis] // pool_size``
    groups; output unit ``k`` is the maximum of input units
    ``k * pool_size`` to ``(k + 1) * pool_size - 1``. The gradient flows to
    the maximum of each group (to all of them on ties).

    Args:
        x: A Variable or array of floating point type.
        pool_size: The number of units per group, a positive int that
            divides ``x.shape[axis]``.
        axis: The axis of the units.

    Returns:
        Variable: An array like ``x`` whose length along ``axis`` is
        ``x.shape[axis] // pool_size``.

    Raises:
        ValueError: If ``pool_size`` is not positive or ``axis`` is out of range.
        catena.utils.type_check.InvalidType: If ``pool_size`` does not divide
            ``x.shape[axis]``.

    .. admonition:: Example

        >>> x = np.array([[1.0, 5.0, 3.0, 2.0]], dtype=np.float32)
        >>> F.maxout(x, pool_size=2).array
        array([[5., 3.]], dtype=float32)
    """
    if isinstance(pool_size, bool) or not isinstance(pool_size, (int, numpy.integer)):
        raise TypeError(f'maxout: pool_size must be an int; got {pool_size!r}')
    if pool_size <= 0:
        raise ValueError(f'maxout: pool_size must be a positive int; got {pool_size}')
    axis = _along_axis.check_axis_argument(axis, 'maxout')
    shape = tuple(x.shape)
    ndim = len(shape)
    if not -ndim <= axis < ndim:
        raise ValueError(f'maxout: axis must be in [{-ndim}, {ndim}) for an input of shape '
                         f'{shape}; got {axis}')
    axis %= ndim
    if shape[axis] % pool_size != 0:
        expect = 'x.shape[axis] % pool_size == 0'
        actual = f'x.shape[{axis}] = {shape[axis]}, pool_size = {pool_size}'
        raise type_check.InvalidType(
            expect, actual, f'maxout: pool_size must divide the length of x along axis\n'
            f'Expect: {expect}\nActual: {actual}')
    grouped = shape[:axis] + (shape[axis] // pool_size, int(pool_size)) + shape[axis + 1:]
    return minmax.max(reshape(x, grouped), axis=axis + 1)
