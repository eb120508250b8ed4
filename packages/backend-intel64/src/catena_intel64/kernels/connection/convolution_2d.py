"""oneDNN kernels of ``convolution_2d``: the forward and the weight gradient.

The input gradient of a convolution is a ``deconvolution_2d``, whose kernel
(:mod:`.deconvolution_2d`) is oneDNN's convolution backward-data primitive.

Geometry is Chainer's: ``x`` ``(n, c, h, w)``, ``W`` ``(c_out, c / groups,
kh, kw)``. oneDNN wants grouped weights as ``(groups, c_out / groups,
c / groups, kh, kw)``, which is the same memory. Chainer's ``cover_all`` and
any bottom/right remainder become oneDNN's right padding (negative when the
last window stops short of the border, as in ResNet's 1x1 stride-2
shortcuts), and its dilation ``d`` is oneDNN's ``d - 1``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy

from catena.backends import Fallback
from catena.functions.connection import _conv_core
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common


class Geometry(NamedTuple):
    """Everything that defines one 2-d convolution's primitives."""

    x_shape: tuple[int, ...]
    w_shape: tuple[int, ...]
    y_shape: tuple[int, ...]
    stride: tuple[int, int]
    pad_l: tuple[int, int]
    pad_r: tuple[int, int]
    dilate: tuple[int, int]
    groups: int
    bf16: bool

    @property
    def dnnl_w_shape(self) -> tuple[int, ...]:
        """The weight shape oneDNN is told: with a leading groups axis when grouped."""
        if self.groups == 1:
            return self.w_shape
        c_out, c_in = self.w_shape[:2]
        return (self.groups, c_out // self.groups, c_in) + self.w_shape[2:]


def geometry(node: Any, x_shape: tuple[int, ...], w_shape: tuple[int, ...],
             y_hw: tuple[int, ...]) -> Geometry:
    """The geometry of ``node``'s convolution from ``x`` to an output of size ``y_hw``.

    ``node`` has Chainer's attributes ``sy, sx, ph, pw, dy, dx, groups``.
    """
    stride = (node.sy, node.sx)
    pad = (node.ph, node.pw)
    dilate = (node.dy, node.dx)
    pad_r = tuple((out - 1) * s + (k - 1) * d + 1 - size - p for out, s, k, d, size, p
                  in zip(y_hw, stride, w_shape[2:], dilate, x_shape[2:], pad))
    y_shape = (x_shape[0], w_shape[0]) + tuple(y_hw)
    return Geometry(x_shape, w_shape, y_shape, stride, pad, pad_r,  # type: ignore[arg-type]
                    dilate, node.groups, _common.fpmath_bf16())


def forward_pd(g: Geometry, with_bias: bool) -> PrimitiveDesc:
    """The forward convolution's primitive descriptor (also the backward passes' hint).

    In bfloat16 mode the primitive reads bfloat16 copies of ``x`` and ``W``
    and accumulates and writes float32.
    """
    f32 = _common.FLOAT32
    bias = MemoryDesc.any((g.w_shape[0],), f32) if with_bias else None
    return PrimitiveDesc(
        'dnnl_convolution_forward_primitive_desc_create', _primitive.engine(),
        _capi.FORWARD_TRAINING, _capi.CONVOLUTION_DIRECT,
        MemoryDesc.any(g.x_shape, _common.compute_dtype(g.bf16)),
        MemoryDesc.any(g.dnnl_w_shape, _common.compute_dtype(g.bf16)), bias,
        MemoryDesc.any(g.y_shape, f32), *window(g), None)


def window(g: Geometry) -> tuple[Any, ...]:
    """oneDNN's strides, dilations (``d - 1``), left and right paddings of ``g``."""
    return (_capi.dims(g.stride), _capi.dims(d - 1 for d in g.dilate), _capi.dims(g.pad_l),
            _capi.dims(g.pad_r))


def _build_forward(g: Geometry, with_bias: bool) -> Operation:
    inputs: list[tuple[int, tuple[int, ...], _primitive.Query]] = [
        (_capi.ARG_SRC, g.x_shape, _capi.QUERY_SRC_MD),
        (_capi.ARG_WEIGHTS, g.dnnl_w_shape, _capi.QUERY_WEIGHTS_MD)]
    if with_bias:
        inputs.append((_capi.ARG_BIAS, (g.w_shape[0],), (_capi.QUERY_WEIGHTS_MD, 1)))
    return Operation('convolution_2d', forward_pd(g, with_bias), _common.FLOAT32, inputs,
                     [(_capi.ARG_DST, g.y_shape, _capi.QUERY_DST_MD)])


def convolution_2d(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Convolution2DFunction.forward`` on oneDNN, or Fallback."""
    x, W = inputs[:2]
    b = inputs[2] if len(inputs) == 3 else None
    if not _common.all_float32(x, W, b):
        return Fallback
    y_hw = _conv_core.conv_outsizes('convolution_2d', x.shape, W.shape, (node.sy, node.sx),
                                    (node.ph, node.pw), node.cover_all, (node.dy, node.dx))
    g = geometry(node, x.shape, W.shape, y_hw)
    operation = _primitive.cached(('convolution_2d', g, b is not None),
                                  lambda: _build_forward(g, b is not None))
    if operation is None:
        return Fallback
    y = numpy.empty(g.y_shape, _common.FLOAT32)
    arrays = (x, W) if b is None else (x, W, b)
    operation(*[_common.contiguous(a) for a in arrays], y)
    node.retain_inputs((0, 1))
    _common.mark(node, operation)
    return y,


def _build_grad_w(g: Geometry) -> Operation:
    f32 = _common.FLOAT32
    compute = _common.compute_dtype(g.bf16)
    pd = PrimitiveDesc(
        'dnnl_convolution_backward_weights_primitive_desc_create', _primitive.engine(),
        _capi.CONVOLUTION_DIRECT, MemoryDesc.any(g.x_shape, compute),
        MemoryDesc.any(g.dnnl_w_shape, f32), None, MemoryDesc.any(g.y_shape, compute),
        *window(g), forward_pd(g, False), None)
    return Operation('convolution_2d_grad_w', pd, f32,
                     [(_capi.ARG_SRC, g.x_shape, _capi.QUERY_SRC_MD),
                      (_capi.ARG_DIFF_DST, g.y_shape, _capi.QUERY_DIFF_DST_MD)],
                     [(_capi.ARG_DIFF_WEIGHTS, g.dnnl_w_shape, _capi.QUERY_DIFF_WEIGHTS_MD)])


def convolution_2d_grad_w(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Convolution2DGradW.forward`` (inputs ``x``, ``gy``) on oneDNN, or Fallback."""
    x, gy = inputs
    if not _common.all_float32(x, gy):
        return Fallback
    c_out = gy.shape[1]
    w_shape = (c_out, x.shape[1] // node.groups, node.kh, node.kw)
    g = geometry(node, x.shape, w_shape, gy.shape[2:])
    if g.y_shape != gy.shape:
        return Fallback
    operation = _primitive.cached(('convolution_2d_grad_w', g), lambda: _build_grad_w(g))
    if operation is None:
        return Fallback
    gW = numpy.empty(w_shape, _common.FLOAT32)
    operation(_common.contiguous(x), _common.contiguous(gy), gW)
    node.retain_inputs((0, 1))
    _common.mark(node, operation)
    return gW,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.connection import convolution_2d as nodes

    return [(nodes.Convolution2DFunction, convolution_2d),
            (nodes.Convolution2DGradW, convolution_2d_grad_w)]
