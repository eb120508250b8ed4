"""Window arithmetic shared by the pooling functions, on any array module.

Every helper loops in Python over the taps of the window only (one
vectorized pass over a strided view of the padded image per tap), never over
pixels, and builds no im2col column array: a pooling window's taps are read
directly from strided views. Shapes follow :mod:`catena.utils.conv`: images
are ``(n, c, *dims)``, pooled arrays ``(n, c, *outs)``, and a tap ``t`` is
the row-major index of a window position (``t = i * kw + j`` in 2-D), which
is what max pooling's argmax ``indexes`` hold.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy

from catena import _compiled, backend
from catena.utils import conv

Ints = Sequence[int]

_loops = _compiled.load('_cpooling')
_INDEX_TYPES = (numpy.int8, numpy.int16, numpy.int32)


def _compiled_takes(*arrays: Any) -> bool:
    """Whether :mod:`catena._cpooling` takes these 4-d arrays (2-d max pooling's gradient).

    The first must be float32 or float64; each must be a NumPy array (not a
    subclass) and C-contiguous.
    """
    return (_loops is not None
            and all(type(a) is numpy.ndarray and a.ndim == 4 and a.flags.c_contiguous
                    for a in arrays)
            and arrays[0].dtype.type in (numpy.float32, numpy.float64))


def outsize(dims: Ints, ksize: Ints, stride: Ints, pad: Ints, cover_all: bool
            ) -> tuple[int, ...]:
    """The pooled size per axis (:func:`catena.utils.conv.get_conv_outsize`)."""
    return tuple(conv.get_conv_outsize(size, k, s, p, cover_all)
                 for size, k, s, p in zip(dims, ksize, stride, pad))


def _extents(dims: Ints, ksize: Ints, stride: Ints, pad: Ints, outs: Ints) -> tuple[int, ...]:
    """The padded length per axis that holds the image and the reach of every window."""
    return tuple(max(size + 2 * p, k + s * (o - 1))
                 for size, k, s, p, o in zip(dims, ksize, stride, pad, outs))


def _inner(dims: Ints, pad: Ints) -> tuple[slice, ...]:
    return (slice(None), slice(None)) + tuple(slice(p, p + size) for size, p in zip(dims, pad))


def _taps(ksize: Ints, stride: Ints, outs: Ints) -> Iterator[tuple[slice, ...]]:
    """For each tap in row-major order, the slices of the padded image that it reads."""
    for tap in itertools.product(*(range(k) for k in ksize)):
        yield (slice(None), slice(None)) + tuple(
            slice(i, i + s * (o - 1) + 1, s) for i, s, o in zip(tap, stride, outs))


def _padded(x: Any, pad: Ints, extents: Ints, fill: Any) -> Any:
    """``x`` inside a buffer of the spatial ``extents`` filled with ``fill`` (``x`` if it fits)."""
    dims = x.shape[2:]
    if tuple(extents) == tuple(dims):
        return x
    xp = backend.get_array_module(x)
    buf = xp.full(x.shape[:2] + tuple(extents), x.dtype.type(fill), dtype=x.dtype)
    buf[_inner(dims, pad)] = x
    return buf


def _overlapping(ksize: Ints, stride: Ints) -> bool:
    return any(k > s for k, s in zip(ksize, stride))


def index_dtype(n_taps: int) -> Any:
    """The smallest integer dtype that holds a tap index of a window of ``n_taps``."""
    if n_taps <= 127:
        return numpy.int8
    if n_taps <= 32767:
        return numpy.int16
    return numpy.int32


def max_pool(x: Any, ksize: Ints, stride: Ints, pad: Ints, cover_all: bool,
             with_indexes: bool) -> tuple[Any, Any]:
    """Max pooling with ``-inf`` padding.

    Returns:
        ``(y, indexes)``: the maxima ``(n, c, *outs)`` and, when
        ``with_indexes``, the tap of the first maximum of each window (the
        argmax over the row-major window) in :func:`index_dtype`, else None.
    """
    xp = backend.get_array_module(x)
    outs = outsize(x.shape[2:], ksize, stride, pad, cover_all)
    padded = _padded(x, pad, _extents(x.shape[2:], ksize, stride, pad, outs), -numpy.inf)
    views = _taps(ksize, stride, outs)
    y = padded[next(views)].copy()
    if not with_indexes:
        for view in views:
            xp.maximum(y, padded[view], out=y)
        return y, None
    dtype = index_dtype(math.prod(ksize))
    indexes = xp.zeros(y.shape, dtype=dtype)
    newer = xp.empty(y.shape, dtype=dtype)
    # An int8 buffer doubles as the bool mask (same bytes); wider ones need a copy.
    shared = dtype == numpy.int8
    newer_mask = newer.view(numpy.bool_) if shared else xp.empty(y.shape, dtype=bool)
    for tap, view in enumerate(views, 1):
        tap_view = padded[view]
        # A strictly greater value moves the argmax to this tap; taps only grow,
        # so max(indexes, tap * newer) sets it without a masked assignment.
        xp.greater(tap_view, y, out=newer_mask)
        xp.maximum(y, tap_view, out=y)
        if not shared:
            newer[...] = newer_mask
        newer *= dtype(tap)
        xp.maximum(indexes, newer, out=indexes)
    return y, indexes


def scatter(g: Any, indexes: Any, ksize: Ints, stride: Ints, pad: Ints, dims: Ints) -> Any:
    """Adds each ``g[..., o]`` to the pixel of ``dims`` that tap ``indexes[..., o]`` reads.

    The adjoint of :func:`gather`: the gradient of max pooling, and upsampling.
    """
    xp = backend.get_array_module(g)
    outs = g.shape[2:]
    if _compiled_takes(g, indexes) and indexes.dtype.type in _INDEX_TYPES:
        gx = numpy.zeros(g.shape[:2] + tuple(dims), g.dtype)
        _loops.max_pool_2d_grad(g, indexes, gx, *ksize, *stride, *pad)
        return gx
    extents = _extents(dims, ksize, stride, pad, outs)
    overlapping = _overlapping(ksize, stride)
    buf = xp.zeros(g.shape[:2] + extents, dtype=g.dtype)
    mask = xp.empty(g.shape, dtype=bool)
    part = xp.empty(g.shape, dtype=g.dtype) if overlapping else None
    itype = indexes.dtype.type
    for tap, view in enumerate(_taps(ksize, stride, outs)):
        xp.equal(indexes, itype(tap), out=mask)
        if part is None:
            xp.multiply(g, mask, out=buf[view])
        else:
            xp.multiply(g, mask, out=part)
            buf[view] += part
    return buf if extents == tuple(dims) else buf[_inner(dims, pad)]


def gather(x: Any, indexes: Any, ksize: Ints, stride: Ints, pad: Ints) -> Any:
    """Reads, for each window ``o`` of ``indexes.shape[2:]``, the pixel of ``x`` at its tap.

    Pixels in the padding read 0. The adjoint of :func:`scatter`.
    """
    xp = backend.get_array_module(x)
    outs = indexes.shape[2:]
    padded = _padded(x, pad, _extents(x.shape[2:], ksize, stride, pad, outs), 0)
    y = xp.zeros(indexes.shape, dtype=x.dtype)
    mask = xp.empty(indexes.shape, dtype=bool)
    part = xp.empty(indexes.shape, dtype=x.dtype)
    itype = indexes.dtype.type
    for tap, view in enumerate(_taps(ksize, stride, outs)):
        xp.equal(indexes, itype(tap), out=mask)
        xp.multiply(padded[view], mask, out=part)
        y += part
    return y


def _separable_cheaper(ksize: Ints, outs: Ints, extents: Ints) -> bool:
    """Whether summing one axis at a time reads fewer elements than summing every tap."""
    direct = math.prod(ksize) * math.prod(outs)
    separable = sum(k * math.prod(outs[:a + 1]) * math.prod(extents[a + 1:])
                    for a, k in enumerate(ksize))
    return separable < direct


def _axis_taps(ndim: int, axis: int, k: int, s: int, o: int) -> Iterator[tuple[slice, ...]]:
    lead = (slice(None),) * (2 + axis)
    for i in range(k):
        yield lead + (slice(i, i + s * (o - 1) + 1, s),)


def window_sum(x: Any, ksize: Ints, stride: Ints, pad: Ints, outs: Ints) -> Any:
    """The sum of each window over ``x`` padded with zeros: ``(n, c, *outs)``."""
    extents = _extents(x.shape[2:], ksize, stride, pad, outs)
    a = _padded(x, pad, extents, 0)
    if len(ksize) == 1 or not _separable_cheaper(ksize, outs, extents):
        views = _taps(ksize, stride, outs)
        y = a[next(views)].copy()
        for view in views:
            y += a[view]
        return y
    for axis, (k, s, o) in enumerate(zip(ksize, stride, outs)):
        views = _axis_taps(len(ksize), axis, k, s, o)
        y = a[next(views)].copy()
        for view in views:
            y += a[view]
        a = y
    return a


def spread(g: Any, ksize: Ints, stride: Ints, pad: Ints, dims: Ints) -> Any:
    """Adds each ``g[..., o]`` to every pixel of window ``o`` (the adjoint of :func:`window_sum`).

    Returns:
        An array ``(n, c, *dims)``; pixels in the padding are dropped.
    """
    xp = backend.get_array_module(g)
    outs = g.shape[2:]
    dims = tuple(dims)
    extents = _extents(dims, ksize, stride, pad, outs)
    if len(ksize) == 1 or not _separable_cheaper(ksize, outs, extents):
        buf = xp.zeros(g.shape[:2] + extents, dtype=g.dtype)
        overlapping = _overlapping(ksize, stride)
        for view in _taps(ksize, stride, outs):
            if overlapping:
                buf[view] += g
            else:
                buf[view] = g
    else:
        buf = g
        for axis in reversed(range(len(ksize))):
            k, s, o = ksize[axis], stride[axis], outs[axis]
            shape = buf.shape[:2 + axis] + (extents[axis],) + buf.shape[3 + axis:]
            wider = xp.zeros(shape, dtype=g.dtype)
            for view in _axis_taps(len(ksize), axis, k, s, o):
                wider[view] += buf
            buf = wider
    return buf if extents == dims else buf[_inner(dims, pad)]


def window_counts(xp: Any, dims: Ints, ksize: Ints, stride: Ints, pad: Ints, outs: Ints,
                  dtype: Any) -> Any:
    """The number of pixels of each window inside the unpadded image, ``(1, 1, *outs)``.

    Windows that lie wholly in the padding count 1 (their sum is 0).
    """
    counts = numpy.ones((1, 1) + tuple(outs), dtype=dtype)
    for axis, (size, k, s, p, o) in enumerate(zip(dims, ksize, stride, pad, outs)):
        start = numpy.arange(o) * s - p
        inside = numpy.minimum(start + k, size) - numpy.maximum(start, 0)
        shape = [1] * len(counts.shape)
        shape[2 + axis] = o
        counts = counts * numpy.maximum(inside, 1).astype(dtype).reshape(shape)
    return xp.asarray(counts)
