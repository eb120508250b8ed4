"""``Normal``: the normal (Gaussian) distribution."""

from __future__ import annotations

import functools
import math
from typing import Any

from catena.distributions import distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.math.exponential import exp, log
from catena.functions.math.log_ndtr import log_ndtr
from catena.functions.math.ndtr import ndtr
from catena.functions.math.ndtri import ndtri
from catena.variable import Variable

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


class Normal(distribution.Distribution):
    """The normal distribution :math:`N(\\mu, \\sigma^2)`.

    .. math::
        p(x) = \\frac{1}{\\sqrt{2\\pi}\\sigma}
            \\exp\\left(-\\frac{(x - \\mu)^2}{2\\sigma^2}\\right)

    Sampling is reparameterized (:math:`\\mu + \\sigma\\epsilon`), so samples
    are differentiable in both parameters.

    Args:
        loc: The mean :math:`\\mu` (a Variable or array of floating point type).
        scale: The standard deviation :math:`\\sigma`, of the shape and dtype
            of ``loc``.
        log_scale: :math:`\\log\\sigma`, in place of ``scale``. Give exactly
            one of ``scale`` and ``log_scale``.
    """

    def __init__(self, loc: Any, scale: Any = None, log_scale: Any = None) -> None:
        name, value = distribution._one_of('Normal', scale=scale, log_scale=log_scale)
        self.loc = distribution._as_param('Normal', 'loc', loc)
        given = distribution._as_param('Normal', name, value)
        distribution._check_same('Normal', loc=self.loc, **{name: given})
        self._scale_given = name == 'scale'
        self._given = given

    @functools.cached_property
    def scale(self) -> Variable:
        """The standard deviation :math:`\\sigma`."""
        return self._given if self._scale_given else exp(self._given)

    @functools.cached_property
    def log_scale(self) -> Variable:
        """:math:`\\log\\sigma`."""
        return log(self._given) if self._scale_given else self._given

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.loc.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'loc': self.loc, 'scale': self.scale}

    def _standardize(self, x: Any) -> Variable:
        return (x - self.loc) / self.scale

    def log_prob(self, x: Any) -> Variable:
        z = self._standardize(x)
        return -0.5 * z * z - self.log_scale - _HALF_LOG_2PI

    def cdf(self, x: Any) -> Variable:
        return ndtr(self._standardize(x))

    def log_cdf(self, x: Any) -> Variable:
        return log_ndtr(self._standardize(x))

    def survival_function(self, x: Any) -> Variable:
        return ndtr(-self._standardize(x))

    def log_survival_function(self, x: Any) -> Variable:
        return log_ndtr(-self._standardize(x))

    def icdf(self, x: Any) -> Variable:
        return self.loc + self.scale * ndtri(x)

    @property
    def entropy(self) -> Variable:
        return self.log_scale + (0.5 + _HALF_LOG_2PI)

    @property
    def mean(self) -> Variable:
        return self.loc

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def variance(self) -> Variable:
        return self.scale * self.scale

    @property
    def stddev(self) -> Variable:
        return self.scale

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        loc = self.loc.array
        eps = self.xp.random.standard_normal((n,) + loc.shape).astype(loc.dtype, copy=False)
        return self.loc + self.scale * eps


@register_kl(Normal, Normal)
def _kl_normal_normal(dist1: Normal, dist2: Normal) -> Variable:
    diff = (dist1.loc - dist2.loc) / dist2.scale
    ratio = dist1.scale / dist2.scale
    return dist2.log_scale - dist1.log_scale + 0.5 * (ratio * ratio + diff * diff) - 0.5
