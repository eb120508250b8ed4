"""``Poisson``: the Poisson distribution over the non-negative integers."""

from __future__ import annotations

import math
from typing import Any

import numpy

from catena.distributions import _support, distribution
from catena.distributions._utils import xlogx
from catena.distributions.kl_divergence import register_kl
from catena.functions.array.cast import cast
from catena.functions.array.expand_dims import expand_dims
from catena.functions.array.where import where
from catena.functions.math.exponential import exp, log
from catena.functions.math.lgamma import lgamma
from catena.functions.math.maximum import maximum
from catena.functions.math.minimum import minimum
from catena.functions.math.sum import sum as sum_
from catena.variable import Variable, as_array

# The entropy sums its series for rates up to _SERIES_MAX_LAM (the terms up to
# k = 255 hold all but 1e-38 of the Poisson(100) mass) and takes the asymptotic
# expansion above, whose error there is about 1e-9 nats.
_SERIES_MAX_LAM = 100.0
_LOG_FACTORIALS = numpy.array([math.lgamma(k + 1.0) for k in range(256)])
_HALF_LOG_2PIE = 0.5 * math.log(2.0 * math.pi * math.e)


class Poisson(distribution.Distribution):
    """The Poisson distribution with rate :math:`\\lambda`.

    .. math::
        P(x = k) = \\frac{\\lambda^k e^{-\\lambda}}{k!}, \\quad k = 0, 1, 2, \\dots

    Samples are in the dtype of ``lam`` and are not differentiable.

    Args:
        lam: The rate :math:`\\lambda > 0` (a Variable or array of floating
            point type).
    """

    def __init__(self, lam: Any) -> None:
        self.lam = distribution._as_param('Poisson', 'lam', lam)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.lam.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'lam': self.lam}

    def log_prob(self, x: Any) -> Variable:
        x = _support.as_value(x, self.lam)
        x_array = as_array(x)
        inside = (x_array >= 0) & _support.is_integer(x_array)
        x = _support.replace_outside(x, inside, 0.0)
        lp = _support.mul_log(x, self.lam) - self.lam - lgamma(x + 1.0)
        return _support.set_outside(lp, inside, -float('inf'))

    @property
    def entropy(self) -> Variable:
        """The entropy, :math:`\\lambda(1 - \\log\\lambda) + E[\\log x!]`.

        It has no closed form: the series is summed for
        :math:`\\lambda \\le 100` and its asymptotic expansion
        :math:`\\frac12\\log(2\\pi e\\lambda) - \\frac{1}{12\\lambda} -
        \\frac{1}{24\\lambda^2} - \\frac{19}{360\\lambda^3}` taken above.
        """
        # The series cancels terms of about lam * log(lam): it is summed in float64.
        lam = cast(self.lam, numpy.float64)
        xp = self.xp
        limit = xp.full(lam.shape, _SERIES_MAX_LAM, lam.dtype)
        small = minimum(lam, limit)
        log_factorials = xp.asarray(_LOG_FACTORIALS)
        k = xp.arange(len(_LOG_FACTORIALS), dtype=lam.dtype)
        column = expand_dims(small, -1)
        log_pmf = _support.mul_log(k, column) - column - log_factorials
        series = small - xlogx(small) + sum_(exp(log_pmf) * log_factorials, axis=-1)
        large = maximum(lam, limit)
        inv = 1.0 / large
        asymptotic = (0.5 * log(large) + _HALF_LOG_2PIE
                      - inv * (1.0 / 12.0 + inv * (1.0 / 24.0 + inv * (19.0 / 360.0))))
        entropy = where(lam.array <= _SERIES_MAX_LAM, series, asymptotic)
        return cast(entropy, self.lam.dtype)

    @property
    def mean(self) -> Variable:
        return self.lam

    @property
    def mode(self) -> Variable:
        """:math:`\\lfloor\\lambda\\rfloor` (:math:`\\lambda - 1` too for an integer rate)."""
        return Variable(self.xp.floor(self.lam.array), requires_grad=False)

    @property
    def variance(self) -> Variable:
        return self.lam

    @property
    def support(self) -> str:
        return 'non negative integer'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        lam = self.lam.array
        eps = self.xp.random.poisson(lam, size=(n,) + lam.shape)
        return Variable(eps.astype(lam.dtype, copy=False), requires_grad=False)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(dist1: Poisson, dist2: Poisson) -> Variable:
    lam1, lam2 = dist1.lam, dist2.lam
    return lam1 * (log(lam1) - log(lam2)) - lam1 + lam2
