"""The Deconvolution2D link."""

from __future__ import annotations

from typing import Any

from catena import variable
from catena.functions.connection.deconvolution_2d import deconvolution_2d
from catena.links.connection import _conv_base, _util


class Deconvolution2D(_conv_base._ConvolutionLinkBase):
    """Two-dimensional deconvolution (transposed convolution) layer: holds
    filters ``W`` and a bias ``b`` and applies
    :func:`~catena.functions.deconvolution_2d`.

    ``Deconvolution2D(out_channels, ksize, ...)`` (no ``in_channels``) and
    ``in_channels=None`` defer the filters' shape to the first call.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size, an int or a pair.
        stride: The stride, an int or a pair.
        pad: The padding cropped from the output, an int or a pair.
        nobias: If True, the link has no bias.
        outsize: The output size ``(out_h, out_w)``, or None for the
            smallest one.
        initialW: The initializer of ``W`` (shape
            ``(in_channels, out_channels / groups, kh, kw)``); None means
            :class:`~catena.initializers.LeCunNormal`.
        initial_bias: The initializer of ``b``; None means zero.
        dilate: The dilation, an int or a pair.
        groups: The number of channel groups.

    Attributes:
        W (~catena.Parameter): The filters.
        b (~catena.Parameter): The bias, or None with ``nobias``.
    """

    _transposed = True

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, outsize: Any = None,
                 initialW: Any = None, initial_bias: Any = None, *, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__()
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels  # type: ignore
        self.outsize = None if outsize is None else \
            _util.outsize(type(self).__name__, outsize, 2)
        self._setup(2, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                    initial_bias, dilate, groups)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the deconvolution to ``x`` of shape ``(n, c_in, h, w)``."""
        if self.W.array is None:
            self._prepare(x)
        return deconvolution_2d(x, self.W, self.b, self.stride, self.pad, self.outsize,
                                dilate=self.dilate, groups=self.groups)
