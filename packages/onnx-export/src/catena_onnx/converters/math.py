"""Converters for catena.functions.math.

``rsqrt`` is ``1 / sqrt(x)`` (:class:`Sqrt`, then :class:`DivFromConstant`),
``bias``, ``scale`` and weighted ``average`` are built from other nodes, and
``x / c`` for a scalar ``c`` is :class:`MulConstant` by ``1 / c``: they need no
converter of their own. ``sign``, ``ceil``, ``floor`` and ``fix`` apply no
FunctionNode (their results are cut from the graph), so an export sees their
results as constants.

Some element-wise operators have close ONNX expressions rather than an
operator of their own: ``log1p`` is ``Log(1 + x)`` and ``expm1`` is
``Exp(x) - 1`` (both lose the precision near zero that they exist for),
``erfc`` is ``1 - Erf(x)`` and ``ndtr`` is ``(1 + Erf(x / sqrt 2)) / 2`` (both
lose the far tail), and ``arctan2`` is ``Atan(x1 / x2)`` moved to the right
quadrant (it ignores the sign of zeros).

onnxruntime has no float64 kernel of ``Acos``, ``Asin``, ``Atan``, ``Tan``,
``Cosh``, ``Sinh``, ``Atanh`` and ``Erf``: float64 inputs go through them in
float32, between two Casts. It has no float16 ``CumSum`` before opset 14,
which therefore runs in float32 too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy

from catena.functions.math.arctanh import Arctanh
from catena.functions.math.average import Mean
from catena.functions.math.basic_math import (
    Absolute,
    Add,
    AddConstant,
    Div,
    DivFromConstant,
    MatMulVarVar,
    Mul,
    MulConstant,
    MultiAdd,
    Neg,
    PowConstVar,
    PowVarConst,
    PowVarVar,
    Sub,
    SubFromConstant,
)
from catena.functions.math.batch_l2_norm_squared import BatchL2NormSquared
from catena.functions.math.clip import Clip
from catena.functions.math.cumsum import Cumsum
from catena.functions.math.einsum import EinSum
from catena.functions.math.erf import Erf
from catena.functions.math.erfc import Erfc
from catena.functions.math.exponential import Exp, Log, Log2, Log10
from catena.functions.math.exponential_m1 import Expm1
from catena.functions.math.fft import FFT
from catena.functions.math.fmod import Fmod
from catena.functions.math.hyperbolic import Cosh, Sinh
from catena.functions.math.identity import Identity
from catena.functions.math.linear_interpolate import LinearInterpolate
from catena.functions.math.logarithm_1p import Log1p
from catena.functions.math.logsumexp import LogSumExp
from catena.functions.math.matmul import MatMul
from catena.functions.math.maximum import Maximum
from catena.functions.math.minimum import Minimum
from catena.functions.math.minmax import ArgMax, ArgMin, Max, Min
from catena.functions.math.ndtr import Ndtr
from catena.functions.math.prod import Prod
from catena.functions.math.sqrt import Sqrt
from catena.functions.math.square import Square
from catena.functions.math.sum import Sum
from catena.functions.math.sum_to import SumTo
from catena.functions.math.tensordot import TensorDot
from catena.functions.math.trigonometric import (
    Arccos,
    Arcsin,
    Arctan,
    Arctan2,
    Cos,
    Sin,
    Tan,
)
from catena_onnx.context import ConversionContext
from catena_onnx.converters import _ops
from catena_onnx.registry import converter

#: Operators onnxruntime runs in float32 and float16 only: float64 goes through float32.
_NO_FLOAT64_KERNEL = frozenset({'Acos', 'Asin', 'Atan', 'Tan', 'Cosh', 'Sinh', 'Atanh', 'Erf'})


def _dtype(ctx: ConversionContext) -> numpy.dtype[Any]:
    return numpy.dtype(ctx.input_arrays[0].dtype)


def _unary(ctx: ConversionContext, op_type: str, x: str, dtype: Any,
           out: str | None = None) -> str:
    """``op_type(x)``, in float32 for float64 where onnxruntime lacks the kernel."""
    if op_type in _NO_FLOAT64_KERNEL and numpy.dtype(dtype) == numpy.float64:
        y = ctx.op(op_type, [_ops.cast(ctx, x, numpy.float32)])
        return _ops.cast(ctx, y, numpy.float64, out=out)
    return ctx.op(op_type, [x], out)


def _of(table: Mapping[Any, str], func: Any) -> str:
    """The entry of ``table`` for ``func``'s class or its nearest base."""
    return next(table[cls] for cls in type(func).__mro__ if cls in table)


