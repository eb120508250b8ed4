"""cuDNN kernel of ``deconvolution_2d``: cuDNN's backward-data convolution.

It also computes every convolution's input gradient, which the core
expresses as a ``deconvolution_2d``. The deconvolution's gradients are a
``convolution_2d`` and a ``Convolution2DGradW`` (see :mod:`.convolution_2d`),
so there is no other node to cover. An ``outsize`` that the matching
convolution reaches only with ``cover_all`` declines.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.functions.connection import _conv_core
from catena_cuda.kernels import _common
from catena_cuda.kernels.connection import _cudnn_conv

CONFIG_KEY = 'use_cudnn'


def deconvolution_2d(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Deconvolution2DFunction.forward`` on cuDNN, or Fallback."""
    x, W = inputs[:2]
    b = inputs[2] if len(inputs) == 3 else None
    stride, pad, dilate = (node.sy, node.sx), (node.ph, node.pw), (node.dy, node.dx)
    outsize = None if node.outh is None else (node.outh, node.outw)
    # The generic forward's own check: it raises the same error on a bad outsize.
    outs, cover_all = _conv_core.deconv_outsizes('deconvolution_2d', x.shape, W.shape, stride,
                                                 pad, outsize, dilate)
    if cover_all:
        return Fallback
    y = _cudnn_conv.dgrad(x, W, b, stride, pad, dilate, node.groups, outs)
    if y is Fallback:
        return Fallback
    node.cover_all = cover_all
    node.retain_inputs((0, 1))
    _common.count('deconvolution_2d')
    return y,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.connection import deconvolution_2d as nodes

    return [(nodes.Deconvolution2DFunction, deconvolution_2d)]
