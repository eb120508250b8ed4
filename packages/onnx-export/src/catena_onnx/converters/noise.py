"""Converters for catena.functions.noise.

In test mode ``dropout`` and ``zoneout`` return their input without applying
a FunctionNode, so a model exported with ``train=False`` holds nothing to
convert for them. What is converted:

* :class:`Dropout` (applied in training mode) becomes ONNX ``Dropout`` with
  ``training_mode`` true from opset 12, and a mask from ``RandomUniformLike``
  before (older Dropout operators have no training mode). The exported model
  draws its own random mask on every run, so its outputs match catena's in
  distribution, not value.
* :class:`SimplifiedDropconnect` with no mask (``train=False``, or a ratio
  of 0) is a linear layer. Weights dropped at random are refused.

``gaussian`` samples in both modes and ``zoneout`` draws at random in
training mode: neither has a deterministic ONNX expression, so neither is
converted.
"""

from __future__ import annotations

import numpy

from catena.functions.noise.dropout import Dropout
from catena.functions.noise.simplified_dropconnect import SimplifiedDropconnect
from catena_onnx import _trace
from catena_onnx.context import ConversionContext
from catena_onnx.converters import _ops
from catena_onnx.registry import converter


@converter(Dropout, opset=(12, None))
def convert_dropout(ctx: ConversionContext) -> None:
    """Training-mode dropout: zeros with probability ``ratio``, ``x / (1 - ratio)`` elsewhere."""
    ratio = ctx.const(numpy.asarray(ctx.func.dropout_ratio, numpy.float32))
    training = ctx.const(numpy.asarray(True))
    ctx.node('Dropout', [ctx.inputs[0], ratio, training], ctx.outputs)


@converter(Dropout, opset=(7, 11))
def convert_dropout_by_random_mask(ctx: ConversionContext) -> None:
    """Training-mode dropout before opset 12 (whose Dropout has no training mode):
    ``x * (U > ratio) / (1 - ratio)`` for ``U`` from ``RandomUniformLike``."""
    dtype = ctx.input_arrays[0].dtype
    ratio = float(ctx.func.dropout_ratio)
    uniform = ctx.op('RandomUniformLike', [ctx.inputs[0]], low=0.0, high=1.0)
    kept = ctx.op('Greater', [uniform, ctx.const(numpy.asarray(ratio, dtype))])
    mask = _ops.cast(ctx, kept, dtype)
    scaled = ctx.op('Mul', [ctx.inputs[0], ctx.const(numpy.asarray(1.0 / (1.0 - ratio), dtype))])
    ctx.node('Mul', [scaled, mask], ctx.outputs)


@converter(SimplifiedDropconnect)
def convert_simplified_dropconnect(ctx: ConversionContext) -> None:
    """``flatten(x) W^T + b``, when no weight is dropped."""
    mask = ctx.func.mask
    if ctx.func.ratio != 0 or (mask is not None and not bool(numpy.all(_trace.host_array(mask)))):
        raise ValueError(
            'simplified_dropconnect: cannot export weights dropped with a mask (drawn at '
            'random in training); export it with train=False (simplified_dropconnect(..., '
            'train=False), or the link called with train=False), which drops nothing')
    x, w = ctx.inputs[:2]
    x_array = ctx.input_arrays[0]
    if x_array.ndim > 2:
        x = ctx.node('Flatten', [x], axis=1)  # type: ignore[assignment]
    if len(ctx.inputs) == 3:
        bias = ctx.inputs[2]
    elif ctx.opset < 11:  # Gemm's C became optional in opset 11
        bias = ctx.const(numpy.zeros((), x_array.dtype))
    else:
        bias = ''
    inputs = [x, w, bias] if bias else [x, w]
    ctx.node('Gemm', inputs, ctx.outputs, transB=1)
