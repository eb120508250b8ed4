"""cuDNN kernels of ``convolution_2d``: the forward and the weight gradient.

The input gradient of a convolution is a ``deconvolution_2d``, whose kernel
(:mod:`.deconvolution_2d`) is cuDNN's backward-data convolution. The bias is
added to cuDNN's output with a broadcast add, as the generic code adds it.
See :mod:`._cudnn_conv` for how Chainer's parameters reach cuDNN and what
declines (``cover_all`` that changes the output size among others).
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _common
from catena_cuda.kernels.connection import _cudnn_conv

CONFIG_KEY = 'use_cudnn'


def convolution_2d(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Convolution2DFunction.forward`` on cuDNN, or Fallback."""
    x, W = inputs[:2]
    b = inputs[2] if len(inputs) == 3 else None
    y = _cudnn_conv.fprop(x, W, b, (node.sy, node.sx), (node.ph, node.pw),
                          (node.dy, node.dx), node.groups, node.cover_all)
    if y is Fallback:
        return Fallback
    node.retain_inputs((0, 1))
    _common.count('convolution_2d')
    return y,


def convolution_2d_grad_w(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``Convolution2DGradW.forward`` (inputs ``x``, ``gy``) on cuDNN, or Fallback."""
    x, gy = inputs
    gW = _cudnn_conv.wgrad(x, gy, (node.kh, node.kw), (node.sy, node.sx), (node.ph, node.pw),
                           (node.dy, node.dx), node.groups)
    if gW is Fallback:
        return Fallback
    node.retain_inputs((0, 1))
    _common.count('convolution_2d_grad_w')
    return gW,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.connection import convolution_2d as nodes

    return [(nodes.Convolution2DFunction, convolution_2d),
            (nodes.Convolution2DGradW, convolution_2d_grad_w)]
