"""``Chisquare``: the chi-square distribution."""

from __future__ import annotations

import math
from typing import Any

from catena.distributions import _support, distribution
from catena.functions.math.digamma import digamma
from catena.functions.math.lgamma import lgamma
from catena.functions.math.maximum import maximum
from catena.variable import Variable, as_array

_LOG2 = math.log(2.0)


class Chisquare(distribution.Distribution):
    """The chi-square distribution with :math:`k` degrees of freedom.

    .. math::
        p(x) = \\frac{x^{k/2 - 1} e^{-x/2}}{2^{k/2}\\Gamma(k/2)}, \\quad x \\ge 0

    Samples are not reparameterized: they carry no gradient.

    Args:
        k: The degrees of freedom :math:`k > 0` (a Variable or array of
            floating point type).
    """

    def __init__(self, k: Any) -> None:
        self.k = distribution._as_param('Chisquare', 'k', k)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.k.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'k': self.k}

    def log_prob(self, x: Any) -> Variable:
        x = _support.as_value(x, self.k)
        inside = as_array(x) >= 0
        x = _support.replace_outside(x, inside, 1.0)
        half_k = 0.5 * self.k
        lp = _support.mul_log(half_k - 1.0, x) - 0.5 * x - _LOG2 * half_k - lgamma(half_k)
        return _support.set_outside(lp, inside, -float('inf'))

    @property
    def entropy(self) -> Variable:
        half_k = 0.5 * self.k
        return half_k + _LOG2 + lgamma(half_k) + (1.0 - half_k) * digamma(half_k)

    @property
    def mean(self) -> Variable:
        return self.k

    @property
    def mode(self) -> Variable:
        """:math:`\\max(k - 2, 0)`."""
        return maximum(self.k - 2.0, self.xp.zeros_like(self.k.array))

    @property
    def variance(self) -> Variable:
        return 2.0 * self.k

    @property
    def support(self) -> str:
        return 'positive'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        k = self.k.array
        eps = self.xp.random.chisquare(k, size=(n,) + k.shape)
        return Variable(eps.astype(k.dtype, copy=False), requires_grad=False)
