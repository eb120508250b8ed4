"""The :class:`BlackOut` link."""

from __future__ import annotations

from typing import Any

from catena import initializers
from catena.device_resident import DeviceResidentsVisitor
from catena.functions.loss.black_out import black_out
from catena.link import Link
from catena.links.connection._util import size_argument
from catena.links.loss._counts import word_counts
from catena.parameter import Parameter
from catena.utils import _validate
from catena.utils.walker_alias import WalkerAlias
from catena.variable import Variable


class BlackOut(Link):
    """BlackOut loss layer: a sampled softmax for very large vocabularies.

    Holds the output embedding ``W`` and a :class:`~catena.utils.WalkerAlias`
    sampler drawing ``sample_size`` negatives per example from ``counts``;
    see :func:`~catena.functions.black_out`.

    Args:
        in_size: The dimension of the input vectors.
        counts: The frequency of each word (its length is the vocabulary size).
        sample_size: The number of negative samples per example.

    Attributes:
        W: The weight :class:`~catena.Parameter`, ``(len(counts), in_size)``
            (LeCun-normal at first).
        sampler: The :class:`~catena.utils.WalkerAlias` sampler.
        sample_size: The number of negative samples.
        sample_data: Fixed samples ``(batch, sample_size)`` to use instead of
            drawing (for tests), or None.
    """

    sample_data: Any = None

    def __init__(self, in_size: int, counts: Any, sample_size: int) -> None:
        super().__init__()
        in_size = size_argument('BlackOut', 'in_size', in_size)
        counts = word_counts('BlackOut', counts)
        self.sample_size = _validate.integer('BlackOut', 'sample_size', sample_size, 1)
        vocab_size = len(counts)
        self.sampler = WalkerAlias(counts)
        with self.init_scope():
            self.W = Parameter(initializers.LeCunNormal(), (vocab_size, in_size))

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: Any, t: Any) -> Variable:
        """Computes the mean BlackOut loss of ``x`` against the words ``t``.

        Args:
            x: The input vectors, ``(batch, in_size)``.
            t: The word ids, ``(batch,)``.

        Returns:
            Variable: The loss.
        """
        samples = self.sample_data
        if samples is None:
            samples = self.sampler.sample((x.shape[0], self.sample_size))
        return black_out(x, t, self.W, samples)
