"""The MLPConvolution2D link (a network-in-network layer)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from catena import link, variable
from catena.functions.activation.relu import relu
from catena.links.connection import _util
from catena.links.connection.convolution_2d import Convolution2D
from catena.utils import _validate, argument


class MLPConvolution2D(link.ChainList):
    """Two-dimensional MLP convolution layer (`Network in Network
    <https://arxiv.org/abs/1312.4400>`_): a convolution followed by 1x1
    convolutions, with ``activation`` between them (not after the last).

    ``MLPConvolution2D(out_channels, ksize, ...)`` (no ``in_channels``) and
    ``in_channels=None`` defer the first convolution's shape to the first call.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out_channels: The output channels of each convolution (a sequence;
            its length is the number of convolutions).
        ksize: The filter size of the first convolution.
        stride: The stride of the first convolution.
        pad: The padding of the first convolution.
        activation: The activation applied after every convolution but the
            last.
        conv_init: The initializer of the filters; None means the
            Convolution2D default.
        bias_init: The initializer of the biases; None means zero.

    Raises:
        ValueError: For ``wscale`` (Chainer v1's argument) or an empty
            ``out_channels``.
        TypeError: If ``out_channels`` is not a sequence.
    """

    def __init__(self, in_channels: int | None, out_channels: Any, ksize: Any = None,
                 stride: Any = 1, pad: Any = 0, activation: Callable[[Any], Any] = relu,
                 conv_init: Any = None, bias_init: Any = None, **kwargs: Any) -> None:
        argument.parse_kwargs(kwargs, wscale='MLPConvolution2D: wscale is not supported '
                                             'anymore; use conv_init and bias_init')
        if ksize is None:
            in_channels, out_channels, ksize = None, in_channels, out_channels
        who = 'MLPConvolution2D'
        words = f'{who}: out_channels must be a non-empty sequence of positive ints; got '
        if not isinstance(out_channels, Sequence) or isinstance(out_channels, (str, bytes)) or \
                not all(_validate.is_int(n) for n in out_channels):
            raise TypeError(words + _validate.show(out_channels))
        if len(out_channels) == 0 or any(n < 1 for n in out_channels):
            raise ValueError(words + _validate.show(out_channels))
        _util.channels(who, 'in_channels', in_channels, optional=True)
        _util.as_tuple(ksize, 2, 'ksize', who=who)
        _util.as_tuple(stride, 2, 'stride', who=who)
        _util.as_tuple(pad, 2, 'pad', 0, who=who)
        _validate.function(who, 'activation', activation)
        convs = [Convolution2D(in_channels, out_channels[0], ksize, stride, pad,
                               initialW=conv_init, initial_bias=bias_init)]
        for n_in, n_out in zip(out_channels, out_channels[1:]):
            convs.append(Convolution2D(n_in, n_out, 1, initialW=conv_init,
                                       initial_bias=bias_init))
        super().__init__(*convs)
        self.activation = activation

    def forward(self, x: Any) -> variable.Variable:
        """Applies the convolutions to ``x`` of shape ``(n, c_in, h, w)``."""
        for conv in self[:-1]:
            x = self.activation(conv(x))
        return self[-1](x)
