"""cuDNN kernel of ``deconvolution_nd`` (1-d to 3-d): cuDNN's backward-data convolution.

The n-d counterpart of :mod:`.deconvolution_2d`; it also computes the input
gradient of every ``convolution_nd``.
"""

from __future__ import annotations

from typing import Any

from catena.backends import Fallback
from catena.functions.connection import _conv_core
from catena_cuda.kernels import _common
from catena_cuda.kernels.connection import _cudnn_conv

CONFIG_KEY = 'use_cudnn'


def deconvolution_nd(node: Any, inputs: tuple[Any, ...]) -> Any:
    """``DeconvolutionND.forward`` on cuDNN, or Fallback."""
    x, W = inputs[:2]
    b = inputs[2] if len(inputs) == 3 else None
    # The generic forward's own check: it raises the same error on a bad outsize.
    outs, cover_all = _conv_core.deconv_outsizes(
        f'deconvolution_{node.ndim}d', x.shape, W.shape, node.stride, node.pad, node.outs,
        node.dilate)
    if cover_all:
        return Fallback
    y = _cudnn_conv.dgrad(x, W, b, node.stride, node.pad, node.dilate, node.groups, outs)
    if y is Fallback:
        return Fallback
    node.cover_all = cover_all
    node.retain_inputs((0, 1))
    _common.count('deconvolution_nd')
    return y,


def registrations() -> list[tuple[type, Any]]:
    """The kernels of this module, by the FunctionNode class they implement."""
    from catena.functions.connection import deconvolution_nd as nodes

    return [(nodes.DeconvolutionND, deconvolution_nd)]
