"""``Cauchy``: the Cauchy (Lorentz) distribution."""

from __future__ import annotations

import math
import warnings
from typing import Any

from catena.distributions import distribution
from catena.functions.math.exponential import log
from catena.functions.math.logarithm_1p import log1p
from catena.functions.math.trigonometric import arctan, tan
from catena.variable import Variable, as_variable

_LOG_PI = math.log(math.pi)


class Cauchy(distribution.Distribution):
    """The Cauchy distribution.

    .. math::
        p(x) = \\frac{1}{\\pi\\gamma\\left(1 + \\left(\\frac{x - x_0}{\\gamma}
            \\right)^2\\right)}

    Its mean and variance are undefined: ``mean`` and ``variance`` warn and
    return NaN. Sampling is reparameterized (:math:`x_0 + \\gamma\\epsilon`).

    Args:
        loc: The location :math:`x_0` (a Variable or array of floating point
            type).
        scale: The scale :math:`\\gamma > 0`, of the shape and dtype of ``loc``.
    """

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = distribution._as_param('Cauchy', 'loc', loc)
        self.scale = distribution._as_param('Cauchy', 'scale', scale)
        distribution._check_same('Cauchy', loc=self.loc, scale=self.scale)

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
        return -log1p(z * z) - log(self.scale) - _LOG_PI

    def cdf(self, x: Any) -> Variable:
        return arctan((x - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, x: Any) -> Variable:
        return self.loc + self.scale * tan((as_variable(x) - 0.5) * math.pi)

    @property
    def entropy(self) -> Variable:
        return log(self.scale) + math.log(4.0 * math.pi)

    def _undefined(self, what: str) -> Variable:
        warnings.warn(f'the {what} of the Cauchy distribution is undefined; returning NaN',
                      RuntimeWarning, stacklevel=3)
        loc = self.loc.array
        return Variable(self.xp.full(loc.shape, self.xp.nan, loc.dtype), requires_grad=False)

    @property
    def mean(self) -> Variable:
        return self._undefined('mean')

    @property
    def variance(self) -> Variable:
        return self._undefined('variance')

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        loc = self.loc.array
        eps = self.xp.random.standard_cauchy((n,) + loc.shape).astype(loc.dtype, copy=False)
        return self.loc + self.scale * eps
