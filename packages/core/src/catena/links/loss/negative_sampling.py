"""The :class:`NegativeSampling` link."""

from __future__ import annotations

from typing import Any

import numpy

from catena import _dtype, initializers
from catena.device_resident import DeviceResidentsVisitor
from catena.functions.loss import negative_sampling as _negative_sampling
from catena.link import Link
from catena.links.connection._util import size_argument
from catena.links.loss._counts import word_counts
from catena.parameter import Parameter
from catena.utils import _validate
from catena.utils.walker_alias import WalkerAlias
from catena.variable import Variable


class NegativeSampling(Link):
    """Negative sampling loss layer (word2vec's output layer).

    Holds the output embedding ``W`` (one row per word, zeros at first) and
    a :class:`~catena.utils.WalkerAlias` sampler of negatives drawn from
    ``counts ** power``; see :func:`~catena.functions.negative_sampling`.

    Args:
        in_size: The dimension of the input vectors.
        counts: The frequency of each word (its length is the vocabulary size).
        sample_size: The number of negative samples per example.
        power: The power that flattens the frequencies before sampling.
        dtype: The dtype of ``W`` (None: ``catena.config.dtype``).

    Attributes:
        W: The weight :class:`~catena.Parameter`, ``(len(counts), in_size)``.
        sampler: The :class:`~catena.utils.WalkerAlias` sampler.
        sample_size: The number of negative samples.
    """

    def __init__(self, in_size: int, counts: Any, sample_size: int, power: float = 0.75,
                 dtype: Any = None) -> None:
        super().__init__()
        dtype = _dtype.get_dtype(dtype)
        in_size = size_argument('NegativeSampling', 'in_size', in_size)
        counts = word_counts('NegativeSampling', counts, dtype)
        self.sample_size = _validate.integer('NegativeSampling', 'sample_size', sample_size, 0)
        _validate.real('NegativeSampling', 'power', power)
        vocab_size = len(counts)
        p = numpy.power(counts, dtype.type(power))
        self.sampler = WalkerAlias(p)
        with self.init_scope():
            self.W = Parameter(initializers.Zero(dtype), (vocab_size, in_size))

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: Any, t: Any, reduce: str = 'sum', *,
                return_samples: bool = False) -> Variable | tuple[Variable, Any]:
        """Computes the loss of ``x`` against the words ``t``.

        Args:
            x: The input vectors, ``(batch, in_size)``.
            t: The word ids, ``(batch,)`` (``-1`` rows are ignored).
            reduce: ``'sum'`` or ``'no'`` (one loss per example).
            return_samples: Also return the samples (the first column is ``t``).

        Returns:
            Variable or tuple: The loss, or ``(loss, samples)``.
        """
        # Looked up at call time, so that a wrapper installed on the module
        # (a mock) sees the call.
        return _negative_sampling.negative_sampling(
            x, t, self.W, self.sampler.sample, self.sample_size, reduce=reduce,
            return_samples=return_samples)
