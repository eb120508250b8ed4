"""``Beta``: the beta distribution on the unit interval."""

from __future__ import annotations

from typing import Any

from catena.distributions import _support, distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.math.digamma import digamma
from catena.variable import Variable, as_array


class Beta(distribution.Distribution):
    """The beta distribution with shape parameters :math:`a` and :math:`b`.

    .. math::
        p(x) = \\frac{x^{a - 1} (1 - x)^{b - 1}}{B(a, b)}, \\quad 0 \\le x \\le 1

    Samples are not reparameterized: they carry no gradient.

    Args:
        a: The first shape parameter :math:`a > 0` (a Variable or array of
            floating point type).
        b: The second shape parameter :math:`b > 0`, of the shape and dtype
            of ``a``.
    """

    def __init__(self, a: Any, b: Any) -> None:
        self.a = distribution._as_param('Beta', 'a', a)
        self.b = distribution._as_param('Beta', 'b', b)
        distribution._check_same('Beta', a=self.a, b=self.b)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.a.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'a': self.a, 'b': self.b}

    def log_prob(self, x: Any) -> Variable:
        x = _support.as_value(x, self.a)
        x_array = as_array(x)
        inside = (x_array >= 0) & (x_array <= 1)
        x = _support.replace_outside(x, inside, 0.5)
        lp = (_support.mul_log(self.a - 1.0, x) + _support.mul_log(self.b - 1.0, 1.0 - x)
              - _support.lbeta(self.a, self.b))
        return _support.set_outside(lp, inside, -float('inf'))

    @property
    def entropy(self) -> Variable:
        a, b = self.a, self.b
        return (_support.lbeta(a, b) - (a - 1.0) * digamma(a) - (b - 1.0) * digamma(b)
                + (a + b - 2.0) * digamma(a + b))

    @property
    def mean(self) -> Variable:
        return self.a / (self.a + self.b)

    @property
    def mode(self) -> Variable:
        """:math:`(a - 1) / (a + b - 2)` where :math:`a > 1` and :math:`b > 1`; NaN elsewhere."""
        mode = (self.a - 1.0) / (self.a + self.b - 2.0)
        defined = (self.a.array > 1) & (self.b.array > 1)
        return _support.set_outside(mode, defined, float('nan'))

    @property
    def variance(self) -> Variable:
        apb = self.a + self.b
        return self.a * self.b / (apb * apb * (apb + 1.0))

    @property
    def support(self) -> str:
        return '[0, 1]'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        a, b = self.a.array, self.b.array
        eps = self.xp.random.beta(a, b, size=(n,) + a.shape)
        return Variable(eps.astype(a.dtype, copy=False), requires_grad=False)


@register_kl(Beta, Beta)
def _kl_beta_beta(dist1: Beta, dist2: Beta) -> Variable:
    apb1 = dist1.a + dist1.b
    apb2 = dist2.a + dist2.b
    return (_support.lbeta(dist2.a, dist2.b) - _support.lbeta(dist1.a, dist1.b)
            + (dist1.a - dist2.a) * digamma(dist1.a)
            + (dist1.b - dist2.b) * digamma(dist1.b)
            + (apb2 - apb1) * digamma(apb1))
