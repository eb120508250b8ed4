"""ONNX operators whose signature changed between opsets, written once for all opsets.

Each helper appends the node for ``ctx.opset`` (attributes in old opsets,
inputs in new ones) and returns the output name. ``out`` names the output;
None makes a fresh one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena_onnx.context import ConversionContext


def tensor_type(dtype: Any) -> int:
    """The ONNX ``TensorProto`` element type of a NumPy dtype."""
    from onnx import helper

    return int(helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype)))


def _axes_op(ctx: ConversionContext, op_type: str, x: str, axes: Sequence[int], since: int,
             out: str | None, **attributes: Any) -> str:
    if ctx.opset >= since:
        return ctx.op(op_type, [x, ctx.ints(axes)], out, **attributes)
    return ctx.op(op_type, [x], out, axes=list(axes), **attributes)


def unsqueeze(ctx: ConversionContext, x: str, axes: Sequence[int], out: str | None = None) -> str:
    """``Unsqueeze`` (axes became an input in opset 13)."""
    return _axes_op(ctx, 'Unsqueeze', x, axes, 13, out)


def squeeze(ctx: ConversionContext, x: str, axes: Sequence[int], out: str | None = None) -> str:
    """``Squeeze`` of the given axes (an input since opset 13)."""
    return _axes_op(ctx, 'Squeeze', x, axes, 13, out)


def reduce(ctx: ConversionContext, op_type: str, x: str, axes: Sequence[int] | None,
           keepdims: bool, out: str | None = None) -> str:
    """A ``Reduce*`` operator; ``axes`` None reduces every axis.

    ReduceSum takes its axes as an input since opset 13, the others since 18.
    """
    since = 13 if op_type == 'ReduceSum' else 18
    if axes is None:
        return ctx.op(op_type, [x], out, keepdims=int(keepdims))
    return _axes_op(ctx, op_type, x, axes, since, out, keepdims=int(keepdims))


def slice_(ctx: ConversionContext, x: str, starts: Sequence[int], ends: Sequence[int],
           axes: Sequence[int], steps: Sequence[int] | None = None, out: str | None = None) -> str:
    """``Slice`` (attributes before opset 10, which cannot step; inputs after)."""
    if ctx.opset < 10:
        if steps is not None and any(step != 1 for step in steps):
            raise ValueError(f'{ctx.label}: slicing with a step needs opset 10 or newer, '
                             f'not {ctx.opset}')
        return ctx.op('Slice', [x], out, starts=list(starts), ends=list(ends), axes=list(axes))
    inputs = [x, ctx.ints(starts), ctx.ints(ends), ctx.ints(axes)]
    if steps is not None:
        inputs.append(ctx.ints(steps))
    return ctx.op('Slice', inputs, out)


def split(ctx: ConversionContext, x: str, sizes: Sequence[int], axis: int,
          outs: Sequence[str] | None = None) -> list[str]:
    """``Split`` into pieces of the given sizes along ``axis`` (an input since 13)."""
    outputs: Any = len(sizes) if outs is None else list(outs)
    if ctx.opset >= 13:
        names = ctx.node('Split', [x, ctx.ints(sizes)], outputs, axis=axis)
    else:
        names = ctx.node('Split', [x], outputs, axis=axis, split=list(sizes))
    return [names] if isinstance(names, str) else names


def pad(ctx: ConversionContext, x: str, pads: Sequence[int], mode: str = 'constant',
        value: float = 0.0, out: str | None = None, value_dtype: Any = None) -> str:
    """``Pad`` with ONNX's ``pads`` layout (all begins, then all ends).

    The pads and the constant became inputs in opset 11.
    """
    if ctx.opset >= 11:
        inputs = [x, ctx.ints(pads)]
        if mode == 'constant':
            inputs.append(ctx.const(numpy.asarray(value, dtype=value_dtype or numpy.float32)))
        return ctx.op('Pad', inputs, out, mode=mode)
    return ctx.op('Pad', [x], out, mode=mode, pads=list(pads), value=float(value))


def clip(ctx: ConversionContext, x: str, low: float | None, high: float | None, dtype: Any,
         out: str | None = None) -> str:
    """``Clip`` to ``[low, high]`` (None: unbounded); bounds are inputs since 11.

    onnxruntime has no float64 Clip before opset 12: there the bounds are
    applied with ``Max``/``Min`` (exact), and at opset 7, whose ``Max`` lacks
    float64 too, with ``low + relu(x - low)`` and ``high - relu(high - x)``.
    """
    if numpy.dtype(dtype) == numpy.float64 and ctx.opset < 12:
        return _clip_float64(ctx, x, low, high, out)
    if ctx.opset >= 11:
        inputs = [x, '' if low is None else ctx.const(numpy.asarray(low, dtype=dtype)),
                  '' if high is None else ctx.const(numpy.asarray(high, dtype=dtype))]
        while inputs[-1] == '':
            inputs.pop()
        return ctx.op('Clip', inputs, out)
    info = numpy.finfo(numpy.float32)
    return ctx.op('Clip', [x], out, min=float(info.min if low is None else low),
                  max=float(info.max if high is None else high))


def _clip_float64(ctx: ConversionContext, x: str, low: float | None, high: float | None,
                  out: str | None) -> str:
    y = x
    if low is not None:
        bound = ctx.const(numpy.asarray(low, numpy.float64))
        last = out if high is None else None
        y = ctx.op('Max', [y, bound], last) if ctx.opset >= 8 else \
            ctx.op('Add', [ctx.op('Relu', [ctx.op('Sub', [y, bound])]), bound], last)
    if high is not None:
        bound = ctx.const(numpy.asarray(high, numpy.float64))
        y = ctx.op('Min', [y, bound], out) if ctx.opset >= 8 else \
            ctx.op('Sub', [bound, ctx.op('Relu', [ctx.op('Sub', [bound, y])])], out)
    if y == x:  # no bound at all
        y = ctx.op('Identity', [x], out)
    return y


def reshape(ctx: ConversionContext, x: str, shape: Sequence[int],
            in_shape: Sequence[int] | None = None, out: str | None = None) -> str:
    """``Reshape`` to ``shape``.

    Leading dimensions equal to those of ``in_shape`` are written as 0
    ("keep the input's"), so the reshape still fits when the batch size
    changes under dynamic axes.
    """
    target = list(shape)
    if in_shape is not None and len(target) > 1 and len(in_shape) > 0 \
            and target[0] == in_shape[0]:
        target[0] = 0
    return ctx.op('Reshape', [x, ctx.ints(target)], out)


def cast(ctx: ConversionContext, x: str, dtype: Any, out: str | None = None) -> str:
    """``Cast`` to a NumPy dtype."""
    return ctx.op('Cast', [x], out, to=tensor_type(dtype))