def _axes(axis: Sequence[int] | None, ndim: int) -> list[int] | None:
    """Reduction axes as non-negative ints (None: every axis)."""
    return None if axis is None else sorted(a % ndim for a in axis)


# ---------------------------------------------------------------- element-wise

_UNARY = {
    Neg: 'Neg', Absolute: 'Abs', Exp: 'Exp', Log: 'Log', Sqrt: 'Sqrt',
    Sin: 'Sin', Cos: 'Cos', Tan: 'Tan', Arcsin: 'Asin', Arccos: 'Acos', Arctan: 'Atan',
}


@converter(*_UNARY)
def convert_unary(ctx: ConversionContext) -> None:
    _unary(ctx, _of(_UNARY, ctx.func), ctx.inputs[0], _dtype(ctx), ctx.outputs[0])


_UNARY_9 = {Cosh: 'Cosh', Sinh: 'Sinh', Arctanh: 'Atanh', Erf: 'Erf'}


@converter(*_UNARY_9, opset=(9, None))
def convert_unary_9(ctx: ConversionContext) -> None:
    _unary(ctx, _of(_UNARY_9, ctx.func), ctx.inputs[0], _dtype(ctx), ctx.outputs[0])


_BINARY = {Add: 'Add', Sub: 'Sub', Mul: 'Mul', Div: 'Div', PowVarVar: 'Pow',
           Maximum: 'Max', Minimum: 'Min'}


@converter(*_BINARY)
def convert_binary(ctx: ConversionContext) -> None:
    """The broadcasting binary operators (``Max``/``Min`` of equal shapes)."""
    ctx.op(_of(_BINARY, ctx.func), ctx.inputs, ctx.outputs[0])


def _with_constant(ctx: ConversionContext) -> tuple[str, str]:
    """``(x, c)``: the input and ``func.value`` as a constant, both of the output's dtype."""
    dtype = ctx.output_dtypes[0] or _dtype(ctx)
    x = ctx.inputs[0]
    if _dtype(ctx) != dtype:
        x = _ops.cast(ctx, x, dtype)
    return x, ctx.const(numpy.asarray(ctx.func.value, dtype=dtype))


@converter(AddConstant, MulConstant, PowVarConst)
def convert_op_constant(ctx: ConversionContext) -> None:
    """``x + c``, ``x * c``, ``x ** c``."""
    op_type = _of({AddConstant: 'Add', MulConstant: 'Mul', PowVarConst: 'Pow'}, ctx.func)
    ctx.op(op_type, _with_constant(ctx), ctx.outputs[0])


@converter(SubFromConstant, DivFromConstant, PowConstVar)
def convert_constant_op(ctx: ConversionContext) -> None:
    """``c - x``, ``c / x``, ``c ** x``."""
    op_type = _of({SubFromConstant: 'Sub', DivFromConstant: 'Div', PowConstVar: 'Pow'}, ctx.func)
    x, c = _with_constant(ctx)
    ctx.op(op_type, [c, x], ctx.outputs[0])


@converter(MultiAdd)
def convert_multi_add(ctx: ConversionContext) -> None:
    """``Sum`` (broadcasting since opset 8); a chain of ``Add`` before."""
    if len(ctx.inputs) == 1:
        ctx.op('Identity', ctx.inputs, ctx.outputs[0])
    elif ctx.opset >= 8:
        ctx.op('Sum', ctx.inputs, ctx.outputs[0])
    else:
        total = ctx.inputs[0]
        for i, x in enumerate(ctx.inputs[1:], 2):
            total = ctx.op('Add', [total, x], ctx.outputs[0] if i == len(ctx.inputs) else None)


