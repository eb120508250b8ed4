"""What the ROI pooling functions share: argument checks, bin geometry, gather maps.

Every ROI function is linear in ``x`` once the ROIs (and, for the max
variants, the winning positions) are known, so its forward pass builds a
*map* from input to output and applies it, and its gradient is the map's
transpose:

* :class:`SeparableMap` (average pooling and average align): the output of
  ROI ``r`` is ``A_r @ x[b_r] @ B_r.T`` per channel, with ``A_r`` (rows) and
  ``B_r`` (columns) holding the bin-averaging or bilinear-sampling weights
  of one axis each, restricted to a window of the ROI's rows and columns.
* :class:`TapMap` (max pooling and max align): every output element reads
  a few input elements (the winner, or the four bilinear corners of the
  winning sample) with fixed weights.

Geometry follows Chainer v7 (its NumPy path): ROI coordinates are scaled
by ``spatial_scale`` in float64; the quantized functions round them to the
nearest integer, ties to even (NumPy's ``round``), and split the ROI into
``floor``/``ceil`` bins clipped to the image; the align functions sample
bins bilinearly at ``sampling_ratio`` points per axis (None: ``ceil(roi
size / outsize)``), skipping points more than one pixel outside the image.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check

# The functions gather the pixels (or bin candidates) of many ROIs at once; ROIs
# are processed in chunks so that one gather holds about this many elements.
_CHUNK_ELEMENTS = 1 << 22


# ----------------------------------------------------------------- arguments

def _pair(value: Any, name: str) -> tuple[Any, Any]:
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f'{name} must be one value or a pair (height, width); '
                             f'got {value!r}')
        return value[0], value[1]
    return value, value


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def positive_int(value: Any, name: str) -> int:
    """Returns ``value`` as an int, or raises TypeError/ValueError naming ``name``."""
    if not _is_int(value):
        raise TypeError(f'{name} must be a positive integer; got {value!r} '
                        f'({type(value).__name__})')
    if value <= 0:
        raise ValueError(f'{name} must be a positive integer; got {value}')
    return int(value)


def outsize_pair(outsize: Any) -> tuple[int, int]:
    """Checks ``outsize`` (an int or a pair) and returns ``(outh, outw)``."""
    outh, outw = _pair(outsize, 'outsize')
    return positive_int(outh, 'outsize[0]'), positive_int(outw, 'outsize[1]')


def positive_scale(spatial_scale: Any) -> float:
    """Checks ``spatial_scale`` (a positive real number) and returns it as a float."""
    if not isinstance(spatial_scale, numbers.Real) or isinstance(spatial_scale, bool):
        raise TypeError(f'spatial_scale must be a positive float; got {spatial_scale!r} '
                        f'({type(spatial_scale).__name__})')
    scale = float(spatial_scale)
    if not scale > 0:
        raise ValueError(f'spatial_scale must be a positive float; got {spatial_scale}')
    return scale


def sampling_pair(sampling_ratio: Any) -> tuple[int | None, int | None]:
    """Checks ``sampling_ratio`` (None, an int >= 1 or a pair of them)."""
    pair = _pair(sampling_ratio, 'sampling_ratio')
    checked: list[int | None] = []
    for axis, value in zip(('sampling_ratio[0]', 'sampling_ratio[1]'), pair):
        if value is None:
            checked.append(None)
        elif not _is_int(value):
            raise TypeError(f'{axis} must be None or an integer >= 1; got {value!r} '
                            f'({type(value).__name__})')
        elif value < 1:
            raise ValueError(f'{axis} must be None or an integer >= 1; got {value}')
        else:
            checked.append(int(value))
    return checked[0], checked[1]


def check_roi_types(in_types: Any) -> None:
    """The type check of the ``(x, rois, roi_indices)`` functions."""
    type_check._argname(in_types, ('x', 'rois', 'roi_indices'))
    x_type, roi_type, index_type = in_types
    type_check.expect(
        x_type.dtype.kind == 'f',
        x_type.ndim == 4,
        roi_type.dtype == x_type.dtype,
        roi_type.ndim == 2,
        roi_type.shape[1] == 4,
        index_type.dtype == numpy.int32,
        index_type.ndim == 1,
        roi_type.shape[0] == index_type.shape[0],
    )


def batch_indices(indices: Any, batch_size: int, name: str) -> Any:
    """Returns the ROIs' batch indices as int64, checked to lie in ``[0, batch_size)``."""
    xp = backend.get_array_module(indices)
    batch = indices.astype(numpy.int64)
    if batch.size:
        low, high = int(batch.min()), int(batch.max())
        if low < 0 or high >= batch_size:
            raise ValueError(f'{name} must lie in [0, {batch_size}) (the batch size of x, '
                             f'whose shape is given by x.shape[0]); got values from {low} '
                             f'to {high}')
    return xp.ascontiguousarray(batch)


