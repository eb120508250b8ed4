"""Converters for catena.functions.connection.

``depthwise_convolution_2d`` and ``dilated_convolution_2d`` apply
:class:`Convolution2DFunction` (the depthwise one after a Transpose and a
Reshape of ``W``), and ``linear`` with ``n_batch_axes`` or inputs of more than
two axes wraps :class:`LinearFunction` (always 2-d) in Reshape nodes, so they
need no converter of their own.

onnxruntime has no float64 ``Conv`` / ``ConvTranspose`` kernel: float64
(de)convolutions are computed in float32 between two Casts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena.functions.connection.bilinear import BilinearFunction
from catena.functions.connection.convolution_2d import Convolution2DFunction
from catena.functions.connection.convolution_nd import ConvolutionND
from catena.functions.connection.deconvolution_2d import Deconvolution2DFunction
from catena.functions.connection.deconvolution_nd import DeconvolutionND
from catena.functions.connection.embed_id import EmbedIDFunction
from catena.functions.connection.linear import LinearFunction
from catena.functions.connection.shift import ShiftFunction
from catena.utils import conv
from catena_onnx.context import ConversionContext
from catena_onnx.converters import _ops
from catena_onnx.registry import converter, substitute_while_tracing


def _conv_params(func: Any) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``(stride, pad, dilate)`` of a 2-d or n-d (de)convolution node."""
    if isinstance(func, (Convolution2DFunction, Deconvolution2DFunction)):
        return (func.sy, func.sx), (func.ph, func.pw), (func.dy, func.dx)
    return func.stride, func.pad, func.dilate


def _as_float32(ctx: ConversionContext, names: Sequence[str]) -> list[str]:
    """Casts float64 inputs to float32 (onnxruntime lacks float64 convolutions)."""
    if ctx.input_arrays[0].dtype != numpy.float64:
        return list(names)
    return [_ops.cast(ctx, name, numpy.float32) for name in names]


def _emit_conv(ctx: ConversionContext, op_type: str, **attrs: Any) -> None:
    """Appends ``op_type`` on the inputs, in float32 for float64 data."""
    inputs = _as_float32(ctx, ctx.inputs)
    if inputs == list(ctx.inputs):
        ctx.node(op_type, inputs, ctx.outputs, **attrs)
        return
    _ops.cast(ctx, ctx.op(op_type, inputs, **attrs), numpy.float64, out=ctx.outputs[0])


@converter(Convolution2DFunction, ConvolutionND)
def convert_convolution(ctx: ConversionContext) -> None:
    """``Conv``; ``cover_all`` pads the far end so the extra windows read zeros."""
    func = ctx.func
    stride, pad, dilate = _conv_params(func)
    in_sizes = ctx.input_arrays[0].shape[2:]
    ksize = ctx.input_arrays[1].shape[2:]
    ends = []
    for size, k, s, p, d in zip(in_sizes, ksize, stride, pad, dilate):
        out = conv.get_conv_outsize(size, k, s, p, func.cover_all, d)
        needed = (out - 1) * s + (k - 1) * d + 1 - size - p
        ends.append(max(p, needed))
    _emit_conv(ctx, 'Conv', kernel_shape=list(ksize), strides=list(stride),
               pads=list(pad) + ends, dilations=list(dilate), group=func.groups)


@converter(Deconvolution2DFunction, DeconvolutionND)
def convert_deconvolution(ctx: ConversionContext) -> None:
    """``ConvTranspose`` cropping ``pad`` at the start and what is left of the
    output size at the end (``output_padding`` where the output is longer)."""
    stride, pad, dilate = _conv_params(ctx.func)
    in_sizes = ctx.input_arrays[0].shape[2:]
    ksize = ctx.input_arrays[1].shape[2:]
    out_shape = ctx.output_shapes[0]
    assert out_shape is not None
    outs = out_shape[2:]
    ends, extra = [], []
    for size, k, s, p, d, out in zip(in_sizes, ksize, stride, pad, dilate, outs):
        end = s * (size - 1) + (k - 1) * d + 1 - p - out
        ends.append(max(end, 0))
        extra.append(max(-end, 0))
    _emit_conv(ctx, 'ConvTranspose', kernel_shape=list(ksize), strides=list(stride),
               pads=list(pad) + ends, dilations=list(dilate), group=ctx.func.groups,
               output_padding=extra if any(extra) else None)


