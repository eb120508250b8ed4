"""oneDNN kernel of ``deconvolution_2d`` (and so of every convolution's input gradient).

A deconvolution of ``x`` ``(n, c_in, h, w)`` with ``W`` ``(c_in, c_out /
groups, kh, kw)`` is the backward-data pass of the convolution that maps its
output ``(n, c_out, oh, ow)`` back to ``x`` with the same ``W`` (whose
layout, ``(c_in, c_out / groups, ...)``, is that convolution's ``(c_out,
c_in / groups, ...)``). That is the primitive used here.
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.backends import Fallback
from catena.functions.connection import _conv_core
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import MemoryDesc, Operation, PrimitiveDesc
from catena_intel64.kernels import _common
from catena_intel64.kernels.connection import convolution_2d as _conv


def _build(g: _conv.Geometry) -> Operation:
    f32 = _common.FLOAT32
    compute = _common.compute_dtype(g.bf16)
    pd = PrimitiveDesc(
        'dnnl_convolution_backward_data_primitive_desc_create', _primitive.engine(),
        _capi.CONVOLUTION_DIRECT, MemoryDesc.any(g.x_shape, f32),
        MemoryDesc.any(g.dnnl_w_shape, compute), MemoryDesc.any(g.y_shape, compute),
        *_conv.window(g), _conv.forward_pd(g, False), None)
    return Operation('deconvolution_2d', pd, f32,
                     [(_capi.ARG_DIFF_DST, g.y_shape, _capi.QUERY_DIFF_DST_MD),
                      (_capi.ARG_WEIGHTS, g.dnnl_w_shape, _capi.QUERY_WEIGHTS_MD)],
                     [(_capi.ARG_DIFF_SRC, g.x_shape, _capi.QUERY_DIFF_SRC_MD)])


def deconvolution_2d(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Deconvolution2DFunction.forward`` on oneDNN, or Fallback."""
    x, W = inputs[:2]
    b = inputs[2] if len(inputs) == 3 else None
    if not _common.all_float32(x, W, b):
        return Fallback
    outsize = None if node.outh is None else (node.outh, node.outw)
    out_hw, node.cover_all = _conv_core.deconv_outsizes(
        'deconvolution_2d', x.shape, W.shape, (node.sy, node.sx), (node.ph, node.pw),
        outsize, (node.dy, node.dx))
    y_shape = (x.shape[0], W.shape[1] * node.groups) + tuple(out_hw)
    g = _conv.geometry(node, y_shape, W.shape, x.shape[2:])
    if g.y_shape != x.shape:
        return Fallback
    operation = _primitive.cached(('deconvolution_2d', g), lambda: _build(g))
    if operation is None:
        return Fallback
    y = numpy.empty(y_shape, _common.FLOAT32)
    operation(_common.contiguous(x), _common.contiguous(W), y)
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    node.retain_inputs((0, 1))
    _common.mark(node, operation)
    return y,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.connection import deconvolution_2d as nodes

    return [(nodes.Deconvolution2DFunction, deconvolution_2d)]
