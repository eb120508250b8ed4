"""``Pareto``: the Pareto distribution (type I)."""

from __future__ import annotations

from typing import Any

from catena.distributions import _support, distribution
from catena.distributions.kl_divergence import register_kl
from catena.functions.array.where import where
from catena.functions.math.exponential import exp, log
from catena.functions.math.logarithm_1p import log1p
from catena.variable import Variable, as_array


class Pareto(distribution.Distribution):
    """The Pareto distribution with scale :math:`x_m` and shape :math:`\\alpha`.

    .. math::
        p(x) = \\frac{\\alpha x_m^{\\alpha}}{x^{\\alpha + 1}}, \\quad x \\ge x_m

    Sampling is reparameterized (:math:`x_m e^{\\epsilon / \\alpha}` with a
    standard exponential :math:`\\epsilon`, the same draws as
    ``scale * (numpy.random.pareto(alpha) + 1)``), so samples are
    differentiable in both parameters.

    Args:
        scale: The scale (minimum) :math:`x_m > 0` (a Variable or array of
            floating point type).
        alpha: The shape :math:`\\alpha > 0`, of the shape and dtype of
            ``scale``.
    """

    def __init__(self, scale: Any, alpha: Any) -> None:
        self.scale = distribution._as_param('Pareto', 'scale', scale)
        self.alpha = distribution._as_param('Pareto', 'alpha', alpha)
        distribution._check_same('Pareto', scale=self.scale, alpha=self.alpha)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.scale.shape)

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {'scale': self.scale, 'alpha': self.alpha}

    def _inside(self, x: Any) -> tuple[Any, Any]:
        """``x`` in the parameters' dtype and where it lies in the support."""
        x = _support.as_value(x, self.scale)
        return x, as_array(x) >= self.scale.array

    def log_prob(self, x: Any) -> Variable:
        x, inside = self._inside(x)
        x = _support.replace_outside(x, inside, self.scale.array)
        lp = log(self.alpha) + self.alpha * log(self.scale) - (self.alpha + 1.0) * log(x)
        return _support.set_outside(lp, inside, -float('inf'))

    def cdf(self, x: Any) -> Variable:
        x, inside = self._inside(x)
        x = _support.replace_outside(x, inside, self.scale.array)
        c = 1.0 - exp(self.alpha * (log(self.scale) - log(x)))
        return _support.set_outside(c, inside, 0.0)

    def icdf(self, x: Any) -> Variable:
        return self.scale * exp(-log1p(-x) / self.alpha)

    @property
    def entropy(self) -> Variable:
        return log(self.scale) - log(self.alpha) + 1.0 / self.alpha + 1.0

    @property
    def mean(self) -> Variable:
        """:math:`\\alpha x_m / (\\alpha - 1)` for :math:`\\alpha > 1`, infinite otherwise."""
        alpha = self.alpha
        finite = alpha.array > 1
        mean = self.scale * alpha / (_support.replace_outside(alpha, finite, 2.0) - 1.0)
        return _support.set_outside(mean, finite, float('inf'))

    @property
    def mode(self) -> Variable:
        return self.scale

    @property
    def variance(self) -> Variable:
        """:math:`x_m^2 \\alpha / ((\\alpha - 1)^2 (\\alpha - 2))` for :math:`\\alpha > 2`.

        Infinite for :math:`\\alpha \\le 2`.
        """
        alpha = self.alpha
        finite = alpha.array > 2
        safe = _support.replace_outside(alpha, finite, 3.0)
        variance = self.scale * self.scale * alpha / ((safe - 1.0) * (safe - 1.0) * (safe - 2.0))
        return _support.set_outside(variance, finite, float('inf'))

    @property
    def support(self) -> str:
        return '[scale, inf]'

    def sample_n(self, n: int) -> Variable:
        n = distribution._check_n(n)
        scale = self.scale.array
        eps = self.xp.random.standard_exponential((n,) + scale.shape)
        return self.scale * exp(eps.astype(scale.dtype, copy=False) / self.alpha)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(dist1: Pareto, dist2: Pareto) -> Variable:
    # Infinite unless the support of dist1 lies inside that of dist2.
    kl = (dist2.alpha * (log(dist1.scale) - log(dist2.scale))
          + log(dist1.alpha) - log(dist2.alpha)
          + (dist2.alpha - dist1.alpha) / dist1.alpha)
    inside = dist1.scale.array >= dist2.scale.array
    return where(inside, kl, dist1.xp.full((), dist1.xp.inf, kl.dtype))
