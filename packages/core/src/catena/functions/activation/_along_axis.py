"""Private helpers of the activations that work along an axis (softmax, log_softmax, crelu).

The reductions keep the reduced axis (length one), so their results broadcast
against the input. Sums follow :func:`catena.functions.math.sum.sum_array`
(einsum where it is safe and faster); the sum of products along the last axis
of float32/float64 arrays is one ``einsum``, within the same limit on terms,
which saves the temporary product.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.functions.math import sum as _sum
from catena.utils import type_check

_EINSUM_DTYPES = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))


def check_axis_argument(axis: Any, function: str) -> int:
    """Returns ``axis`` if it is an int, else raises a TypeError naming ``function``."""
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        raise TypeError(f'{function}: axis must be an int; got {axis!r}')
    return int(axis)


def expect_axis_in_range(x_type: Any, axis: int) -> None:
    """Expects ``-x.ndim <= axis < x.ndim`` (in type_check's light or full mode)."""
    named = type_check.make_variable(axis, 'axis')
    type_check.expect(x_type.ndim > named, x_type.ndim >= -named)


def _along_last(a: Any, axis: int) -> bool:
    return axis == -1 or axis == a.ndim - 1


def sum_along(xp: Any, a: Any, axis: int) -> Any:
    """``a.sum(axis, keepdims=True)``."""
    return _sum.sum_array(a, (axis,), True)


def dot_along(xp: Any, a: Any, b: Any, axis: int) -> Any:
    """``(a * b).sum(axis, keepdims=True)`` for arrays of one shape."""
    if (_along_last(a, axis) and a.dtype in _EINSUM_DTYPES
            and a.shape[-1] <= _sum.EINSUM_MAX_TERMS):
        return xp.einsum('...i,...i->...', a, b)[..., None]
    return (a * b).sum(axis=axis, keepdims=True)


def exp_and_sum(xp: Any, x: Any, axis: int) -> tuple[Any, Any, Any]:
    """Returns ``e = exp(x - c)`` (a fresh array), ``s = sum(e, axis)`` and ``c``.

    ``c`` is the maximum along ``axis``, which keeps ``exp`` from overflowing,
    or None for no shift: ``exp(x)`` is tried first, and it is kept when
    every sum is finite and at least one. Then no element overflowed, and
    those that underflowed are below the smallest normal number relative to
    the sum, as they would be after the shift; the result equals the shifted
    one to rounding, and it saves two passes over the data.
    """
    with numpy.errstate(over='ignore'):
        e = xp.exp(x)
    s = sum_along(xp, e, axis)
    if e.size == 0:  # nothing to normalize; ones keep callers from dividing by zero
        return e, xp.ones_like(s), None
    if s.min() >= 1 and s.max() < numpy.inf:
        return e, s, None
    c = x.max(axis=axis, keepdims=True)
    xp.subtract(x, c, out=e)
    xp.exp(e, out=e)
    return e, sum_along(xp, e, axis), c
