"""``Laplace``: the Laplace (double exponential) distribution."""

from __future__ import annotations

import math
from typing import Any

from catena.distributions import _support, distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.math.basic_math import absolute
from catena.functions.math.exponential import exp, log
from catena.functions.math.exponential_m1 import expm1
from catena.functions.math.logarithm_1p import log1p
from catena.functions.math.sign import sign
from catena.variable import Variable, as_variable

_LOG_2 = math.log(2.0)


def _laplace_cdf(x: Any) -> Variable:
    """The CDF of the standard Laplace distribution (location 0, scale 1)."""
    x = as_variable(x)
    return 0.5 - 0.5 * sign(x) * expm1(-absolute(x))


def _laplace_icdf(x: Any) -> Variable:
    """The inverse CDF of the standard Laplace distribution, for ``x`` in (0, 1)."""
    centred = as_variable(x) - 0.5
    return -sign(centred) * log1p(-2.0 * absolute(centred))


class Laplace(distribution.Distribution):
    """The Laplace distribution.

    .. math::
        p(x) = \\frac{1}{2b} \\exp\\left(-\\frac{|x - \\mu|}{b}\\right)

    Sampling is reparameterized (:math:`\\mu + b\\epsilon`).

    Args:
        loc: The location :math:`\\mu` (a Variable or array of floating
            point type).
        scale: The scale :math:`b > 0`, of the shape and dtype of ``loc``.
    """

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = distribution._as_param('Laplace', 'loc', loc)
        self.scale = distribution._as_param('Laplace', 'scale', scale)
        distribution._check_same('Laplace', loc=self.loc, scale=self.scale)

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
        return -absolute(x - self.loc) / self.scale - log(self.scale) - _LOG_2

    def cdf(self, x: Any) -> Variable:
        return _laplace_cdf((_support.as_value(x, self.loc) - self.loc) / self.scale)

    def icdf(self, x: Any) -> Variable:
        return self.loc + self.scale * _laplace_icdf(_support.as_value(x, self.loc))

    @property
    def entropy(self) -> Variable:
        return log(self.scale) + (1.0 + _LOG_2)

    @property
    def mean(self) -> Variable:
        return self.loc

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def variance(self) -> Variable:
        return 2.0 * self.scale * self.scale

    @property
    def stddev(self) -> Variable:
        return math.sqrt(2.0) * self.scale

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        loc = self.loc.array
        eps = self.xp.random.laplace(size=(n,) + loc.shape).astype(loc.dtype, copy=False)
        return self.loc + self.scale * eps


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(dist1: Laplace, dist2: Laplace) -> Variable:
    distance = absolute(dist1.loc - dist2.loc)
    ratio = dist1.scale / dist2.scale
    return (-log(ratio) + distance / dist2.scale
            + ratio * exp(-distance / dist1.scale) - 1.0)
