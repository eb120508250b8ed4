"""The Inception link (GoogLeNet's inception module)."""

from __future__ import annotations

from typing import Any

from catena import link, variable
from catena.functions.activation.relu import relu
from catena.functions.array.concat import concat
from catena.functions.pooling.max_pooling_2d import max_pooling_2d
from catena.links.connection import _util
from catena.links.connection.convolution_2d import Convolution2D


class Inception(link.Chain):
    """Inception module of GoogLeNet (`Szegedy et al., 2014
    <https://arxiv.org/abs/1409.4842>`_): four parallel paths (1x1; 1x1 then
    3x3; 1x1 then 5x5; 3x3 max pooling then 1x1) whose outputs are
    concatenated along the channels, then passed through ReLU.

    Args:
        in_channels: The number of input channels, or None to infer it.
        out1: The output channels of the 1x1 path.
        proj3: The channels of the 1x1 projection before the 3x3 convolution.
        out3: The output channels of the 3x3 path.
        proj5: The channels of the 1x1 projection before the 5x5 convolution.
        out5: The output channels of the 5x5 path.
        proj_pool: The output channels of the 1x1 projection after pooling.
        conv_init: The initializer of the filters; None means the
            Convolution2D default.
        bias_init: The initializer of the biases; None means zero.
    """

    def __init__(self, in_channels: int | None, out1: int, proj3: int, out3: int, proj5: int,
                 out5: int, proj_pool: int, conv_init: Any = None,
                 bias_init: Any = None) -> None:
        super().__init__()
        _util.channels('Inception', 'in_channels', in_channels, optional=True)
        for name, value in (('out1', out1), ('proj3', proj3), ('out3', out3), ('proj5', proj5),
                            ('out5', out5), ('proj_pool', proj_pool)):
            _util.channels('Inception', name, value)
        init = {'initialW': conv_init, 'initial_bias': bias_init}
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, out1, 1, **init)
            self.proj3 = Convolution2D(in_channels, proj3, 1, **init)
            self.conv3 = Convolution2D(proj3, out3, 3, pad=1, **init)
            self.proj5 = Convolution2D(in_channels, proj5, 1, **init)
            self.conv5 = Convolution2D(proj5, out5, 5, pad=2, **init)
            self.projp = Convolution2D(in_channels, proj_pool, 1, **init)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the module's output, ``(n, out1 + out3 + out5 + proj_pool, h, w)``."""
        out1 = self.conv1(x)
        out3 = self.conv3(relu(self.proj3(x)))
        out5 = self.conv5(relu(self.proj5(x)))
        pool = self.projp(max_pooling_2d(x, 3, stride=1, pad=1))
        return relu(concat((out1, out3, out5, pool), axis=1))
