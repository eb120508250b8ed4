"""The Convolution2D link."""

from __future__ import annotations

from typing import Any

from catena import variable
from catena.functions.connection.convolution_2d import convolution_2d
from catena.links.connection import _conv_base


class Convolution2D(_conv_base._ConvolutionLinkBase):
    """Two-dimensional convolution layer: holds filters ``W`` and a bias ``b``
    and applies :func:`~catena.functions.convolution_2d`.

    ``Convolution2D(out_channels, ksize, ...)`` (no ``in_channels``) and
    ``in_channels=None`` defer the filters' shape to the first call, where
    the number of input channels is read from ``x.shape[1]``.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        ksize: The filter size, an int or a pair ``(kh, kw)``.
        stride: The stride, an int or a pair.
        pad: The zero padding, an int or a pair.
        nobias: If True, the link has no bias.
        initialW: The initializer of ``W`` (shape
            ``(out_channels, in_channels / groups, kh, kw)``); None means
            :class:`~catena.initializers.LeCunNormal`.
        initial_bias: The initializer of ``b`` (shape ``(out_channels,)``);
            None means zero.
        dilate: The dilation, an int or a pair.
        groups: The number of channel groups (it must divide both channel
            counts).

    Attributes:
        W (~catena.Parameter): The filters.
        b (~catena.Parameter): The bias, or None with ``nobias``.
    """

    def __init__(self, in_channels: int | None, out_channels: int, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, nobias: bool = False, initialW: Any = None,
                 initial_bias: Any = None, *, dilate: Any = 1, groups: int = 1) -> None:
        super().__init__()
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels  # type: ignore
        self._setup(2, in_channels, out_channels, ksize, stride, pad, nobias, initialW,
                    initial_bias, dilate, groups)

    @classmethod
    def from_params(cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0,
                    nobias: bool = False, *, dilate: Any = 1, groups: int = 1
                    ) -> Convolution2D:
        """Returns a Convolution2D whose parameters start as copies of ``W`` and ``b``.

        Args:
            W: Filters of shape ``(out_channels, in_channels / groups, kh, kw)``.
            b: A bias of shape ``(out_channels,)``, or None (zero).
            stride, pad, nobias, dilate, groups: As the constructor's.
        """
        if len(W.shape) != 4:
            raise ValueError(f'W must be 4-dimensional (out_channels, in_channels / groups, '
                             f'kh, kw); got W.shape={W.shape}')
        out_channels, in_per_group, kh, kw = W.shape
        if b is not None and nobias:
            raise ValueError('from_params got a bias b together with nobias=True')
        return cls(in_per_group * groups, out_channels, (kh, kw), stride, pad, nobias,
                   initialW=variable.as_array(W),
                   initial_bias=None if b is None else variable.as_array(b),
                   dilate=dilate, groups=groups)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the convolution to ``x`` of shape ``(n, c_in, h, w)``."""
        if self.W.array is None:
            self._prepare(x)
        return convolution_2d(x, self.W, self.b, self.stride, self.pad, dilate=self.dilate,
                              groups=self.groups)
