"""Converters for catena.functions.normalization.

Statistics are computed as catena computes them: in float32 at least (float16
inputs are cast up and the result cast back). Batch statistics are written
as ``ReduceMean`` composites in every opset, since ONNX's own training-mode
operators changed meaning between opsets. onnxruntime has no float64 kernel
of ``LRN``: float64 runs it in float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena.functions.normalization._common import compute_dtype
from catena.functions.normalization.batch_normalization import (
    BatchNormalization,
    FixedBatchNormalization,
)
from catena.functions.normalization.batch_renormalization import BatchRenormalizationFunction
from catena.functions.normalization.decorrelated_batch_normalization import (
    FixedDecorrelatedBatchNormalization,
)
from catena.functions.normalization.group_normalization import GroupNormalization
from catena.functions.normalization.l2_normalization import NormalizeL2
from catena.functions.normalization.layer_normalization import LayerNormalization
from catena.functions.normalization.local_response_normalization import (
    LocalResponseNormalization,
)
from catena_onnx.context import ConversionContext
from catena_onnx.converters import _ops
from catena_onnx.registry import converter


def _cast(ctx: ConversionContext, name: str, have: Any, want: Any) -> str:
    """``name`` as ``want`` (a Cast only when the dtypes differ)."""
    if numpy.dtype(have) == numpy.dtype(want):
        return name
    return _ops.cast(ctx, name, want)


def _input(ctx: ConversionContext, index: int, dtype: Any) -> str:
    """Input ``index`` cast to ``dtype``."""
    return _cast(ctx, ctx.inputs[index], ctx.input_arrays[index].dtype, dtype)


def _finish(ctx: ConversionContext, op_type: str, inputs: Sequence[str], dtype: Any,
            **attributes: Any) -> None:
    """Appends the last node (computing in ``dtype``) and casts it to the output's dtype."""
    out_dtype = ctx.output_dtypes[0]
    if numpy.dtype(dtype) == numpy.dtype(out_dtype):
        ctx.node(op_type, inputs, [ctx.outputs[0]], **attributes)
        return
    y = ctx.op(op_type, inputs, **attributes)
    _ops.cast(ctx, y, out_dtype, out=ctx.outputs[0])


def _scalar(ctx: ConversionContext, value: float, dtype: Any) -> str:
    return ctx.const(numpy.asarray(value, dtype=dtype))


def _moments(ctx: ConversionContext, x: str, axes: Sequence[int]) -> tuple[str, str]:
    """``(x - mean, var)`` over ``axes`` (kept as size-1 axes); the variance is biased."""
    if not axes:
        xc = ctx.op('Sub', [x, x])
        return xc, xc
    mean = _ops.reduce(ctx, 'ReduceMean', x, axes, keepdims=True)
    xc = ctx.op('Sub', [x, mean])
    square = ctx.op('Mul', [xc, xc])
    return xc, _ops.reduce(ctx, 'ReduceMean', square, axes, keepdims=True)


def _inverse_std(ctx: ConversionContext, var: str, eps: float, dtype: Any) -> str:
    """``1 / sqrt(var + eps)``."""
    std = ctx.op('Sqrt', [ctx.op('Add', [var, _scalar(ctx, eps, dtype)])])
    return ctx.op('Reciprocal', [std])


def _channels(ctx: ConversionContext, v: str, x_shape: Sequence[int],
              key_axis: Sequence[int]) -> str:
    """A per-channel array (of the kept axes' shape) reshaped to broadcast against x."""
    shape = [x_shape[i] if i in key_axis else 1 for i in range(len(x_shape))]
    return _ops.reshape(ctx, v, shape)


def _key_axis(func: Any, x_ndim: int) -> tuple[int, ...]:
    return tuple(i for i in range(x_ndim) if i not in func.axis)


@converter(BatchNormalization, param_names=(None, 'gamma', 'beta'))
def convert_batch_normalization(ctx: ConversionContext) -> None:
    """Normalization with the batch's statistics: a ReduceMean composite."""
    func = ctx.func
    x_arr, gamma_arr = ctx.input_arrays[:2]
    dtype = compute_dtype(x_arr.dtype, gamma_arr.dtype)
    key_axis = _key_axis(func, x_arr.ndim)
    xc, var = _moments(ctx, _input(ctx, 0, dtype), func.axis)
    gamma = _channels(ctx, _input(ctx, 1, dtype), x_arr.shape, key_axis)
    beta = _channels(ctx, _input(ctx, 2, dtype), x_arr.shape, key_axis)
    scale = ctx.op('Mul', [gamma, _inverse_std(ctx, var, func.eps, dtype)])
    _finish(ctx, 'Add', [ctx.op('Mul', [xc, scale]), beta], dtype)


@converter(FixedBatchNormalization,
           param_names=(None, 'gamma', 'beta', 'avg_mean', 'avg_var'))
