"""Converters for catena.functions.pooling.

Pooling reads exactly the windows catena reads: the end of each axis is
padded just enough for catena's output size (``cover_all`` rounds it up), so
no ``ceil_mode`` is needed. Windows wholly in the padding (catena's fill:
``-inf`` for max pooling, zero for average pooling) are a ``Pad`` of the
output, which keeps every pad smaller than the window as onnxruntime needs.
onnxruntime has no float64 ``AveragePool`` nor, before opset 12, ``MaxPool``:
float64 runs them in float32. Unpooling is a Tile/Pad/Reshape composite that
is exact in every dtype.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.functions.pooling.average_pooling_2d import AveragePooling2D
from catena.functions.pooling.average_pooling_nd import AveragePoolingND
from catena.functions.pooling.max_pooling_2d import MaxPooling2D
from catena.functions.pooling.max_pooling_nd import MaxPoolingND
from catena.functions.pooling.unpooling_2d import Unpooling2D
from catena.functions.pooling.unpooling_nd import UnpoolingND
from catena_onnx.context import ConversionContext
from catena_onnx.converters import _ops
from catena_onnx.registry import converter


class _Window:
    """The window of a pooling node and the input and output sizes it was traced with."""

    def __init__(self, ctx: ConversionContext) -> None:
        func = ctx.func
        self.ksize = tuple(func.ksize)
        self.stride = tuple(func.stride)
        self.pad = tuple(func.pad)
        self.dims = tuple(ctx.input_arrays[0].shape[2:])
        out_shape = ctx.output_shapes[0]
        assert out_shape is not None
        self.outs = tuple(out_shape[2:])


class _Span:
    """The windows of one axis that overlap the image, and how to pool just them.

    Windows wholly in the padding (catena gives them the fill value) are
    left to a Pad of the output: ``before`` and ``after`` of them. The others
    read ``x[crop_begin:crop_end]`` padded by ``pad_begin`` and ``pad_end``,
    both smaller than the window (onnxruntime refuses larger pads).
    """

    def __init__(self, size: int, k: int, s: int, p: int, out: int) -> None:
        starts = [j * s - p for j in range(out)]
        inner = [j for j, a in enumerate(starts) if a < size and a + k > 0]
        if not inner:
            raise ValueError(f'pooling: every window of an axis of size {size} lies in the '
                             f'padding (ksize {k}, stride {s}, pad {p}); not exportable')
        self.before, self.after = inner[0], out - 1 - inner[-1]
        first, last = starts[inner[0]], starts[inner[-1]] + k
        self.crop_begin, self.crop_end = max(first, 0), min(last, size)
        self.pad_begin, self.pad_end = max(-first, 0), max(last - size, 0)
        self.size = size


def _pool(ctx: ConversionContext, op_type: str, x: str, window: _Window, fill: float,
          dtype: Any, out: str, **attributes: Any) -> None:
    """``op_type`` (MaxPool or AveragePool) over ``x`` padded with ``fill``."""
    spans = [_Span(*args) for args in zip(window.dims, window.ksize, window.stride, window.pad,
                                          window.outs)]
    cropped = [axis for axis, span in enumerate(spans, 2)
               if (span.crop_begin, span.crop_end) != (0, span.size)]
    if cropped:
        x = _ops.slice_(ctx, x, [spans[a - 2].crop_begin for a in cropped],
                        [spans[a - 2].crop_end for a in cropped], cropped)
    pads = [span.pad_begin for span in spans] + [span.pad_end for span in spans]
    outer = [0, 0] + [span.before for span in spans] + [0, 0] + [span.after for span in spans]
    pooled = ctx.temp() if any(outer) else out
    ctx.node(op_type, [x], [pooled], kernel_shape=list(window.ksize),
             strides=list(window.stride), pads=pads if any(pads) else None, **attributes)
    if any(outer):
        _ops.pad(ctx, pooled, outer, value=fill, out=out, value_dtype=dtype)


def _run_dtype(ctx: ConversionContext, float64_since: int | None) -> tuple[str, Any, str]:
    """``(x, dtype, out)``: the input in the dtype onnxruntime runs, and where to write.

    float64 is cast to float32 unless onnxruntime has the kernel from opset
    ``float64_since``; ``out`` is a temporary then, cast back by :func:`_done`.
    """
    dtype = numpy.dtype(ctx.input_arrays[0].dtype)
    if dtype == numpy.float64 and (float64_since is None or ctx.opset < float64_since):
        return _ops.cast(ctx, ctx.inputs[0], numpy.float32), numpy.dtype(numpy.float32), \
            ctx.temp()
    return ctx.inputs[0], dtype, ctx.outputs[0]


def _done(ctx: ConversionContext, out: str) -> None:
    if out != ctx.outputs[0]:
        _ops.cast(ctx, out, ctx.output_dtypes[0], out=ctx.outputs[0])


@converter(MaxPooling2D, MaxPoolingND)
def convert_max_pooling(ctx: ConversionContext) -> None:
    x, dtype, out = _run_dtype(ctx, float64_since=12)
    _pool(ctx, 'MaxPool', x, _Window(ctx), -numpy.inf, dtype, out)
    _done(ctx, out)


@converter(AveragePooling2D, AveragePoolingND)
def convert_average_pooling(ctx: ConversionContext) -> None:
    """AveragePool; catena's ``pad_value=None`` is ``count_include_pad=0``."""
    x, dtype, out = _run_dtype(ctx, float64_since=None)
    include = int(getattr(ctx.func, 'pad_value', 0) is not None)
    _pool(ctx, 'AveragePool', x, _Window(ctx), 0.0, dtype, out, count_include_pad=include)
    _done(ctx, out)


