"""``Geometric``: the number of Bernoulli trials up to the first success."""

from __future__ import annotations

from typing import Any

from catena.distributions import _support, distribution
from catena.distributions._utils import xlogx
from catena.distributions.kl_divergence import register_kl
from catena.functions.math.exponential import exp, log
from catena.functions.math.logarithm_1p import log1p
from catena.variable import Variable, as_array


class Geometric(distribution.Distribution):
    """The geometric distribution with success probability :math:`p`.

    .. math::
        P(x = k) = p (1 - p)^{k - 1}, \\quad k = 1, 2, 3, \\dots

    Samples are in the dtype of ``p`` and are not differentiable.

    Args:
        p: The success probability :math:`0 < p \\le 1` of each trial (a
            Variable or array of floating point type).
    """

    def __init__(self, p: Any) -> None:
        self.p = distribution._as_param('Geometric', 'p', p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.p.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'p': self.p}

    def log_prob(self, x: Any) -> Variable:
        x = _support.as_value(x, self.p)
        x_array = as_array(x)
        inside = (x_array >= 1) & _support.is_integer(x_array)
        x = _support.replace_outside(x, inside, 1.0)
        lp = _support.mul_log(x - 1.0, 1.0 - self.p) + log(self.p)
        return _support.set_outside(lp, inside, -float('inf'))

    def cdf(self, x: Any) -> Variable:
        """:math:`1 - (1 - p)^{\\lfloor x \\rfloor}` for :math:`x \\ge 1`, 0 below."""
        x_array = _support.as_value(x, self.p).array
        xp = self.xp
        trials = xp.floor(xp.maximum(x_array, 0))
        # (1 - p)^n as exp(n log(1 - p)); mul_log takes 0 log 0 as 0 (p = 1 and x < 1).
        return 1.0 - exp(_support.mul_log(trials, 1.0 - self.p))

    @property
    def entropy(self) -> Variable:
        p = self.p
        return -(xlogx(1.0 - p) + xlogx(p)) / p

    @property
    def mean(self) -> Variable:
        return 1.0 / self.p

    @property
    def mode(self) -> Variable:
        return Variable(self.xp.ones_like(self.p.array), requires_grad=False)

    @property
    def variance(self) -> Variable:
        return (1.0 - self.p) / (self.p * self.p)

    @property
    def support(self) -> str:
        return 'positive integer'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        p = self.p.array
        eps = self.xp.random.geometric(p, size=(n,) + p.shape)
        return Variable(eps.astype(p.dtype, copy=False), requires_grad=False)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(dist1: Geometric, dist2: Geometric) -> Variable:
    p1, p2 = dist1.p, dist2.p
    # E[x - 1] = 1/p1 - 1 failures, each contributing log((1 - p1) / (1 - p2)).
    return ((1.0 / p1 - 1.0) * (log1p(-p1) - log1p(-p2))
            + log(p1) - log(p2))