def convert_fixed_batch_normalization(ctx: ConversionContext) -> None:
    """ONNX BatchNormalization for the channel axis 1, else a Mul/Add composite."""
    func = ctx.func
    x_arr, gamma_arr = ctx.input_arrays[:2]
    dtype = compute_dtype(x_arr.dtype, gamma_arr.dtype)
    key_axis = _key_axis(func, x_arr.ndim)
    x, gamma, beta, mean, var = (_input(ctx, i, dtype) for i in range(5))
    if key_axis == (1,):
        _finish(ctx, 'BatchNormalization', [x, gamma, beta, mean, var], dtype,
                epsilon=float(func.eps))
        return
    scale = ctx.op('Mul', [gamma, _inverse_std(ctx, var, func.eps, dtype)])
    shift = ctx.op('Sub', [beta, ctx.op('Mul', [mean, scale])])
    y = ctx.op('Mul', [x, _channels(ctx, scale, x_arr.shape, key_axis)])
    _finish(ctx, 'Add', [y, _channels(ctx, shift, x_arr.shape, key_axis)],
            dtype)


def _renormalization_statistics(func: Any, dtype: Any) -> tuple[Any, Any]:
    """The running mean and variance as they were when the traced forward pass read them.

    With ``update_statistics`` forward updated them in place after using
    them; the update is undone here.
    """
    mean = func._running_mean.reshape(-1).astype(numpy.float64)
    var = func._running_var.reshape(-1).astype(numpy.float64)
    if func.update_statistics and func.decay != 0:
        m = func.view.m
        batch_mean = numpy.asarray(func.mean, numpy.float64)
        batch_var = 1.0 / numpy.square(numpy.asarray(func.inv_std, numpy.float64)) - func.eps
        mean = (mean - (1.0 - func.decay) * batch_mean) / func.decay
        var = (var - (1.0 - func.decay) * m / max(m - 1.0, 1.0) * batch_var) / func.decay
    return mean.astype(dtype), var.astype(dtype)


@converter(BatchRenormalizationFunction)
def convert_batch_renormalization(ctx: ConversionContext) -> None:
    """Batch statistics corrected by the running ones (baked in as constants)."""
    func = ctx.func
    x_arr, gamma_arr = ctx.input_arrays[:2]
    dtype = compute_dtype(x_arr.dtype, gamma_arr.dtype)
    key_axis = tuple(range(1, gamma_arr.ndim + 1))
    axes = [i for i in range(x_arr.ndim) if i not in key_axis]
    running_mean, running_var = _renormalization_statistics(func, dtype)
    inv_sigma = 1.0 / numpy.sqrt(running_var + numpy.asarray(func.eps, dtype))
    shape = [x_arr.shape[i] if i in key_axis else 1 for i in range(x_arr.ndim)]

    def const(value: Any) -> str:
        return ctx.const(numpy.asarray(value, dtype=dtype).reshape(shape))

    def bounded(v: str, low: float, high: float) -> str:
        # min(max(v, low), high) from Relu, which onnxruntime runs in float64 in every
        # opset (Clip and Max/Min before opset 8 it runs in float32 only).
        low_c, high_c = _scalar(ctx, low, dtype), _scalar(ctx, high, dtype)
        above = ctx.op('Add', [ctx.op('Relu', [ctx.op('Sub', [v, low_c])]), low_c])
        return ctx.op('Sub', [high_c, ctx.op('Relu', [ctx.op('Sub', [high_c, above])])])

    x = _input(ctx, 0, dtype)
    mean = _ops.reduce(ctx, 'ReduceMean', x, axes, keepdims=True)
    xc = ctx.op('Sub', [x, mean])
    var = _ops.reduce(ctx, 'ReduceMean', ctx.op('Mul', [xc, xc]), axes, keepdims=True)
    inv_std = _inverse_std(ctx, var, func.eps, dtype)
    r = bounded(ctx.op('Div', [const(inv_sigma), inv_std]), 1.0 / func.rmax, func.rmax)
    d = bounded(ctx.op('Mul', [ctx.op('Sub', [mean, const(running_mean)]),
                                 const(inv_sigma)]), -func.dmax, func.dmax)
    gamma = _channels(ctx, _input(ctx, 1, dtype), x_arr.shape, key_axis)
    beta = _channels(ctx, _input(ctx, 2, dtype), x_arr.shape, key_axis)
    scale = ctx.op('Mul', [gamma, ctx.op('Mul', [r, inv_std])])
    shift = ctx.op('Add', [ctx.op('Mul', [gamma, d]), beta])
    _finish(ctx, 'Add', [ctx.op('Mul', [xc, scale]), shift], dtype)