def _spread_axis(ctx: ConversionContext, x: str, shape: list[int], axis: int, k: int, s: int,
                 p: int, out: int, dtype: Any) -> str:
    """Unpooling along one axis: ``y[j * s + i - p] += x[j]`` for ``i < k``, cropped to ``out``.

    The window's taps are cut into blocks of ``s``: block ``b`` is ``x``
    repeated (Tile) into the first taps of each stride step, shifted by
    ``b * s`` (Pad); the blocks add up where windows overlap.
    """
    ndim, length = len(shape), shape[axis]

    def zeros(t: str, axis_: int, before: int, after: int, rank: int) -> str:
        if before == 0 and after == 0:
            return t
        pads = [0] * (2 * rank)
        pads[axis_], pads[rank + axis_] = before, after
        return _ops.pad(ctx, t, pads, value=0.0, value_dtype=dtype)

    def repeated(taps: int) -> str:
        t = _ops.unsqueeze(ctx, x, [axis + 1])
        if taps > 1:
            repeats = [1] * (ndim + 1)
            repeats[axis + 1] = taps
            t = ctx.op('Tile', [t, ctx.ints(repeats)])
        t = zeros(t, axis + 1, 0, s - taps, ndim + 1)
        tiled = shape[:axis + 1] + [s] + shape[axis + 1:]
        return _ops.reshape(ctx, t, shape[:axis] + [length * s] + shape[axis + 1:], tiled)

    blocks = -(-k // s)
    extent = (blocks - 1) * s + length * s
    by_taps: dict[int, str] = {}
    total = None
    for block in range(blocks):
        taps = min(s, k - block * s)
        if taps not in by_taps:
            by_taps[taps] = repeated(taps)
        piece = zeros(by_taps[taps], axis, block * s, extent - block * s - length * s, ndim)
        total = piece if total is None else ctx.op('Add', [total, piece])
    assert total is not None
    total = zeros(total, axis, 0, max(0, p + out - extent), ndim)
    if p == 0 and out == max(extent, p + out):
        return total
    return _ops.slice_(ctx, total, [p], [p + out], [axis])


@converter(Unpooling2D, UnpoolingND)
def convert_unpooling(ctx: ConversionContext) -> None:
    """A Tile/Pad/Reshape composite per spatial axis (copies add up where windows overlap)."""
    window = _Window(ctx)
    dtype = ctx.input_arrays[0].dtype
    x = ctx.inputs[0]
    shape = list(ctx.input_arrays[0].shape)
    for axis, (k, s, p, out) in enumerate(zip(window.ksize, window.stride, window.pad,
                                              window.outs), start=2):
        x = _spread_axis(ctx, x, shape, axis, k, s, p, out, dtype)
        shape[axis] = out
    ctx.node('Identity', [x], [ctx.outputs[0]])