@converter(LinearFunction)
def convert_linear(ctx: ConversionContext) -> None:
    """``Gemm`` with ``W`` transposed (``x`` is 2-d: ``linear`` reshapes around it).

    Before opset 11 ``Gemm`` needs ``C``: a zero bias stands in for a missing one.
    """
    x, w = ctx.inputs[:2]
    if len(ctx.inputs) == 3:
        bias = ctx.inputs[2]
    elif ctx.opset < 11:
        w_array = ctx.input_arrays[1]
        bias = ctx.const(numpy.zeros(w_array.shape[:1], dtype=w_array.dtype))
    else:
        bias = ''
    ctx.node('Gemm', [x, w, bias] if bias else [x, w], ctx.outputs, transB=1)


@converter(BilinearFunction)
def convert_bilinear(ctx: ConversionContext) -> None:
    """The outer products ``e1 e2^T`` flattened to ``(n, J * K)`` times ``W`` as
    ``(J * K, L)``, plus ``e1 V1 + e2 V2 + b`` when given."""
    e1, e2, w = ctx.inputs[:3]
    n, j = ctx.input_arrays[0].shape
    k, out = ctx.input_arrays[2].shape[1:]
    outer = ctx.op('Mul', [_ops.unsqueeze(ctx, e1, [2]), _ops.unsqueeze(ctx, e2, [1])])
    outer = _ops.reshape(ctx, outer, [n, j * k], in_shape=(n, j, k))
    w_flat = _ops.reshape(ctx, w, [j * k, out])
    if len(ctx.inputs) == 3:
        ctx.node('MatMul', [outer, w_flat], ctx.outputs)
        return
    v1, v2, b = ctx.inputs[3:]
    y = ctx.op('MatMul', [outer, w_flat])
    y = ctx.op('Add', [y, ctx.op('MatMul', [e1, v1])])
    y = ctx.op('Add', [y, ctx.op('MatMul', [e2, v2])])
    ctx.node('Add', [y, b], ctx.outputs)


def _index_input(ctx: ConversionContext) -> tuple[str, numpy.dtype]:
    """The IDs as int32 or int64 (the index types of Gather and Equal)."""
    dtype = ctx.input_arrays[0].dtype
    if dtype in (numpy.int32, numpy.int64):
        return ctx.inputs[0], dtype
    return _ops.cast(ctx, ctx.inputs[0], numpy.int64), numpy.dtype(numpy.int64)


@converter(EmbedIDFunction)
def convert_embed_id(ctx: ConversionContext) -> None:
    """``Gather`` of the rows of ``W``; IDs equal to ``ignore_label`` give zeros.

    From opset 9 ignored IDs read row 0 and ``Where`` zeroes them; before,
    ``W`` gets an extra zero row that ignored IDs are redirected to.
    """
    label = ctx.func.ignore_label
    w = ctx.inputs[1]
    if label is None:
        ctx.node('Gather', [w, ctx.inputs[0]], ctx.outputs, axis=0)
        return
    ids, id_dtype = _index_input(ctx)
    ignored = ctx.op('Equal', [ids, ctx.const(numpy.asarray(label, dtype=id_dtype))])
    w_array = ctx.input_arrays[1]
    if ctx.opset >= 9:
        safe = ctx.op('Where', [ignored, ctx.const(numpy.asarray(0, dtype=id_dtype)), ids])
        rows = ctx.op('Gather', [w, safe], axis=0)
        mask = _ops.unsqueeze(ctx, ignored, [ctx.input_arrays[0].ndim])
        zero = ctx.const(numpy.zeros((), dtype=w_array.dtype))
        ctx.node('Where', [mask, zero, rows], ctx.outputs)
        return
    n_ids = w_array.shape[0]
    padded = ctx.op('Concat', [w, ctx.const(numpy.zeros((1,) + w_array.shape[1:],
                                                          dtype=w_array.dtype))], axis=0)
    keep = _ops.cast(ctx, ctx.op('Not', [ignored]), id_dtype)
    n_const = ctx.const(numpy.asarray(n_ids, dtype=id_dtype))
    # ids * keep + n_ids * (1 - keep) == (ids - n_ids) * keep + n_ids
    shifted = ctx.op('Mul', [ctx.op('Sub', [ids, n_const]), keep])
    index = ctx.op('Add', [shifted, n_const])
    ctx.node('Gather', [padded, index], ctx.outputs, axis=0)


