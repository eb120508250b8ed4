"""What the normalization functions share: axes, a 3-D view of the input, statistics.

Every batch-style normalization reduces some axes of ``x`` and keeps the
others (the "channel" axes, ``key_axis``). :class:`View` looks at ``x`` as an
``(A, K, B)`` array whose middle axis holds the kept axes, so that statistics
are one ``einsum`` over axes 0 and 2, and per-channel vectors apply with
:func:`channel_op`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy

from catena import _compiled
from catena.functions.array.cast import Cast
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.utils import force_array, type_check
from catena.variable import Variable


def check_axis_argument(axis: Any, function: str) -> tuple[int, ...] | None:
    """Returns ``axis`` as a tuple of ints (or None); raises TypeError/ValueError otherwise."""
    if axis is None:
        return None
    if isinstance(axis, (int, numpy.integer)) and not isinstance(axis, bool):
        return (int(axis),)
    if isinstance(axis, (tuple, list)) and all(
            isinstance(a, (int, numpy.integer)) and not isinstance(a, bool) for a in axis):
        axis = tuple(int(a) for a in axis)
        if len(set(axis)) != len(axis):
            raise ValueError(f'{function}: axis must not contain duplicates; got {axis}')
        return axis
    raise TypeError(f'{function}: axis must be None, an int or a tuple of ints; got {axis!r}')


def default_axis(x_ndim: int, gamma_ndim: int) -> tuple[int, ...]:
    """Chainer's default: the batch axis and every axis after the channel axes."""
    return (0,) + tuple(range(gamma_ndim + 1, x_ndim))