@converter(GroupNormalization)
def convert_group_normalization(ctx: ConversionContext) -> None:
    """A Reshape/ReduceMean composite (ONNX GroupNormalization changed meaning in 21)."""
    func = ctx.func
    x_arr = ctx.input_arrays[0]
    dtype = compute_dtype(x_arr.dtype)
    channels = x_arr.shape[1]
    rows = ctx.op('Reshape', [_input(ctx, 0, dtype), ctx.ints([0, func.groups, -1])])
    xc, var = _moments(ctx, rows, [2])
    x_hat = ctx.op('Mul', [xc, _inverse_std(ctx, var, func.eps, dtype)])
    per_channel = ctx.op('Reshape', [x_hat, ctx.ints([0, channels, -1])])
    gamma = _ops.reshape(ctx, _input(ctx, 1, dtype), [channels, 1])
    beta = _ops.reshape(ctx, _input(ctx, 2, dtype), [channels, 1])
    y = ctx.op('Add', [ctx.op('Mul', [per_channel, gamma]), beta])
    _finish(ctx, 'Reshape', [y, ctx.ints([0, *x_arr.shape[1:]])], dtype)


@converter(LayerNormalization)
def convert_layer_normalization(ctx: ConversionContext) -> None:
    """ONNX LayerNormalization from opset 17, a ReduceMean composite before."""
    func = ctx.func
    dtype = compute_dtype(ctx.input_arrays[0].dtype)
    x, gamma, beta = (_input(ctx, i, dtype) for i in range(3))
    if ctx.opset >= 17:
        _finish(ctx, 'LayerNormalization', [x, gamma, beta], dtype, axis=-1,
                epsilon=float(func.eps))
        return
    xc, var = _moments(ctx, x, [1])
    x_hat = ctx.op('Mul', [xc, _inverse_std(ctx, var, func.eps, dtype)])
    _finish(ctx, 'Add', [ctx.op('Mul', [x_hat, gamma]), beta], dtype)


@converter(NormalizeL2)
def convert_normalize(ctx: ConversionContext) -> None:
    """``x / (ReduceL2(x) + eps)`` (eps is added to the norm, not to its square)."""
    func = ctx.func
    x_arr = ctx.input_arrays[0]
    dtype = compute_dtype(x_arr.dtype)
    x = _input(ctx, 0, dtype)
    axes = sorted(a % x_arr.ndim for a in func.axis)
    norm = _ops.reduce(ctx, 'ReduceL2', x, axes, keepdims=True)
    _finish(ctx, 'Div', [x, ctx.op('Add', [norm, _scalar(ctx, func.eps, dtype)])], dtype)


@converter(LocalResponseNormalization)
def convert_local_response_normalization(ctx: ConversionContext) -> None:
    """ONNX LRN over an odd window of ``2 * (n // 2) + 1`` channels.

    ONNX divides alpha by the window size, catena does not: alpha is scaled
    up. onnxruntime's LRN takes 4-D float32 only: other shapes are reshaped to
    ``(N, C, -1, 1)`` and other dtypes cast.
    """
    func = ctx.func
    x_arr = ctx.input_arrays[0]
    x = _input(ctx, 0, numpy.float32)
    if x_arr.ndim != 4:
        x = ctx.op('Reshape', [x, ctx.ints([0, x_arr.shape[1], -1, 1])])
    size = 2 * (func.n // 2) + 1
    attributes = dict(size=size, alpha=float(func.alpha * size), beta=float(func.beta),
                      bias=float(func.k))
    if x_arr.ndim == 4:
        _finish(ctx, 'LRN', [x], numpy.float32, **attributes)
        return
    y = ctx.op('LRN', [x], **attributes)
    _finish(ctx, 'Reshape', [y, ctx.ints([0, *x_arr.shape[1:]])], numpy.float32)


@converter(FixedDecorrelatedBatchNormalization)
def convert_fixed_decorrelated_batch_normalization(ctx: ConversionContext) -> None:
    """``projection @ (x - mean)`` per group of channels, moved to ``(groups, C, -1)``."""
    func = ctx.func
    x_arr = ctx.input_arrays[0]
    dtype = compute_dtype(x_arr.dtype)
    x, mean, projection = (_input(ctx, i, dtype) for i in range(3))
    channels = x_arr.shape[1]
    perm = [1, 0, *range(2, x_arr.ndim)]
    moved = ctx.op('Transpose', [x], perm=perm)
    grouped = ctx.op('Reshape', [moved, ctx.ints([func.groups, channels // func.groups, -1])])
    mean3 = _ops.unsqueeze(ctx, mean, [2])
    y = ctx.op('MatMul', [projection, ctx.op('Sub', [grouped, mean3])])
    y = ctx.op('Reshape', [y, ctx.ints([channels, -1, *x_arr.shape[2:]])])
    _finish(ctx, 'Transpose', [y], dtype, perm=perm)
