"""``Gamma``: the gamma distribution (shape and scale)."""

from __future__ import annotations

from typing import Any

from catena.distributions import _support, distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.array.broadcast import broadcast_to
from catena.functions.math.digamma import digamma
from catena.functions.math.exponential import log
from catena.functions.math.lgamma import lgamma
from catena.functions.math.maximum import maximum
from catena.variable import Variable, as_array


class Gamma(distribution.Distribution):
    """The gamma distribution with shape :math:`k` and scale :math:`\\theta`.

    .. math::
        p(x) = \\frac{x^{k - 1} e^{-x/\\theta}}{\\Gamma(k)\\theta^k}, \\quad x \\ge 0

    Sampling is reparameterized in the scale only (:math:`\\theta\\epsilon`
    with :math:`\\epsilon \\sim \\mathrm{Gamma}(k, 1)`): samples carry the
    gradient of ``theta`` but not that of ``k``.

    Args:
        k: The shape :math:`k > 0` (a Variable or array of floating point
            type).
        theta: The scale :math:`\\theta > 0`, of the shape and dtype of ``k``.
    """

    def __init__(self, k: Any, theta: Any) -> None:
        self.k = distribution._as_param('Gamma', 'k', k)
        self.theta = distribution._as_param('Gamma', 'theta', theta)
        distribution._check_same('Gamma', k=self.k, theta=self.theta)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.k.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'k': self.k, 'theta': self.theta}

    def log_prob(self, x: Any) -> Variable:
        x = _support.as_value(x, self.k)
        inside = as_array(x) >= 0
        x = _support.replace_outside(x, inside, 1.0)
        lp = (_support.mul_log(self.k - 1.0, x) - x / self.theta - lgamma(self.k)
              - self.k * log(self.theta))
        return _support.set_outside(lp, inside, -float('inf'))

    @property
    def entropy(self) -> Variable:
        k = self.k
        return k + log(self.theta) + lgamma(k) + (1.0 - k) * digamma(k)

    @property
    def mean(self) -> Variable:
        return self.k * self.theta

    @property
    def mode(self) -> Variable:
        """:math:`(k - 1)\\theta` for :math:`k \\ge 1`, and 0 for :math:`k < 1`."""
        return maximum(self.k - 1.0, self.xp.zeros_like(self.k.array)) * self.theta

    @property
    def variance(self) -> Variable:
        return self.k * self.theta * self.theta

    @property
    def support(self) -> str:
        return 'positive'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        k = self.k.array
        eps = self.xp.random.standard_gamma(k, size=(n,) + k.shape)
        eps = eps.astype(k.dtype, copy=False)
        return broadcast_to(self.theta, eps.shape) * eps


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(dist1: Gamma, dist2: Gamma) -> Variable:
    k1, t1, k2, t2 = dist1.k, dist1.theta, dist2.k, dist2.theta
    return ((k1 - k2) * digamma(k1) - lgamma(k1) + lgamma(k2)
            + k2 * (log(t2) - log(t1)) + k1 * (t1 / t2 - 1.0))