@functools.lru_cache(maxsize=256)
def resolve_axes(x_ndim: int, gamma_ndim: int, axis: tuple[int, ...] | None,
                 function: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Returns ``(axis, key_axis)``: the reduced axes (non-negative) and the kept ones.

    Raises:
        ValueError: If an axis is out of range or the axes are not in
            ascending order (as Chainer requires).
    """
    if axis is None:
        axis = default_axis(x_ndim, gamma_ndim)
    else:
        for a in axis:
            if not -x_ndim <= a < x_ndim:
                raise ValueError(f'{function}: axis {a} is out of range for x.ndim == {x_ndim} '
                                 f'(axis={axis})')
        normalized = tuple(a % x_ndim for a in axis)
        if any(p >= q for p, q in zip(normalized, normalized[1:])):
            raise ValueError(f'{function}: the numbers in axis must be in ascending order; '
                             f'got {axis}')
        axis = normalized
    key_axis = tuple(i for i in range(x_ndim) if i not in axis)
    return axis, key_axis


def expect_channel_shapes(x_type: Any, gamma_type: Any, axis: tuple[int, ...] | None,
                          function: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Expects ``gamma.shape`` to be the kept (channel) dimensions of ``x``.

    Works in type_check's light and full modes. Returns ``(axis, key_axis)``.
    """
    x_ndim = type_check.eval(x_type.ndim)
    gamma_ndim = type_check.eval(gamma_type.ndim)
    given = axis is not None
    axis, key_axis = resolve_axes(x_ndim, gamma_ndim, axis, function)
    if type_check.in_light_mode():
        # Plain values: one test; a failure is explained by the full-mode rerun.
        x_shape, gamma_shape = x_type.shape, gamma_type.shape
        type_check.expect((given or x_ndim > gamma_ndim) and gamma_ndim == len(key_axis) and all(
            x_shape[k] == size for k, size in zip(key_axis, gamma_shape)))
        return axis, key_axis
    if not given:
        type_check.expect(x_type.ndim >= gamma_type.ndim + 1)
    type_check.expect(gamma_type.ndim == len(key_axis))
    for i, k in enumerate(key_axis):
        type_check.expect(x_type.shape[k] == gamma_type.shape[i])
    return axis, key_axis


@functools.lru_cache(maxsize=64)
def compute_dtype(*dtypes: Any) -> numpy.dtype:
    """The dtype statistics are computed in: float32 at least (float16 is too coarse)."""
    return numpy.result_type(numpy.float32, *dtypes)


class View:
    """Sees arrays of ``shape`` as ``(A, K, B)``, the kept axes ``key_axis`` in the middle.

    When the kept axes are adjacent this is a reshape (a view of a contiguous
    array); otherwise the reduced axes are moved to the front first.

    Attributes:
        shape3: ``(A, K, B)``.
        m: The number of elements reduced per channel, ``A * B``.
    """

    def __init__(self, shape: tuple[int, ...], axis: tuple[int, ...],
                 key_axis: tuple[int, ...]) -> None:
        self.shape = tuple(shape)
        self.perm: tuple[int, ...] | None = None
        kept = math.prod(shape[k] for k in key_axis)
        if not key_axis:
            self.shape3 = (math.prod(shape), 1, 1)
        elif key_axis == tuple(range(key_axis[0], key_axis[-1] + 1)):
            first, last = key_axis[0], key_axis[-1] + 1
            self.shape3 = (math.prod(shape[:first]), kept, math.prod(shape[last:]))
        else:
            self.perm = axis + key_axis
            self.inverse = tuple(int(i) for i in numpy.argsort(self.perm))
            self.moved_shape = tuple(shape[p] for p in self.perm)
            self.shape3 = (math.prod(shape[a] for a in axis), kept, 1)
        self.m = self.shape3[0] * self.shape3[2]

    def to3d(self, a: Any) -> Any:
        """Returns the array ``a`` (of ``shape``) as ``(A, K, B)``."""
        if self.perm is not None:
            a = a.transpose(self.perm)
        return a.reshape(self.shape3)

    def from3d(self, a3: Any) -> Any:
        """Returns the ``(A, K, B)`` array ``a3`` in ``shape``."""
        if self.perm is not None:
            return a3.reshape(self.moved_shape).transpose(self.inverse)
        return a3.reshape(self.shape)

    def to3d_variable(self, v: Any) -> Variable:
        """:meth:`to3d` on a Variable (differentiable)."""
        if self.perm is not None:
            v = transpose(v, self.perm)
        return reshape(v, self.shape3)

    def from3d_variable(self, v3: Any) -> Variable:
        """:meth:`from3d` on a Variable (differentiable)."""
        if self.perm is not None:
            return transpose(reshape(v3, self.moved_shape), self.inverse)
        return reshape(v3, self.shape)


@functools.lru_cache(maxsize=256)
def view_for(shape: tuple[int, ...], axis: tuple[int, ...], key_axis: tuple[int, ...]) -> View:
    """A (shared, read-only) :class:`View`."""
    return View(shape, axis, key_axis)


def channel_sum(xp: Any, a3: Any) -> Any:
    """Sums an ``(A, K, B)`` array over axes 0 and 2."""
    if a3.shape[2] == 1:
        # A matrix-vector product (BLAS) beats a reduction over the strided axis.
        return xp.matmul(xp.ones(a3.shape[0], a3.dtype), a3.reshape(a3.shape[:2]))
    return xp.einsum('akb->k', a3)


def channel_dot(xp: Any, a3: Any, b3: Any) -> Any:
    """Sums ``a3 * b3`` over axes 0 and 2 without the product's temporary."""
    if a3.shape[2] == 1:
        return xp.einsum('ak,ak->k', a3.reshape(a3.shape[:2]), b3.reshape(b3.shape[:2]))
    return xp.einsum('akb,akb->k', a3, b3)


# NumPy's ufunc buffer size: an operand broadcast along an inner loop shorter than
# this is iterated slowly (about twice the time of two full arrays).
_INNER = 8192


@functools.lru_cache(maxsize=256)
def _rows_per_tile(a: int, k: int) -> int:
    """The fewest rows of ``k`` elements, dividing ``a``, that make a loop of ``_INNER``."""
    for rows in range(-(-_INNER // k), a):
        if a % rows == 0:
            return rows
    return 0


def channel_op(xp: Any, ufunc: Any, a3: Any, v: Any, out: Any) -> Any:
    """``ufunc(a3, v)`` into ``out`` for an ``(A, K, B)`` array and a per-channel ``(K,)`` vector.

    ``v`` is first laid out as a small contiguous block that broadcasts along
    the outermost axis only (``(K, B)``, or for ``B == 1`` enough rows of
    ``(K,)`` to make a long inner loop), which NumPy iterates much faster
    than a stride-0 operand. ``out`` must be C-contiguous (a fresh array, or
    ``a3`` itself).
    """
    a, k, b = a3.shape
    if a > 1 and b > 1:
        w = xp.ascontiguousarray(xp.broadcast_to(v[:, None], (k, b)))
        return ufunc(a3, w, out=out)
    if b == 1 and a > 1 and a3.flags.c_contiguous and out.flags.c_contiguous:
        rows = _rows_per_tile(a, k)
        if rows:
            shape = (a // rows, rows * k)
            w = xp.ascontiguousarray(xp.broadcast_to(v, (rows, k))).reshape(-1)
            ufunc(a3.reshape(shape), w, out=out.reshape(shape))
            return out
    return ufunc(a3, v[:, None], out=out)


def centered_statistics(xp: Any, x3: Any, dtype: Any) -> tuple[Any, Any, Any]:
    """Returns ``(xc, mean, var)`` of an ``(A, K, B)`` array over axes 0 and 2.

    ``xc = x3 - mean`` is a new array of ``dtype`` that callers may overwrite;
    ``var`` is the biased variance, computed from ``xc`` (two passes, stable).
    """
    inv_m = numpy.dtype(dtype).type(1.0 / max(x3.shape[0] * x3.shape[2], 1))
    if x3.dtype == dtype:
        mean = channel_sum(xp, x3)
        mean *= inv_m
        xc = channel_op(xp, xp.subtract, x3, mean, xp.empty(x3.shape, dtype))
    else:
        xc = x3.astype(dtype)
        mean = channel_sum(xp, xc)
        mean *= inv_m
        channel_op(xp, xp.subtract, xc, mean, xc)
    var = channel_dot(xp, xc, xc)
    var *= inv_m
    return xc, force_array(mean), force_array(var)


_loops = _compiled.load('_cnorm')

# Below this many elements per (sample, channel) row NumPy's broadcasting is as fast.
_MIN_ROW = 4


def compiled_loops(x3: Any, dtype: Any) -> Any:
    """Returns :mod:`catena._cnorm` if it takes ``x3``, an ``(A, K, B)`` array, else None.

    It takes NumPy arrays (not subclasses) of float32 or float64 computed in
    ``dtype`` (their own), C-contiguous, with rows of at least four elements;
    the per-channel arrays passed with ``x3`` must be C-contiguous vectors of
    its dtype.
    """
    if (_loops is not None and type(x3) is numpy.ndarray and x3.dtype == dtype
            and x3.dtype.type in (numpy.float32, numpy.float64) and x3.shape[2] >= _MIN_ROW
            and x3.flags.c_contiguous):
        return _loops
    return None


def inverse_std(xp: Any, var: Any, eps: float) -> Any:
    """Returns ``1 / sqrt(var + eps)`` as a new array of var's dtype."""
    inv_std = xp.add(var, var.dtype.type(eps))
    xp.sqrt(inv_std, out=inv_std)
    xp.reciprocal(inv_std, out=inv_std)
    return inv_std


def update_running(xp: Any, running: Any, value: Any, decay: float, factor: float = 1.0) -> None:
    """``running = decay * running + (1 - decay) * factor * value``, in place."""
    running *= running.dtype.type(decay)
    running += ((1.0 - decay) * factor * value).astype(running.dtype, copy=False)


def raw_array(value: Any) -> Any:
    """The array of a Variable, or the value itself."""
    return value.array if isinstance(value, Variable) else value


def cast(x: Any, dtype: Any) -> Any:
    """Returns ``x`` in ``dtype`` (``x`` itself when it already is; None stays None)."""
    if x is None or x.dtype == dtype:
        return x
    return Cast(dtype).apply((x,))[0]
