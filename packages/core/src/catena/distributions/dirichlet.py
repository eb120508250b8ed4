"""``Dirichlet``: the Dirichlet distribution over the probability simplex."""

from __future__ import annotations

from typing import Any

from catena.distributions import _support, distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.array.expand_dims import expand_dims
from catena.functions.math.digamma import digamma
from catena.functions.math.lgamma import lgamma
from catena.functions.math.sum import sum as sum_
from catena.variable import Variable, as_array


class Dirichlet(distribution.Distribution):
    """The Dirichlet distribution with concentrations :math:`\\alpha`.

    .. math::
        p(x) = \\frac{\\Gamma(\\alpha_0)}{\\prod_i \\Gamma(\\alpha_i)}
            \\prod_i x_i^{\\alpha_i - 1}, \\quad
            \\alpha_0 = \\sum_i \\alpha_i

    for :math:`x` on the simplex (:math:`x_i \\ge 0`, :math:`\\sum_i x_i = 1`).
    The last axis of ``alpha`` is the event axis; the others are the batch.
    Samples are not reparameterized: they carry no gradient.

    Args:
        alpha: The concentrations :math:`\\alpha_i > 0`, last axis (a
            Variable or array of floating point type with at least one axis).
    """

    def __init__(self, alpha: Any) -> None:
        self.alpha = distribution._as_param('Dirichlet', 'alpha', alpha)
        if self.alpha.ndim < 1:
            raise ValueError('Dirichlet: alpha must have at least one axis (the event axis, '
                             f'last); got shape {self.alpha.shape}')

    @property
    def alpha0(self) -> Variable:
        """The total concentration :math:`\\alpha_0`, of the batch shape."""
        return sum_(self.alpha, axis=-1)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.alpha.shape[:-1])

    @property
    def event_shape(self) -> tuple[int, ...]:
        return tuple(self.alpha.shape[-1:])

    @property
    def params(self) -> dict[str, Variable]:
        return {'alpha': self.alpha}

    def log_prob(self, x: Any) -> Variable:
        x = _support.as_value(x, self.alpha)
        shape = as_array(x).shape
        if shape[-1:] != self.event_shape:
            raise ValueError(f'Dirichlet.log_prob: x must end with the event shape '
                             f'{self.event_shape}; got shape {shape}')
        inside = as_array(x) >= 0
        x = _support.replace_outside(x, inside, 0.5)
        lp = (sum_(_support.mul_log(self.alpha - 1.0, x), axis=-1)
              + lgamma(self.alpha0) - sum_(lgamma(self.alpha), axis=-1))
        return _support.set_outside(lp, inside.all(axis=-1), -float('inf'))

    @property
    def entropy(self) -> Variable:
        alpha, alpha0 = self.alpha, self.alpha0
        k = alpha.shape[-1]
        return (sum_(lgamma(alpha), axis=-1) - lgamma(alpha0)
                + (alpha0 - float(k)) * digamma(alpha0)
                - sum_((alpha - 1.0) * digamma(alpha), axis=-1))

    @property
    def mean(self) -> Variable:
        return self.alpha / expand_dims(self.alpha0, -1)

    @property
    def mode(self) -> Variable:
        """:math:`(\\alpha_i - 1) / (\\alpha_0 - k)`, meant for all :math:`\\alpha_i > 1`."""
        k = self.alpha.shape[-1]
        return (self.alpha - 1.0) / expand_dims(self.alpha0 - float(k), -1)

    @property
    def variance(self) -> Variable:
        alpha0 = expand_dims(self.alpha0, -1)
        return self.alpha * (alpha0 - self.alpha) / (alpha0 * alpha0 * (alpha0 + 1.0))

    @property
    def support(self) -> str:
        return '[0, 1]'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        alpha = self.alpha.array
        # Normalized independent Gamma(alpha_i, 1) draws are Dirichlet(alpha).
        g = self.xp.random.standard_gamma(alpha, size=(n,) + alpha.shape)
        g /= g.sum(axis=-1, keepdims=True)
        return Variable(g.astype(alpha.dtype, copy=False), requires_grad=False)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(dist1: Dirichlet, dist2: Dirichlet) -> Variable:
    alpha, beta = dist1.alpha, dist2.alpha
    alpha0 = dist1.alpha0
    return (lgamma(alpha0) - sum_(lgamma(alpha), axis=-1)
            - lgamma(dist2.alpha0) + sum_(lgamma(beta), axis=-1)
            + sum_((alpha - beta) * (digamma(alpha) - expand_dims(digamma(alpha0), -1)),
                   axis=-1))
