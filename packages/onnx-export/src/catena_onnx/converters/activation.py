"""Converters for catena.functions.activation.

``selu`` (ELU times a constant), ``relu6`` (ClippedReLU) and ``maxout``
(a reshape and a max) are built from other FunctionNodes and need no
converter of their own.

onnxruntime has no float64 kernel for Elu, HardSigmoid, LeakyRelu, Softplus
and PRelu (nor for Clip before opset 12), so float64 inputs get the same
function written with elementary operators instead.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.functions.activation.clipped_relu import ClippedReLU
from catena.functions.activation.crelu import CReLU
from catena.functions.activation.elu import ELU
from catena.functions.activation.hard_sigmoid import HardSigmoid
from catena.functions.activation.leaky_relu import LeakyReLU
from catena.functions.activation.log_softmax import LogSoftmax
from catena.functions.activation.prelu import PReLUFunction
from catena.functions.activation.relu import ReLU
from catena.functions.activation.rrelu import RReLU
from catena.functions.activation.sigmoid import Sigmoid
from catena.functions.activation.softmax import Softmax
from catena.functions.activation.softplus import Softplus
from catena.functions.activation.swish import Swish
from catena.functions.activation.tanh import Tanh
from catena_onnx._trace import host_array
from catena_onnx.context import ConversionContext
from catena_onnx.converters import _ops
from catena_onnx.registry import converter

_FLOAT64 = numpy.dtype(numpy.float64)


def _is_float64(dtype: Any) -> bool:
    return numpy.dtype(dtype) == _FLOAT64


def negative_part(ctx: ConversionContext, x: str) -> str:
    """``min(x, 0)``, exactly, for every opset and float dtype."""
    return ctx.op('Neg', [ctx.op('Relu', [ctx.op('Neg', [x])])])


def softmax_along(ctx: ConversionContext, op_type: str, x: str, axis: int, ndim: int,
                  out: str | None = None) -> str:
    """``Softmax`` or ``LogSoftmax`` along one axis of an ``ndim``-d tensor.

    Before opset 13 these operators normalize over all axes from ``axis`` on
    (the input flattened to 2-d), which is one axis only for the last one;
    another axis is swapped with the last around the operator.
    """
    axis %= ndim
    if ctx.opset >= 13 or axis == ndim - 1:
        return ctx.op(op_type, [x], out, axis=axis)
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    swapped = ctx.op('Transpose', [x], perm=perm)
    y = ctx.op(op_type, [swapped], axis=ndim - 1)
    return ctx.op('Transpose', [y], out, perm=perm)


def leaky_relu(ctx: ConversionContext, x: str, slope: float, dtype: Any,
               out: str | None = None) -> str:
    """``x`` where ``x >= 0``, else ``slope * x``."""
    if not _is_float64(dtype):
        return ctx.op('LeakyRelu', [x], out, alpha=float(slope))
    scaled = ctx.op('Mul', [negative_part(ctx, x), ctx.const(numpy.asarray(slope, dtype))])
    return ctx.op('Add', [ctx.op('Relu', [x]), scaled], out)


def softplus(ctx: ConversionContext, x: str, dtype: Any, out: str | None = None) -> str:
    """``log(1 + exp(x))`` without overflow."""
    if not _is_float64(dtype):
        return ctx.op('Softplus', [x], out)
    # max(x, 0) + log(1 + exp(-|x|))
    tail = ctx.op('Exp', [ctx.op('Neg', [ctx.op('Abs', [x])])])
    tail = ctx.op('Log', [ctx.op('Add', [tail, ctx.const(numpy.asarray(1, dtype))])])
    return ctx.op('Add', [ctx.op('Relu', [x]), tail], out)


def _channelwise(ctx: ConversionContext, w: str, x_ndim: int, w_shape: tuple[int, ...]) -> str:
    """Reshapes a parameter of shape ``x.shape[1:1 + k]`` to broadcast against ``x``."""
    trailing = x_ndim - 1 - len(w_shape)
    if trailing == 0:  # numpy-style broadcasting aligns it already
        return w
    return _ops.reshape(ctx, w, tuple(w_shape) + (1,) * trailing)


@converter(ReLU)
def convert_relu(ctx: ConversionContext) -> None:
    ctx.node('Relu', ctx.inputs, ctx.outputs)


@converter(ClippedReLU)
def convert_clipped_relu(ctx: ConversionContext) -> None:
    _ops.clip(ctx, ctx.inputs[0], 0.0, ctx.func.cap, ctx.input_arrays[0].dtype, ctx.outputs[0])


@converter(CReLU)
def convert_crelu(ctx: ConversionContext) -> None:
    x, = ctx.inputs
    negative = ctx.op('Relu', [ctx.op('Neg', [x])])
    ctx.node('Concat', [ctx.op('Relu', [x]), negative], ctx.outputs,
             axis=ctx.func.axis % ctx.input_arrays[0].ndim)


@converter(ELU)
def convert_elu(ctx: ConversionContext) -> None:
    x, = ctx.inputs
    dtype = ctx.input_arrays[0].dtype
    if not _is_float64(dtype):
        ctx.node('Elu', [x], ctx.outputs, alpha=float(ctx.func.alpha))
        return
    # max(x, 0) + alpha * (exp(min(x, 0)) - 1)
    tail = ctx.op('Sub', [ctx.op('Exp', [negative_part(ctx, x)]),
                              ctx.const(numpy.asarray(1, dtype))])
    tail = ctx.op('Mul', [tail, ctx.const(numpy.asarray(ctx.func.alpha, dtype))])
    ctx.node('Add', [ctx.op('Relu', [x]), tail], ctx.outputs)


@converter(HardSigmoid)
def convert_hard_sigmoid(ctx: ConversionContext) -> None:
    x, = ctx.inputs
    dtype = ctx.input_arrays[0].dtype
    if not _is_float64(dtype):
        ctx.node('HardSigmoid', [x], ctx.outputs, alpha=0.2, beta=0.5)
        return
    y = ctx.op('Mul', [x, ctx.const(numpy.asarray(0.2, dtype))])
    y = ctx.op('Add', [y, ctx.const(numpy.asarray(0.5, dtype))])
    _ops.clip(ctx, y, 0.0, 1.0, dtype, ctx.outputs[0])


@converter(LeakyReLU)
def convert_leaky_relu(ctx: ConversionContext) -> None:
    leaky_relu(ctx, ctx.inputs[0], ctx.func.slope, ctx.input_arrays[0].dtype, ctx.outputs[0])


@converter(RReLU)
def convert_rrelu(ctx: ConversionContext) -> None:
    """Test mode uses one slope, ``(l + u) / 2``, for every element: a leaky relu.

    Training mode draws a slope per element at random, which the graph
    cannot reproduce; it is refused.
    """
    func = ctx.func
    dtype = ctx.input_arrays[0].dtype
    r = None if func.r is None else host_array(func.r)
    if r is None or r.size == 0:
        slope = (func.lower + func.upper) / 2
    elif numpy.all(r == r.flat[0]):
        slope = float(r.flat[0])
    else:
        raise ValueError(
            'rrelu: cannot export slopes drawn at random per element (training mode, or r= '
            'with different values); export in test mode (train=False), where every slope '
            'is (l + u) / 2')
    leaky_relu(ctx, ctx.inputs[0], slope, dtype, ctx.outputs[0])


@converter(PReLUFunction)
def convert_prelu(ctx: ConversionContext) -> None:
    x, w = ctx.inputs
    x_array, w_array = ctx.input_arrays
    slope = _channelwise(ctx, w, x_array.ndim, tuple(w_array.shape))
    if not _is_float64(x_array.dtype):
        ctx.node('PRelu', [x, slope], ctx.outputs)
        return
    scaled = ctx.op('Mul', [negative_part(ctx, x), slope])
    ctx.node('Add', [ctx.op('Relu', [x]), scaled], ctx.outputs)


@converter(Sigmoid)
def convert_sigmoid(ctx: ConversionContext) -> None:
    ctx.node('Sigmoid', ctx.inputs, ctx.outputs)


@converter(Tanh)
def convert_tanh(ctx: ConversionContext) -> None:
    ctx.node('Tanh', ctx.inputs, ctx.outputs)


@converter(Softmax)
def convert_softmax(ctx: ConversionContext) -> None:
    softmax_along(ctx, 'Softmax', ctx.inputs[0], ctx.func.axis, ctx.input_arrays[0].ndim,
                  ctx.outputs[0])


@converter(LogSoftmax)
def convert_log_softmax(ctx: ConversionContext) -> None:
    softmax_along(ctx, 'LogSoftmax', ctx.inputs[0], ctx.func.axis, ctx.input_arrays[0].ndim,
                  ctx.outputs[0])


@converter(Softplus)
def convert_softplus(ctx: ConversionContext) -> None:
    """``softplus(beta * x) / beta``."""
    x, = ctx.inputs
    dtype = ctx.input_arrays[0].dtype
    beta = ctx.func.beta
    if beta == 1:
        softplus(ctx, x, dtype, ctx.outputs[0])
        return
    scaled = ctx.op('Mul', [x, ctx.const(numpy.asarray(beta, dtype))])
    y = softplus(ctx, scaled, dtype)
    ctx.node('Mul', [y, ctx.const(numpy.asarray(ctx.func.beta_inv, dtype))], ctx.outputs)


@converter(Swish)
def convert_swish(ctx: ConversionContext) -> None:
    """``x * sigmoid(beta * x)``, ``beta`` broadcast as in prelu."""
    x, beta = ctx.inputs
    x_array, beta_array = ctx.input_arrays
    b = _channelwise(ctx, beta, x_array.ndim, tuple(beta_array.shape))
    gate = ctx.op('Sigmoid', [ctx.op('Mul', [x, b])])
    ctx.node('Mul', [x, gate], ctx.outputs)
