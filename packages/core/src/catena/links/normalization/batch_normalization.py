"""The :class:`BatchNormalization` link."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from catena import _dtype, initializers
from catena.configuration import config
from catena.functions.normalization.batch_normalization import (
    batch_normalization,
    fixed_batch_normalization,
)
from catena.link import Link
from catena.links.connection._util import input_shape
from catena.links.normalization._init import check_decay_eps, initializer_of
from catena.parameter import Parameter
from catena.utils import _validate
from catena.variable import Variable


def parse_finetune(kwargs: dict[str, Any], link: str) -> bool:
    """Reads the ``finetune`` keyword of a batch-normalization link's forward."""
    if 'test' in kwargs:
        raise ValueError(f'{link}: the test argument is not supported anymore; use '
                         "catena.using_config('train', False)")
    finetune = bool(kwargs.pop('finetune', False))
    if kwargs:
        raise TypeError(f'{link}() got unexpected keyword arguments: {sorted(kwargs)}')
    return finetune


class BatchNormalization(Link):
    """Batch normalization layer on the outputs of linear or convolution layers.

    In training mode (``catena.config.train``) the link normalizes with the
    statistics of the batch and updates the running averages ``avg_mean``
    and ``avg_var`` (persistent values); in test mode it normalizes with
    those running averages. With ``finetune=True`` in training mode, the
    running averages become the plain average over all batches seen since
    the last :meth:`start_finetuning` (``N`` counts them).

    Args:
        size: The shape of the statistics (an int or a tuple), or None to
            infer it from the first input (then ``axis`` is required).
        decay: The decay rate of the running averages.
        eps: Added to the variance for numerical stability.
        dtype: The dtype of the parameters and statistics (``mixed16`` maps
            to float32); None follows ``catena.config.dtype``.
        use_gamma: Whether the link has the scale parameter ``gamma``.
        use_beta: Whether the link has the shift parameter ``beta``.
        initial_gamma: The initializer of ``gamma`` (default 1).
        initial_beta: The initializer of ``beta`` (default 0).
        axis: The axes to reduce (an int or a tuple), or None: the first axis
            and every axis after the channel axes of ``size``.
        initial_avg_mean: The initializer of ``avg_mean`` (default 0).
        initial_avg_var: The initializer of ``avg_var`` (default 1).

    Attributes:
        gamma: The scale :class:`~catena.Parameter`, or None.
        beta: The shift :class:`~catena.Parameter`, or None.
        avg_mean: The running mean (persistent).
        avg_var: The running (unbiased) variance (persistent).
        N: The number of batches seen while fine-tuning (persistent).
        decay: The decay rate of the running averages.
        eps: The epsilon added to the variance.
    """

    gamma: Any = None
    beta: Any = None
    avg_mean: Any = None
    avg_var: Any = None

    def __init__(self, size: Any = None, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = None, use_gamma: bool = True, use_beta: bool = True,
                 initial_gamma: Any = None, initial_beta: Any = None, axis: Any = None,
                 initial_avg_mean: Any = None, initial_avg_var: Any = None) -> None:
        super().__init__()
        who = type(self).__name__
        if size is None and axis is None:
            raise RuntimeError(f'{who}: size or axis is required')
        size = _validate.shape(who, 'size', size, optional=True)
        check_decay_eps(who, decay, eps)
        if axis is not None:
            axis = tuple(_validate.integer(who, 'axis', a, None)
                         for a in (axis if isinstance(axis, Sequence) else (axis,)))
        self._initial_avg_mean = initial_avg_mean
        self._initial_avg_var = initial_avg_var
        self.N = 0
        self.register_persistent('N')
        # Registered before they are shaped, so that a loader can fill a
        # lazily initialized link.
        self.avg_mean = None
        self.register_persistent('avg_mean')
        self.avg_var = None
        self.register_persistent('avg_var')
        self.decay = decay
        self.eps = eps
        self.axis = axis
        self._highprec_dtype = _dtype.get_dtype(dtype, map_mixed16=numpy.float32)
        with self.init_scope():
            if use_gamma:
                self.gamma = Parameter(initializer_of(initial_gamma, 1, self._highprec_dtype,
                                                      who, 'initial_gamma'))
            if use_beta:
                self.beta = Parameter(initializer_of(initial_beta, 0, self._highprec_dtype,
                                                     who, 'initial_beta'))
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, shape: Any) -> None:
        self.avg_mean = self._init_array(self._initial_avg_mean, 0, shape)
        self._initial_avg_mean = None
        self.avg_var = self._init_array(self._initial_avg_var, 1, shape)
        self._initial_avg_var = None
        if self.gamma is not None:
            self.gamma.initialize(shape)
        if self.beta is not None:
            self.beta.initialize(shape)

    def _init_array(self, value: Any, default: float, shape: Any) -> Any:
        initializer = initializer_of(value, default, self._highprec_dtype)
        return initializers.generate_array(initializer, shape, self.xp,
                                           dtype=self._highprec_dtype, device=self.device)

    def _param_shape(self, x: Any) -> tuple[int, ...]:
        axis = tuple(a % x.ndim if -x.ndim <= a < x.ndim else a for a in self.axis)
        if any(not 0 <= a < x.ndim for a in axis):
            raise ValueError(f'BatchNormalization: axis {self.axis} is out of range for an input '
                             f'of shape {x.shape}')
        return tuple(d for i, d in enumerate(x.shape) if i not in axis)

    def forward(self, x: Any, **kwargs: Any) -> Variable:
        """Normalizes ``x`` (batch statistics in training, running ones in test).

        Args:
            x: The input Variable or array.
            finetune: (keyword) In training mode, average the statistics over
                every batch since :meth:`start_finetuning` instead of decaying.

        Returns:
            Variable: The normalized output.
        """
        finetune = parse_finetune(kwargs, 'BatchNormalization')
        if self.avg_mean is None:
            input_shape(type(self).__name__, x)
            self._initialize_params(self._param_shape(x))
        gamma = self.gamma
        if gamma is None:
            gamma = self.xp.ones(self.avg_mean.shape, dtype=self._highprec_dtype)
        beta = self.beta
        if beta is None:
            beta = self.xp.zeros(self.avg_mean.shape, dtype=self._highprec_dtype)
        if not config.train:
            return fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var,
                                             self.eps, axis=self.axis)
        if finetune:
            self.N += 1
            decay = 1. - 1. / self.N
        else:
            decay = self.decay
        avg_mean, avg_var = self.avg_mean, self.avg_var
        if config.in_recomputing:
            # A recomputed forward (for example in checkpointing) must not
            # count the batch twice.
            if finetune:
                self.N -= 1
            avg_mean = avg_var = None
        return self._normalize_batch(x, gamma, beta, avg_mean, avg_var, decay)

    def _normalize_batch(self, x: Any, gamma: Any, beta: Any, running_mean: Any,
                         running_var: Any, decay: float) -> Variable:
        """Normalizes with the batch's statistics, updating the running ones if given."""
        return batch_normalization(x, gamma, beta, eps=self.eps, running_mean=running_mean,
                                   running_var=running_var, decay=decay, axis=self.axis)

    def start_finetuning(self) -> None:
        """Resets the batch count ``N`` that fine-tuning averages over."""
        self.N = 0
