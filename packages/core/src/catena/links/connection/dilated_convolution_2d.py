"""The DilatedConvolution2D link."""

from __future__ import annotations

from typing import Any

from catena import variable
from catena.functions.connection.dilated_convolution_2d import dilated_convolution_2d
from catena.links.connection import _conv_base


class DilatedConvolution2D(_conv_base._ConvolutionLinkBase):
    """Two-dimensional dilated convolution layer: applies
    :func:`~catena.functions.dilated_convolution_2d` with filters ``W`` and a
    bias ``b`` (the same as :class:`Convolution2D` with ``dilate``).

    ``DilatedConvolution2D(out_channels, ksize, ...)`` and
    ``in_channels=None`` defer the filters' shape to the first call.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size, an int or a pair.
        stride: The stride, an int or a pair.
        pad: The zero padding, an int or a pair.
        dilate: The dilation, an int or a pair.
        nobias: If True, the link has no bias.
        initialW: The initializer of ``W`` (shape
            ``(out_channels, in_channels, kh, kw)``); None means
            :class:`~catena.initializers.LeCunNormal`.
        initial_bias: The initializer of ``b``; None means zero.

    Attributes:
        W (~catena.Parameter): The filters.
        b (~catena.Parameter): The bias, or None with ``nobias``.
    """

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, dilate: Any = 1, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels  # type: ignore
        self._setup(2, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                    initial_bias, dilate, 1)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the dilated convolution to ``x`` of shape ``(n, c_in, h, w)``."""
        if self.W.array is None:
            self._prepare(x)
        return dilated_convolution_2d(x, self.W, self.b, self.stride, self.pad, self.dilate)