def _max(array: Any, default: int) -> int:
    return int(array.max()) if array.size else default


def _compute_dtype(dtype: Any) -> Any:
    # float16 products and sums lose too much; they run in float32.
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else numpy.dtype(dtype)


# ------------------------------------------------------------------ geometry

def quantized_bins(low: Any, high: Any, spatial_scale: float, out: int, size: int,
                   inclusive: bool) -> tuple[Any, Any]:
    """The integer bins of one axis: ``(begin, end)``, each of shape ``(R, out)``.

    Args:
        low: The ROIs' first coordinates on this axis (float64, shape ``(R,)``).
        high: Their last coordinates.
        spatial_scale: The factor from ROI coordinates to pixels.
        out: The number of bins.
        size: The length of the axis in pixels (bins are clipped to it).
        inclusive: Whether ``high`` is inside the ROI (the old roi_pooling_2d
            counts ``high - low + 1`` pixels, the newer functions ``high - low``).
    """
    xp = backend.get_array_module(low)
    first = xp.rint(low * spatial_scale).astype(numpy.int64)
    last = xp.rint(high * spatial_scale).astype(numpy.int64)
    extent = xp.maximum(last - first + int(inclusive), 1)
    step = (extent / out)[:, None]
    index = xp.arange(out, dtype=numpy.float64)
    begin = xp.floor(index * step).astype(numpy.int64) + first[:, None]
    end = xp.ceil((index + 1) * step).astype(numpy.int64) + first[:, None]
    return xp.clip(begin, 0, size), xp.clip(end, 0, size)


class SampleTaps:
    """The bilinear sampling points of one axis for the align functions.

    Bin ``p`` of ROI ``r`` is sampled at ``grid[r]`` evenly spaced points
    (the centres of equal sub-bins). A point ``t`` reads pixels ``low`` and
    ``high`` with weights ``1 - frac`` and ``frac``; points more than one pixel
    outside the axis are not ``valid`` (they add nothing). Arrays have shape
    ``(R, out, G)`` with ``G`` the largest grid; points past ``grid[r]`` are
    padding and not valid.
    """

    def __init__(self, low: Any, high: Any, spatial_scale: float, out: int,
                 sampling: int | None, size: int) -> None:
        xp = backend.get_array_module(low)
        start = low * spatial_scale
        extent = xp.maximum(high * spatial_scale - start, 1.0)
        step = extent / out
        if sampling is None:
            grid = xp.ceil(extent / out).astype(numpy.int64)
        else:
            grid = xp.full(low.shape, sampling, dtype=numpy.int64)
        n_points = _max(grid, 1)
        index = xp.arange(out, dtype=numpy.float64)[None, :, None]
        sub = xp.arange(n_points, dtype=numpy.float64)[None, None, :]
        grid3 = grid[:, None, None]
        step3 = step[:, None, None]
        point = start[:, None, None] + index * step3 + (sub + 0.5) * step3 / grid3
        self.valid = (sub < grid3) & (point >= -1.0) & (point <= size)
        clipped = xp.clip(point, 0.0, size - 1.0)
        self.low = xp.floor(clipped).astype(numpy.int64)
        self.high = xp.minimum(self.low + 1, size - 1)
        self.frac = clipped - self.low
        self.grid = grid
        self.n_points = n_points


# --------------------------------------------------------------------- maps

