"""cuDNN kernels of ``convolution_nd`` (1-d to 3-d): the forward and the weight gradient.

The same cuDNN graphs as :mod:`.convolution_2d`, on ``ConvolutionND`` and
``ConvolutionNDGradW``: a 1-d convolution runs as a 2-d one with a unit
axis, and four or more spatial axes decline. The input gradient is a
``deconvolution_nd`` (:mod:`.deconvolution_nd`).
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena_cuda.kernels import _common
from catena_cuda.kernels.connection import _cudnn_conv

CONFIG_KEY = 'use_cudnn'


def convolution_nd(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ConvolutionND.forward`` on cuDNN, or Fallback."""
    x, W = inputs[:2]
    b = inputs[2] if len(inputs) == 3 else None
    y = _cudnn_conv.fprop(x, W, b, node.stride, node.pad, node.dilate, node.groups,
                          node.cover_all)
    if y is Fallback:
        return Fallback
    node.retain_inputs((0, 1))
    _common.count('convolution_nd')
    return y,


def convolution_nd_grad_w(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``ConvolutionNDGradW.forward`` (inputs ``x``, ``gy``) on cuDNN, or Fallback."""
    x, gy = inputs
    gW = _cudnn_conv.wgrad(x, gy, node.ksize, node.stride, node.pad, node.dilate, node.groups)
    if gW is Fallback:
        return Fallback
    node.retain_inputs((0, 1))
    _common.count('convolution_nd_grad_w')
    return gW,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.connection import convolution_nd as nodes

    return [(nodes.ConvolutionND, convolution_nd),
            (nodes.ConvolutionNDGradW, convolution_nd_grad_w)]
