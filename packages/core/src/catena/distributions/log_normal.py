"""``LogNormal``: the distribution of ``exp(X)`` for a normal ``X``."""

from __future__ import annotations

import math
from typing import Any

from catena.distributions import distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.math.exponential import exp, log
from catena.functions.math.exponential_m1 import expm1
from catena.functions.math.ndtr import ndtr
from catena.functions.math.ndtri import ndtri
from catena.variable import Variable

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


class LogNormal(distribution.Distribution):
    """The log-normal distribution: :math:`\\log X \\sim N(\\mu, \\sigma^2)`.

    .. math::
        p(x) = \\frac{1}{\\sqrt{2\\pi}\\sigma x}
            \\exp\\left(-\\frac{(\\log x - \\mu)^2}{2\\sigma^2}\\right)

    Sampling is reparameterized (:math:`e^{\\mu + \\sigma\\epsilon}`).

    Args:
        mu: The mean :math:`\\mu` of :math:`\\log X` (a Variable or array of
            floating point type).
        sigma: The standard deviation :math:`\\sigma` of :math:`\\log X`, of
            the shape and dtype of ``mu``.
    """

    def __init__(self, mu: Any, sigma: Any) -> None:
        self.mu = distribution._as_param('LogNormal', 'mu', mu)
        self.sigma = distribution._as_param('LogNormal', 'sigma', sigma)
        distribution._check_same('LogNormal', mu=self.mu, sigma=self.sigma)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.mu.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'mu': self.mu, 'sigma': self.sigma}

    def log_prob(self, x: Any) -> Variable:
        log_x = log(x)
        z = (log_x - self.mu) / self.sigma
        return -0.5 * z * z - log(self.sigma) - log_x - _HALF_LOG_2PI

    def cdf(self, x: Any) -> Variable:
        return ndtr((log(x) - self.mu) / self.sigma)

    def icdf(self, x: Any) -> Variable:
        return exp(self.mu + self.sigma * ndtri(x))

    @property
    def entropy(self) -> Variable:
        return self.mu + log(self.sigma) + (0.5 + _HALF_LOG_2PI)

    @property
    def mean(self) -> Variable:
        return exp(self.mu + 0.5 * self.sigma * self.sigma)

    @property
    def mode(self) -> Variable:
        return exp(self.mu - self.sigma * self.sigma)

    @property
    def variance(self) -> Variable:
        sigma2 = self.sigma * self.sigma
        return expm1(sigma2) * exp(2.0 * self.mu + sigma2)

    @property
    def support(self) -> str:
        return 'positive'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        mu = self.mu.array
        eps = self.xp.random.standard_normal((n,) + mu.shape).astype(mu.dtype, copy=False)
        return exp(self.mu + self.sigma * eps)


@register_kl(LogNormal, LogNormal)
def _kl_log_normal_log_normal(dist1: LogNormal, dist2: LogNormal) -> Variable:
    # The divergence is invariant under x -> log x: that of the two normals.
    diff = (dist1.mu - dist2.mu) / dist2.sigma
    ratio = dist1.sigma / dist2.sigma
    return log(dist2.sigma) - log(dist1.sigma) + 0.5 * (ratio * ratio + diff * diff) - 0.5