@converter(Square)
def convert_square(ctx: ConversionContext) -> None:
    ctx.op('Mul', [ctx.inputs[0], ctx.inputs[0]], ctx.outputs[0])


@converter(Identity)
def convert_identity(ctx: ConversionContext) -> None:
    for x, y in zip(ctx.inputs, ctx.outputs):
        ctx.op('Identity', [x], y)


@converter(Log2, Log10)
def convert_log_base(ctx: ConversionContext) -> None:
    """``Log(x) / ln(base)``."""
    base = 2.0 if isinstance(ctx.func, Log2) else 10.0
    y = ctx.op('Log', ctx.inputs)
    ctx.op('Div', [y, ctx.scalar_like(math.log(base))], ctx.outputs[0])


@converter(Log1p)
def convert_log1p(ctx: ConversionContext) -> None:
    """``Log(1 + x)``."""
    ctx.op('Log', [ctx.op('Add', [ctx.inputs[0], ctx.scalar_like(1)])], ctx.outputs[0])


@converter(Expm1)
def convert_expm1(ctx: ConversionContext) -> None:
    """``Exp(x) - 1``."""
    ctx.op('Sub', [ctx.op('Exp', ctx.inputs), ctx.scalar_like(1)], ctx.outputs[0])


@converter(Erfc, opset=(9, None))
def convert_erfc(ctx: ConversionContext) -> None:
    """``1 - Erf(x)``."""
    erf = _unary(ctx, 'Erf', ctx.inputs[0], _dtype(ctx))
    ctx.op('Sub', [ctx.scalar_like(1), erf], ctx.outputs[0])


@converter(Ndtr, opset=(9, None))
def convert_ndtr(ctx: ConversionContext) -> None:
    """``(1 + Erf(x / sqrt 2)) / 2``."""
    scaled = ctx.op('Mul', [ctx.inputs[0], ctx.scalar_like(math.sqrt(0.5))])
    erf = _unary(ctx, 'Erf', scaled, _dtype(ctx))
    half = ctx.scalar_like(0.5)
    ctx.op('Add', [ctx.op('Mul', [erf, half]), half], ctx.outputs[0])


@converter(Arctan2, opset=(9, None))
def convert_arctan2(ctx: ConversionContext) -> None:
    """``Atan(x1 / x2)``, plus or minus pi where ``x2 < 0``; 0 where both are 0."""
    x1, x2 = ctx.inputs
    dtype = _dtype(ctx)
    zero = ctx.scalar_like(0)

    def is_zero(x: str) -> str:  # true for NaN too; x2 + 1 keeps NaN below
        nonzero = ctx.op('Or', [ctx.op('Less', [x, zero]), ctx.op('Greater', [x, zero])])
        return ctx.op('Not', [nonzero])

    both_zero = ctx.op('And', [is_zero(x1), is_zero(x2)])
    den = ctx.op('Add', [x2, _ops.cast(ctx, both_zero, dtype)])
    angle = _unary(ctx, 'Atan', ctx.op('Div', [x1, den]), dtype)
    turn = ctx.op('Where', [ctx.op('Less', [x1, zero]), ctx.scalar_like(-math.pi),
                              ctx.scalar_like(math.pi)])
    shift = ctx.op('Where', [ctx.op('Less', [x2, zero]), turn, zero])
    ctx.op('Add', [angle, shift], ctx.outputs[0])


@converter(Clip)
def convert_clip(ctx: ConversionContext) -> None:
    func = ctx.func
    _ops.clip(ctx, ctx.inputs[0], func.x_min, func.x_max, _dtype(ctx), out=ctx.outputs[0])


@converter(LinearInterpolate)
def convert_linear_interpolate(ctx: ConversionContext) -> None:
    """``p * x + (1 - p) * y``."""
    p, x, y = ctx.inputs
    rest = ctx.op('Mul', [ctx.op('Sub', [ctx.scalar_like(1), p]), y])
    ctx.op('Add', [ctx.op('Mul', [p, x]), rest], ctx.outputs[0])


@converter(Fmod, opset=(10, None))
def convert_fmod(ctx: ConversionContext) -> None:
    ctx.op('Mod', ctx.inputs, ctx.outputs[0], fmod=1)