def _window_from_bins(begin: Any, end: Any) -> tuple[Any, Any]:
    """One axis of a :class:`SeparableMap` for bin averaging: ``(offset, weight)``.

    The window of ROI ``r`` starts at pixel ``offset[r]``; ``weight`` (R, out,
    K) is ``1 / length`` of each bin on its pixels (zero for an empty bin).
    """
    xp = backend.get_array_module(begin)
    length = end - begin
    nonempty = length > 0
    big = numpy.iinfo(numpy.int64).max
    offset = xp.where(nonempty, begin, big).min(axis=1)
    offset = xp.where(offset == big, 0, offset)
    reach = max(_max(xp.where(nonempty, end, 0) - offset[:, None], 1), 1)
    position = offset[:, None, None] + xp.arange(reach)[None, None, :]
    inside = (position >= begin[:, :, None]) & (position < end[:, :, None])
    return offset, inside / xp.maximum(length, 1)[:, :, None]


def _window_from_samples(taps: SampleTaps) -> tuple[Any, Any]:
    """One axis of a :class:`SeparableMap` for averaged bilinear samples."""
    xp = backend.get_array_module(taps.low)
    big = numpy.iinfo(numpy.int64).max
    offset = xp.where(taps.valid, taps.low, big).min(axis=(1, 2))
    offset = xp.where(offset == big, 0, offset)
    reach = max(_max(xp.where(taps.valid, taps.high, 0) - offset[:, None, None] + 1, 1), 1)
    at = offset[:, None, None, None] + xp.arange(reach)[None, None, None, :]
    scale = taps.valid / taps.grid[:, None, None]
    weight = ((scale * (1.0 - taps.frac))[..., None] * (taps.low[..., None] == at)
              + (scale * taps.frac)[..., None] * (taps.high[..., None] == at)).sum(axis=2)
    return offset, weight


