"""Converters for catena.functions.loss.

Labels are compared with the classes (``Equal`` against a constant range)
rather than gathered, which works in every opset and gives ignored labels a
row of zeros. ``softmax_cross_entropy`` is one composite for all opsets:
ONNX's SoftmaxCrossEntropyLoss averages a class-weighted loss over the sum
of the weights, catena over the number of labels (or the batch size).
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.functions.loss.absolute_error import AbsoluteError
from catena.functions.loss.hinge import Hinge
from catena.functions.loss.huber_loss import HuberLoss
from catena.functions.loss.mean_absolute_error import MeanAbsoluteError
from catena.functions.loss.mean_squared_error import MeanSquaredError
from catena.functions.loss.sigmoid_cross_entropy import SigmoidCrossEntropy
from catena.functions.loss.softmax_cross_entropy import SoftmaxCrossEntropy
from catena.functions.loss.squared_difference import SquaredDifference
from catena.functions.loss.squared_error import SquaredError
from catena_onnx._trace import host_array
from catena_onnx.context import ConversionContext
from catena_onnx.converters import _ops
from catena_onnx.converters.activation import softmax_along, softplus
from catena_onnx.registry import converter


def _scalar(ctx: ConversionContext, value: float, dtype: Any) -> str:
    return ctx.const(numpy.asarray(value, dtype))


def _labels(ctx: ConversionContext, index: int) -> str:
    """Input ``index`` (integer labels) as int32 or int64, which Equal takes in every opset."""
    dtype = ctx.input_arrays[index].dtype
    if dtype in (numpy.int32, numpy.int64):
        return ctx.inputs[index]
    return _ops.cast(ctx, ctx.inputs[index], numpy.int64)


def _one_hot(ctx: ConversionContext, labels: str, label_dtype: Any, n_class: int, axis: int,
             ndim: int, dtype: Any) -> str:
    """``dtype`` ones where the class along ``axis`` equals the label, zeros elsewhere."""
    shape = [1] * ndim
    shape[axis] = n_class
    classes = ctx.const(numpy.arange(n_class, dtype=label_dtype).reshape(shape))
    hit = ctx.op('Equal', [_ops.unsqueeze(ctx, labels, [axis]), classes])
    return _ops.cast(ctx, hit, dtype)


def _not_ignored(ctx: ConversionContext, labels: str, label_dtype: Any, ignore_label: int,
                 dtype: Any) -> str:
    """``dtype`` ones where the label is not ``ignore_label``, zeros where it is."""
    ignored = ctx.op('Equal', [labels, ctx.const(numpy.asarray(ignore_label, label_dtype))])
    return _ops.cast(ctx, ctx.op('Not', [ignored]), dtype)


def _label_dtype(ctx: ConversionContext, index: int) -> Any:
    dtype = ctx.input_arrays[index].dtype
    return dtype if dtype in (numpy.int32, numpy.int64) else numpy.dtype(numpy.int64)


def _batch_size(ctx: ConversionContext, dtype: Any) -> str:
    """``max(x.shape[0], 1)`` of input 0, read from the graph when the batch is dynamic."""
    if not ctx.dynamic:
        return _scalar(ctx, max(ctx.input_arrays[0].shape[0], 1), dtype)
    size = ctx.op('Gather', [ctx.op('Shape', [ctx.inputs[0]]),
                                 ctx.const(numpy.asarray(0, numpy.int64))])
    return _ops.cast(ctx, size, dtype)


def _mean(ctx: ConversionContext, loss: str, divisor: str) -> None:
    """Writes ``sum(loss) / divisor`` (a scalar) to the output."""
    total = _ops.reduce(ctx, 'ReduceSum', loss, None, keepdims=False)
    ctx.node('Div', [total, divisor], ctx.outputs)


def _count(ctx: ConversionContext, valid: str, dtype: Any) -> str:
    """``max(sum(valid), 1)``."""
    count = _ops.reduce(ctx, 'ReduceSum', valid, None, keepdims=False)
    return _ops.clip(ctx, count, 1.0, None, dtype)


def _class_weighted(ctx: ConversionContext, target: str, axis: int) -> str:
    """``target`` times ``class_weight`` along ``axis`` (unchanged without weights)."""
    weight = ctx.func.class_weight
    if weight is None:
        return target
    x_array = ctx.input_arrays[0]
    shape = [1] * x_array.ndim
    shape[axis] = -1
    weight = host_array(weight).astype(x_array.dtype).reshape(shape)
    return ctx.op('Mul', [target, ctx.const(weight)])


def _cross_entropy(ctx: ConversionContext, target: str, axis: int, out: str | None) -> str:
    """``-sum(target * log_softmax(x), axis)``."""
    log_p = softmax_along(ctx, 'LogSoftmax', ctx.inputs[0], axis, ctx.input_arrays[0].ndim)
    total = _ops.reduce(ctx, 'ReduceSum', ctx.op('Mul', [target, log_p]), [axis],
                        keepdims=False)
    return ctx.op('Neg', [total], out)


@converter(SoftmaxCrossEntropy)
def convert_softmax_cross_entropy(ctx: ConversionContext) -> None:
    """The cross entropy with the labels one-hot, or with the soft targets."""
    if ctx.input_arrays[1].dtype.kind == 'f':
        _soft_target_cross_entropy(ctx)
    else:
        _label_cross_entropy(ctx)


def _label_cross_entropy(ctx: ConversionContext) -> None:
    func = ctx.func
    x_array = ctx.input_arrays[0]
    dtype = x_array.dtype
    axis = func.axis % x_array.ndim
    n_class = x_array.shape[axis]
    labels, label_dtype = _labels(ctx, 1), _label_dtype(ctx, 1)
    no = func.reduce == 'no'
    target = _one_hot(ctx, labels, label_dtype, n_class, axis, x_array.ndim, dtype)
    # a label equal to ignore_label is in the one-hot unless it lies outside [0, C)
    masked = 0 <= func.ignore_label < n_class
    loss = _cross_entropy(ctx, _class_weighted(ctx, target, axis), axis,
                          ctx.outputs[0] if no and not masked else None)
    if masked or (not no and func.normalize):
        valid = _not_ignored(ctx, labels, label_dtype, func.ignore_label, dtype)
    if masked:
        loss = ctx.op('Mul', [loss, valid], ctx.outputs[0] if no else None)
    if not no:
        _mean(ctx, loss, _count(ctx, valid, dtype) if func.normalize
              else _batch_size(ctx, dtype))


def _soft_target_cross_entropy(ctx: ConversionContext) -> None:
    func = ctx.func
    x_array, t_array = ctx.input_arrays
    dtype = x_array.dtype
    axis = func.axis % x_array.ndim
    t = ctx.inputs[1] if t_array.dtype == dtype else _ops.cast(ctx, ctx.inputs[1], dtype)
    no = func.reduce == 'no'
    kl = func.soft_target_loss == 'kl-divergence'
    loss = _cross_entropy(ctx, _class_weighted(ctx, t, axis), axis,
                          ctx.outputs[0] if no and not kl else None)
    if kl:  # plus sum(t * log(t)) over t > 0, as t * log(t * [t > 0] + [t <= 0])
        positive = _ops.cast(ctx, ctx.op('Greater', [t, _scalar(ctx, 0, dtype)]), dtype)
        safe = ctx.op('Add', [ctx.op('Mul', [t, positive]),
                                  ctx.op('Sub', [_scalar(ctx, 1, dtype), positive])])
        entropy = ctx.op('Mul', [t, ctx.op('Log', [safe])])
        entropy = _ops.reduce(ctx, 'ReduceSum', entropy, [axis], keepdims=False)
        loss = ctx.op('Add', [loss, entropy], ctx.outputs[0] if no else None)
    if not no:  # the mean over the positions
        _ops.reduce(ctx, 'ReduceMean', loss, None, keepdims=False, out=ctx.outputs[0])


@converter(SigmoidCrossEntropy)
def convert_sigmoid_cross_entropy(ctx: ConversionContext) -> None:
    """``(softplus(x) - x * t) * [t != -1]``."""
    func = ctx.func
    x = ctx.inputs[0]
    dtype = ctx.input_arrays[0].dtype
    labels, label_dtype = _labels(ctx, 1), _label_dtype(ctx, 1)
    valid = _not_ignored(ctx, labels, label_dtype, func.ignore_label, dtype)
    target = _ops.cast(ctx, labels, dtype)
    loss = ctx.op('Sub', [softplus(ctx, x, dtype), ctx.op('Mul', [x, target])])
    loss = ctx.op('Mul', [loss, valid], ctx.outputs[0] if func.reduce == 'no' else None)
    if func.reduce == 'no':
        return
    _mean(ctx, loss, _count(ctx, valid, dtype) if func.normalize else _batch_size(ctx, dtype))


@converter(Hinge)
def convert_hinge(ctx: ConversionContext) -> None:
    """``max(0, 1 + s * x)`` (squared for L2) with ``s`` -1 at the label, +1 elsewhere."""
    func = ctx.func
    x = ctx.inputs[0]
    x_array = ctx.input_arrays[0]
    dtype = x_array.dtype
    hit = _one_hot(ctx, _labels(ctx, 1), _label_dtype(ctx, 1), x_array.shape[1], 1, 2, dtype)
    sign = ctx.op('Sub', [_scalar(ctx, 1, dtype),
                              ctx.op('Mul', [hit, _scalar(ctx, 2, dtype)])])
    margin = ctx.op('Add', [ctx.op('Mul', [x, sign]), _scalar(ctx, 1, dtype)])
    out = ctx.outputs[0] if func.reduce == 'no' else None
    if func.norm == 'L2':
        loss = ctx.op('Relu', [margin])
        loss = ctx.op('Mul', [loss, loss], out)
    else:
        loss = ctx.op('Relu', [margin], out)
    if func.reduce == 'mean':
        _mean(ctx, loss, _batch_size(ctx, dtype))


@converter(HuberLoss)
def convert_huber_loss(ctx: ConversionContext) -> None:
    """``c * (|d| - c / 2)`` with ``d = x - t`` and ``c = min(|d|, delta)``."""
    func = ctx.func
    dtype = ctx.input_arrays[0].dtype
    distance = ctx.op('Abs', [ctx.op('Sub', list(ctx.inputs))])
    c = _ops.clip(ctx, distance, None, func.delta, dtype)
    half = ctx.op('Mul', [c, _scalar(ctx, 0.5, dtype)])
    out = ctx.outputs[0] if func.reduce == 'no' else None
    loss = ctx.op('Mul', [ctx.op('Sub', [distance, half]), c], out)
    if out is None:
        _ops.reduce(ctx, 'ReduceSum', loss, [1], keepdims=False, out=ctx.outputs[0])


@converter(SquaredError, SquaredDifference)
def convert_squared_error(ctx: ConversionContext) -> None:
    diff = ctx.op('Sub', list(ctx.inputs))
    ctx.node('Mul', [diff, diff], ctx.outputs)


@converter(AbsoluteError)
def convert_absolute_error(ctx: ConversionContext) -> None:
    ctx.node('Abs', [ctx.op('Sub', list(ctx.inputs))], ctx.outputs)


@converter(MeanSquaredError)
def convert_mean_squared_error(ctx: ConversionContext) -> None:
    diff = ctx.op('Sub', list(ctx.inputs))
    _ops.reduce(ctx, 'ReduceMean', ctx.op('Mul', [diff, diff]), None, keepdims=False,
                out=ctx.outputs[0])


@converter(MeanAbsoluteError)
def convert_mean_absolute_error(ctx: ConversionContext) -> None:
    diff = ctx.op('Abs', [ctx.op('Sub', list(ctx.inputs))])
    _ops.reduce(ctx, 'ReduceMean', diff, None, keepdims=False, out=ctx.outputs[0])
