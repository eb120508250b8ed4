"""The :class:`GroupNormalization` link."""

from __future__ import annotations

from typing import Any

import numpy

from catena import _dtype
from catena.functions.normalization.group_normalization import group_normalization
from catena.link import Link
from catena.links.connection._util import input_shape
from catena.links.normalization._init import initializer_of
from catena.parameter import Parameter
from catena.utils import _validate
from catena.variable import Variable


class GroupNormalization(Link):
    """Group normalization layer on the outputs of convolution functions.

    The channels are split into ``groups`` groups; each group of each sample
    is normalized by its own statistics, then each channel is scaled by
    ``gamma`` and shifted by ``beta``.

    Args:
        groups: The number of channel groups; it must divide the number of
            channels.
        size: The number of channels, or None to infer it at the first call
            (the input's second axis).
        eps: Added to the variance for numerical stability.
        initial_gamma: The initializer of ``gamma`` (default 1).
        initial_beta: The initializer of ``beta`` (default 0).

    Attributes:
        groups: The number of channel groups.
        gamma: The scale :class:`~catena.Parameter`.
        beta: The shift :class:`~catena.Parameter`.
        eps: The epsilon added to the variance.
    """

    def __init__(self, groups: int, size: int | None = None, eps: float = 1e-5,
                 initial_gamma: Any = None, initial_beta: Any = None) -> None:
        super().__init__()
        # groups is checked by the function at each call, as in Chainer.
        size = _validate.shape('GroupNormalization', 'size', size, optional=True)
        _validate.real('GroupNormalization', 'eps', eps, 0)
        highprec = _dtype.get_dtype(None, map_mixed16=numpy.float32)
        with self.init_scope():
            self.gamma = Parameter(initializer_of(initial_gamma, 1, highprec,
                                                  'GroupNormalization', 'initial_gamma'))
            self.beta = Parameter(initializer_of(initial_beta, 0, highprec,
                                                 'GroupNormalization', 'initial_beta'))
        self.groups = groups
        self.eps = eps
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: Any) -> None:
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x: Any) -> Variable:
        """Normalizes ``x`` of shape ``(N, C, ...)`` group by group.

        Args:
            x: The input Variable or array, at least 2-D.

        Returns:
            Variable: The normalized output, of x's shape.
        """
        if self.gamma.array is None:
            input_shape('GroupNormalization', x)
            if x.ndim < 2:
                raise ValueError('GroupNormalization: the input must be at least 2-D (batch and '
                                 f'channel axes); got the shape {x.shape}')
            self._initialize_params(x.shape[1])
        return group_normalization(x, self.groups, self.gamma, self.beta, self.eps)
