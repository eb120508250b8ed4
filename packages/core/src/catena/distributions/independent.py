"""``Independent``: batch axes of a distribution reinterpreted as event axes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from catena.distributions import distribution as _base
from catena.distributions.kl_divergence import kl_divergence, register_kl
from catena.functions.array.reshape import reshape
from catena.functions.math.prod import prod
from catena.functions.math.sum import sum as sum_
from catena.variable import Variable


class Independent(_base.Distribution):
    """Independent draws of a distribution, with batch axes taken as event axes.

    The rightmost ``reinterpreted_batch_ndims`` axes of the batch of
    ``distribution`` become event axes: ``log_prob`` and ``entropy`` sum
    over them (``prob`` and ``cdf`` multiply), while ``mean``, ``variance``
    and the samples are those of ``distribution``. For example,
    ``Independent(Normal(loc, scale))`` with ``loc`` of shape ``(n, d)`` is a
    batch of ``n`` diagonal normal distributions over ``d``-vectors.

    Args:
        distribution: The distribution whose batch axes to reinterpret.
        reinterpreted_batch_ndims: How many of the rightmost batch axes
            become event axes; ``None`` moves every batch axis but the first
            (none when the batch has at most one axis).
    """

    def __init__(self, distribution: _base.Distribution,
                 reinterpreted_batch_ndims: int | None = None) -> None:
        if not isinstance(distribution, _base.Distribution):
            raise TypeError('Independent: distribution must be a Distribution; got '
                            f'{type(distribution).__name__}')
        batch_shape = tuple(distribution.batch_shape)
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = max(0, len(batch_shape) - 1)
        elif (not isinstance(reinterpreted_batch_ndims, int)
              or isinstance(reinterpreted_batch_ndims, bool)):
            raise TypeError('Independent: reinterpreted_batch_ndims must be an int or None; '
                            f'got {reinterpreted_batch_ndims!r}')
        elif not 0 <= reinterpreted_batch_ndims <= len(batch_shape):
            raise ValueError(f'Independent: reinterpreted_batch_ndims must be between 0 and '
                             f'the number of batch axes of the distribution, '
                             f'{len(batch_shape)} (batch shape {batch_shape}); got '
                             f'{reinterpreted_batch_ndims}')
        self._distribution = distribution
        self._ndims = reinterpreted_batch_ndims
        split = len(batch_shape) - reinterpreted_batch_ndims
        self._batch_shape = batch_shape[:split]
        self._event_shape = batch_shape[split:] + tuple(distribution.event_shape)

    @property
    def distribution(self) -> _base.Distribution:
        """The underlying distribution."""
        return self._distribution

    @property
    def reinterpreted_batch_ndims(self) -> int:
        """How many batch axes of :attr:`distribution` are event axes here."""
        return self._ndims

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self._batch_shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self._event_shape

    @property
    def params(self) -> dict[str, Variable]:
        return self._distribution.params

    @property
    def xp(self) -> Any:
        return self._distribution.xp

    def _reduce(self, op: Callable[..., Variable], stat: Variable) -> Variable:
        if self._ndims == 0:
            return stat
        return op(stat, axis=tuple(range(-self._ndims, 0)))

    def log_prob(self, x: Any) -> Variable:
        return self._reduce(sum_, self._distribution.log_prob(x))

    def prob(self, x: Any) -> Variable:
        return self._reduce(prod, self._distribution.prob(x))

    def perplexity(self, x: Any) -> Variable:
        return self._reduce(prod, self._distribution.perplexity(x))

    def cdf(self, x: Any) -> Variable:
        """:math:`P(X \\le x)` elementwise over the event: the product of the marginal cdfs."""
        return self._reduce(prod, self._distribution.cdf(x))

    def log_cdf(self, x: Any) -> Variable:
        return self._reduce(sum_, self._distribution.log_cdf(x))

    def survival_function(self, x: Any) -> Variable:
        """:math:`P(X > x)` elementwise over the event: the product of the marginals'."""
        return self._reduce(prod, self._distribution.survival_function(x))

    def log_survival_function(self, x: Any) -> Variable:
        return self._reduce(sum_, self._distribution.log_survival_function(x))

    def icdf(self, x: Any) -> Variable:
        """Not defined: a cumulative distribution function over vectors has no inverse."""
        raise NotImplementedError('Independent: the cumulative distribution function of a '
                                  'multivariate distribution is not invertible; use '
                                  'distribution.icdf for the marginals')

    @property
    def entropy(self) -> Variable:
        return self._reduce(sum_, self._distribution.entropy)

    @property
    def mean(self) -> Variable:
        return self._distribution.mean

    @property
    def mode(self) -> Variable:
        return self._distribution.mode

    @property
    def variance(self) -> Variable:
        return self._distribution.variance

    @property
    def stddev(self) -> Variable:
        return self._distribution.stddev

    @property
    def covariance(self) -> Variable:
        """The block diagonal covariance of the flattened event.

        Of shape ``batch_shape + (m * e, m * e)``, with ``m`` the number of
        independent components (the size of the reinterpreted axes) and ``e``
        the size of the event of :attr:`distribution`: each diagonal block is
        the covariance of one component (its variance for a scalar
        distribution), and the blocks off the diagonal are zero.
        """
        base = self._distribution
        m = math.prod(tuple(base.batch_shape)[len(self._batch_shape):])
        e = math.prod(tuple(base.event_shape))
        if base.event_shape == ():
            cov = reshape(base.variance, self._batch_shape + (m, 1, 1))
        else:
            cov = reshape(base.covariance, self._batch_shape + (m, e, e))
        xp = self.xp
        # blocks[..., i, a, j, b] = cov[..., i, a, b] if i == j else 0: row (i, a), column (j, b).
        eye = xp.eye(m, dtype=cov.dtype).reshape(m, 1, m, 1)
        blocks = reshape(cov, self._batch_shape + (m, e, 1, e)) * eye
        return reshape(blocks, self._batch_shape + (m * e, m * e))

    @property
    def support(self) -> str:
        return self._distribution.support

    def sample_n(self, n: int) -> Variable:
        return self._distribution.sample_n(n)

    def __repr__(self) -> str:
        return (f'Independent({self._distribution!r}, '
                f'reinterpreted_batch_ndims={self._ndims})')


@register_kl(Independent, Independent)
def _kl_independent_independent(dist1: Independent, dist2: Independent) -> Variable:
    if dist1.batch_shape != dist2.batch_shape or dist1.event_shape != dist2.event_shape:
        raise ValueError(
            'kl_divergence: Independent distributions must have the same batch and event '
            f'shapes; got batch shapes {dist1.batch_shape} and {dist2.batch_shape}, event '
            f'shapes {dist1.event_shape} and {dist2.event_shape}')
    p, q = dist1.distribution, dist2.distribution
    if p.event_shape != q.event_shape:
        raise NotImplementedError(
            'kl_divergence: Independent distributions whose underlying distributions have '
            f'different event shapes ({p.event_shape} and {q.event_shape}) are not supported')
    if dist1.reinterpreted_batch_ndims != dist2.reinterpreted_batch_ndims:
        raise NotImplementedError(
            'kl_divergence: Independent distributions with different '
            'reinterpreted_batch_ndims are not supported '
            f'({dist1.reinterpreted_batch_ndims} and {dist2.reinterpreted_batch_ndims})')
    return dist1._reduce(sum_, kl_divergence(p, q))
