"""The :class:`DecorrelatedBatchNormalization` link."""

from __future__ import annotations

from typing import Any

import numpy

from catena.configuration import config
from catena.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization,
    fixed_decorrelated_batch_normalization,
)
from catena.link import Link
from catena.links.normalization.batch_normalization import parse_finetune
from catena.variable import Variable


class DecorrelatedBatchNormalization(Link):
    """Decorrelated batch normalization layer (ZCA whitening per channel group).

    In training mode the link whitens each group of ``size // groups``
    channels with the batch's statistics and updates the running
    ``expected_mean`` and ``expected_projection`` (persistent values); in
    test mode it applies those. The link has no parameters.

    Args:
        size: The number of channels.
        groups: The number of channel groups; it must divide ``size``.
        decay: The decay rate of the running averages.
        eps: Added to the covariance's diagonal.
        dtype: The dtype of the running statistics.

    Attributes:
        expected_mean: The running mean, ``(groups, size // groups)``.
        expected_projection: The running whitening matrices,
            ``(groups, size // groups, size // groups)``.
        N: The number of batches seen while fine-tuning (persistent).
    """

    def __init__(self, size: int, groups: int = 16, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = numpy.float32) -> None:
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0 \
                or size % groups:
            raise ValueError('DecorrelatedBatchNormalization: groups must be a positive int '
                             f'that divides size; got size={size}, groups={groups!r}')
        channels = size // groups
        self.expected_mean = numpy.zeros((groups, channels), dtype=dtype)
        self.expected_projection = numpy.broadcast_to(
            numpy.eye(channels, dtype=dtype), (groups, channels, channels)).copy()
        self.register_persistent('expected_mean')
        self.register_persistent('expected_projection')
        self.N = 0
        self.register_persistent('N')
        self.eps = eps
        self.decay = decay
        self.groups = groups

    def forward(self, x: Any, **kwargs: Any) -> Variable:
        """Whitens ``x`` of shape ``(b, size, ...)``.

        Args:
            x: The input Variable or array.
            finetune: (keyword) In training mode, average the statistics over
                every batch since :meth:`start_finetuning` instead of decaying.

        Returns:
            Variable: The output, of x's shape.
        """
        finetune = parse_finetune(kwargs, 'DecorrelatedBatchNormalization')
        if not config.train:
            return fixed_decorrelated_batch_normalization(
                x, self.expected_mean, self.expected_projection, groups=self.groups)
        if finetune:
            self.N += 1
            decay = 1. - 1. / self.N
        else:
            decay = self.decay
        mean: Any = self.expected_mean
        projection: Any = self.expected_projection
        if config.in_recomputing:
            # A recomputed forward must not count the batch twice.
            if finetune:
                self.N -= 1
            mean = projection = None
        return decorrelated_batch_normalization(x, groups=self.groups, eps=self.eps,
                                                running_mean=mean, running_projection=projection,
                                                decay=decay)

    def start_finetuning(self) -> None:
        """Resets the batch count ``N`` that fine-tuning averages over."""
        self.N = 0