# ---------------------------------------------------------------- reductions

_REDUCE = {Sum: 'ReduceSum', Mean: 'ReduceMean', Prod: 'ReduceProd', Max: 'ReduceMax',
           Min: 'ReduceMin'}


@converter(*_REDUCE)
def convert_reduce(ctx: ConversionContext) -> None:
    """A ``Reduce*`` over ``func.axis``; an empty axis tuple reduces nothing."""
    func = ctx.func
    axes = _axes(func.axis, ctx.input_arrays[0].ndim)
    if axes == []:
        ctx.op('Identity', ctx.inputs, ctx.outputs[0])
        return
    _ops.reduce(ctx, _of(_REDUCE, func), ctx.inputs[0], axes, func.keepdims,
                out=ctx.outputs[0])


@converter(LogSumExp)
def convert_logsumexp(ctx: ConversionContext) -> None:
    axes = _axes(ctx.func.axis, ctx.input_arrays[0].ndim)
    if axes == []:
        ctx.op('Identity', ctx.inputs, ctx.outputs[0])
        return
    _ops.reduce(ctx, 'ReduceLogSumExp', ctx.inputs[0], axes, False, out=ctx.outputs[0])


@converter(BatchL2NormSquared)
def convert_batch_l2_norm_squared(ctx: ConversionContext) -> None:
    """``ReduceSumSquare`` over every axis but the first."""
    axes = list(range(1, ctx.input_arrays[0].ndim))
    _ops.reduce(ctx, 'ReduceSumSquare', ctx.inputs[0], axes, False, out=ctx.outputs[0])


@converter(ArgMax, ArgMin)
def convert_arg_select(ctx: ConversionContext) -> None:
    """``ArgMax``/``ArgMin`` (of the flattened input when the axis is None), cast to
    catena's index dtype."""
    x = ctx.inputs[0]
    ndim = ctx.input_arrays[0].ndim
    if ctx.func.axis is None:
        x, axis = _ops.reshape(ctx, x, [-1]), 0
    else:
        axis = ctx.func.axis % ndim
    op_type = 'ArgMax' if isinstance(ctx.func, ArgMax) else 'ArgMin'
    index = ctx.op(op_type, [x], axis=axis, keepdims=0)
    _ops.cast(ctx, index, ctx.output_dtypes[0] or numpy.int32, out=ctx.outputs[0])


@converter(SumTo)
def convert_sum_to(ctx: ConversionContext) -> None:
    """``ReduceSum`` over the broadcast axes, then ``Squeeze`` of the leading ones."""
    in_shape = ctx.input_arrays[0].shape
    shape = ctx.func._shape
    lead = len(in_shape) - len(shape)
    axes = list(range(lead)) + [lead + i for i, n in enumerate(shape)
                                if n == 1 and in_shape[lead + i] != 1]
    if not axes:
        ctx.op('Identity', ctx.inputs, ctx.outputs[0])
        return
    summed = _ops.reduce(ctx, 'ReduceSum', ctx.inputs[0], axes, True,
                         out=None if lead else ctx.outputs[0])
    if lead:
        _ops.squeeze(ctx, summed, list(range(lead)), out=ctx.outputs[0])


@converter(Cumsum, opset=(11, None))
def convert_cumsum(ctx: ConversionContext) -> None:
    """``CumSum`` (of the flattened input when the axis is None)."""
    x, dtype = ctx.inputs[0], _dtype(ctx)
    if ctx.func.axis is None:
        x, axis = _ops.reshape(ctx, x, [-1]), 0
    else:
        axis = ctx.func.axis % ctx.input_arrays[0].ndim
    axis_name = ctx.const(numpy.int64(axis))
    if dtype == numpy.float16 and ctx.opset < 14:  # CumSum takes float16 since opset 14
        y = ctx.op('CumSum', [_ops.cast(ctx, x, numpy.float32), axis_name])
        _ops.cast(ctx, y, dtype, out=ctx.outputs[0])
    else:
        ctx.op('CumSum', [x, axis_name], ctx.outputs[0])


# ---------------------------------------------------------------- products

