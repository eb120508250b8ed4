"""oneDNN kernels of ``average_pooling_2d``: the forward and its gradient.

Chainer's average pooling counts the padding as zeros and always divides by
``kh * kw``, also in the windows that ``cover_all`` adds past the padded
image: that is oneDNN's ``pooling_avg_include_padding`` with the geometry
of :func:`.max_pooling_2d.window` (``cover_all`` as right padding, unread
bottom rows and right columns cut off).
"""

from __future__ import annotations

from typing import Any

import numpy

from catena.backends import Fallback
from catena_intel64 import _capi, _primitive
from catena_intel64._primitive import Operation
from catena_intel64.kernels import _common
from catena_intel64.kernels.pooling import max_pooling_2d as pooling

_ALGORITHM = _capi.POOLING_AVG_INCLUDE_PADDING


def _build_forward(w: pooling.Window) -> Operation:
    return Operation('average_pooling_2d',
                     pooling.forward_pd(w, _ALGORITHM, _capi.FORWARD_INFERENCE), _common.FLOAT32,
                     [(_capi.ARG_SRC, w.src_shape, _capi.QUERY_SRC_MD)],
                     [(_capi.ARG_DST, w.y_shape, _capi.QUERY_DST_MD)])


def average_pooling_2d(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``AveragePooling2D.forward`` on oneDNN, or Fallback."""
    x, = inputs
    if not _common.all_float32(x) or pooling.small(x.shape):
        return Fallback
    w = pooling.window(node, x.shape)
    if w is None:
        return Fallback
    operation = _primitive.cached(('average_pooling_2d', w), lambda: _build_forward(w))
    if operation is None:
        return Fallback
    y = numpy.empty(w.y_shape, _common.FLOAT32)
    operation(pooling.source(x, w), y)
    node._in_shape = x.shape
    node._in_dtype = x.dtype
    _common.mark(node, operation)
    return y,


def _build_backward(w: pooling.Window) -> Operation:
    return Operation('average_pooling_2d_grad', pooling.backward_pd(w, _ALGORITHM),
                     _common.FLOAT32,
                     [(_capi.ARG_DIFF_DST, w.y_shape, _capi.QUERY_DIFF_DST_MD)],
                     [(_capi.ARG_DIFF_SRC, w.src_shape, _capi.QUERY_DIFF_SRC_MD)])


def average_pooling_2d_grad(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``AveragePooling2DGrad.forward`` (input ``gy``) on oneDNN, or Fallback."""
    gy, = inputs
    if not _common.all_float32(gy):
        return Fallback
    w = pooling.window(node, node._in_shape)
    if w is None or w.y_shape != gy.shape or pooling.small(w.x_shape):
        return Fallback
    operation = _primitive.cached(('average_pooling_2d_grad', w), lambda: _build_backward(w))
    if operation is None:
        return Fallback
    gx = numpy.empty(w.src_shape, _common.FLOAT32)
    operation(_common.contiguous(gy), gx)
    _common.mark(node, operation)
    return pooling.untrim(gx, w),


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.pooling import average_pooling_2d as nodes

    return [(nodes.AveragePooling2D, average_pooling_2d),
            (nodes.AveragePooling2DGrad, average_pooling_2d_grad)]
