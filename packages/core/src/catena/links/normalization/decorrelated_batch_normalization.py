"""The :class:`DecorrelatedBatchNormalization` link."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from catena import backend
from catena.configuration import config
from catena.functions.normalization.decorrelated_batch_normalization import (
    decorrelated_batch_normalization,
    fixed_decorrelated_batch_normalization,
)
from catena.link import Link
from catena.links.normalization._init import check_decay_eps
from catena.links.normalization.batch_normalization import parse_finetune
from catena.serializer import Deserializer
from catena.utils import _validate
from catena.variable import Variable


class DecorrelatedBatchNormalization(Link):
    """Decorrelated batch normalization layer (ZCA whitening per channel group).

    In training mode the link whitens each group of ``size // groups``
    channels with the batch's statistics and updates the running
    ``avg_mean`` and ``avg_projection`` (persistent values); in test mode it
    applies those. The link has no parameters.

    Files saved before the statistics had a group axis (``avg_mean`` of
    shape ``(size // groups,)``) still load: every group gets the stored
    statistics, with a :class:`UserWarning` when there are several groups.

    Args:
        size: The number of channels.
        groups: The number of channel groups; it must divide ``size``.
        decay: The decay rate of the running averages.
        eps: Added to the covariance's diagonal.
        dtype: The dtype of the running statistics.

    Attributes:
        avg_mean: The running mean, ``(groups, size // groups)``.
        avg_projection: The running whitening matrices,
            ``(groups, size // groups, size // groups)``.
        N: The number of batches seen while fine-tuning (persistent).
    """

    def __init__(self, size: int, groups: int = 16, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = numpy.float32) -> None:
        super().__init__()
        who = 'DecorrelatedBatchNormalization'
        size = _validate.integer(who, 'size', size, 1)
        groups = _validate.integer(who, 'groups', groups, 1)
        if size % groups:
            raise ValueError(f'{who}: groups must divide size; got size={size}, '
                             f'groups={groups}')
        check_decay_eps(who, decay, eps)
        channels = size // groups
        self.avg_mean = numpy.zeros((groups, channels), dtype=dtype)
        self.avg_projection = numpy.broadcast_to(
            numpy.eye(channels, dtype=dtype), (groups, channels, channels)).copy()
        self.register_persistent('avg_mean')
        self.register_persistent('avg_projection')
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
                x, self.avg_mean, self.avg_projection, groups=self.groups)
        if finetune:
            self.N += 1
            decay = 1. - 1. / self.N
        else:
            decay = self.decay
        mean: Any = self.avg_mean
        projection: Any = self.avg_projection
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

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``N``, ``avg_mean`` and ``avg_projection``.

        Loading also accepts statistics without the group axis (files from
        before it existed).

        Raises:
            ValueError: If a loaded statistic has another shape.
        """
        if not isinstance(serializer, Deserializer):
            super().serialize(serializer)
            return
        # Asked for without a target array, so that either layout loads; both
        # are checked before anything changes.
        loaded = {name: serializer(name, None) for name in ('avg_mean', 'avg_projection')}
        arrays = {name: self._grouped(name, value) for name, value in loaded.items()
                  if value is not None}
        self.N = serializer('N', self.N)
        for name, value in arrays.items():
            backend.copyto(getattr(self, name), value)

    def _grouped(self, name: str, value: Any) -> Any:
        target = getattr(self, name)
        value = numpy.asarray(backend.CpuDevice().send(value))
        if value.shape == target.shape:
            return value.astype(target.dtype, copy=False)
        if value.shape != target.shape[1:]:
            raise ValueError(f'DecorrelatedBatchNormalization: cannot load {name} of shape '
                             f'{value.shape}; expected {target.shape} (or {target.shape[1:]}, '
                             'the layout without a group axis)')
        if self.groups != 1:
            warnings.warn(f'DecorrelatedBatchNormalization: the loaded {name} has no group '
                          f'axis; every one of the {self.groups} groups gets it', UserWarning,
                          stacklevel=3)
        return numpy.broadcast_to(value, target.shape).astype(target.dtype)
