"""The :class:`LayerNormalization` link."""

from __future__ import annotations

import math
from typing import Any

from catena import initializers
from catena.functions.normalization.layer_normalization import layer_normalization
from catena.link import Link
from catena.links.connection._util import input_shape
from catena.links.normalization._init import check_initializer
from catena.parameter import Parameter
from catena.utils import _validate
from catena.variable import Variable


class LayerNormalization(Link):
    """Layer normalization layer on the outputs of linear functions.

    Normalizes each sample of a ``(batch_size, units)`` input by its own
    mean and variance, then scales by ``gamma`` and shifts by ``beta``.

    Args:
        size: The number of units, or None to infer it at the first call
            (the product of the input's shape after the batch axis).
        eps: Added to the variance for numerical stability.
        initial_gamma: The initializer of ``gamma`` (default 1).
        initial_beta: The initializer of ``beta`` (default 0).

    Attributes:
        gamma: The scale :class:`~catena.Parameter`.
        beta: The shift :class:`~catena.Parameter`.
        eps: The epsilon added to the variance.
    """

    def __init__(self, size: int | None = None, eps: float = 1e-6, initial_gamma: Any = None,
                 initial_beta: Any = None) -> None:
        super().__init__()
        size = _validate.shape('LayerNormalization', 'size', size, optional=True)
        _validate.real('LayerNormalization', 'eps', eps, 0)
        if initial_gamma is None:
            initial_gamma = initializers.One()
        if initial_beta is None:
            initial_beta = initializers.Zero()
        check_initializer('LayerNormalization', 'initial_gamma', initial_gamma)
        check_initializer('LayerNormalization', 'initial_beta', initial_beta)
        with self.init_scope():
            self.gamma = Parameter(initial_gamma)
            self.beta = Parameter(initial_beta)
        self.eps = eps
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: Any) -> None:
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x: Any) -> Variable:
        """Normalizes ``x`` of shape ``(batch_size, units)``.

        Args:
            x: The input Variable or array.

        Returns:
            Variable: The normalized output, of x's shape.
        """
        if self.gamma.array is None:
            input_shape('LayerNormalization', x)
            if x.ndim < 2:
                raise ValueError('LayerNormalization: the input must have a batch axis and a '
                                 f'unit axis; got the shape {x.shape}')
            self._initialize_params(math.prod(x.shape[1:]))
        return layer_normalization(x, self.gamma, self.beta, self.eps)
