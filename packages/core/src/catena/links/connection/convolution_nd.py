"""The ConvolutionND link and its 1-d and 3-d forms."""

from __future__ import annotations

from typing import Any

from catena import variable
from catena.functions.connection.convolution_nd import convolution_nd
from catena.links.connection import _conv_base
from catena.utils import _validate


class ConvolutionND(_conv_base._ConvolutionLinkBase):
    """N-dimensional convolution layer: holds filters ``W`` and a bias ``b`` and
    applies :func:`~catena.functions.convolution_nd`.

    ``ConvolutionND(ndim, out_channels, ksize)`` (no ``in_channels``) and
    ``in_channels=None`` defer the filters' shape to the first call.

    Args:
        ndim: The number of spatial axes.
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size, an int or ``ndim`` ints.
        stride: The stride, an int or ``ndim`` ints.
        pad: The zero padding, an int or ``ndim`` ints.
        nobias: If True, the link has no bias.
        initialW: The initializer of ``W`` (shape
            ``(out_channels, in_channels / groups, k_1, ..., k_N)``); None
            means :class:`~catena.initializers.LeCunNormal`.
        initial_bias: The initializer of ``b``; None means zero.
        cover_all: Add windows so that every input element is covered.
        dilate: The dilation, an int or ``ndim`` ints.
        groups: The number of channel groups.

    Attributes:
        W (~catena.Parameter): The filters.
        b (~catena.Parameter): The bias, or None with ``nobias``.
    """

    def __init__(self, ndim: int, in_channels: int | None, out_channels: int,
                 ksize: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None, cover_all: bool = False,
                 dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        ndim = _validate.integer(type(self).__name__, 'ndim', ndim, 1)
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels  # type: ignore
        self.cover_all = cover_all
        self._setup(ndim, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                    initial_bias, dilate, groups)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, cover_all: bool = False, dilate: Any = 1,
                    groups: int = 1) -> ConvolutionND:
        """Returns a ConvolutionND whose parameters start as copies of ``W`` and ``b``.

        The number of spatial axes is ``W.ndim - 2``.

        Args:
            W: Filters of shape ``(out_channels, in_channels / groups, k_1, ..., k_N)``.
            b: A bias of shape ``(out_channels,)``, or None (zero).
            stride, pad, nobias, cover_all, dilate, groups: As the constructor's.
        """
        if len(W.shape) < 3:
            raise ValueError(f'W must have at least 3 axes (out_channels, '
                             f'in_channels / groups, k_1, ...); got W.shape={W.shape}')
        if b is not None and nobias:
            raise ValueError('from_params got a bias b together with nobias=True')
        out_channels, in_per_group = W.shape[:2]
        return cls(len(W.shape) - 2, in_per_group * groups, out_channels, tuple(W.shape[2:]),
                   stride, pad, nobias, initialW=variable.as_array(W),
                   initial_bias=None if b is None else variable.as_array(b),
                   cover_all=cover_all, dilate=dilate, groups=groups)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the convolution to ``x`` of shape ``(n, c_in, d_1, ..., d_N)``."""
        if self.W.array is None:
            self._prepare(x)
        return convolution_nd(x, self.W, self.b, self.stride, self.pad,
                              cover_all=self.cover_all, dilate=self.dilate, groups=self.groups)


class Convolution1D(ConvolutionND):
    """1-d convolution layer: :class:`ConvolutionND` with ``ndim=1``."""

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None, cover_all: bool = False, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__(1, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                         initial_bias, cover_all, dilate, groups)


class Convolution3D(ConvolutionND):
    """3-d convolution layer: :class:`ConvolutionND` with ``ndim=3``."""

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None, cover_all: bool = False, dilate: Any = 1,
                 groups: int = 1) -> None:
        super().__init__(3, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                         initial_bias, cover_all, dilate, groups)
