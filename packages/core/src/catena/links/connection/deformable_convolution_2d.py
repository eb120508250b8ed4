"""The DeformableConvolution2D link and its sampler link."""

from __future__ import annotations

from typing import Any

from catena import initializers, variable
from catena.functions.connection.deformable_convolution_2d_sampler import (
    deformable_convolution_2d_sampler,
)
from catena.link import Chain
from catena.links.connection import _conv_base, _util
from catena.links.connection.convolution_2d import Convolution2D


class DeformableConvolution2DSampler(_conv_base._ConvolutionLinkBase):
    """The convolution half of :class:`DeformableConvolution2D`: holds filters
    ``W`` and a bias ``b`` and applies
    :func:`~catena.functions.deformable_convolution_2d_sampler` with the
    offsets it is given.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size, an int or a pair.
        stride: The stride, an int or a pair.
        pad: The zero padding, an int or a pair.
        nobias: If True, the link has no bias.
        initialW: The initializer of ``W``; None means zero (as in
            Chainer: the layer starts as its bias alone).
        initial_bias: The initializer of ``b``; None means zero.
    """

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        if initialW is None:
            initialW = initializers.Zero()
        self._setup(2, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                    initial_bias, 1, 1)

    def forward(self, x: Any, offset: Any) -> variable.Variable:
        """Applies the deformable convolution to ``x`` with the sampling ``offset``."""
        if self.W.array is None:
            self._prepare(x)
        return deformable_convolution_2d_sampler(x, offset, self.W, self.b, self.stride,
                                                 self.pad)


class DeformableConvolution2D(Chain):
    """Two-dimensional deformable convolution layer (`Dai et al., 2017
    <https://arxiv.org/abs/1703.06211>`_): a :class:`Convolution2D`
    (``offset_conv``) computes ``2 kh kw`` sampling offsets per output
    position from the input, and a :class:`DeformableConvolution2DSampler`
    (``deform_conv``) convolves the input sampled at the offset positions.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size, an int or a pair.
        stride: The stride, an int or a pair.
        pad: The zero padding, an int or a pair.
        offset_nobias: If True, the offset convolution has no bias.
        offset_initialW: The initializer of ``offset_conv.W``.
        offset_initial_bias: The initializer of ``offset_conv.b``.
        deform_nobias: If True, the deformable convolution has no bias.
        deform_initialW: The initializer of ``deform_conv.W`` (None: zero).
        deform_initial_bias: The initializer of ``deform_conv.b``.
    """

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, offset_nobias: bool = False,
                 offset_initialW: Any = None, offset_initial_bias: Any = None,
                 deform_nobias: bool = False, deform_initialW: Any = None,
                 deform_initial_bias: Any = None) -> None:
        super().__init__()
        who = 'DeformableConvolution2D'
        _util.channels(who, 'in_channels', in_channels, optional=True)
        _util.channels(who, 'out_channels', out_channels)
        kh, kw = _util.as_tuple(ksize, 2, 'ksize', who=who)
        _util.as_tuple(stride, 2, 'stride', who=who)
        _util.as_tuple(pad, 2, 'pad', 0, who=who)
        with self.init_scope():
            self.offset_conv = Convolution2D(in_channels, 2 * kh * kw, (kh, kw), stride, pad,
                                             offset_nobias, offset_initialW,
                                             offset_initial_bias)
            self.deform_conv = DeformableConvolution2DSampler(
                in_channels, out_channels, (kh, kw), stride, pad, deform_nobias,
                deform_initialW, deform_initial_bias)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the layer to ``x`` of shape ``(n, c_in, h, w)``."""
        return self.deform_conv(x, self.offset_conv(x))
