"""The DepthwiseConvolution2D link."""

from __future__ import annotations

from typing import Any

from catena import link, variable
from catena.functions.connection.depthwise_convolution_2d import depthwise_convolution_2d
from catena.links.connection import _util


class DepthwiseConvolution2D(link.Link):
    """Two-dimensional depthwise convolution layer: applies
    :func:`~catena.functions.depthwise_convolution_2d`, convolving each input
    channel with its own ``channel_multiplier`` filters.

    With ``in_channels=None`` the parameters get their shapes at the first
    call.

    Args:
        in_channels: The number of input channels, or None to infer it.
        channel_multiplier: The number of filters per input channel.
        ksize: The filter size, an int or a pair.
        stride: The stride, an int or a pair.
        pad: The zero padding, an int or a pair.
        nobias: If True, the link has no bias.
        initialW: The initializer of ``W`` (shape
            ``(channel_multiplier, in_channels, kh, kw)``); None means
            :class:`~catena.initializers.LeCunNormal`.
        initial_bias: The initializer of ``b`` (shape
            ``(in_channels * channel_multiplier,)``); None means zero.

    Attributes:
        W (~catena.Parameter): The filters.
        b (~catena.Parameter): The bias, or None with ``nobias``.
    """

    def __init__(self, in_channels: int | None, channel_multiplier: int, ksize: Any,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        who = 'DepthwiseConvolution2D'
        in_channels = _util.channels(who, 'in_channels', in_channels, optional=True)
        channel_multiplier = _util.channels(who, 'channel_multiplier', channel_multiplier)
        self.ksize = _util.as_tuple(ksize, 2, 'ksize', who=who)
        self.stride = _util.as_tuple(stride, 2, 'stride', who=who)
        self.pad = _util.as_tuple(pad, 2, 'pad', 0, who=who)
        self.channel_multiplier = channel_multiplier
        self.in_channels = in_channels
        self.nobias = nobias
        with self.init_scope():
            self.W = variable.Parameter(_util.get_initializer(initialW, who=who))
            self.b = None if nobias else \
                variable.Parameter(_util.get_bias_initializer(initial_bias, who))
        if in_channels is not None:
            self._initialize_params(in_channels)

    def _initialize_params(self, in_channels: int) -> None:
        who = type(self).__name__
        _util.initialize(who, 'initialW', self.W,
                         (self.channel_multiplier, in_channels) + self.ksize)
        if self.b is not None:
            _util.initialize(who, 'initial_bias', self.b,
                             (in_channels * self.channel_multiplier,))
        self.in_channels = in_channels

    def forward(self, x: Any) -> variable.Variable:
        """Applies the depthwise convolution to ``x`` of shape ``(n, c_in, h, w)``."""
        if self.W.array is None:
            self._initialize_params(
                _util.check_channels(type(self).__name__, x, 2, None))
        return depthwise_convolution_2d(x, self.W, self.b, self.stride, self.pad)
