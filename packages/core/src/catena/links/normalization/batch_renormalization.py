"""The :class:`BatchRenormalization` link."""

from __future__ import annotations

from typing import Any

import numpy

from catena.configuration import config
from catena.functions.normalization.batch_normalization import fixed_batch_normalization
from catena.functions.normalization.batch_renormalization import batch_renormalization
from catena.links.normalization.batch_normalization import BatchNormalization, parse_finetune
from catena.utils import _validate
from catena.variable import Variable


class BatchRenormalization(BatchNormalization):
    """Batch renormalization layer on the outputs of linear or convolution layers.

    Like :class:`BatchNormalization`, but in training mode the output is
    corrected towards what the running statistics give (see
    :func:`~catena.functions.batch_renormalization`), with the corrections
    ``r`` and ``d`` clipped by ``rmax`` and ``dmax``. Test mode uses the
    running statistics.

    Args:
        size: The shape of the statistics (an int or a tuple).
        rmax: The bound of the scale correction ``r`` (at least 1).
        dmax: The bound of the shift correction ``d`` (at least 0).
        decay: The decay rate of the running averages.
        eps: Added to the variance for numerical stability.
        dtype: The dtype of the parameters and statistics.
        use_gamma: Whether the link has the scale parameter ``gamma``.
        use_beta: Whether the link has the shift parameter ``beta``.
        initial_gamma: The initializer of ``gamma`` (default 1).
        initial_beta: The initializer of ``beta`` (default 0).
        initial_avg_mean: The initializer of ``avg_mean`` (default 0).
        initial_avg_var: The initializer of ``avg_var`` (default 1).

    Attributes:
        rmax: The bound of ``r``.
        dmax: The bound of ``d``.
    """

    def __init__(self, size: Any, rmax: float = 1, dmax: float = 0, decay: float = 0.9,
                 eps: float = 2e-5, dtype: Any = numpy.float32, use_gamma: bool = True,
                 use_beta: bool = True, initial_gamma: Any = None, initial_beta: Any = None,
                 initial_avg_mean: Any = None, initial_avg_var: Any = None) -> None:
        if size is not None:
            # BatchNormalization refuses a None size without an axis.
            _validate.shape('BatchRenormalization', 'size', size)
        _validate.real('BatchRenormalization', 'rmax', rmax, 1)
        _validate.real('BatchRenormalization', 'dmax', dmax, 0)
        super().__init__(size, decay, eps, dtype, use_gamma, use_beta, initial_gamma,
                         initial_beta, initial_avg_mean=initial_avg_mean,
                         initial_avg_var=initial_avg_var)
        self.rmax = rmax
        self.dmax = dmax

    def forward(self, x: Any, **kwargs: Any) -> Variable:
        """Renormalizes ``x`` in training mode, normalizes with the running statistics in test.

        Args:
            x: The input Variable or array.
            finetune: (keyword) In training mode, average the statistics over
                every batch since :meth:`start_finetuning` instead of decaying.

        Returns:
            Variable: The output.
        """
        finetune = parse_finetune(kwargs, 'BatchRenormalization')
        gamma = self.gamma
        if gamma is None:
            gamma = self.xp.ones(self.avg_mean.shape, dtype=self._highprec_dtype)
        beta = self.beta
        if beta is None:
            beta = self.xp.zeros(self.avg_mean.shape, dtype=self._highprec_dtype)
        if not config.train:
            return fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var,
                                             self.eps)
        if finetune:
            self.N += 1
            decay = 1. - 1. / self.N
        else:
            decay = self.decay
        avg_mean, avg_var = self.avg_mean, self.avg_var
        update_statistics = True
        if config.in_recomputing:
            # A recomputed forward must not count the batch twice, and must
            # correct (r, d) by the statistics the first forward saw.
            if finetune:
                self.N -= 1
            avg_mean, avg_var = getattr(self, '_stats_to_recompute', (avg_mean, avg_var))
            update_statistics = False
        elif config._will_recompute:
            self._stats_to_recompute = (avg_mean.copy(), avg_var.copy())
        return batch_renormalization(x, gamma, beta, self.rmax, self.dmax, self.eps,
                                     avg_mean, avg_var, decay,
                                     update_statistics=update_statistics)