class SeparableMap:
    """``y[r, c] = A[r] @ x[batch[r], c, window rows, window columns] @ B[r].T``.

    The window of ROI ``r`` has ``KH`` rows from ``row_offset[r]`` and ``KW``
    columns from ``col_offset[r]`` (``KH``, ``KW``: the largest over the
    ROIs); window pixels past the image have zero weight.

    Args:
        batch: The ROIs' batch indices, shape ``(R,)``.
        row_offset: The first row of each window, ``(R,)``.
        row_weight: ``A``, shape ``(R, outh, KH)``.
        col_offset: The first column of each window, ``(R,)``.
        col_weight: ``B``, shape ``(R, outw, KW)``.
        x_shape: The input shape ``(N, C, H, W)``.
        dtype: The input dtype.
    """

    def __init__(self, batch: Any, row_offset: Any, row_weight: Any, col_offset: Any,
                 col_weight: Any, x_shape: tuple[int, ...], dtype: Any) -> None:
        compute = _compute_dtype(dtype)
        self.batch = batch
        self.row_offset = row_offset
        self.col_offset = col_offset
        self.row_weight = row_weight.astype(compute)
        self.col_weight = col_weight.astype(compute)
        self.x_shape = tuple(x_shape)
        self.dtype = numpy.dtype(dtype)
        self.compute = compute

    @classmethod
    def from_bins(cls, batch: Any, rows: tuple[Any, Any], cols: tuple[Any, Any],
                  x_shape: tuple[int, ...], dtype: Any) -> SeparableMap:
        """Averages over integer bins ``rows = (begin, end)`` and ``cols`` alike."""
        return cls(batch, *_window_from_bins(*rows), *_window_from_bins(*cols), x_shape, dtype)

    @classmethod
    def from_samples(cls, batch: Any, rows: SampleTaps, cols: SampleTaps,
                     x_shape: tuple[int, ...], dtype: Any) -> SeparableMap:
        """Averages bilinear samples (the product of the two axes' points)."""
        return cls(batch, *_window_from_samples(rows), *_window_from_samples(cols), x_shape,
                   dtype)

    @property
    def out_shape(self) -> tuple[int, ...]:
        return (self.batch.shape[0], self.x_shape[1], self.row_weight.shape[1],
                self.col_weight.shape[1])

    def apply(self, x: Any) -> Any:
        """Returns the pooled ``(R, C, outh, outw)`` array of ``x``."""
        xp = backend.get_array_module(x)
        n_rois, channels, outh, outw = self.out_shape
        height, width = self.x_shape[2:]
        depth, breadth = self.row_weight.shape[2], self.col_weight.shape[2]
        # Channels last and contiguous: the gather then copies whole pixels.
        planes = xp.ascontiguousarray(x.transpose(0, 2, 3, 1))
        rows = xp.clip(self.row_offset[:, None] + xp.arange(depth), 0, height - 1)
        cols = xp.clip(self.col_offset[:, None] + xp.arange(breadth), 0, width - 1)
        ys = []
        for start, stop in _chunks(n_rois, depth * breadth * channels):
            window = planes[self.batch[start:stop, None, None], rows[start:stop, :, None],
                            cols[start:stop, None, :]]
            window = window.astype(self.compute, copy=False).reshape(
                stop - start, depth, breadth * channels)
            rows_done = xp.matmul(self.row_weight[start:stop], window)
            rows_done = rows_done.reshape(stop - start, outh, breadth, channels)
            ys.append(xp.matmul(self.col_weight[start:stop, None], rows_done))
        y = ys[0] if len(ys) == 1 else xp.concatenate(ys)
        return xp.ascontiguousarray(y.transpose(0, 3, 1, 2), dtype=self.dtype)

    def transpose(self, gy: Any) -> Any:
        """Returns the ``x``-shaped adjoint of :meth:`apply` applied to ``gy``."""
        xp = backend.get_array_module(gy)
        n_rois, channels, outh, outw = self.out_shape
        batch_size, _, height, width = self.x_shape
        depth, breadth = self.row_weight.shape[2], self.col_weight.shape[2]
        g = gy.transpose(0, 2, 3, 1).astype(self.compute, copy=False)
        gx = xp.zeros((batch_size, height, width, channels), self.compute)
        batch = self.batch.tolist()
        row_offset, col_offset = self.row_offset.tolist(), self.col_offset.tolist()
        for start, stop in _chunks(n_rois, depth * breadth * channels):
            cols_done = xp.matmul(self.col_weight[start:stop].transpose(0, 2, 1)[:, None],
                                  g[start:stop])
            window = xp.matmul(self.row_weight[start:stop].transpose(0, 2, 1),
                               cols_done.reshape(stop - start, outh, breadth * channels))
            window = window.reshape(stop - start, depth, breadth, channels)
            # Overlapping windows must add up, which one vectorized scatter-add does
            # many times slower than a slice per ROI (ROI counts are small).
            for r in range(start, stop):
                top, left = row_offset[r], col_offset[r]
                bottom, right = min(top + depth, height), min(left + breadth, width)
                gx[batch[r], top:bottom, left:right] += window[r - start, :bottom - top,
                                                               :right - left]
        return xp.ascontiguousarray(gx.transpose(0, 3, 1, 2), dtype=self.dtype)


class TapMap:
    """``y[o] = sum_t weight[o, t] * x.ravel()[flat[o, t]]`` for every output element ``o``.

    Args:
        flat: Flat (C-order) indices into ``x``, shape ``out_shape + (T,)``.
        weight: Their weights, same shape (zero where nothing is read).
        x_shape: The input shape.
        dtype: The input dtype.
    """

    def __init__(self, flat: Any, weight: Any, x_shape: tuple[int, ...], dtype: Any) -> None:
        self.flat = flat
        self.weight = weight
        self.x_shape = tuple(x_shape)
        self.dtype = numpy.dtype(dtype)

    def apply(self, x: Any) -> Any:
        xp = backend.get_array_module(x)
        values = xp.ascontiguousarray(x).ravel()[self.flat]
        y = (values.astype(self.weight.dtype, copy=False) * self.weight).sum(axis=-1)
        return xp.ascontiguousarray(y, dtype=self.dtype)

    def transpose(self, gy: Any) -> Any:
        xp = backend.get_array_module(gy)
        contribution = gy.astype(self.weight.dtype, copy=False)[..., None] * self.weight
        total = 1
        for dim in self.x_shape:
            total *= dim
        gx = xp.bincount(self.flat.ravel(), weights=contribution.ravel(), minlength=total)
        return gx.reshape(self.x_shape).astype(self.dtype, copy=False)


