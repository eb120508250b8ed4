"""The DeconvolutionND link and its 1-d and 3-d forms."""

from __future__ import annotations

from typing import Any

from catena import variable
from catena.functions.connection.deconvolution_nd import deconvolution_nd
from catena.links.connection import _conv_base, _util
from catena.utils import _validate


class DeconvolutionND(_conv_base._ConvolutionLinkBase):
    """N-dimensional deconvolution (transposed convolution) layer: holds filters
    ``W`` and a bias ``b`` and applies :func:`~catena.functions.deconvolution_nd`.

    ``DeconvolutionND(ndim, out_channels, ksize)`` (no ``in_channels``) and
    ``in_channels=None`` defer the filters' shape to the first call.

    Args:
        ndim: The number of spatial axes.
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size, an int or ``ndim`` ints.
        stride: The stride, an int or ``ndim`` ints.
        pad: The padding cropped from the output, an int or ``ndim`` ints.
        nobias: If True, the link has no bias.
        outsize: The output's spatial shape (``ndim`` ints), or None for the
            smallest one.
        initialW: The initializer of ``W`` (shape
            ``(in_channels, out_channels / groups, k_1, ..., k_N)``); None
            means :class:`~catena.initializers.LeCunNormal`.
        initial_bias: The initializer of ``b``; None means zero.
        dilate: The dilation, an int or ``ndim`` ints.
        groups: The number of channel groups.

    Attributes:
        W (~catena.Parameter): The filters.
        b (~catena.Parameter): The bias, or None with ``nobias``.
    """

    _transposed = True

    def __init__(self, ndim: int, in_channels: int | None, out_channels: int,
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 outsize: Any = None, initialW: Any = None, initial_bias: Any = None,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        ndim = _validate.integer(type(self).__name__, 'ndim', ndim, 1)
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels  # type: ignore
        self.outsize = None if outsize is None else \
            _util.outsize(type(self).__name__, outsize, ndim)
        self._setup(ndim, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                    initial_bias, dilate, groups)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the deconvolution to ``x`` of shape ``(n, c_in, d_1, ..., d_N)``."""
        if self.W.array is None:
            self._prepare(x)
        return deconvolution_nd(x, self.W, self.b, self.stride, self.pad,
                                outsize=self.outsize, dilate=self.dilate, groups=self.groups)


class Deconvolution1D(DeconvolutionND):
    """1-d deconvolution layer: :class:`DeconvolutionND` with ``ndim=1``."""

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, outsize: Any = None,
                 initialW: Any = None, initial_bias: Any = None, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                         initialW, initial_bias, dilate, groups)


class Deconvolution3D(DeconvolutionND):
    """3-d deconvolution layer: :class:`DeconvolutionND` with ``ndim=3``."""

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, outsize: Any = None,
                 initialW: Any = None, initial_bias: Any = None, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, outsize,
                         initialW, initial_bias, dilate, groups)
