"""``Gumbel``: the Gumbel (type-I extreme value) distribution."""

from __future__ import annotations

import math
from typing import Any

from catena.distributions import distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.math.exponential import exp, log
from catena.functions.math.lgamma import lgamma
from catena.variable import Variable

_EULER = 0.57721566490153286061


class Gumbel(distribution.Distribution):
    """The Gumbel distribution.

    .. math::
        p(x) = \\frac{1}{\\beta} \\exp\\left(-z - e^{-z}\\right), \\quad
        z = \\frac{x - \\mu}{\\beta}

    Sampling is reparameterized (:math:`\\mu + \\beta\\epsilon`).

    Args:
        loc: The location :math:`\\mu` (a Variable or array of floating
            point type).
        scale: The scale :math:`\\beta > 0`, of the shape and dtype of ``loc``.
    """

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = distribution._as_param('Gumbel', 'loc', loc)
        self.scale = distribution._as_param('Gumbel', 'scale', scale)
        distribution._check_same('Gumbel', loc=self.loc, scale=self.scale)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.loc.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'loc': self.loc, 'scale': self.scale}

    def log_prob(self, x: Any) -> Variable:
        z = (x - self.loc) / self.scale
        return -z - exp(-z) - log(self.scale)

    def log_cdf(self, x: Any) -> Variable:
        return -exp((self.loc - x) / self.scale)

    def cdf(self, x: Any) -> Variable:
        return exp(self.log_cdf(x))

    def icdf(self, x: Any) -> Variable:
        return self.loc - self.scale * log(-log(x))

    @property
    def entropy(self) -> Variable:
        return log(self.scale) + (1.0 + _EULER)

    @property
    def mean(self) -> Variable:
        return self.loc + _EULER * self.scale

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def variance(self) -> Variable:
        return (math.pi * math.pi / 6.0) * self.scale * self.scale

    @property
    def stddev(self) -> Variable:
        return (math.pi / math.sqrt(6.0)) * self.scale

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        loc = self.loc.array
        eps = self.xp.random.gumbel(size=(n,) + loc.shape).astype(loc.dtype, copy=False)
        return self.loc + self.scale * eps


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(dist1: Gumbel, dist2: Gumbel) -> Variable:
    # E_p[-log q] with X = mu1 + beta1 G, G standard Gumbel, E[e^{-tG}] = Gamma(1 + t).
    ratio = dist1.scale / dist2.scale
    shift = (dist1.loc - dist2.loc) / dist2.scale
    return (-log(ratio) + _EULER * (ratio - 1.0) + shift
            + exp(lgamma(ratio + 1.0) - shift) - 1.0)