@converter(ShiftFunction)
def convert_shift(ctx: ConversionContext) -> None:
    """``Split`` into the channel groups, ``Pad`` + ``Slice`` each by its offset, ``Concat``."""
    x = ctx.input_arrays[0]
    h, w = x.shape[2:]
    groups = ctx.func.offsets(x.shape[1])
    parts = _ops.split(ctx, ctx.inputs[0], [end - start for start, end, _, _ in groups], axis=1)
    shifted = []
    for part, (_, _, oy, ox) in zip(parts, groups):
        if oy == ox == 0:
            shifted.append(part)
            continue
        # y[r, q] = x[r - oy, q - ox]: zeros in front for a positive offset, behind otherwise.
        begins, ends = [max(oy, 0), max(ox, 0)], [max(-oy, 0), max(-ox, 0)]
        padded = _ops.pad(ctx, part, [0, 0] + begins + [0, 0] + ends, value_dtype=x.dtype)
        shifted.append(_ops.slice_(ctx, padded, ends, [ends[0] + h, ends[1] + w], [2, 3]))
    ctx.node('Concat', shifted, ctx.outputs, axis=1)


def _refuse_deformable(original: Any) -> Any:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            'deformable_convolution_2d_sampler (and L.DeformableConvolution2D) cannot be '
            'exported to ONNX: it computes its sampling positions from the values of the '
            'offsets, which a trace would freeze into constants')
    return refused


for _module in ('catena.functions',
                'catena.functions.connection.deformable_convolution_2d_sampler',
                'catena.links.connection.deformable_convolution_2d'):
    substitute_while_tracing(_module, 'deformable_convolution_2d_sampler', _refuse_deformable)


def _convert_local_convolution_2d(ctx: ConversionContext) -> None:
    """Gathers every window of ``x`` (as ``im2col``), then one batched ``MatMul`` over the
    output positions: ``(oh*ow, n, taps) @ (oh*ow, taps, c_out)``."""
    x_array, w_array = ctx.input_arrays[:2]
    n, _, h, w = x_array.shape
    c_out, out_h, out_w, c_in, kh, kw = w_array.shape
    sy, sx = ctx.func.sy, ctx.func.sx
    taps, positions = c_in * kh * kw, out_h * out_w
    rows = (numpy.arange(kh)[:, None, None, None] + numpy.arange(out_h)[None, None, :, None] * sy)
    cols = (numpy.arange(kw)[None, :, None, None] + numpy.arange(out_w)[None, None, None, :] * sx)
    flat = _ops.reshape(ctx, ctx.inputs[0], [0, 0, h * w])
    windows = ctx.op('Gather', [flat, ctx.const((rows * w + cols).astype(numpy.int64))], axis=2)
    columns = _ops.reshape(ctx, windows, [0, taps, positions])  # (n, taps, positions)
    columns = ctx.op('Transpose', [columns], perm=[2, 0, 1])
    weight = ctx.inputs[1]
    if w_array.dtype != x_array.dtype:
        weight = _ops.cast(ctx, weight, x_array.dtype)
    weight = _ops.reshape(ctx, weight, [c_out, positions, taps])
    weight = ctx.op('Transpose', [weight], perm=[1, 2, 0])
    product = ctx.op('MatMul', [columns, weight])  # (positions, n, c_out)
    product = ctx.op('Transpose', [product], perm=[1, 2, 0])
    if len(ctx.inputs) == 2:
        _ops.reshape(ctx, product, [n, c_out, out_h, out_w], out=ctx.outputs[0])
        return
    shaped = _ops.reshape(ctx, product, [n, c_out, out_h, out_w])
    ctx.node('Add', [shaped, ctx.inputs[2]], ctx.outputs)


try:  # LocalConvolution2DFunction is one FunctionNode in newer catena cores
    from catena.functions.connection.local_convolution_2d import LocalConvolution2DFunction
except ImportError:  # older cores compose it from Im2Col and MatMul, converted on their own
    pass
else:
    converter(LocalConvolution2DFunction)(_convert_local_convolution_2d)