def _chunks(n_rois: int, per_roi: int) -> list[tuple[int, int]]:
    step = max(1, _CHUNK_ELEMENTS // max(per_roi, 1))
    return [(start, min(start + step, n_rois)) for start in range(0, max(n_rois, 1), step)]


def max_over_bins(x: Any, batch: Any, rows: tuple[Any, Any], cols: tuple[Any, Any]
                  ) -> tuple[Any, TapMap]:
    """Max over integer bins: returns ``y`` (R, C, outh, outw) and the winners' map.

    Empty bins give 0 and pass no gradient; ties go to the first position in
    row-major order.
    """
    xp = backend.get_array_module(x)
    _, channels, height, width = x.shape
    row_begin, row_end = rows
    col_begin, col_end = cols
    n_rois, outh = row_begin.shape
    outw = col_begin.shape[1]
    row_len, col_len = row_end - row_begin, col_end - col_begin
    depth, breadth = max(_max(row_len, 1), 1), max(_max(col_len, 1), 1)
    # Bins shorter than the longest one repeat their last pixel, which leaves the
    # max (and the first position of the max) unchanged.
    row_index = xp.clip(row_begin[..., None] + xp.minimum(
        xp.arange(depth), xp.maximum(row_len - 1, 0)[..., None]), 0, height - 1)
    col_index = xp.clip(col_begin[..., None] + xp.minimum(
        xp.arange(breadth), xp.maximum(col_len - 1, 0)[..., None]), 0, width - 1)
    planes = xp.ascontiguousarray(x.transpose(0, 2, 3, 1))
    ys, flats = [], []
    per_roi = channels * outh * depth * outw * breadth
    for start, stop in _chunks(n_rois, per_roi):
        count = stop - start
        b = batch[start:stop]
        r_index, c_index = row_index[start:stop], col_index[start:stop]
        values = planes[b[:, None, None, None, None], r_index[:, :, :, None, None],
                        c_index[:, None, None, :, :]]
        values = values.transpose(0, 5, 1, 3, 2, 4).reshape(
            count, channels, outh, outw, depth * breadth)
        winner = values.argmax(axis=-1)
        ys.append(xp.take_along_axis(values, winner[..., None], axis=-1)[..., 0])
        roi = xp.arange(count)[:, None, None, None]
        row = r_index[roi, xp.arange(outh)[None, None, :, None], winner // breadth]
        col = c_index[roi, xp.arange(outw)[None, None, None, :], winner % breadth]
        channel = xp.arange(channels)[None, :, None, None]
        flats.append(((b[:, None, None, None] * channels + channel) * height + row) * width
                     + col)
    y = ys[0] if len(ys) == 1 else xp.concatenate(ys)
    flat = flats[0] if len(flats) == 1 else xp.concatenate(flats)
    nonempty = (row_len > 0)[:, None, :, None] & (col_len > 0)[:, None, None, :]
    y = xp.where(nonempty, y, xp.zeros((), x.dtype))
    weight = xp.broadcast_to(nonempty.astype(_compute_dtype(x.dtype)), y.shape)
    return (xp.ascontiguousarray(y),
            TapMap(flat[..., None], weight[..., None], x.shape, x.dtype))


def max_over_samples(x: Any, batch: Any, rows: SampleTaps, cols: SampleTaps
                     ) -> tuple[Any, TapMap]:
    """Max over bilinear samples: returns ``y`` (R, C, outh, outw) and the winners' map.

    A bin without a valid sample gives 0 and passes no gradient.
    """
    xp = backend.get_array_module(x)
    _, channels, height, width = x.shape
    compute = _compute_dtype(x.dtype)
    n_rois, outh, n_y = rows.low.shape
    outw, n_x = cols.low.shape[1:]
    row_pair = xp.stack([rows.low, rows.high], axis=-1)
    col_pair = xp.stack([cols.low, cols.high], axis=-1)
    row_w = xp.stack([1.0 - rows.frac, rows.frac], axis=-1).astype(compute)
    col_w = xp.stack([1.0 - cols.frac, cols.frac], axis=-1).astype(compute)
    planes = xp.ascontiguousarray(x.transpose(0, 2, 3, 1))
    minus_inf = xp.full((), -numpy.inf, compute)
    ys, flats, weights, found = [], [], [], []
    per_roi = 4 * channels * outh * n_y * outw * n_x
    for start, stop in _chunks(n_rois, per_roi):
        count = stop - start
        b = batch[start:stop]
        r_pair, c_pair = row_pair[start:stop], col_pair[start:stop]
        r_w, c_w = row_w[start:stop], col_w[start:stop]
        # (count, outh, n_y, outw, n_x, 2, 2, C): the four corners of every sample.
        corners = planes[b[:, None, None, None, None, None, None],
                         r_pair[:, :, :, None, None, :, None],
                         c_pair[:, None, None, :, :, None, :]]
        corner_w = r_w[:, :, :, None, None, :, None] * c_w[:, None, None, :, :, None, :]
        values = (corners.astype(compute, copy=False) * corner_w[..., None]).sum(axis=(5, 6))
        valid = (rows.valid[start:stop][:, :, :, None, None]
                 & cols.valid[start:stop][:, None, None, :, :])
        values = xp.where(valid[..., None], values, minus_inf)
        values = values.transpose(0, 5, 1, 3, 2, 4).reshape(
            count, channels, outh, outw, n_y * n_x)
        winner = values.argmax(axis=-1)
        ys.append(xp.take_along_axis(values, winner[..., None], axis=-1)[..., 0])
        any_valid = valid.any(axis=(2, 4))[:, None]
        found.append(any_valid)
        roi = xp.arange(count)[:, None, None, None]
        bin_y = xp.arange(outh)[None, None, :, None]
        bin_x = xp.arange(outw)[None, None, None, :]
        sample_y, sample_x = winner // n_x, winner % n_x
        row = r_pair[roi, bin_y, sample_y]          # (count, C, outh, outw, 2)
        col = c_pair[roi, bin_x, sample_x]
        channel = xp.arange(channels)[None, :, None, None, None]
        base = (b[:, None, None, None, None] * channels + channel) * height
        flat = (base + row)[..., :, None] * width + col[..., None, :]
        weight = r_w[roi, bin_y, sample_y][..., :, None] * c_w[roi, bin_x, sample_x][..., None, :]
        flats.append(flat.reshape(flat.shape[:4] + (4,)))
        weights.append((weight * any_valid[..., None, None]).reshape(weight.shape[:4] + (4,)))

    def joined(parts: list[Any]) -> Any:
        return parts[0] if len(parts) == 1 else xp.concatenate(parts)

    y = xp.where(joined(found), joined(ys), xp.zeros((), compute))
    return (xp.ascontiguousarray(y, dtype=x.dtype),
            TapMap(joined(flats), joined(weights), x.shape, x.dtype))


# -------------------------------------------------------------------- nodes

class ROIMapGrad(FunctionNode):
    """Base of the ROI functions' gradient nodes: ``gx = map.T @ gy``.

    The gradient is linear in ``gy`` with the map fixed by the forward pass,
    so its own gradient is the map again (:class:`ROIMapApply`).
    """

    def __init__(self, roi_map: Any) -> None:
        self.roi_map = roi_map

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return self.roi_map.transpose(inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return ROIMapApply(self.roi_map, type(self)).apply(grad_outputs)


class ROIMapApply(FunctionNode):
    """Applies a map fixed by an earlier forward pass (for double backprop)."""

    def __init__(self, roi_map: Any, grad_class: type[ROIMapGrad]) -> None:
        self.roi_map = roi_map
        self.grad_class = grad_class

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return self.roi_map.apply(inputs[0]),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return self.grad_class(self.roi_map).apply(grad_outputs)


def x_grad_only(indexes: Any, gx: Any) -> tuple[Any, ...]:
    """The gradients to return: ``gx`` for ``x`` (index 0), None for the ROIs."""
    return tuple(gx if i == 0 else None for i in indexes)
