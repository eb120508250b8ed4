"""``Exponential``: the exponential distribution."""

from __future__ import annotations

from typing import Any

from catena.distributions import _support, distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.array.where import where
from catena.functions.math.exponential import log
from catena.functions.math.exponential_m1 import expm1
from catena.functions.math.logarithm_1p import log1p
from catena.variable import Variable, as_array


class Exponential(distribution.Distribution):
    """The exponential distribution with rate :math:`\\lambda`.

    .. math::
        p(x) = \\lambda e^{-\\lambda x}, \\quad x \\ge 0

    Sampling is reparameterized (:math:`\\epsilon / \\lambda` with a
    standard exponential :math:`\\epsilon`).

    Args:
        lam: The rate :math:`\\lambda > 0` (a Variable or array of floating
            point type).
    """

    def __init__(self, lam: Any) -> None:
        self.lam = distribution._as_param('Exponential', 'lam', lam)

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
        lp = log(self.lam) - self.lam * x
        negative = as_array(x) < 0
        return where(negative, self.xp.full(lp.shape, -self.xp.inf, lp.dtype), lp)

    def cdf(self, x: Any) -> Variable:
        c = -expm1(-self.lam * x)
        negative = as_array(x) < 0
        return where(negative, self.xp.zeros(c.shape, c.dtype), c)

    def icdf(self, x: Any) -> Variable:
        return -log1p(-_support.as_value(x, self.lam)) / self.lam

    @property
    def entropy(self) -> Variable:
        return 1.0 - log(self.lam)

    @property
    def mean(self) -> Variable:
        return 1.0 / self.lam

    @property
    def mode(self) -> Variable:
        return Variable(self.xp.zeros_like(self.lam.array), requires_grad=False)

    @property
    def variance(self) -> Variable:
        return 1.0 / (self.lam * self.lam)

    @property
    def stddev(self) -> Variable:
        return 1.0 / self.lam

    @property
    def support(self) -> str:
        return 'positive'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        lam = self.lam.array
        eps = self.xp.random.standard_exponential((n,) + lam.shape).astype(lam.dtype, copy=False)
        return eps / self.lam


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(dist1: Exponential, dist2: Exponential) -> Variable:
    ratio = dist2.lam / dist1.lam
    return ratio - log(ratio) - 1.0
