"""The InceptionBN link (the batch-normalized inception module)."""

from __future__ import annotations

from typing import Any

from catena import link, variable
from catena.functions.activation.relu import relu
from catena.functions.array.concat import concat
from catena.functions.pooling.average_pooling_2d import average_pooling_2d
from catena.functions.pooling.max_pooling_2d import max_pooling_2d
from catena.links.connection import _util
from catena.links.connection.convolution_2d import Convolution2D
from catena.links.normalization.batch_normalization import BatchNormalization
from catena.utils import _validate


class InceptionBN(link.Chain):
    """Inception module with batch normalization (`Ioffe and Szegedy, 2015
    <https://arxiv.org/abs/1502.03167>`_). Paths, each convolution followed by
    :class:`~catena.links.BatchNormalization` and ReLU: an optional 1x1
    convolution; 1x1 then 3x3; 1x1 then two 3x3; and 3x3 pooling
    (``'max'`` or ``'avg'``) optionally followed by a 1x1 projection. The
    outputs are concatenated along the channels. With ``stride`` > 1 the
    1x1 path must be off (``out1 == 0``).

    Args:
        in_channels: The number of input channels, or None to infer it.
        out1: The output channels of the 1x1 path (0: no such path).
        proj3: The channels of the projection before the 3x3 convolution.
        out3: The output channels of the 3x3 path.
        proj33: The channels of the projection before the double 3x3 path.
        out33: The output channels of the double 3x3 path.
        pooltype: ``'max'`` or ``'avg'``.
        proj_pool: The output channels of the projection after pooling, or
            None to pass the pooled input through.
        stride: The stride of the last convolution of each path and of the
            pooling.
        conv_init: The initializer of the filters; None means the
            Convolution2D default.
        dtype: The dtype of the batch normalization parameters; None means
            ``catena.config.dtype``.
    """

    def __init__(self, in_channels: int | None, out1: int, proj3: int, out3: int, proj33: int,
                 out33: int, pooltype: str, proj_pool: int | None = None, stride: int = 1,
                 conv_init: Any = None, dtype: Any = None) -> None:
        super().__init__()
        who = 'InceptionBN'
        if pooltype not in ('max', 'avg'):
            raise _util.UnsupportedValueError(f"{who}: pooltype must be 'max' or 'avg'; "
                                              f'got {_validate.show(pooltype)}')
        _util.channels(who, 'in_channels', in_channels, optional=True)
        out1 = _validate.integer(who, 'out1', out1, 0)
        for name, value in (('proj3', proj3), ('out3', out3), ('proj33', proj33),
                            ('out33', out33)):
            _util.channels(who, name, value)
        proj_pool = _util.channels(who, 'proj_pool', proj_pool, optional=True)
        stride = _validate.integer(who, 'stride', stride, 1)
        if out1 > 0 and (stride != 1 or proj_pool is None):
            raise _util.AssertedValueError(
                'InceptionBN with a 1x1 path (out1 > 0) needs stride=1 and a proj_pool; '
                f'got stride={stride}, proj_pool={proj_pool}')
        self.out1 = out1
        self.proj_pool = proj_pool
        self.stride = stride
        self.pooltype = pooltype

        def conv(n_in: int | None, n_out: int, ksize: int, stride: int = 1) -> Convolution2D:
            return Convolution2D(n_in, n_out, ksize, stride, ksize // 2, nobias=True,
                                 initialW=conv_init)

        with self.init_scope():
            self.proj3 = conv(in_channels, proj3, 1)
            self.conv3 = conv(proj3, out3, 3, stride)
            self.proj33 = conv(in_channels, proj33, 1)
            self.conv33a = conv(proj33, out33, 3)
            self.conv33b = conv(out33, out33, 3, stride)
            self.proj3n = BatchNormalization(proj3, dtype=dtype)
            self.conv3n = BatchNormalization(out3, dtype=dtype)
            self.proj33n = BatchNormalization(proj33, dtype=dtype)
            self.conv33an = BatchNormalization(out33, dtype=dtype)
            self.conv33bn = BatchNormalization(out33, dtype=dtype)
            if out1 > 0:
                self.conv1 = conv(in_channels, out1, 1, stride)
                self.conv1n = BatchNormalization(out1, dtype=dtype)
            if proj_pool is not None:
                self.poolp = conv(in_channels, proj_pool, 1)
                self.poolpn = BatchNormalization(proj_pool, dtype=dtype)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the module's output for ``x`` of shape ``(n, c_in, h, w)``."""
        outs: list[Any] = []
        if self.out1 > 0:
            outs.append(relu(self.conv1n(self.conv1(x))))
        h3 = relu(self.proj3n(self.proj3(x)))
        outs.append(relu(self.conv3n(self.conv3(h3))))
        h33 = relu(self.proj33n(self.proj33(x)))
        h33 = relu(self.conv33an(self.conv33a(h33)))
        outs.append(relu(self.conv33bn(self.conv33b(h33))))
        if self.pooltype == 'max':
            pool = max_pooling_2d(x, 3, stride=self.stride, pad=1, cover_all=False)
        else:
            pool = average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            pool = relu(self.poolpn(self.poolp(pool)))
        outs.append(pool)
        return concat(outs, axis=1)
