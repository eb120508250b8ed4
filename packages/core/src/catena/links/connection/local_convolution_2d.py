"""The LocalConvolution2D link (an unshared convolution)."""

from __future__ import annotations

from typing import Any

from catena import link, variable
from catena.functions.connection.local_convolution_2d import local_convolution_2d
from catena.links.connection import _util
from catena.utils import conv


class LocalConvolution2D(link.Link):
    """Two-dimensional locally connected layer: applies
    :func:`~catena.functions.local_convolution_2d`, a convolution without
    padding whose filters differ at every output position.

    The parameters' shapes depend on the input's spatial size; with
    ``in_channels`` or ``in_size`` None they are set at the first call.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The number of output channels.
        in_size: The input's spatial size, an int or a pair ``(h, w)``, or
            None to infer it.
        ksize: The filter size, an int or a pair.
        stride: The stride, an int or a pair.
        nobias: If True, the link has no bias.
        initialW: The initializer of ``W`` (shape
            ``(out_channels, out_h, out_w, in_channels, kh, kw)``); None
            means :class:`~catena.initializers.LeCunNormal`.
        initial_bias: The initializer of ``b`` (shape
            ``(out_channels, out_h, out_w)``); None means zero.

    Attributes:
        W (~catena.Parameter): The filters.
        b (~catena.Parameter): The bias, or None with ``nobias``.
    """

    def __init__(self, in_channels: int | None, out_channels: int, in_size: Any = None,
                 ksize: Any = None, stride: Any = 1, nobias: bool = False,
                 initialW: Any = None, initial_bias: Any = None) -> None:
        super().__init__()
        who = 'LocalConvolution2D'
        in_channels = _util.channels(who, 'in_channels', in_channels, optional=True)
        self.out_channels = _util.channels(who, 'out_channels', out_channels)
        self.ksize = _util.as_tuple(ksize, 2, 'ksize', who=who)
        self.stride = _util.as_tuple(stride, 2, 'stride', who=who)
        self.nobias = nobias
        with self.init_scope():
            self.W = variable.Parameter(_util.get_initializer(initialW, who=who))
            self.b = None if nobias else \
                variable.Parameter(_util.get_bias_initializer(initial_bias, who))
        if in_size is not None:
            in_size = _util.as_tuple(in_size, 2, 'in_size', who=who)
            if in_channels is not None:
                self._initialize_params(in_channels, in_size)

    def _initialize_params(self, in_channels: int, in_size: tuple[int, ...]) -> None:
        out_size = tuple(conv.get_conv_outsize(size, k, s, 0)
                         for size, k, s in zip(in_size, self.ksize, self.stride))
        if any(o < 1 for o in out_size):
            raise ValueError(f'LocalConvolution2D: the input size {tuple(in_size)} is smaller '
                             f'than the filter size {self.ksize}')
        who = type(self).__name__
        _util.initialize(who, 'initialW', self.W,
                         (self.out_channels,) + out_size + (in_channels,) + self.ksize)
        if self.b is not None:
            _util.initialize(who, 'initial_bias', self.b, (self.out_channels,) + out_size)

    def forward(self, x: Any) -> variable.Variable:
        """Applies the layer to ``x`` of shape ``(n, c_in, h, w)``."""
        if self.W.array is None:
            in_channels = _util.check_channels(type(self).__name__, x, 2, None)
            self._initialize_params(in_channels, tuple(int(s) for s in x.shape[2:]))
        return local_convolution_2d(x, self.W, self.b, self.stride)