def _swap_last(ctx: ConversionContext, x: str, ndim: int) -> str:
    """Transposes the last two axes."""
    perm = list(range(ndim - 2)) + [ndim - 1, ndim - 2]
    return ctx.op('Transpose', [x], perm=perm)


@converter(MatMul, MatMulVarVar)
def convert_matmul(ctx: ConversionContext) -> None:
    """``MatMul`` with ``Transpose`` of the last two axes for transa/transb/transc
    (which leave 1-d operands and results alone)."""
    func = ctx.func
    a, b = ctx.inputs
    a_array, b_array = ctx.input_arrays
    common = numpy.result_type(a_array.dtype, b_array.dtype)
    if a_array.dtype != common:
        a = _ops.cast(ctx, a, common)
    if b_array.dtype != common:
        b = _ops.cast(ctx, b, common)
    if func.transa and a_array.ndim > 1:
        a = _swap_last(ctx, a, a_array.ndim)
    if func.transb and b_array.ndim > 1:
        b = _swap_last(ctx, b, b_array.ndim)
    out_ndim = max(a_array.ndim, b_array.ndim, 2) - (a_array.ndim == 1) - (b_array.ndim == 1)
    out_dtype = ctx.output_dtypes[0] or common
    transpose = func.transc and out_ndim > 1
    cast = numpy.dtype(out_dtype) != common
    y = ctx.op('MatMul', [a, b], None if transpose or cast else ctx.outputs[0])
    if transpose:
        y = ctx.op('Transpose', [y], None if cast else ctx.outputs[0],
                perm=list(range(out_ndim - 2)) + [out_ndim - 1, out_ndim - 2])
    if cast:
        _ops.cast(ctx, y, out_dtype, out=ctx.outputs[0])


@converter(TensorDot)
def convert_tensordot(ctx: ConversionContext) -> None:
    """Transpose and reshape both operands to matrices, ``MatMul``, reshape back."""
    func = ctx.func
    a_shape, b_shape = ctx.input_arrays[0].shape, ctx.input_arrays[1].shape
    a_free = [i for i in range(len(a_shape)) if i not in func.a_axes]
    b_free = [i for i in range(len(b_shape)) if i not in func.b_axes]
    inner = math.prod(a_shape[i] for i in func.a_axes)
    a_rows = math.prod(a_shape[i] for i in a_free)
    b_cols = math.prod(b_shape[i] for i in b_free)
    a = ctx.op('Transpose', [ctx.inputs[0]], perm=a_free + list(func.a_axes))
    b = ctx.op('Transpose', [ctx.inputs[1]], perm=list(func.b_axes) + b_free)
    a = _ops.reshape(ctx, a, [a_rows, inner])
    b = _ops.reshape(ctx, b, [inner, b_cols])
    y = ctx.op('MatMul', [a, b])
    out_shape = [a_shape[i] for i in a_free] + [b_shape[i] for i in b_free]
    _ops.reshape(ctx, y, out_shape, out=ctx.outputs[0])


@converter(EinSum, opset=(12, None))
def convert_einsum(ctx: ConversionContext) -> None:
    equation = ','.join(ctx.func.in_subs) + '->' + ctx.func.out_sub
    ctx.op('Einsum', ctx.inputs, ctx.outputs[0], equation=equation)


@converter(FFT, opset=(17, None))
def convert_fft(ctx: ConversionContext) -> None:
    """``DFT`` of ``(real, imag)`` stacked on a new last axis, split back."""
    ndim = ctx.input_arrays[0].ndim
    parts = [_ops.unsqueeze(ctx, x, [ndim]) for x in ctx.inputs]
    signal = ctx.op('Concat', parts, axis=ndim)
    inverse = int(ctx.func.label == 'ifft')
    if ctx.opset >= 20:  # the axis became an input, whose default -2 is the signal's
        y = ctx.op('DFT', [signal], inverse=inverse)
    else:
        y = ctx.op('DFT', [signal], inverse=inverse, axis=ndim - 1)
    for part, out in zip(_ops.split(ctx, y, [1, 1], ndim), ctx.outputs):
        _ops.squeeze(ctx, part, [ndim], out=out)
